package logs

import (
	"slices"
	"strings"
	"testing"

	"github.com/killswitch/killswitch/ingest"
)

// trace builds a Langfuse export with the given trace members and
// observations (raw JSON).
func trace(traceMembers string, obs ...string) string {
	return `{"trace":{"id":"t1"` + traceMembers + `},"observations":[` + strings.Join(obs, ",") + `]}`
}

// gen builds a GENERATION observation with input and output (raw JSON).
func gen(start, input, output string) string {
	return `{"id":"o-` + start + `","type":"GENERATION","model":"m","startTime":"2025-01-01T00:00:0` + start +
		`.000Z","endTime":"2025-01-01T00:00:0` + start + `.250Z","input":` + input + `,"output":` + output + `}`
}

// TestLangfuseInputShapes locks the request each input shape maps to; the
// wanted bodies are written by hand from the shape rules (chat.go).
func TestLangfuseInputShapes(t *testing.T) {
	for _, tt := range []struct{ name, input, want string }{
		{"message-list", `[{"role":"system","content":"s"},{"role":"user","content":"u"}]`,
			`[{"role":"system","content":"s"},{"role":"user","content":"u"}]`},
		{"json-in-string", `"[{\"role\":\"user\",\"content\":\"u\"}]"`,
			`[{"role":"user","content":"u"}]`},
		{"messages-object-with-tools", `{"messages":[{"role":"user","content":"u"}],"tools":[{"type":"function","function":{"name":"f"}}],"temperature":1}`,
			`[{"role":"user","content":"u"}],"tools":[{"function":{"name":"f"},"type":"function"}]`},
		{"system-and-messages", `{"system":"s","messages":[{"role":"user","content":"u"}]}`,
			`[{"role":"system","content":"s"},{"role":"user","content":"u"}]`},
		{"prompt", `{"system":"s","prompt":"p"}`,
			`[{"role":"system","content":"s"},{"role":"user","content":"p"}]`},
		{"prompt-list", `{"prompt":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image","image":"…"},{"type":"text","text":"b"}]}]}`,
			`[{"role":"user","content":"a\nb"}]`},
		{"responses-input-string", `{"input":"i"}`, `[{"role":"user","content":"i"}]`},
		{"responses-input-items", `{"input":[{"role":"user","content":[{"type":"input_text","text":"q"}]},` +
			`{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":"r"}]}`,
			`[{"role":"user","content":"q"},{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","content":null,"tool_call_id":"c"}]`},
		{"plain-string", `"just text"`, `[{"role":"user","content":"just text"}]`},
		{"transcript", `"developer: d\nuser: first\nassistant: None\ntool: [\n  1\n]\nuser: second"`,
			`[{"role":"developer","content":"d"},{"role":"user","content":"first"},{"role":"assistant","content":"None"},{"role":"tool","content":"[\n  1\n]"},{"role":"user","content":"second"}]`},
		{"gemini-contents", `{"model":"g","config":{"system_instruction":"sys","http_options":{"headers":{"x-goog-api-key":"k"}}},"contents":[` +
			`{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"function_call":{"name":"f","args":{"b":1,"a":2}}}]},` +
			`{"role":"user","parts":[{"function_response":{"name":"f","response":{}}}]}]}`,
			`[{"role":"system","content":"sys"},{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"type":"function","function":{"name":"f","arguments":"{\"a\":2,\"b\":1}"}}]},{"role":"tool","content":null}]`},
		{"otel-parts", `[{"role":"user","parts":[{"type":"text","content":"q"}]},{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"f","arguments":{"x":1}}]},` +
			`{"role":"tool","parts":[{"type":"tool_call_response","id":"c1","response":"r"}]}]`,
			`[{"role":"user","content":"q"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"x\":1}"}}]},{"role":"tool","content":"r","tool_call_id":"c1"}]`},
		// A tool result's text is the tool message's content (#27: the
		// progress profile reads it), never the user's prompt.
		{"anthropic-tool-result-is-not-the-prompt", `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"r"}]}]`,
			`[{"role":"user","content":"q"},{"role":"assistant","content":null,"tool_calls":[{"id":"t","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","content":"r","tool_call_id":"t"}]`},
		{"langchain-types", `[{"type":"human","content":"h"},{"type":"ai","content":"","tool_calls":[{"name":"f","args":{"q":"x"},"id":"c"}]}]`,
			`[{"role":"user","content":"h"},{"role":"assistant","content":"","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"q\":\"x\"}"}}]}]`},
		{"langchain-constructor", `[{"lc":1,"type":"constructor","id":["langchain","schema","messages","HumanMessage"],"kwargs":{"content":"lc"}}]`,
			`[{"role":"user","content":"lc"}]`},
		{"langchain-additional-kwargs", `[{"role":"assistant","content":"","additional_kwargs":{"tool_calls":[{"id":"c","function":{"name":"f","arguments":"{}"},"type":"function"}]}}]`,
			`[{"role":"assistant","content":"","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}]`},
		{"agno-repr", `{"messages":["role='system' content='s' name=None","role='user' content=\"it's \\n\\x41\" name=None","role='assistant' content=None tool_calls=[]"]}`,
			`[{"role":"system","content":"s"},{"role":"user","content":"it's \nA"},{"role":"assistant","content":null}]`},
		{"choice", `{"index":0,"message":{"role":"user","content":"c"}}`, `[{"role":"user","content":"c"}]`},
		{"unknown-object", `{"question":"q?","api_key":"sk-hidden","nested":{"authorization":"Bearer x","k":1}}`,
			`[{"role":"user","content":"{\"nested\":{\"k\":1},\"question\":\"q?\"}"}]`},
		{"number", `42`, `[{"role":"user","content":"42"}]`},
		{"output-only", `null`, `[]`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc := trace("", gen("1", tt.input, `"ok"`))
			recs := readAll(t, open(t, doc, "f", FormatLangfuse, Options{}), "f")
			cs := calls(recs)
			if len(cs) != 1 {
				t.Fatalf("%d calls %v", len(cs), errs(recs))
			}
			want := `{"model":"m","messages":` + tt.want + `}`
			if string(cs[0].Request) != want {
				t.Errorf("request\n%s\nwant\n%s", cs[0].Request, want)
			}
		})
	}
}

