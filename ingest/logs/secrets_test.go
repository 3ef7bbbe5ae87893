package logs

import (
	"strings"
	"testing"

	"github.com/killswitch/killswitch/ingest"
)

// recordText is everything a record carries as text.
func recordText(r *ingest.Record) string {
	s := []string{string(r.Request), string(r.Response), r.Skip, r.Agent, r.ID, r.Provider, r.Endpoint,
		r.Model, r.Tenant, r.APIKeyID, r.Workflow, r.Session}
	if r.Err != nil {
		s = append(s, r.Err.Error())
	}
	return strings.Join(s, "\x00")
}

// TestSecretsNeverInRecords plants credentials where each format's logs
// hold them (LiteLLM's metadata and request copies, framework configs in
// Langfuse inputs, batch bodies and URLs) and checks that no record field
// holds one, while the calls are still read.
func TestSecretsNeverInRecords(t *testing.T) {
	const s = "SECRETVALUE"
	for _, tt := range []struct {
		name  string
		f     Format
		in    string
		calls int
	}{
		{"litellm", FormatLiteLLM, `{"call_type":"acompletion","startTime":1,"api_key":"` + s + `",` +
			`"metadata":{"user_api_key_hash":"` + s + `","user_api_key_alias":"` + s + `","user_api_key_team_id":"` + s + `","headers":{"Authorization":"Bearer ` + s + `"}},` +
			`"model_parameters":{"api_key":"` + s + `","extra_headers":{"x-api-key":"` + s + `"},"tools":[{"type":"function","function":{"name":"f"},"metadata":{"key":"` + s + `"}}]},` +
			`"messages":[{"role":"user","content":"q","api_key":"` + s + `"}],` +
			`"response":{"choices":[],"_hidden_params":{"additional_headers":{"llm_provider-authorization":"` + s + `"},"api_key":"` + s + `"}}}` + "\n" +
			`{"call_type":"acompletion","startTime":1,"messages":"{}","proxy_server_request":{"messages":[{"role":"user","content":"q"}],"api_key":"` + s + `","headers":{"x-api-key":"` + s + `"}},"metadata":"{\"user_api_key\": \"` + s + `\"}"}`, 2},
		{"langfuse", FormatLangfuse, trace(`,"metadata":{"api_key":"`+s+`"}`,
			gen("1", `{"model":"g","config":{"http_options":{"headers":{"x-goog-api-key":"`+s+`"}}},"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`, `{"Authorization":"Bearer `+s+`","answer":"a"}`),
			gen("2", `{"question":"q","client":{"apiKey":"`+s+`","password":"`+s+`","secret_token":"`+s+`"}}`, `{"choices":[],"api_key":"`+s+`"}`),
			gen("3", `[{"role":"user","content":"q"},{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":{"access_token":"`+s+`","q":1}}}]}]`, `null`)), 3},
		{"otel", FormatOTel, otlpDoc([]string{sa("api_key", s)}, otlpSpan("s", "", "chat", "01", []string{
			sa("gen_ai.operation.name", "chat"), sa("http.request.header.authorization", "Bearer "+s),
			sa("gen_ai.input.messages", `[{"role":"user","parts":[{"type":"text","content":"q"}],"metadata":{"my_key":"`+s+`"}}]`),
			sa("gen_ai.output.messages", `{"choices":[],"headers":{"x-api-key":"`+s+`"}}`)}, "")), 1},
		{"openai-batch", FormatOpenAIBatch, `{"custom_id":"a","method":"POST","url":"/v1/chat/completions?api-key=` + s + `","body":{"model":"m","messages":[],` +
			`"api_key":"` + s + `","extra_headers":{"Authorization":"` + s + `"},"metadata":{"session_key":"` + s + `"}}}`, 1},
		{"anthropic-batch", FormatAnthropicBatch, `{"custom_id":"a","params":{"model":"m","messages":[],"x-api-key":"` + s + `","metadata":{"user_id":"u","api_key":"` + s + `"}}}`, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			recs := readAll(t, open(t, tt.in, "x", tt.f, Options{}), "x")
			if n := len(calls(recs)); n != tt.calls {
				t.Errorf("%d calls, want %d (%v)", n, tt.calls, errs(recs))
			}
			for _, r := range recs {
				if txt := recordText(r); strings.Contains(txt, s) {
					t.Errorf("%s: a secret is in the record: %q", r.Pos, txt)
				}
			}
		})
	}
}
