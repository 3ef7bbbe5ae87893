package logs

import (
	"strings"
	"testing"
)

// malformedCases is the corpus of broken inputs: each gives exactly these
// messages (a position, then what is wrong), in this order, and no panic.
// The fuzz targets start from it too.
var malformedCases = []struct {
	name   string
	format Format
	in     string
	want   []string
}{
	// Inputs that stop being JSON.
	{"doc-syntax-line-col", FormatLiteLLM, "{\n  \"startTime\": 1,\n  \"model\": x\n}",
		[]string{`x:3: invalid JSON at column 12: invalid character 'x' looking for beginning of value`}},
	{"doc-truncated", FormatLangfuse, "{\n  \"trace\": {\n",
		[]string{`x:3: invalid JSON at column 1: truncated JSON: unexpected end of input`}},
	{"doc-after-good-doc", FormatLiteLLM, "{\n \"startTime\": 1\n}\n{\n ]",
		[]string{`x:5: invalid JSON at column 2: invalid character ']' looking for beginning of object key string`}},
	{"doc-invalid-utf8", FormatOTel, "{\n  \"resourceSpans\": [\"\xff\"]\n}",
		[]string{`x:2: invalid UTF-8 at column 22`}},
	{"jsonl-bad-line-goes-on", FormatLiteLLM, "{\"startTime\":1,\"messages\":[]}\n{\"startTime\":\n{\"startTime\":2,\"messages\":[]}",
		[]string{`x:2: truncated JSON: the value ends after 13 bytes`}},
	{"jsonl-broken-first-line", FormatLiteLLM, "{\"startTime\":1,\"messa\n{\"startTime\":2,\"messages\":[]}",
		[]string{`x:1: truncated JSON: the value ends after 21 bytes`}},
	{"jsonl-invalid-utf8", FormatLangfuse, "{\"observations\":[],\"x\":\"\xc3\x28\"}\n",
		[]string{`x:1: invalid UTF-8 at byte 25`}},
	{"jsonl-trailing-data", FormatOTel, `{"resourceSpans":[]}` + "\n" + `{"resourceSpans":[]} x` + "\n\n",
		[]string{`x:2: unexpected data after the JSON value at byte 22`}},
	{"concatenated-documents", FormatOTel, `{"resourceSpans":[]} {"x":1}`,
		[]string{`x:1: an OTLP trace document needs a "resourceSpans" array`}},
	{"jsonl-array-broken", FormatLiteLLM, "[{\"startTime\":1,\"messages\":[]}, }\n",
		[]string{`x:1: invalid JSON at column 33: invalid character '}' looking for beginning of value`}},

	// LiteLLM.
	{"litellm-not-object", FormatLiteLLM, "42\n\"s\"\n", []string{`x:1: a LiteLLM log entry is a JSON object, got a number`, `x:2: a LiteLLM log entry is a JSON object, got a string`}},
	{"litellm-no-start", FormatLiteLLM, `{"call_type":"completion","messages":[]}`, []string{`x:1: missing "startTime"`}},
	{"litellm-bad-start", FormatLiteLLM, `{"startTime":"yesterday"}`, []string{`x:1: "startTime": unparsable timestamp: a string of 9 characters where a time was expected (want RFC 3339 or Unix seconds/milliseconds)`}},
	{"litellm-null-start", FormatLiteLLM, `{"startTime":null}`, []string{`x:1: "startTime": is null`}},
	{"litellm-negative-start", FormatLiteLLM, `{"startTime":-5}`, []string{`x:1: "startTime": timestamp -5 is not a Unix time`}},
	{"litellm-bool-start", FormatLiteLLM, `{"startTime":true}`, []string{`x:1: "startTime": not a time: a boolean`}},

	// Langfuse.
	{"langfuse-not-object", FormatLangfuse, `[1]`, []string{`x:[0]: a Langfuse trace export is a JSON object, got a number`}},
	{"langfuse-no-observations", FormatLangfuse, `{"trace":{}}`, []string{`x:1: a Langfuse trace export needs "observations"`}},
	{"langfuse-observations-object", FormatLangfuse, `{"trace":{},"observations":{}}`, []string{`x:observations: want an array, got an object`}},
	{"langfuse-observation-not-object", FormatLangfuse, `{"observations":[null,"x"]}`,
		[]string{`x:observations[0]: an observation is a JSON object, got null`, `x:observations[1]: an observation is a JSON object, got a string`}},
	{"langfuse-no-start", FormatLangfuse, `{"observations":[{"type":"GENERATION","input":"q"}]}`, []string{`x:observations[0]: GENERATION observation without "startTime"`}},
	{"langfuse-bad-start", FormatLangfuse, "{\"observations\":[{\"type\":\"SPAN\"},\n{\"type\":\"GENERATION\",\"input\":\"q\",\"startTime\":\"2025-13-01T00:00:00Z\"}]}",
		[]string{`x:observations[1]: "startTime": unparsable timestamp: a string of 20 characters where a time was expected (want RFC 3339)`}},
	{"langfuse-jsonl-positions", FormatLangfuse, "{\"observations\":[]}\n{\"observations\":[{\"type\":\"GENERATION\",\"input\":\"q\",\"startTime\":7}]}\n{\"observations\":[{\"type\":\"GENERATION\",\"input\":\"q\",\"startTime\":[]}]}",
		[]string{`x:3:observations[0]: "startTime": not a time: an array`}},

	// OTLP.
	{"otel-no-resource-spans", FormatOTel, `{"resourceLogs":[]}`, []string{`x:1: an OTLP trace document needs a "resourceSpans" array`}},
	{"otel-resource-not-object", FormatOTel, `{"resourceSpans":[7]}`, []string{`x:resourceSpans[0]: want an object, got a number`}},
	{"otel-resource-attributes", FormatOTel, `{"resourceSpans":[{"resource":{"attributes":{}}}]}`,
		[]string{`x:resourceSpans[0].resource: "attributes": want an array, got an object`}},
	{"otel-span-not-object", FormatOTel, `{"resourceSpans":[{"scopeSpans":[{"spans":[[]]}]}]}`,
		[]string{`x:resourceSpans[0].scopeSpans[0].spans[0]: a span is a JSON object, got an array`}},
	{"otel-attribute-without-key", FormatOTel, `{"resourceSpans":[{"scopeSpans":[{"spans":[{"attributes":[{"value":{}}]}]}]}]}`,
		[]string{`x:resourceSpans[0].scopeSpans[0].spans[0]: attributes[0]: want {"key": …, "value": …}`}},
	{"otel-bad-any-value", FormatOTel, `{"resourceSpans":[{"scopeSpans":[{"spans":[{"attributes":[{"key":"gen_ai.usage.input_tokens","value":{"intValue":"1.5"}}]}]}]}]}`,
		[]string{`x:resourceSpans[0].scopeSpans[0].spans[0]: attribute "gen_ai.usage.input_tokens": intValue is not an integer`}},
	{"otel-no-start", FormatOTel, `{"resourceSpans":[{"scopeSpans":[{"spans":[{"attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}}]}]}]}]}`,
		[]string{`x:resourceSpans[0].scopeSpans[0].spans[0]: "startTimeUnixNano": missing`}},
	{"otel-bad-start", FormatOTel, `{"resourceSpans":[{"scopeSpans":[{"spans":[{"startTimeUnixNano":"soon","attributes":[{"key":"gen_ai.request.model","value":{"stringValue":"m"}}]}]}]}]}`,
		[]string{`x:resourceSpans[0].scopeSpans[0].spans[0]: "startTimeUnixNano": not a number of nanoseconds: "soon"`}},
	{"otel-zero-start", FormatOTel, `{"resourceSpans":[{"scopeSpans":[{"spans":[{"startTimeUnixNano":"0","attributes":[{"key":"gen_ai.request.model","value":{"stringValue":"m"}}]}]}]}]}`,
		[]string{`x:resourceSpans[0].scopeSpans[0].spans[0]: "startTimeUnixNano": 0 is not a time`}},

	// Capture and completion logs in documents (the per-line mapping is
	// ingest's; the position is the document's).
	{"capture-doc-missing-ts", FormatCapture, "{\n  \"agent\": \"a\",\n  \"request\": {}\n}", []string{`x:1: missing "ts"`}},
	{"capture-array-elements", FormatCapture, "[\n{\"ts\":1,\"agent\":\"a\",\"request\":{}},\n{\"agent\":\"a\"}\n]", []string{`x:[1]: missing "ts"`}},
	{"completion-log-doc-no-time", FormatCompletionLog, "{\n \"messages\": []\n}", []string{`x:1: completion log without "timestamp"`}},
}