// TestLangfuseOutputShapes locks the response each output shape maps to.
func TestLangfuseOutputShapes(t *testing.T) {
	chat := func(msg string) string {
		return `{"object":"chat.completion","model":"m","choices":[{"index":0,"message":` + msg + `}]}`
	}
	for _, tt := range []struct{ name, output, want string }{
		{"text", `"hello"`, chat(`{"role":"assistant","content":"hello"}`)},
		{"python-none", `"None"`, ""},
		{"null", `null`, ""},
		{"empty-object", `{}`, ""},
		{"openai-completion-kept", `{"id":"x","choices":[{"message":{"role":"assistant","content":"c"}}]}`,
			`{"choices":[{"message":{"content":"c","role":"assistant"}}],"id":"x"}`},
		{"openai-completion-in-string", `"{\"choices\":[]}"`, `{"choices":[]}`},
		{"anthropic-message-kept", `{"type":"message","role":"assistant","content":[{"type":"text","text":"a"}]}`,
			`{"content":[{"text":"a","type":"text"}],"role":"assistant","type":"message"}`},
		{"message", `{"role":"assistant","content":"m"}`, chat(`{"role":"assistant","content":"m"}`)},
		{"choice-with-finish", `{"index":0,"message":{"role":"assistant","content":"m"},"finish_reason":"stop"}`,
			`{"object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"m"},"finish_reason":"stop"}]}`},
		{"gemini-llm-response", `{"content":{"parts":[{"text":"g"}],"role":"model"},"finish_reason":"STOP"}`,
			`{"object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"g"},"finish_reason":"STOP"}]}`},
		{"message-list", `[{"role":"assistant","content":"a"},{"role":"assistant","content":"b"}]`, chat(`{"role":"assistant","content":"a\nb"}`)},
		{"parts-list", `[{"role":"assistant","parts":[{"type":"text","content":"t"},{"type":"tool_call","id":"c","name":"f","arguments":{}}]}]`,
			chat(`{"role":"assistant","content":"t","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}`)},
		{"vercel-tool-calls", `[{"toolCallId":"c","toolName":"f","input":"{\"a\":1}"}]`,
			chat(`{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]}`)},
		{"structured", `{"name":"Alice","age":28}`, chat(`{"role":"assistant","content":"{\"age\":28,\"name\":\"Alice\"}"}`)},
		{"empty-list", `[]`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc := trace("", gen("1", `"q"`, tt.output))
			recs := readAll(t, open(t, doc, "f", FormatLangfuse, Options{}), "f")
			cs := calls(recs)
			if len(cs) != 1 {
				t.Fatalf("%d calls %v", len(cs), errs(recs))
			}
			if string(cs[0].Response) != tt.want {
				t.Errorf("response\n%s\nwant\n%s", cs[0].Response, tt.want)
			}
		})
	}
}

