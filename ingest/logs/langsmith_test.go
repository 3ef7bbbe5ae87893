package logs

import (
	"slices"
	"strings"
	"testing"
)

// TestLangSmith: post and patch payloads merge by run id, whatever their
// order and container; an llm run over another counts once; metadata
// names the agent from an ancestor; the error sets the status.
func TestLangSmith(t *testing.T) {
	root := `{"id":"r","trace_id":"r","name":"Agent","run_type":"chain","start_time":"2026-03-05T08:00:00.000000","extra":{"metadata":{"thread_id":"th-1"}}}`
	outer := `{"id":"o","trace_id":"r","parent_run_id":"r","name":"ChatOpenAI","run_type":"llm","start_time":"2026-03-05T08:00:01.000000",` +
		`"inputs":{"messages":[[{"lc":1,"type":"constructor","id":["langchain","schema","messages","HumanMessage"],"kwargs":{"content":"q"}}]]}}`
	inner := `{"id":"i","trace_id":"r","parent_run_id":"o","name":"openai","run_type":"llm","start_time":"2026-03-05T08:00:01.500000",` +
		`"inputs":{"messages":[{"role":"user","content":"q"}],"model":"gpt-4o"},"extra":{"metadata":{"ls_provider":"openai","api_key":"sk-x"}}}`
	innerPatch := `{"id":"i","end_time":"2026-03-05T08:00:02.000000","outputs":{"choices":[{"message":{"role":"assistant","content":"a"}}],"usage":{"prompt_tokens":5,"completion_tokens":2}}}`
	lone := `{"id":"l","name":"ChatAnthropic","run_type":"llm","start_time":1772697603000,"inputs":{"prompts":["p"]},"error":"RateLimitError: 429"}`
	want := []string{"x:3 th-1 q text:a 200 5/2 500ms gpt-4o", "x:5 ChatAnthropic p  429 0/0 0ms "}
	for _, tt := range []struct{ name, in string }{
		{"jsonl", strings.Join([]string{root, outer, inner, innerPatch, lone}, "\n")},
		{"patch first", strings.Join([]string{root, outer, innerPatch, inner, lone}, "\n")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			recs := readAll(t, open(t, tt.in, "x", FormatLangSmith, Options{}), "x")
			var got []string
			for _, c := range calls(recs) {
				got = append(got, strings.Join([]string{c.Pos.String(), c.Agent, lastUser(t, c.Request), answer(t, c.Response),
					itoa(c.Status), itoa(int(c.TokensIn)) + "/" + itoa(int(c.TokensOut)), itoa(int(c.LatencyMS)) + "ms", c.Model}, " "))
			}
			// The run's first payload is on line 3 either way.
			if !slices.Equal(got, want) {
				t.Errorf("calls %q, want %q", got, want)
			}
			wantSkips := []skipCount{{"LangSmith chain run is not an LLM call", 1},
				{"LangSmith llm run wrapping another llm run (the call counts once, at the inner run)", 1}}
			if got := skipCounts(recs); !slices.Equal(got, wantSkips) {
				t.Errorf("skips %v, want %v", got, wantSkips)
			}
		})
	}
	// The SDK's batch document: positions name the payload.
	batch := `{"post":[` + root + `,` + outer + `,` + inner + `],"patch":[` + innerPatch + `]}`
	if f, ok := Detect([]byte(batch)); !ok || f != FormatLangSmith {
		t.Fatalf("Detect = %q, %v", f, ok)
	}
	cs := calls(readAll(t, open(t, batch, "b.json", FormatLangSmith, Options{}), "b.json"))
	if len(cs) != 1 || cs[0].Pos.String() != "b.json:post[2]" || answer(t, cs[0].Response) != "text:a" {
		t.Errorf("batch: %d calls; want one at b.json:post[2] with its patched answer", len(cs))
	}
	// Bad payloads are reported where they are.
	recs := readAll(t, open(t, "[1, {\"id\":\"z\",\"run_type\":\"llm\"}]", "e.json", FormatLangSmith, Options{}), "e.json")
	wantErrs := []string{"e.json:[0]: a LangSmith run is a JSON object, got a number", `e.json:[1]: start time: missing ("start_time")`}
	if got := errs(recs); !slices.Equal(got, wantErrs) {
		t.Errorf("errors %q, want %q", got, wantErrs)
	}
}
