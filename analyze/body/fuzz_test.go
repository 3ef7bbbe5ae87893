package body

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/valyala/fastjson"
)

// addFixtureSeeds adds the named section of every fixture in testdata/dir.
func addFixtureSeeds(f *testing.F, dir string, sections ...string) {
	paths, err := filepath.Glob(filepath.Join("testdata", dir, "*.txtar"))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no fixtures in testdata/%s", dir)
	}
	for _, path := range paths {
		a := readArchive(f, path)
		for _, s := range sections {
			if b, ok := a.files[s]; ok {
				f.Add(b)
			}
		}
	}
}

// checkSig checks the shape of a signature: calls joined by single "\n".
func checkSig(t *testing.T, sig string) {
	if sig == "" {
		return
	}
	if strings.HasPrefix(sig, "\n") || strings.HasSuffix(sig, "\n") || strings.Contains(sig, "\n\n") {
		t.Errorf("malformed signature %q", sig)
	}
	calls := strings.Split(sig, "\n")
	for i := 1; i < len(calls); i++ {
		if calls[i-1] >= calls[i] {
			t.Errorf("signature calls not sorted and unique: %q", sig)
		}
	}
}

func FuzzParseRequest(f *testing.F) {
	addFixtureSeeds(f, "request", "request")
	for _, s := range []string{
		// deep arguments: canonical recursion
		`{"messages":[{"role":"assistant","tool_calls":[{"function":{"name":"a","arguments":"[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]"}}]}]}`,
		// control characters, quotes and backslashes in names and keys: escaping
		`{"messages":[{"role":"assistant","content":[{"type":"tool_use","name":"\n","input":{"\u0000":"\"\\"}}]}]}`,
		// duplicate keys: member sort must stay deterministic
		`{"messages":[{"role":"assistant","tool_calls":[{"function":{"name":"a","arguments":"{\"a\":1,\"a\":\"x\",\"a\":1}"}}]}]}`,
		// malformed text parts
		`{"messages":[{"role":"user","content":[{"type":"text"},{"type":"text","text":1},"plain"]}]}`,
		// null fields fall through to the next shape
		`{"messages":null,"contents":null,"prompt":{"id":"x"},"input":[null,1,"a"]}`,
		`{"input":[{"role":"user","content":null},{"type":"function_call","arguments":null}]}`,
		`{"contents":[{"parts":[{"functionResponse":{}},{"thought":true,"text":"x"}]},{"role":"model","parts":[{"functionCall":null}]}]}`,
		`{"model":"claude","messages":[]}`,
		`NaN`, `{}`, `[]`, `"x"`, ``,
	} {
		f.Add([]byte(s))
	}
	var p, q Parser
	f.Fuzz(func(t *testing.T, b []byte) {
		r1, err1 := p.ParseRequest(b)
		prompt := bytes.Clone(r1.Prompt)
		r2, err2 := q.ParseRequest(b) // a second Parser: no state may matter
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("errors differ: %v / %v", err1, err2)
		}
		if err1 != nil {
			if err1.Error() != err2.Error() || r1.HasPrompt || r1.Prompt != nil || r1.ToolSig != "" {
				t.Fatalf("error %v with result %+v", err1, r1)
			}
			return
		}
		r1.Prompt, r2.Prompt = prompt, bytes.Clone(r2.Prompt)
		if !reflect.DeepEqual(r1, r2) {
			t.Fatalf("not deterministic:\n%+v\n%+v", r1, r2)
		}
		if r1.HasPrompt != (len(r1.Prompt) > 0) {
			t.Fatalf("HasPrompt %v with prompt %q", r1.HasPrompt, r1.Prompt)
		}
		checkSig(t, r1.ToolSig)
	})
}

