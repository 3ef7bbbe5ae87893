package logs

import (
	"slices"
	"strings"
	"testing"
)

// ddSpanJSON is an openai.request span (or another, by name) as
// dd-trace writes it, with meta and metrics given raw.
func ddSpanJSON(id, parent int, name, resource, service string, start string, errFlag int, meta, metrics string) string {
	return `{"trace_id":77,"span_id":` + itoa(id) + `,"parent_id":` + itoa(parent) + `,"name":"` + name + `","resource":"` + resource +
		`","service":"` + service + `","type":"llm","start":` + start + `,"duration":812345678,"error":` + itoa(errFlag) +
		`,"meta":` + meta + `,"metrics":` + metrics + `}`
}

const ddMeta = `{"openai.request.model":"gpt-4o-mini","openai.request.messages.0.role":"system","openai.request.messages.0.content":"s",` +
	`"openai.request.messages.1.role":"user","openai.request.messages.1.content":"q","openai.user.api_key":"sk-...a1b2",` +
	`"openai.response.choices.0.message.content":"a","openai.response.choices.0.message.tool_calls.0.id":"c1",` +
	`"openai.response.choices.0.message.tool_calls.0.function":"lookup","openai.response.choices.0.message.tool_calls.0.arguments":"{\"x\":1}",` +
	`"openai.response.choices.0.finish_reason":"tool_calls"}`

// TestDatadog: traces of spans; only chat openai.request spans are calls;
// nanosecond times kept exactly; the error flag's status; positions.
func TestDatadog(t *testing.T) {
	call := ddSpanJSON(2, 1, "openai.request", "createChatCompletion", "svc", "1772787600123456789", 0, ddMeta,
		`{"openai.response.usage.prompt_tokens":40,"openai.response.usage.completion_tokens":12}`)
	wrap := ddSpanJSON(1, 0, "langchain.request", "ChatOpenAI", "svc", "1772787600000000000", 0, `{}`, `{}`)
	emb := ddSpanJSON(3, 0, "openai.request", "createEmbedding", "svc", "1772787601000000000", 0, `{}`, `{}`)
	failed := ddSpanJSON(4, 0, "openai.request", "chat.completions.create", "other", "1772787602000000000", 1,
		`{"openai.request.messages.0.role":"user","openai.request.messages.0.content":"q2","error.type":"openai.RateLimitError"}`, `{}`)
	badStart := ddSpanJSON(5, 0, "openai.request", "", "svc", `"soon"`, 0, `{}`, `{}`)
	doc := "[\n  [" + wrap + ",\n" + call + "],\n  [" + emb + "],\n  [" + failed + ", 7, " + badStart + "]\n]\n"
	if f, ok := Detect([]byte(doc)); !ok || f != FormatDatadog {
		t.Fatalf("Detect = %q, %v", f, ok)
	}
	recs := readAll(t, open(t, doc, "d.json", FormatDatadog, Options{}), "d.json")
	var got []string
	for _, c := range calls(recs) {
		got = append(got, strings.Join([]string{c.Pos.String(), c.Agent, lastUser(t, c.Request), answer(t, c.Response), itoa(c.Status),
			itoa(int(c.TokensIn)) + "/" + itoa(int(c.TokensOut)), itoa(int(c.LatencyMS)), c.TS.Format("05.000000000"), c.ID}, " "))
	}
	want := []string{"d.json:[0][1] svc q tools:lookup 200 40/12 812 00.123456789 2", "d.json:[2][0] other q2  429 0/0 812 02.000000000 4"}
	if !slices.Equal(got, want) {
		t.Errorf("calls %q, want %q", got, want)
	}
	wantSkips := []skipCount{{"Datadog openai.request span of createEmbedding is not a chat or completion call", 1},
		{"Datadog span langchain.request is not an LLM call (only openai.request spans are)", 1}}
	if got := skipCounts(recs); !slices.Equal(got, wantSkips) {
		t.Errorf("skips %v, want %v", got, wantSkips)
	}
	wantErrs := []string{"d.json:[2][1]: a Datadog span is a JSON object, got a number", `d.json:[2][2]: "start": not a number of nanoseconds: "soon"`}
	if got := errs(recs); !slices.Equal(got, wantErrs) {
		t.Errorf("errors %q, want %q", got, wantErrs)
	}
	for _, c := range calls(recs) {
		if strings.Contains(string(c.Request)+string(c.Response), "sk-") {
			t.Errorf("%s: a key reached the record", c.Pos)
		}
	}
	// One trace per line, and a flat array of spans, read the same calls.
	for _, tt := range []struct{ name, in, pos string }{
		{"jsonl", "[" + wrap + "," + call + "]\n[" + emb + "]\n", "x:1:[1]"},
		{"flat", "[\n" + wrap + ",\n" + call + "\n]", "x:[1]"},
	} {
		cs := calls(readAll(t, open(t, tt.in, "x", FormatDatadog, Options{Agent: "flag"}), "x"))
		if len(cs) != 1 || cs[0].Pos.String() != tt.pos || cs[0].Agent != "flag" {
			t.Errorf("%s: %d calls; want one at %s with agent flag", tt.name, len(cs), tt.pos)
		}
	}
}