func TestLangfuseTrace(t *testing.T) {
	doc := trace(`,"sessionId":null,"userId":"u1"`,
		gen("3", `"third"`, `"c"`),
		`{"id":"s","type":"SPAN","startTime":"2025-01-01T00:00:02.000Z"}`,
		gen("1", `"first"`, `"a"`),
		`{"type":"GENERATION","startTime":"2025-01-01T00:00:05Z","input":null,"output":null}`,
		`{"type":"EVENT"}`,
		`{"type":"GENERATION","startTime":"2025-01-01T00:00:06Z","model":"m","input":"x","level":"ERROR",`+
			`"usageDetails":{},"usage":{"promptTokens":3,"completionTokens":4},"calculatedTotalCost":0.25}`,
		`{"type":"GENERATION","startTime":"2025-01-01T00:00:07Z","input":"x","usageDetails":{"input_tokens":5},"totalCost":0}`,
	)
	recs := readAll(t, open(t, doc, "f.json", FormatLangfuse, Options{}), "f.json")
	var got []string
	for _, r := range recs {
		s := r.Pos.String() + " "
		switch {
		case r.Err != nil:
			s += "ERR " + r.Err.Error()
		case r.Skip != "":
			s += "SKIP " + r.Skip
		default:
			s += ingest.FormatTime(r.TS) + " " + r.Agent + " " + lastUser(t, r.Request)
		}
		got = append(got, s)
	}
	// Undated skips sort first; the rest by startTime, then index.
	want := []string{
		"f.json:observations[4] SKIP observation type EVENT is not an LLM call",
		"f.json:observations[2] 2025-01-01T00:00:01.000Z u1 first",
		"f.json:observations[1] SKIP observation type SPAN is not an LLM call",
		"f.json:observations[0] 2025-01-01T00:00:03.000Z u1 third",
		"f.json:observations[3] SKIP GENERATION observation without input or output",
		"f.json:observations[5] 2025-01-01T00:00:06.000Z u1 x",
		"f.json:observations[6] 2025-01-01T00:00:07.000Z u1 x",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	cs := calls(recs)
	if r := cs[0]; r.ID != "o-1" || r.Model != "m" || r.LatencyMS != 250 || !r.HasLatency || r.Status != 200 || r.Session != "" {
		t.Errorf("first call %+v", r)
	}
	if r := cs[2]; r.Status != 500 || !r.HasTokens || r.TokensIn != 3 || r.TokensOut != 4 || !r.HasCost || r.CostUSD != 0.25 {
		t.Errorf("error call %+v", r)
	}
	if r := cs[3]; !r.HasTokens || r.TokensIn != 5 || r.TokensOut != 0 || r.HasCost {
		t.Errorf("last call %+v", r)
	}
}

func TestLangfuseAgent(t *testing.T) {
	for _, tt := range []struct {
		members string
		opt     Options
		want    string
	}{
		{`,"sessionId":"s","userId":"u"`, Options{}, "s"},
		{`,"sessionId":"","userId":"u"`, Options{}, "u"},
		{``, Options{}, "default"},
		{`,"sessionId":"s"`, Options{Agent: "flag"}, "flag"},
	} {
		recs := readAll(t, open(t, trace(tt.members, gen("1", `"q"`, `null`)), "f", FormatLangfuse, tt.opt), "f")
		if cs := calls(recs); len(cs) != 1 || cs[0].Agent != tt.want {
			t.Errorf("%s %+v: got %v", tt.members, tt.opt, cs)
		}
	}
	// The public API's shape: the trace object with observations inline.
	api := `{"id":"t","sessionId":"api-session","observations":[` + gen("1", `"q"`, `null`) + `]}`
	if cs := calls(readAll(t, open(t, api, "f", FormatLangfuse, Options{}), "f")); len(cs) != 1 || cs[0].Agent != "api-session" {
		t.Errorf("API shape: %v", cs)
	}
}

// TestLangfuseJSONL reads a JSONL file of traces: positions carry the line.
func TestLangfuseJSONL(t *testing.T) {
	in := trace(`,"sessionId":"a"`, gen("1", `"q1"`, `null`)) + "\n" +
		trace(`,"sessionId":"b"`, `{"type":"SPAN"}`, gen("2", `"q2"`, `null`)) + "\n" +
		`{"trace":{},"observations":[]}` + "\n"
	recs := readAll(t, open(t, in, "t.jsonl", FormatLangfuse, Options{}), "t.jsonl")
	var got []string
	for _, r := range recs {
		got = append(got, r.Pos.String()+" "+r.Agent+r.Skip)
	}
	want := "t.jsonl:1:observations[0] a|t.jsonl:2:observations[0] observation type SPAN is not an LLM call|" +
		"t.jsonl:2:observations[1] b|t.jsonl:3:observations Langfuse trace without observations"
	if strings.Join(got, "|") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, "|"), want)
	}
}

