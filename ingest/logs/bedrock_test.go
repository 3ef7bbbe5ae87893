package logs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// bedrockRec builds a model invocation log record (as Bedrock writes it)
// with the given operation, input and output bodies (raw JSON; "" for
// none) and extra top-level members.
func bedrockRec(ts, op, model, in, out, extra string) string {
	s := `{"schemaType":"ModelInvocationLog","schemaVersion":"1.0","timestamp":"` + ts + `","accountId":"111122223333",` +
		`"identity":{"arn":"arn:aws:sts::111122223333:assumed-role/Agents/sess-1"},"region":"us-east-1","requestId":"r-` + ts +
		`","operation":"` + op + `","modelId":"` + model + `","input":{"inputContentType":"application/json"`
	if in != "" {
		s += `,"inputBodyJson":` + in + `,"inputTokenCount":7`
	}
	s += `}`
	if out != "" {
		s += `,"output":{"outputContentType":"application/json","outputBodyJson":` + out + `,"outputTokenCount":3}`
	}
	return s + extra + `}`
}

const converseIn = `{"system":[{"text":"be brief"}],"messages":[` +
	`{"role":"user","content":[{"text":"weather in Paris?"}]},` +
	`{"role":"assistant","content":[{"text":"checking"},{"toolUse":{"toolUseId":"t1","name":"weather","input":{"city":"Paris"}}}]},` +
	`{"role":"user","content":[{"toolResult":{"toolUseId":"t1","content":[{"json":{"sky":"clear"}}],"status":"success"}}]}],` +
	`"toolConfig":{"tools":[{"toolSpec":{"name":"weather","description":"d","inputSchema":{"json":{"type":"object"}}}}]},` +
	`"inferenceConfig":{"maxTokens":100}}`

const converseOut = `{"output":{"message":{"role":"assistant","content":[{"text":"sunny"},{"toolUse":{"toolUseId":"t2","name":"log","input":{}}}]}},` +
	`"stopReason":"tool_use","metrics":{"latencyMs":321},"usage":{"inputTokens":70,"outputTokens":30,"totalTokens":100}}`

// TestBedrockConverse: a Converse record's bodies, written by hand from
// the mapping rules (bedrock.go): the tool result travels in a user
// message and becomes a tool message; tools become OpenAI tools.
func TestBedrockConverse(t *testing.T) {
	in := bedrockRec("2026-03-02T10:00:00Z", "Converse", "arn:aws:bedrock:us-east-1:111122223333:inference-profile/us.anthropic.claude-3-5-haiku-20241022-v1:0",
		converseIn, converseOut, `,"requestMetadata":{"agent":"planner","session_id":"s-9","api_key":"sk-secret"}`)
	cs := calls(readAll(t, open(t, in+"\n", "b.jsonl", FormatBedrock, Options{}), "b.jsonl"))
	if len(cs) != 1 {
		t.Fatalf("%d calls, want 1", len(cs))
	}
	c := cs[0]
	wantReq := `{"model":"us.anthropic.claude-3-5-haiku-20241022-v1:0","messages":[{"role":"system","content":"be brief"},` +
		`{"role":"user","content":"weather in Paris?"},` +
		`{"role":"assistant","content":"checking","tool_calls":[{"id":"t1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Paris\"}"}}]},` +
		`{"role":"tool","content":"{\"sky\":\"clear\"}","tool_call_id":"t1"}],` +
		`"tools":[{"function":{"description":"d","name":"weather","parameters":{"type":"object"}},"type":"function"}]}`
	if string(c.Request) != wantReq {
		t.Errorf("request\n got %s\nwant %s", c.Request, wantReq)
	}
	wantResp := `{"object":"chat.completion","model":"us.anthropic.claude-3-5-haiku-20241022-v1:0","choices":[{"index":0,"message":{"role":"assistant","content":"sunny",` +
		`"tool_calls":[{"id":"t2","type":"function","function":{"name":"log","arguments":"{}"}}]},"finish_reason":"tool_use"}]}`
	if string(c.Response) != wantResp {
		t.Errorf("response\n got %s\nwant %s", c.Response, wantResp)
	}
	if c.Agent != "planner" || c.AgentFrom != "requestMetadata" || c.Session != "s-9" || c.Status != 200 || c.Provider != "bedrock" ||
		c.ID != "r-2026-03-02T10:00:00Z" || c.TokensIn != 7 || c.TokensOut != 3 || c.LatencyMS != 321 || !c.HasLatency {
		t.Errorf("record: agent %q from %q, session %q, status %d, provider %q, id %q, tokens %d/%d, latency %d",
			c.Agent, c.AgentFrom, c.Session, c.Status, c.Provider, c.ID, c.TokensIn, c.TokensOut, c.LatencyMS)
	}
	if strings.Contains(string(c.Request)+string(c.Response), "sk-secret") {
		t.Error("a credential reached the record")
	}
}

