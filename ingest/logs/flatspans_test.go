package logs

import (
	"slices"
	"testing"
	"time"
)

// consoleSpan is one span as Python's ConsoleSpanExporter prints it
// (to_json with an indent of 4), ids given without the 0x.
func consoleSpan(name, trace, id, parent, start, attrs, status string) string {
	p := "null"
	if parent != "" {
		p = `"0x` + parent + `"`
	}
	return "{\n    \"name\": \"" + name + "\",\n    \"context\": {\n        \"trace_id\": \"0x" + trace + "\",\n        \"span_id\": \"0x" + id +
		"\",\n        \"trace_state\": \"[]\"\n    },\n    \"kind\": \"SpanKind.CLIENT\",\n    \"parent_id\": " + p +
		",\n    \"start_time\": \"" + start + "\",\n    \"end_time\": \"2026-03-03T09:00:09.000000Z\",\n    \"status\": {\n        \"status_code\": \"" + status +
		"\"\n    },\n    \"attributes\": " + attrs + ",\n    \"events\": [],\n    \"links\": [],\n    \"resource\": {\n        \"attributes\": {\"service.name\": \"svc\"},\n        \"schema_url\": \"\"\n    }\n}\n"
}

const chatAttrs = `{"gen_ai.operation.name": "chat", "gen_ai.request.model": "m", "gen_ai.input.messages": "[{\"role\": \"user\", \"parts\": [{\"type\": \"text\", \"content\": \"q\"}]}]", "gen_ai.usage.input_tokens": 3}`

// TestOTelConsole: printed children first, a span printed twice, an agent
// on the parent span, a failed call; positions are the lines each
// document starts at (every document is 22 lines: 1, 23, 45, …).
func TestOTelConsole(t *testing.T) {
	in := consoleSpan("chat m", "aa", "02", "01", "2026-03-03T09:00:01.000000Z", chatAttrs, "UNSET") +
		consoleSpan("chat m", "aa", "02", "01", "2026-03-03T09:00:01.000000Z", chatAttrs, "UNSET") +
		consoleSpan("invoke_agent", "aa", "01", "", "2026-03-03T09:00:00.000000Z", `{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.id": "ag"}`, "UNSET") +
		consoleSpan("chat m", "bb", "03", "", "2026-03-03T09:00:00.500000Z", chatAttrs, "ERROR") +
		consoleSpan("broken", "cc", "04", "", "not a time", `{}`, "UNSET") +
		consoleSpan("broken", "cc", "05", "", "2026-03-03T09:00:00Z", `[1]`, "UNSET")
	if f, ok := Detect([]byte(in)); !ok || f != FormatOTelConsole {
		t.Fatalf("Detect = %q, %v", f, ok)
	}
	recs := readAll(t, open(t, in, "c.txt", FormatOTelConsole, Options{}), "c.txt")
	var got []string
	for _, c := range calls(recs) {
		got = append(got, c.Pos.String()+" "+c.Agent+" "+lastUser(t, c.Request)+" "+c.TS.Format(time.RFC3339Nano)+" "+string(rune('0'+c.Status/100)))
	}
	want := []string{"c.txt:67 svc q 2026-03-03T09:00:00.5Z 5", "c.txt:1 ag q 2026-03-03T09:00:01Z 2"}
	if !slices.Equal(got, want) {
		t.Errorf("calls %q, want %q", got, want)
	}
	wantSkips := []skipCount{
		{"span printed again (the same trace and span id as c.txt:1): counted once", 1},
		{"span with gen_ai.operation.name invoke_agent is not an LLM call", 1},
	}
	if got := skipCounts(recs); !slices.Equal(got, wantSkips) {
		t.Errorf("skips %v, want %v", got, wantSkips)
	}
	wantErrs := []string{
		`c.txt:89: "start_time": unparsable timestamp: a string of 10 characters where a time was expected (want RFC 3339 or Unix seconds/milliseconds)`,
		`c.txt:111: "attributes": want an object, got an array`,
	}
	if got := errs(recs); !slices.Equal(got, wantErrs) {
		t.Errorf("errors %q, want %q", got, wantErrs)
	}
}

