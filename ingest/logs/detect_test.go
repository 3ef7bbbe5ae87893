package logs

import (
	"strings"
	"testing"
)

func TestDetect(t *testing.T) {
	huge := `"` + strings.Repeat("x", 5000) + `"`
	for _, tt := range []struct {
		name, head string
		want       Format // "" for not detected
	}{
		{"capture", `{"ts":"2026-01-02T03:04:05Z","agent":"a","request":{}}`, FormatCapture},
		{"capture-request-first", `{"request":{"messages":[]},"ts":1}`, FormatCapture},
		{"control", `{"ts":1,"agent":"a","event":"deactivate"}`, FormatCapture},
		{"completion-log", `{"messages":[],"tools":[],"kwargs":{},"response":{},"timestamp":1.5}`, FormatCompletionLog},
		{"completion-log-cut-in-messages", `{"messages":[{"role":"user","content":"` + strings.Repeat("y", 100), FormatCompletionLog},
		{"completion-log-prompt", `{"prompt":"hi","timestamp":1}`, FormatCompletionLog},
		{"completion-log-timestamp-response", `{"timestamp":1,"response":{}}`, FormatCompletionLog},
		{"litellm-payload", `{"id":"x","trace_id":null,"call_type":"acompletion","startTime":1.0}`, FormatLiteLLM},
		{"litellm-spend", `{"request_id":"x","session_id":"s","spend":0.1}`, FormatLiteLLM},
		{"litellm-starttime-messages", `{"startTime":"2025-01-24 09:20:46","messages":[]}`, FormatLiteLLM},
		{"litellm-pretty", "{\n    \"id\": \"chatcmpl\",\n    \"call_type\": \"acompletion\",\n", FormatLiteLLM},
		{"langfuse-export", `{"trace":{"id":"t","sessionId":` + huge + `},"observations":[]}`, FormatLangfuse},
		{"langfuse-export-cut-in-trace", `{"trace":{"id":"t","input":` + huge[:100], FormatLangfuse},
		{"langfuse-api", `{"id":"t","observations":[]}`, FormatLangfuse},
		{"otel", `{"resourceSpans":[{"resource":{}}]}`, FormatOTel},
		{"bedrock-record", `{"schemaType":"ModelInvocationLog","schemaVersion":"1.0","timestamp":"2025-03-11T00:38:02Z","input":{}}`, FormatBedrock},
		{"bedrock-cloudwatch-export", `[{"@timestamp":1741653482000,"@message":"{\"schemaType\":\"ModelInvocationLog\"}"}]`, FormatBedrock},
		{"bedrock-insights", "\xef\xbb\xbf{\n  \"results\": [[{\"field\": \"@message\", \"value\": \"{\\\"schemaType\\\":\\\"ModelInvocationLog\\\"}\"}]]", FormatBedrock},
		{"otel-console-python", "{\n    \"name\": \"chat\",\n    \"context\": {\n        \"trace_id\": \"0x1\"\n    },\n    \"kind\": \"SpanKind.CLIENT\",", FormatOTelConsole},
		{"otel-console-js", `{"traceId":"t","name":"chat","id":"c","timestamp":1,"duration":2}`, FormatOTelConsole},
		{"phoenix-span", `{"name":"n","context":{"trace_id":"t","span_id":"s"},"span_kind":"LLM"}`, FormatPhoenix},
		{"phoenix-page", `{"data":[{"name":"n","context":{},"span_kind":"LLM"}],"next_cursor":null}`, FormatPhoenix},
		{"langsmith-run", `{"id":"r","name":"ChatOpenAI","run_type":"llm","inputs":{}}`, FormatLangSmith},
		{"langsmith-batch", `{"post":[{"id":"r","run_type":"llm"}],"patch":[]}`, FormatLangSmith},
		{"datadog-traces", "[\n  [\n    {\"trace_id\": 1, \"span_id\": 2, \"parent_id\": 0, \"name\": \"openai.request\", \"start\": 1", FormatDatadog},
		{"datadog-flat-spans", `[{"trace_id":1,"span_id":2,"name":"n","duration":5}]`, FormatDatadog},
		{"array-of-arrays", `[[1,2],[3]]`, ""},
		{"other-schema-type", `{"schemaType":"Other","input":{},"timestamp":1}`, FormatCompletionLog},
		{"insights-of-other-logs", `{"results":[[{"field":"@message","value":"GET /"}]],"status":"Complete"}`, ""},
		{"otel-snake", `{"resource_spans":[]}`, FormatOTel},
		{"openai-batch-input", `{"custom_id":"a","method":"POST","url":"/v1/chat/completions","body":{}}`, FormatOpenAIBatch},
		{"openai-batch-output", `{"id":"batch_req_1","custom_id":"a","response":{"status_code":200,"body":{}},"error":null}`, FormatOpenAIBatch},
		{"anthropic-batch-requests", `{"custom_id":"a","params":{"model":"claude"}}`, FormatAnthropicBatch},
		{"anthropic-batch-results", `{"custom_id":"a","result":{"type":"succeeded"}}`, FormatAnthropicBatch},
		{"array-of-payloads", `[{"call_type":"completion","startTime":1}]`, FormatLiteLLM},
		{"array-of-traces-pretty", "[\n  {\n    \"trace\": {", FormatLangfuse},
		{"bom", "\xef\xbb\xbf{\"custom_id\":\"a\",\"body\":{}}", FormatOpenAIBatch},
		{"leading-space", "\n\n  \t{\"resourceSpans\":[]}", FormatOTel},
		{"escaped-quote-in-value", `{"note":"a \" b","custom_id":"x","params":{}}`, FormatAnthropicBatch},
		{"har", `{"log":{"version":"1.2","entries":[]}}`, ""},
		{"message-list", `[{"content":"You are","role":"system"}]`, ""},
		{"empty", ``, ""},
		{"not-json", `hello`, ""},
		{"parquet", "PAR1\x00\x00", ""},
		{"number", `42`, ""},
		{"key-without-colon", `{"custom_id" "a"}`, ""},
		{"trace-not-object", `{"trace":"t"}`, ""},
		{"cut-in-name", `{"cust`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Detect([]byte(tt.head))
			if got != tt.want || ok != (tt.want != "") {
				t.Errorf("Detect(%.60q) = %q, %v; want %q", tt.head, got, ok, tt.want)
			}
		})
	}
}

func TestParseFormat(t *testing.T) {
	for _, f := range Formats {
		if got, err := ParseFormat(string(f)); got != f || err != nil {
			t.Errorf("ParseFormat(%q) = %q, %v", f, got, err)
		}
	}
	_, err := ParseFormat("jsonl")
	if err == nil || !strings.Contains(err.Error(), `unknown input format "jsonl" (want one of capture, completion-log, litellm`) {
		t.Errorf("err %v", err)
	}
	if _, err := NewReader(strings.NewReader(""), "x", "nope", Options{}); err == nil {
		t.Error("NewReader accepted an unknown format")
	}
}