// TestLangfuseWrappers: a call counts once however the producer nests it.
// By hand: [0] wraps [1] through the SPAN [2] (parent links at depth 2):
// [0] is skipped and [1], which logged no answer, takes [0]'s; [3]
// ai.generateText has no parent link to the doGenerate [4] but is a
// wrapper by its name in a trace holding a provider generation; [5] a
// GENERATION whose parent is itself counts.
func TestLangfuseWrappers(t *testing.T) {
	obs := func(id, parent, name, start, input, output string) string {
		return `{"id":"` + id + `","parentObservationId":` + parent + `,"type":"GENERATION","name":"` + name +
			`","startTime":"2025-01-01T00:00:0` + start + `.000Z","input":` + input + `,"output":` + output + `}`
	}
	span := `{"id":"s","parentObservationId":"w","type":"SPAN","startTime":"2025-01-01T00:00:00.500Z"}`
	doc := trace(``,
		obs("w", "null", "OpenAIChat.invoke", "0", `{"messages":[{"role":"user","content":"q"}]}`, `{"role":"assistant","content":"from the wrapper"}`),
		obs("i", `"s"`, "chat gpt-4o-mini", "1", `"user: q"`, `"None"`),
		span,
		obs("g", "null", "ai.generateText", "2", `{"prompt":"p"}`, `"x"`),
		obs("d", "null", "ai.generateText.doGenerate", "3", `{"prompt":"p"}`, `"y"`),
		obs("self", `"self"`, "loop", "4", `"z"`, `"w"`))
	recs := readAll(t, open(t, doc, "lf.json", FormatLangfuse, Options{}), "lf.json")
	var got []string
	for _, c := range calls(recs) {
		got = append(got, c.Pos.String()+" "+lastUser(t, c.Request)+" "+answer(t, c.Response))
	}
	want := []string{"lf.json:observations[1] q text:from the wrapper", "lf.json:observations[4] p text:y", "lf.json:observations[5] z text:w"}
	if !slices.Equal(got, want) {
		t.Errorf("calls %q, want %q", got, want)
	}
	wantSkips := []skipCount{
		{"GENERATION observation wrapping another (the call counts once, at the inner one)", 1},
		{"Vercel AI SDK function generation wrapping its provider calls (each counts once, at its doGenerate/doStream generation)", 1},
		{"observation type SPAN is not an LLM call", 1},
	}
	if got := skipCounts(recs); !slices.Equal(got, wantSkips) {
		t.Errorf("skips %v, want %v", got, wantSkips)
	}
}
