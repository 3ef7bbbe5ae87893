package logs

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/killswitch/killswitch/ingest"
)

// No OTLP capture exists in shared/: these documents are written by hand
// after the OTLP JSON encoding (opentelemetry-proto's JSON mapping:
// lowerCamelCase names, 64-bit integers as decimal strings, ids as hex)
// and the GenAI semantic conventions.

// sa is a string attribute, ia an int attribute.
func sa(k, v string) string {
	b, _ := json.Marshal(v)
	return `{"key":"` + k + `","value":{"stringValue":` + string(b) + `}}`
}

func ia(k string, v string) string { return `{"key":"` + k + `","value":{"intValue":"` + v + `"}}` }

// otlpSpan builds a span; start is seconds after 2025-01-01T00:00:00Z
// (1735689600 s).
func otlpSpan(id, parent, name, start string, attrs []string, extra string) string {
	s := `{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"` + id + `","parentSpanId":"` + parent + `","name":"` + name +
		`","kind":3,"startTimeUnixNano":"17356896` + start + `000000000","endTimeUnixNano":"17356896` + start + `500000000",` +
		`"attributes":[` + strings.Join(attrs, ",") + `]`
	if extra != "" {
		s += "," + extra
	}
	return s + "}"
}

func otlpDoc(resAttrs []string, spans ...string) string {
	return `{"resourceSpans":[{"resource":{"attributes":[` + strings.Join(resAttrs, ",") + `]},` +
		`"scopeSpans":[{"scope":{"name":"test"},"spans":[` + strings.Join(spans, ",") + `]}]}]}`
}

