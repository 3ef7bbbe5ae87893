package logs

import (
	"strings"
	"testing"

	"github.com/killswitch/killswitch/ingest"
)

// payload builds a LiteLLM StandardLoggingPayload line from extra members
// (raw JSON, without braces) after a minimal one.
func payload(extra string) string {
	p := `{"call_type":"acompletion","startTime":1737710446.847371,"endTime":1737710446.851954,"model":"gpt-4o",` +
		`"messages":[{"role":"user","content":"Hello"}],"response":{"choices":[{"message":{"role":"assistant","content":"hi"}}]}`
	if extra != "" {
		p += "," + extra
	}
	return p + "}"
}

func TestLiteLLMFields(t *testing.T) {
	recs := readAll(t, open(t, payload(`"response_cost":0.5,"prompt_tokens":10,"completion_tokens":20,"id":"c1",`+
		`"custom_llm_provider":"openai","team_id":"team-a","status":"success"`), "p.jsonl", FormatLiteLLM, Options{}), "p.jsonl")
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	r := recs[0]
	// 1737710446.847371 s is 2025-01-24T09:20:46.847371Z (date -u -d @1737710446); end − start = 4.583 ms.
	if got := r.TS.Format("2006-01-02T15:04:05.000000Z"); got != "2025-01-24T09:20:46.847371Z" {
		t.Errorf("ts %s", got)
	}
	if r.Pos.String() != "p.jsonl:1" || r.Agent != "default" || r.ID != "c1" || r.Provider != "openai" || r.Tenant != "team-a" ||
		r.Model != "gpt-4o" || r.Status != 200 || !r.HasCost || r.CostUSD != 0.5 || !r.HasTokens || r.TokensIn != 10 ||
		r.TokensOut != 20 || !r.HasLatency || r.LatencyMS != 5 {
		t.Errorf("%+v", r)
	}
	if want := `{"model":"gpt-4o","messages":[{"content":"Hello","role":"user"}]}`; string(r.Request) != want {
		t.Errorf("request %s\nwant    %s", r.Request, want)
	}
	if want := `{"choices":[{"message":{"content":"hi","role":"assistant"}}]}`; string(r.Response) != want {
		t.Errorf("response %s\nwant     %s", r.Response, want)
	}
}

func TestLiteLLMAgent(t *testing.T) {
	for _, tt := range []struct {
		name, extra string
		opt         Options
		want        string
	}{
		{"none", ``, Options{}, "default"},
		{"flag-first", `"agent_id":"a1","session_id":"s1"`, Options{Agent: "flag"}, "flag"},
		{"agent_id", `"agent_id":"a1","session_id":"s1","end_user":"u1"`, Options{}, "a1"},
		{"metadata-agent_id", `"agent_id":null,"metadata":{"agent_id":"m1"},"session_id":"s1"`, Options{}, "m1"},
		{"metadata-as-string", `"metadata":"{\"agent_id\": \"m2\"}"`, Options{}, "m2"},
		{"session", `"session_id":"s1","end_user":"u1"`, Options{}, "s1"},
		{"metadata-session", `"metadata":{"session_id":"s2"},"end_user":"u1"`, Options{}, "s2"},
		{"end_user", `"end_user":"u1","user":"u2"`, Options{}, "u1"},
		{"end-user-metadata", `"end_user":"","metadata":{"user_api_key_end_user_id":"u3"}`, Options{}, "u3"},
		{"user", `"end_user":"","user":"u2"`, Options{}, "u2"},
		{"key-user", `"metadata":{"user_api_key_user_id":"u4"}`, Options{}, "u4"},
		{"trace_id-unused", `"trace_id":"t1"`, Options{}, "default"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			recs := readAll(t, open(t, payload(tt.extra), "p", FormatLiteLLM, tt.opt), "p")
			if len(recs) != 1 || recs[0].Agent != tt.want {
				t.Errorf("agent %q (%v), want %q", recs[0].Agent, errs(recs), tt.want)
			}
		})
	}
}