// TestBedrockInvokeModel: native bodies kept (Anthropic), Titan's
// inputText as a prompt, each provider's text answers as a completion;
// failed invocations get the Bedrock Runtime status of their error code;
// the agent is the role session name, or the user name of an IAM user.
func TestBedrockInvokeModel(t *testing.T) {
	anth := `{"anthropic_version":"bedrock-2023-05-31","max_tokens":10,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`
	recs := []string{
		bedrockRec("2026-03-02T10:00:01Z", "InvokeModel", "anthropic.claude-3-haiku-20240307-v1:0", anth,
			`{"id":"m","type":"message","role":"assistant","content":[{"type":"text","text":"hello"}],"stop_reason":"end_turn"}`, ""),
		bedrockRec("2026-03-02T10:00:02Z", "InvokeModel", "amazon.titan-text-express-v1", `{"inputText":"tell me","textGenerationConfig":{}}`,
			`{"inputTextTokenCount":2,"results":[{"tokenCount":1,"outputText":"told","completionReason":"FINISH"}]}`, ""),
		bedrockRec("2026-03-02T10:00:03Z", "InvokeModel", "meta.llama3-8b-instruct-v1:0", `{"prompt":"q","max_gen_len":5}`,
			`{"generation":"a","stop_reason":"stop"}`, ""),
		bedrockRec("2026-03-02T10:00:04Z", "InvokeModel", "mistral.mistral-7b-instruct-v0:2", `{"prompt":"q2"}`,
			`{"outputs":[{"text":"a2","stop_reason":"stop"}]}`, ""),
		bedrockRec("2026-03-02T10:00:05Z", "InvokeModel", "anthropic.claude-3-haiku-20240307-v1:0", anth, "", `,"errorCode":"ThrottlingException"`),
		bedrockRec("2026-03-02T10:00:06Z", "Converse", "m", converseIn, "", `,"errorCode":"ModelTimeoutException"`),
		bedrockRec("2026-03-02T10:00:07Z", "Converse", "m", converseIn, "", `,"errorCode":"SomethingNew"`),
		strings.Replace(bedrockRec("2026-03-02T10:00:08Z", "InvokeModel", "m", `{"prompt":"x"}`, "", ""),
			`assumed-role/Agents/sess-1`, `user/alice`, 1),
	}
	cs := calls(readAll(t, open(t, strings.Join(recs, "\n"), "b.jsonl", FormatBedrock, Options{}), "b.jsonl"))
	type want struct {
		user, answer, agent string
		status              int
	}
	wants := []want{
		{"hi", "anthropic", "sess-1", 200}, // the Anthropic answer, kept
		{"tell me", "text:told", "sess-1", 200},
		{"q", "text:a", "sess-1", 200},
		{"q2", "text:a2", "sess-1", 200},
		{"hi", "", "sess-1", 429},
		{"weather in Paris?", "", "sess-1", 408}, // the last user turn holds a tool result only: a tool message
		{"weather in Paris?", "", "sess-1", 500},
		{"x", "", "alice", 200},
	}
	if len(cs) != len(wants) {
		t.Fatalf("%d calls, want %d", len(cs), len(wants))
	}
	for i, w := range wants {
		c := cs[i]
		ans := "anthropic"
		if i > 0 || string(c.Response) != `{"content":[{"text":"hello","type":"text"}],"id":"m","role":"assistant","stop_reason":"end_turn","type":"message"}` {
			ans = answer(t, c.Response)
		}
		if got := (want{bodyPrompt(t, c.Request), ans, c.Agent, c.Status}); got != w {
			t.Errorf("%s: %+v, want %+v", c.Pos, got, w)
		}
	}
	var body map[string]any
	if err := json.Unmarshal(cs[0].Request, &body); err != nil || body["model"] != "anthropic.claude-3-haiku-20240307-v1:0" || body["anthropic_version"] == nil {
		t.Errorf("Anthropic body %s: want it kept, with the model id", cs[0].Request)
	}
	// --agent names every record.
	for _, c := range calls(readAll(t, open(t, recs[0], "b.jsonl", FormatBedrock, Options{Agent: "x"}), "b.jsonl")) {
		if c.Agent != "x" || c.AgentFrom != "--agent" {
			t.Errorf("--agent: %q from %q", c.Agent, c.AgentFrom)
		}
	}
}