// TestOTelSemconv reads a current-conventions agent run: an invoke_agent
// span (with gen_ai.agent.id) parent of two chat spans (messages as JSON
// attributes) and an execute_tool span.
func TestOTelSemconv(t *testing.T) {
	doc := otlpDoc([]string{sa("service.name", "travel-svc")},
		otlpSpan("a1", "", "invoke_agent planner", "00", []string{
			sa("gen_ai.operation.name", "invoke_agent"), sa("gen_ai.agent.id", "agent-42"), sa("gen_ai.agent.name", "planner")}, ""),
		otlpSpan("c2", "a1", "chat gpt-4o", "05", []string{
			sa("gen_ai.operation.name", "chat"), sa("gen_ai.request.model", "gpt-4o"), sa("gen_ai.provider.name", "openai"),
			sa("gen_ai.conversation.id", "conv-1"), ia("gen_ai.usage.input_tokens", "120"), ia("gen_ai.usage.output_tokens", "7"),
			sa("gen_ai.input.messages", `[{"role":"user","parts":[{"type":"text","content":"Weather in Paris?"}]},`+
				`{"role":"assistant","parts":[{"type":"tool_call","id":"call_1","name":"get_weather","arguments":{"city":"Paris"}}]},`+
				`{"role":"tool","parts":[{"type":"tool_call_response","id":"call_1","response":"rain"}]}]`),
			sa("gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"text","content":"It rains."}],"finish_reason":"stop"}]`),
			sa("gen_ai.response.id", "chatcmpl-2")}, `"status":{"code":1}`),
		otlpSpan("t3", "a1", "execute_tool get_weather", "03", []string{
			sa("gen_ai.operation.name", "execute_tool"), sa("gen_ai.tool.name", "get_weather")}, ""),
		otlpSpan("c1", "a1", "chat gpt-4o", "01", []string{
			sa("gen_ai.operation.name", "chat"), sa("gen_ai.request.model", "gpt-4o"),
			sa("gen_ai.system_instructions", `[{"type":"text","content":"Be brief."}]`),
			sa("gen_ai.input.messages", `[{"role":"user","parts":[{"type":"text","content":"Weather in Paris?"}]}]`),
			sa("gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"tool_call","id":"call_1","name":"get_weather","arguments":{"city":"Paris"}}]}]`)},
			`"status":{"code":2,"message":"boom"}`),
		otlpSpan("x4", "", "GET /health", "09", []string{sa("http.request.method", "GET")}, ""),
	)
	recs := readAll(t, open(t, doc, "t.json", FormatOTel, Options{}), "t.json")
	var got []string
	for _, r := range recs {
		s := r.Pos.Path + " "
		if r.Skip != "" {
			s += "SKIP " + r.Skip
		} else {
			s += ingest.FormatTime(r.TS) + " " + r.Agent
		}
		got = append(got, s)
	}
	p := "resourceSpans[0].scopeSpans[0].spans"
	want := []string{
		p + "[0] SKIP span with gen_ai.operation.name invoke_agent is not an LLM call",
		p + "[3] 2025-01-01T00:00:01.000Z agent-42",
		p + "[2] SKIP span with gen_ai.operation.name execute_tool is not an LLM call",
		p + "[1] 2025-01-01T00:00:05.000Z agent-42",
		p + "[4] SKIP span without gen_ai attributes is not an LLM call",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	cs := calls(recs)
	first, second := cs[0], cs[1]
	if string(first.Request) != `{"model":"gpt-4o","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Weather in Paris?"}]}` {
		t.Errorf("first request %s", first.Request)
	}
	if a := answer(t, first.Response); a != "tools:get_weather" || first.Status != 500 || first.ID != "c1" || first.LatencyMS != 500 {
		t.Errorf("first: answer %q status %d id %q latency %d", a, first.Status, first.ID, first.LatencyMS)
	}
	if lastUser(t, second.Request) != "Weather in Paris?" || answer(t, second.Response) != "text:It rains." {
		t.Errorf("second: %s → %s", second.Request, second.Response)
	}
	if second.Model != "gpt-4o" || second.Provider != "openai" || second.Session != "conv-1" || second.ID != "chatcmpl-2" ||
		!second.HasTokens || second.TokensIn != 120 || second.TokensOut != 7 || second.Status != 200 {
		t.Errorf("second %+v", second)
	}
}

// TestOTelOpenLLMetry reads OpenLLMetry's flattened attributes.
func TestOTelOpenLLMetry(t *testing.T) {
	doc := otlpDoc(nil, otlpSpan("s1", "", "openai.chat", "02", []string{
		sa("llm.request.type", "chat"), sa("gen_ai.system", "OpenAI"), sa("gen_ai.request.model", "gpt-3.5-turbo"),
		sa("gen_ai.prompt.0.role", "system"), sa("gen_ai.prompt.0.content", "sys"),
		sa("gen_ai.prompt.10.role", "user"), sa("gen_ai.prompt.10.content", "tenth"),
		sa("gen_ai.prompt.2.role", "user"), sa("gen_ai.prompt.2.content", "second"),
		sa("gen_ai.completion.0.role", "assistant"), sa("gen_ai.completion.0.finish_reason", "tool_calls"),
		sa("gen_ai.completion.0.tool_calls.1.name", "g"), sa("gen_ai.completion.0.tool_calls.1.arguments", `{"b":2}`),
		sa("gen_ai.completion.0.tool_calls.0.name", "f"), sa("gen_ai.completion.0.tool_calls.0.arguments", `{"a":1}`),
		ia("gen_ai.usage.prompt_tokens", "9"), ia("gen_ai.usage.completion_tokens", "3"),
	}, ""))
	cs := calls(readAll(t, open(t, doc, "t", FormatOTel, Options{}), "t"))
	if len(cs) != 1 {
		t.Fatalf("%d calls", len(cs))
	}
	r := cs[0]
	// Indexes sort as numbers: 0, 2, 10.
	if want := `{"model":"gpt-3.5-turbo","messages":[{"role":"system","content":"sys"},{"role":"user","content":"second"},{"role":"user","content":"tenth"}]}`; string(r.Request) != want {
		t.Errorf("request %s\nwant    %s", r.Request, want)
	}
	if a := answer(t, r.Response); a != "tools:f,g" {
		t.Errorf("answer %q (%s)", a, r.Response)
	}
	if r.Provider != "OpenAI" || r.TokensIn != 9 || r.TokensOut != 3 || r.Agent != "default" {
		t.Errorf("%+v", r)
	}
}

// TestOTelEvents reads prompts and completions carried by span events, a
// time given as a JSON number, and a structured (kvlist) attribute.
func TestOTelEvents(t *testing.T) {
	events := `"events":[` +
		`{"timeUnixNano":"1","name":"gen_ai.system.message","attributes":[` + sa("content", "sys") + `]},` +
		`{"timeUnixNano":"1","name":"gen_ai.user.message","attributes":[` + sa("content", "from event") + `]},` +
		`{"timeUnixNano":"2","name":"gen_ai.choice","attributes":[` + ia("index", "0") + `,` + sa("finish_reason", "stop") + `,` +
		`{"key":"message","value":{"kvlistValue":{"values":[{"key":"role","value":{"stringValue":"assistant"}},{"key":"content","value":{"stringValue":"answer"}}]}}}]}]`
	span := `{"spanId":"e1","name":"chat","startTimeUnixNano":1735689600123456789,"attributes":[` +
		sa("gen_ai.operation.name", "chat") + `,` + sa("gen_ai.request.model", "m") + `,` +
		`{"key":"gen_ai.request.temperature","value":{"doubleValue":0.5}},{"key":"gen_ai.request.stream","value":{"boolValue":false}},` +
		`{"key":"gen_ai.request.stop_sequences","value":{"arrayValue":{"values":[{"stringValue":"END"}]}}}],` + events + `}`
	doc := otlpDoc([]string{sa("service.name", "unknown_service:python")}, span)
	cs := calls(readAll(t, open(t, doc, "t", FormatOTel, Options{}), "t"))
	if len(cs) != 1 {
		t.Fatalf("%d calls", len(cs))
	}
	r := cs[0]
	if r.TS.Format("2006-01-02T15:04:05.000000000Z") != "2025-01-01T00:00:00.123456789Z" {
		t.Errorf("ts %s", r.TS)
	}
	if string(r.Request) != `{"model":"m","messages":[{"role":"system","content":"sys"},{"role":"user","content":"from event"}]}` {
		t.Errorf("request %s", r.Request)
	}
	if a := answer(t, r.Response); a != "text:answer" || r.Agent != "default" || r.HasLatency {
		t.Errorf("answer %q agent %q latency %v", a, r.Agent, r.HasLatency)
	}
	// A span without an operation name but with a model, and the older
	// gen_ai.prompt / gen_ai.completion attributes as text.
	doc = otlpDoc(nil, otlpSpan("p1", "", "llm", "01", []string{
		sa("gen_ai.request.model", "m"), sa("gen_ai.prompt", "user: hello\nassistant: hi\nuser: again"), sa("gen_ai.completion", "done")}, ""))
	cs = calls(readAll(t, open(t, doc, "t", FormatOTel, Options{}), "t"))
	if len(cs) != 1 || lastUser(t, cs[0].Request) != "again" || answer(t, cs[0].Response) != "text:done" {
		t.Errorf("text attributes: %v", cs)
	}
}

func TestOTelAgent(t *testing.T) {
	chat := func(attrs ...string) string {
		return otlpSpan("c", "p", "chat", "01", append([]string{sa("gen_ai.operation.name", "chat")}, attrs...), "")
	}
	parent := func(attrs ...string) string { return otlpSpan("p", "", "agent", "00", attrs, "") }
	for _, tt := range []struct {
		name string
		doc  string
		opt  Options
		want string
	}{
		{"flag", otlpDoc(nil, chat(sa("gen_ai.agent.id", "a"))), Options{Agent: "flag"}, "flag"},
		{"span-agent-id", otlpDoc(nil, parent(sa("gen_ai.agent.id", "parent-a")), chat(sa("gen_ai.agent.id", "a"))), Options{}, "a"},
		{"parent-agent-id-before-own-name", otlpDoc(nil, parent(sa("gen_ai.agent.id", "parent-a")), chat(sa("gen_ai.agent.name", "n"))), Options{}, "parent-a"},
		{"resource-agent-id", otlpDoc([]string{sa("gen_ai.agent.id", "res-a")}, chat(sa("gen_ai.conversation.id", "conv"))), Options{}, "res-a"},
		{"agent-name", otlpDoc(nil, chat(sa("gen_ai.agent.name", "n"), sa("gen_ai.conversation.id", "conv"))), Options{}, "n"},
		{"conversation", otlpDoc(nil, chat(sa("gen_ai.conversation.id", "conv"), sa("session.id", "sess"))), Options{}, "conv"},
		{"session", otlpDoc(nil, chat(sa("session.id", "sess"), sa("user.id", "u"))), Options{}, "sess"},
		{"user", otlpDoc(nil, chat(sa("user.id", "u"), sa("enduser.id", "e"))), Options{}, "u"},
		{"enduser", otlpDoc(nil, chat(sa("enduser.id", "e"))), Options{}, "e"},
		{"service", otlpDoc([]string{sa("service.name", "svc")}, chat()), Options{}, "svc"},
		{"unknown-service", otlpDoc([]string{sa("service.name", "unknown_service:node")}, chat()), Options{}, "default"},
		{"parent-cycle", otlpDoc(nil, otlpSpan("p", "c", "agent", "00", nil, ""), chat()), Options{}, "default"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cs := calls(readAll(t, open(t, tt.doc, "t", FormatOTel, tt.opt), "t"))
			if len(cs) != 1 || cs[0].Agent != tt.want {
				t.Errorf("got %v, want agent %q", cs, tt.want)
			}
		})
	}
}

// TestOTelStatus reads the HTTP status of a call.
func TestOTelStatus(t *testing.T) {
	for _, tt := range []struct {
		attrs  []string
		status string
		want   int
	}{
		{nil, `{"code":0}`, 200},
		{nil, `{"code":2}`, 500},
		{nil, `{"code":"STATUS_CODE_ERROR"}`, 500},
		{[]string{ia("http.response.status_code", "429")}, `{"code":2}`, 429},
		{[]string{ia("http.status_code", "404")}, `{}`, 404},
		{[]string{ia("http.response.status_code", "42")}, `{"code":2}`, 500},
	} {
		attrs := append([]string{sa("gen_ai.operation.name", "chat")}, tt.attrs...)
		cs := calls(readAll(t, open(t, otlpDoc(nil, otlpSpan("s", "", "chat", "01", attrs, `"status":`+tt.status)), "t", FormatOTel, Options{}), "t"))
		if len(cs) != 1 || cs[0].Status != tt.want {
			t.Errorf("%v %s: got %v, want %d", tt.attrs, tt.status, cs, tt.want)
		}
	}
}

// TestOTelJSONL reads an OTLP file exporter's output: a document per line,
// and the older instrumentationLibrarySpans name.
func TestOTelJSONL(t *testing.T) {
	span := otlpSpan("s", "", "chat", "01", []string{sa("gen_ai.operation.name", "chat")}, "")
	old := `{"resourceSpans":[{"resource":{},"instrumentationLibrarySpans":[{"spans":[` + span + `]}]}]}`
	in := otlpDoc(nil, span) + "\n" + old + "\n" + `{"resourceSpans":[]}` + "\n"
	recs := readAll(t, open(t, in, "t.jsonl", FormatOTel, Options{}), "t.jsonl")
	var got []string
	for _, r := range recs {
		got = append(got, r.Pos.String()+" "+r.Skip)
	}
	want := []string{
		"t.jsonl:1:resourceSpans[0].scopeSpans[0].spans[0] ",
		"t.jsonl:2:resourceSpans[0].instrumentationLibrarySpans[0].spans[0] ",
		"t.jsonl:3 OTLP document without spans",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
