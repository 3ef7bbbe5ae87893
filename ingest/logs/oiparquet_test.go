package logs

import (
	"bytes"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// msgRow is a span row whose message lists hold every shape the direct
// message path reads (oiDirectMessages) and some it leaves to oiList: a
// number as content, no role, a name alone, a tool call without a name,
// arguments that are a number, an element with a member it does not know
// (extra); a column no record reads, and a group above token counts.
type msgRow struct {
	Name      string       `parquet:"name"`
	SpanKind  string       `parquet:"span_kind"`
	SpanID    string       `parquet:"context.span_id"`
	TraceID   string       `parquet:"context.trace_id"`
	StartTime string       `parquet:"start_time"`
	Session   *string      `parquet:"attributes.session.id,optional"`
	Input     []msgElem    `parquet:"attributes.llm.input_messages,list"`
	Output    []outElem    `parquet:"attributes.llm.output_messages,list"`
	Other     *string      `parquet:"attributes.llm.prompt_template.template,optional"`
	Tokens    *tokenCounts `parquet:"attributes.llm.token_count,optional"`
}

type msgElem struct {
	Role    *string    `parquet:"message.role,optional"`
	Content *string    `parquet:"message.content,optional"`
	Name    *string    `parquet:"message.name,optional"`
	CallID  *string    `parquet:"message.tool_call_id,optional"`
	Calls   []callElem `parquet:"message.tool_calls,list"`
}

type callElem struct {
	ID   *string `parquet:"tool_call.id,optional"`
	Name *string `parquet:"tool_call.function.name,optional"`
	Args *string `parquet:"tool_call.function.arguments,optional"`
}

// outElem has a number as content, and a member the direct path does not
// know (the list is read through oiList then).
type outElem struct {
	Role    *string  `parquet:"message.role,optional"`
	Content *float64 `parquet:"message.content,optional"`
	Extra   *string  `parquet:"extra,optional"`
}

type tokenCounts struct {
	Prompt     int64 `parquet:"prompt"`
	Completion int64 `parquet:"completion"`
}

func msgParquet(t testing.TB) []byte {
	p := func(s string) *string { return &s }
	f := func(x float64) *float64 { return &x }
	sess := p("S")
	rows := []msgRow{
		{Name: "c1", SpanKind: "LLM", SpanID: "a", TraceID: "t", StartTime: "2026-01-02T09:00:00Z", Session: sess,
			Input: []msgElem{
				{Role: p("system"), Content: p("be brief")},
				{},                // no value: left out
				{Name: p("only")}, // a name alone: a user message without content
				{Role: p("Human"), Content: p("refund #1")},
				{Role: p("assistant"), Calls: []callElem{{ID: p("c0")}, {ID: p("c1"), Name: p("refund"), Args: p(`{"id":1}`)}, {Name: p("f")}}},
				{Role: p("tool"), CallID: p("c1"), Content: p("done")},
				{Calls: []callElem{{}}}, // nothing in its calls: left out
			},
			Output: []outElem{{Role: p("assistant"), Content: f(42)}},
			Other:  p("not read"), Tokens: &tokenCounts{Prompt: 7, Completion: 3}},
		{Name: "c2", SpanKind: "LLM", SpanID: "b", TraceID: "t", StartTime: "2026-01-02T09:00:01Z",
			Output: []outElem{{Role: p("assistant"), Content: f(1.5), Extra: p("x")}},
			Other:  p("\xff not UTF-8, in a column no record reads")},
	}
	var b bytes.Buffer
	if err := parquet.Write(&b, rows); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestOIParquetMessages reads message lists of every shape: the records
// derived by hand from the rows of msgParquet (besides the reference's
// agreement, which parquetSeeds checks). A column read wrongly (a role,
// a call, a token count) changes a request here.
func TestOIParquetMessages(t *testing.T) {
	data := msgParquet(t)
	pr, err := NewOIParquetReader(bytes.NewReader(data), int64(len(data)), "m.parquet", Options{})
	if err != nil {
		t.Fatal(err)
	}
	recs := readAll(t, pr, "m.parquet")
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2", len(recs))
	}
	// Row 1: "Human" is the user; the name-only element a user message
	// with no content; the call without a function name (c0) dropped, the
	// named ones kept (f without arguments: "{}"); the element with
	// nothing in its calls left out.
	want := `{"messages":[{"role":"system","content":"be brief"},{"role":"user","content":null},` +
		`{"role":"user","content":"refund #1"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"refund","arguments":"{\"id\":1}"}},` +
		`{"type":"function","function":{"name":"f","arguments":"{}"}}]},` +
		`{"role":"tool","content":"done","tool_call_id":"c1"}]}`
	if got := string(recs[0].Request); got != want {
		t.Errorf("row 1 request:\n got %s\nwant %s", got, want)
	}
	if got, want := string(recs[0].Response), `"content":"42"`; !strings.Contains(got, want) {
		t.Errorf("row 1 response %s: want the number as text (%s)", got, want)
	}
	if r := recs[0]; r.Agent != "S" || !r.HasTokens || r.TokensIn != 7 || r.TokensOut != 3 {
		t.Errorf("row 1: agent %q, tokens %v %d/%d; want S, 7/3", r.Agent, r.HasTokens, r.TokensIn, r.TokensOut)
	}
	// Row 2: no input messages (an empty request); its output's element
	// has a member the direct path does not know, read through oiList;
	// the text that is not UTF-8 is in a column not read (the prompt
	// template): the row is not refused.
	if got, want := string(recs[1].Request), `{"messages":[]}`; got != want {
		t.Errorf("row 2 request %s, want %s", got, want)
	}
	if got, want := string(recs[1].Response), `"content":"1.5"`; !strings.Contains(got, want) {
		t.Errorf("row 2 response %s: want %s", got, want)
	}
}