// TestOTelConsoleJS: the JavaScript exporter's fields, written as JSON
// (times in microseconds), one span per line.
func TestOTelConsoleJS(t *testing.T) {
	in := `{"traceId":"t1","parentSpanContext":{"spanId":"p"},"name":"chat","id":"c","kind":2,"timestamp":1772528400000000,"duration":1500000.5,` +
		`"attributes":{"gen_ai.operation.name":"chat","gen_ai.request.model":"m","gen_ai.prompt.0.role":"user","gen_ai.prompt.0.content":"q"},"status":{"code":2},"events":[],"links":[]}` + "\n" +
		`{"traceId":"t1","name":"agent","id":"p","timestamp":1772528399000000,"duration":3000000,"attributes":{"gen_ai.agent.name":"js-agent"},"status":{"code":0}}` + "\n"
	if f, ok := Detect([]byte(in)); !ok || f != FormatOTelConsole {
		t.Fatalf("Detect = %q, %v", f, ok)
	}
	cs := calls(readAll(t, open(t, in, "j.jsonl", FormatOTelConsole, Options{}), "j.jsonl"))
	if len(cs) != 1 {
		t.Fatalf("%d calls, want 1", len(cs))
	}
	c := cs[0]
	if c.Agent != "js-agent" || c.Status != 500 || lastUser(t, c.Request) != "q" || !c.TS.Equal(time.UnixMicro(1772528400000000)) ||
		c.LatencyMS != 1500 || c.Pos.String() != "j.jsonl:1" {
		t.Errorf("call at %s: agent %q, status %d, ts %s, latency %d", c.Pos, c.Agent, c.Status, c.TS, c.LatencyMS)
	}
}

// TestPhoenixSpans: span_kind decides the mapping; an LLM span wrapping
// another counts once; a REST page names its spans data[i], an array [i].
func TestPhoenixSpans(t *testing.T) {
	llm := func(id, parent, kind, user string) string {
		p := "null"
		if parent != "" {
			p = `"` + parent + `"`
		}
		return `{"name":"n","context":{"trace_id":"t","span_id":"` + id + `"},"span_kind":"` + kind + `","parent_id":` + p +
			`,"start_time":"2026-03-04T15:00:0` + id + `+00:00","end_time":"2026-03-04T15:00:09+00:00","status_code":"OK",` +
			`"attributes":{"session.id":"` + user + `","llm.model_name":"gpt-4o","llm.input_messages.0.message.role":"user","llm.input_messages.0.message.content":"q` + id + `"},"events":[]}`
	}
	page := `{"data":[` + llm("1", "", "CHAIN", "s") + "," + llm("2", "1", "LLM", "") + "," + llm("3", "2", "LLM", "") + `],"next_cursor":null}`
	if f, ok := Detect([]byte(page)); !ok || f != FormatPhoenix {
		t.Fatalf("Detect = %q, %v", f, ok)
	}
	for _, tt := range []struct{ name, in, pos string }{
		{"page", page, "x:data[2]"},
		{"array", "[\n" + llm("1", "", "CHAIN", "s") + ",\n" + llm("2", "1", "LLM", "") + ",\n" + llm("3", "2", "LLM", "") + "\n]", "x:[2]"},
	} {
		recs := readAll(t, open(t, tt.in, "x", FormatPhoenix, Options{}), "x")
		cs := calls(recs)
		if len(cs) != 1 || cs[0].Pos.String() != tt.pos || cs[0].Agent != "s" || lastUser(t, cs[0].Request) != "q3" {
			t.Errorf("%s: %d calls; want one at %s, agent s (the CHAIN's session.id), prompt q3", tt.name, len(cs), tt.pos)
		}
		want := []skipCount{{"OpenInference CHAIN span is not an LLM call", 1},
			{"OpenInference LLM span wrapping another LLM span (the call counts once, at the inner span)", 1}}
		if got := skipCounts(recs); !slices.Equal(got, want) {
			t.Errorf("%s: skips %v, want %v", tt.name, got, want)
		}
	}
}