func TestLiteLLMShapes(t *testing.T) {
	for _, tt := range []struct {
		name, line   string
		prompt, ans  string
		status       int
		request      string // when set, the exact request body
		skip         string
		ts           string
		hasResp      bool
		tokens, cost bool
	}{
		{name: "zone-less-time", line: `{"call_type":"completion","startTime":"2025-01-24 09:20:46.847371","messages":[]}`,
			ts: "2025-01-24T09:20:46.847Z", request: `{"messages":[]}`},
		{name: "rfc3339-time", line: `{"call_type":"completion","startTime":"2025-01-24T09:20:46Z","messages":[]}`,
			ts: "2025-01-24T09:20:46.000Z"},
		{name: "millis", line: `{"call_type":"completion","startTime":1737710446847,"messages":[]}`,
			ts: "2025-01-24T09:20:46.847Z"},
		{name: "messages-as-json-string", line: `{"startTime":1,"call_type":"completion","messages":"[{\"role\":\"user\",\"content\":\"from string\"}]"}`,
			prompt: "from string"},
		{name: "messages-plain-string", line: `{"startTime":1,"call_type":"text_completion","messages":"tell me"}`,
			prompt: "tell me"},
		{name: "messages-empty-object-string", line: `{"startTime":1,"call_type":"completion","model":"m","messages":"{}","response":"{}"}`,
			request: `{"model":"m","messages":[]}`},
		{name: "proxy-server-request", line: `{"startTime":1,"spend":0,"messages":"{}","proxy_server_request":"{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"proxied\"}],\"api_key\":\"sk-x\"}"}`,
			prompt: "proxied", cost: true},
		{name: "response-text", line: `{"startTime":1,"call_type":"text_completion","messages":"q","response":"plain answer"}`,
			prompt: "q", ans: "text:plain answer", hasResp: true},
		{name: "tools-from-model-parameters", line: `{"startTime":1,"call_type":"completion","model":"m","messages":[],"model_parameters":{"tools":[{"type":"function","function":{"name":"f"}}],"temperature":0.2,"api_key":"sk-x"}}`,
			request: `{"model":"m","messages":[],"tools":[{"function":{"name":"f"},"type":"function"}]}`},
		{name: "failure-with-code", line: `{"startTime":1,"call_type":"completion","messages":[],"status":"failure","error_information":{"error_code":"429"}}`,
			status: 429},
		{name: "failure-without-code", line: `{"startTime":1,"call_type":"completion","messages":[],"status":"failure","error_information":{"error_code":""}}`,
			status: 500},
		{name: "embedding-skipped", line: `{"startTime":1,"call_type":"aembedding","messages":[]}`,
			skip: "LiteLLM call_type aembedding is not an LLM chat or completion call"},
		{name: "image-skipped", line: `{"call_type":"image_generation"}`,
			skip: "LiteLLM call_type image_generation is not an LLM chat or completion call"},
		{name: "negative-tokens-ignored", line: `{"startTime":1,"call_type":"completion","messages":[],"prompt_tokens":-1,"response_cost":"x"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			recs := readAll(t, open(t, tt.line, "p", FormatLiteLLM, Options{}), "p")
			if len(recs) != 1 {
				t.Fatalf("%d records", len(recs))
			}
			r := recs[0]
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			if r.Skip != tt.skip {
				t.Fatalf("skip %q, want %q", r.Skip, tt.skip)
			}
			if tt.skip != "" {
				return
			}
			if tt.ts != "" && ingest.FormatTime(r.TS) != tt.ts {
				t.Errorf("ts %s, want %s", ingest.FormatTime(r.TS), tt.ts)
			}
			if tt.request != "" && string(r.Request) != tt.request {
				t.Errorf("request %s\nwant    %s", r.Request, tt.request)
			}
			if p := lastUser(t, r.Request); p != tt.prompt {
				t.Errorf("prompt %q, want %q", p, tt.prompt)
			}
			if (r.Response != nil) != tt.hasResp || answer(t, r.Response) != tt.ans {
				t.Errorf("response %s, want %q", r.Response, tt.ans)
			}
			want := tt.status
			if want == 0 {
				want = 200
			}
			if r.Status != want || r.HasTokens != tt.tokens || r.HasCost != tt.cost {
				t.Errorf("status %d tokens %v cost %v", r.Status, r.HasTokens, r.HasCost)
			}
		})
	}
}

// TestLiteLLMInputs reads one payload as JSONL, as a pretty-printed
// document, as concatenated documents and as a top-level array.
func TestLiteLLMInputs(t *testing.T) {
	p := payload("")
	pretty := strings.ReplaceAll(strings.ReplaceAll(p, `,"`, ",\n  \""), "{", "{\n  ")
	for _, tt := range []struct {
		name, in string
		pos      []string
	}{
		{"jsonl", p + "\n\n" + p + "\n", []string{"x:1", "x:3"}},
		{"crlf", p + "\r\n" + p, []string{"x:1", "x:2"}},
		{"document", pretty, []string{"x:1"}},
		{"documents", pretty + "\n" + pretty, []string{"x:1", "x:" + itoa(strings.Count(pretty, "\n")+2)}},
		{"array", "[\n" + p + ",\n" + p + "\n]", []string{"x:[0]", "x:[1]"}},
		{"array-line", "[" + p + "," + p + "]\n" + p, []string{"x:1:[0]", "x:1:[1]", "x:2"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			recs := readAll(t, open(t, tt.in, "x", FormatLiteLLM, Options{}), "x")
			var got []string
			for _, r := range recs {
				if r.Err != nil {
					t.Errorf("%v", r.Err)
				}
				got = append(got, r.Pos.String())
			}
			if strings.Join(got, " ") != strings.Join(tt.pos, " ") {
				t.Errorf("positions %q, want %q", got, tt.pos)
			}
		})
	}
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