func TestMalformed(t *testing.T) {
	for _, tt := range malformedCases {
		t.Run(tt.name, func(t *testing.T) {
			recs := readAll(t, open(t, tt.in, "x", tt.format, Options{}), "x")
			if got := errs(recs); strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("errors\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestIOError: a read error ends every reader, with the error, after the
// records read before it.
func TestIOError(t *testing.T) {
	lines := map[Format]string{
		FormatLiteLLM:  `{"startTime":1,"messages":[]}`,
		FormatLangfuse: `{"observations":[{"type":"SPAN"}]}`,
		FormatOTel:     `{"resourceSpans":[]}`,
		FormatCapture:  `{"ts":1,"agent":"a","request":{}}`,
	}
	for f, line := range lines {
		for _, data := range []string{line + "\n", "{\n"} {
			r, _ := NewReader(&errReader{data: []byte(data), err: errTest}, "x", f, Options{})
			n := 0
			for r.Scan() {
				n++
			}
			if r.Err() == nil || !strings.Contains(r.Err().Error(), errTest.Error()) {
				t.Errorf("%s %q: err %v after %d records", f, data, r.Err(), n)
			}
		}
	}
}

// TestEmptyInputs: nothing in, nothing out, no error.
func TestEmptyInputs(t *testing.T) {
	for _, in := range []string{"", "\n\n", "   \t\r\n", "\xef\xbb\xbf"} {
		for _, f := range Formats {
			recs := readAll(t, open(t, in, "x", f, Options{}), "x")
			if len(recs) != 0 {
				t.Errorf("%s %q: %d records", f, in, len(recs))
			}
		}
	}
}