// TestBedrockContainers: the same records read the same from every
// container Bedrock and CloudWatch Logs deliver them in, at each
// container's positions; other CloudWatch messages and embeddings are
// skipped, and bad items are reported where they are.
func TestBedrockContainers(t *testing.T) {
	a := bedrockRec("2026-03-02T10:00:01Z", "Converse", "m", converseIn, converseOut, "")
	b := bedrockRec("2026-03-02T10:00:02Z", "InvokeModel", "m", `{"prompt":"q"}`, `{"generation":"g"}`, "")
	emb := bedrockRec("2026-03-02T10:00:03Z", "InvokeModel", "amazon.titan-embed-text-v2:0", `{"inputText":"x"}`, `{"embedding":[0.1]}`, "")
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	row := func(s string) string {
		return `[{"field":"@timestamp","value":"x"},{"field":"@message","value":` + q(s) + `}]`
	}
	for _, tt := range []struct {
		name, in string
		calls    []string // positions
		skips    []skipCount
		errs     []string
	}{
		{"jsonl", a + "\n" + b + "\n" + emb + "\n", []string{"x:1", "x:2"},
			[]skipCount{{"Bedrock embedding model invocation, not chat", 1}}, nil},
		{"array", "[\n" + a + ",\n" + b + "\n]", []string{"x:[0]", "x:[1]"}, nil, nil},
		{"cloudwatch export", "[\n" + `{"@timestamp":1,"@message":` + q(a) + `},` + "\n" + `{"@message":` + q("START RequestId: 1") + `},` + "\n" +
			`{"@message":` + b + `}` + "\n]", []string{"x:[0]", "x:[2]"}, nil,
			[]string{`x:[1]: @message: invalid JSON at byte 1: invalid character 'S' looking for beginning of value`}},
		// Newest first, as Logs Insights sorts: read back in time order.
		{"insights", "\ufeff{\n\"results\": [" + row(b) + ",\n" + row(a) + ",\n" + `[{"field":"@timestamp","value":"x"}]` + ",\n" +
			row(`{"level":"info"}`) + "],\n\"status\": \"Complete\"}\n", []string{"x:results[1]", "x:results[0]"},
			[]skipCount{{"log message without schemaType or modelId is not a model invocation log", 1}},
			[]string{`x:results[2]: result row without an "@message" field (the query must return @message)`}},
		{"malformed records", `{"schemaType":"ModelInvocationLog","modelId":"m"}` + "\n" +
			`{"schemaType":"ModelInvocationLog","timestamp":"yesterday","modelId":"m"}` + "\n" +
			`{"schemaType":"AuditLog","timestamp":1}` + "\n" + `[1]` + "\n", nil,
			[]skipCount{{"schemaType AuditLog is not a model invocation log", 1}},
			[]string{`x:1: model invocation log without "timestamp"`,
				`x:2: "timestamp": unparsable timestamp: a string of 9 characters where a time was expected (want RFC 3339 or Unix seconds/milliseconds)`,
				`x:4:[0]: a Bedrock invocation log record is a JSON object, got a number`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			recs := readAll(t, open(t, tt.in, "x", FormatBedrock, Options{}), "x")
			var pos []string
			for _, c := range calls(recs) {
				pos = append(pos, c.Pos.String())
			}
			if !slices.Equal(pos, tt.calls) {
				t.Errorf("calls at %q, want %q", pos, tt.calls)
			}
			if got := skipCounts(recs); !slices.Equal(got, tt.skips) {
				t.Errorf("skips %v, want %v", got, tt.skips)
			}
			if got := errs(recs); !slices.Equal(got, tt.errs) {
				t.Errorf("errors %q, want %q", got, tt.errs)
			}
		})
	}
}

// TestBedrockFixtures: the Logs Insights fixture (newest first, with a
// byte order mark) reads to the records of the S3 delivery fixture, in
// the same order, with only their positions differing.
func TestBedrockFixtures(t *testing.T) {
	dir := filepath.Join("..", "..", "fixtures", "logs")
	read := func(name string) []string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if f, ok := Detect(b[:min(len(b), 4096)]); !ok || f != FormatBedrock {
			t.Fatalf("%s: Detect = %q, %v", name, f, ok)
		}
		var out []string
		for _, r := range readAll(t, open(t, string(b), name, FormatBedrock, Options{}), name) {
			if r.Err != nil {
				t.Fatalf("%s: %v", name, r.Err)
			}
			j, _ := json.Marshal(struct {
				Agent, Skip, Model, ID string
				Status                 int
				Request, Response      string
				TS                     string
			}{r.Agent, r.Skip, r.Model, r.ID, r.Status, string(r.Request), string(r.Response), r.TS.String()})
			out = append(out, string(j))
		}
		return out
	}
	jl, ins := read("bedrock-invocations.jsonl"), read("bedrock-insights.json")
	if len(jl) != 12 || !slices.Equal(jl, ins) {
		t.Errorf("%d records from the JSONL, %d from the query result; differ:\n%s\n%s", len(jl), len(ins), strings.Join(jl, "\n"), strings.Join(ins, "\n"))
	}
}

// bodyPrompt is the prompt of a request body of any dialect the Bedrock
// reader writes: a legacy "prompt", else the last user message's text
// (string content, or its text parts joined), read with encoding/json.
func bodyPrompt(t testing.TB, req []byte) string {
	t.Helper()
	var body struct {
		Prompt   *string `json:"prompt"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(req, &body); err != nil {
		t.Fatalf("request %s: %v", req, err)
	}
	if body.Prompt != nil {
		return *body.Prompt
	}
	for i := len(body.Messages) - 1; i >= 0; i-- {
		m := body.Messages[i]
		if m.Role != "user" {
			continue
		}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			return s
		}
		var parts []struct{ Type, Text string }
		json.Unmarshal(m.Content, &parts)
		var texts []string
		for _, p := range parts {
			if p.Type == "text" {
				texts = append(texts, p.Text)
			}
		}
		return strings.Join(texts, "\n")
	}
	return ""
}