func FuzzParseResponse(f *testing.F) {
	addFixtureSeeds(f, "response", "response")
	addFixtureSeeds(f, "stream", "json", "stream")
	for _, s := range []string{
		// huge and negative tool-call indexes
		"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":999999999999,\"function\":{\"name\":\"x\"}},{\"index\":-1}]}}]}\n\n",
		"event: x\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"a\\\":\"}}\n\n",
		"data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"input\":[1,{\"b\":null}]}}\n\n",
		"data: {\"type\":\"response.completed\",\"response\":{\"output\":[{\"type\":\"function_call\",\"arguments\":{}}]}}\n\n",
		"data: {\"type\":\"response.output_item.done\",\"output_index\":-5,\"item\":{\"type\":\"message\",\"content\":[{\"type\":\"refusal\"}]}}\n\n",
		`[{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":"x"}}]}}]},{"error":{}}]`,
		`{"choices":[{"message":{"content":[1,{"type":"text"}],"tool_calls":[{"function":{"name":"n","arguments":"\t"}}]}}],"usage":{"prompt_tokens":1e300,"completion_tokens":-3.5}}`,
		// degenerate framing
		"data:", ":", "\r", "data: [DONE", "event:\n\n\r\n", "\xef\xbb\xbf", "\xef\xbb\xbfdata: {}",
	} {
		f.Add([]byte(s))
	}
	var p, q Parser
	f.Fuzz(func(t *testing.T, b []byte) {
		r1, err1 := p.ParseResponse(b)
		text := bytes.Clone(r1.Text)
		r2, err2 := q.ParseResponse(b)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("errors differ: %v / %v", err1, err2)
		}
		if err1 != nil {
			if err1.Error() != err2.Error() || r1.Text != nil {
				t.Fatalf("error %v with result %+v", err1, r1)
			}
			return
		}
		r1.Text, r2.Text = text, bytes.Clone(r2.Text)
		if !reflect.DeepEqual(r1, r2) {
			t.Fatalf("not deterministic:\n%+v\n%+v", r1, r2)
		}
	})
}

// FuzzSSE feeds any bytes to the event-stream reassembly. Beyond not
// panicking: when the input has no '\r', its CRLF form must give the same
// result (line endings carry no meaning).
func FuzzSSE(f *testing.F) {
	addFixtureSeeds(f, "stream", "stream")
	for _, s := range []string{
		"data: {\"choices\":[{\"index\":0,\ndata: \"delta\":{\"content\":\"ab\"}}]}\n\n",
		"data\ndata\n\ndata:[DONE]\n:\n",
		"data: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":\"x\"}}",
		"data: {\"type\":\"response.function_call_arguments.done\",\"output_index\":0}\n\ndata: {\"type\":\"response.function_call_arguments.delta\",\"output_index\":0,\"delta\":\"{\"}\n\n",
	} {
		f.Add([]byte(s))
	}
	var p Parser
	run := func(b []byte) (Response, error) {
		p.resetOutput()
		p.st.reset()
		r, err := p.eventStream(b)
		r.Text = bytes.Clone(r.Text)
		return r, err
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r1, err1 := run(b)
		if bytes.IndexByte(b, '\r') >= 0 {
			return
		}
		crlf := bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n"))
		r2, err2 := run(crlf)
		if (err1 == nil) != (err2 == nil) || (err1 != nil && err1.Error() != err2.Error()) {
			t.Fatalf("LF error %v, CRLF error %v", err1, err2)
		}
		if !reflect.DeepEqual(r1, r2) {
			t.Fatalf("LF and CRLF differ:\n%+v\n%+v", r1, r2)
		}
	})
}

// FuzzUsageOf: the usage UsageOf reads from a parsed body is the usage
// ResponseOf reports for it, whatever the body.
func FuzzUsageOf(f *testing.F) {
	addFixtureSeeds(f, "response", "response")
	for _, s := range []string{
		`{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}}`,
		`{"choices":[{"delta":{}}],"usage":{"prompt_tokens":3}}`,
		`{"type":"message","content":[],"usage":{"input_tokens":1,"cache_read_input_tokens":2,"output_tokens":3}}`,
		`{"role":"assistant","content":"x","usage":{"input_tokens":1.5e3}}`,
		`{"object":"response","usage":{"input_tokens":1,"output_tokens":2}}`,
		`{"error":{"message":"x"},"choices":[],"usage":{"prompt_tokens":3}}`,
		`{"candidates":[],"usageMetadata":{"promptTokenCount":7}}`,
		`{"usage":{"prompt_tokens":3}}`, `[{"choices":[{"delta":{}}],"usage":{"prompt_tokens":3}}]`, `"x"`,
	} {
		f.Add([]byte(s))
	}
	var p, q Parser
	var fp fastjson.Parser
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := fp.ParseBytes(b)
		if err != nil {
			return
		}
		in, out, has := p.UsageOf(v)
		r, err := q.ResponseOf(v)
		want := err == nil && r.HasUsage
		if has != want || has && (in != r.TokensIn || out != r.TokensOut) {
			t.Fatalf("UsageOf: %d, %d, %v; ResponseOf: %d, %d, %v (%v)", in, out, has, r.TokensIn, r.TokensOut, r.HasUsage, err)
		}
	})
}
