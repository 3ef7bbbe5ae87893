package progress

import "testing"

// FuzzExtract: any request and response bytes give features or an error,
// never a panic, and the same features twice (no state leaks between calls).
func FuzzExtract(f *testing.F) {
	f.Add([]byte(`{"messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"function":{"name":"grep","arguments":"{\"q\":\"x\"}"}}]},{"role":"tool","content":"Error: no matches for x at 2026-01-02T03:04:05Z"}]}`),
		[]byte(`{"choices":[{"message":{"role":"assistant","content":"Trying again 3.2s later."}}]}`))
	f.Add([]byte(`{"messages":[{"role":"assistant","content":[{"type":"tool_use","name":"bash","input":{"command":"npm test"}}]},{"role":"user","content":[{"type":"tool_result","content":"FAILED","is_error":true}]}]}`),
		[]byte(`{"type":"message","role":"assistant","content":[{"type":"text","text":"x"}]}`))
	f.Add([]byte(`{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":{"a":1}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"ok":true}}}]}]}`), []byte(nil))
	f.Add([]byte(`{"input":[{"type":"function_call","name":"f","arguments":"{}"},{"type":"function_call_output","output":"#123 done"}]}`), []byte("data: {}\n\n"))
	f.Add([]byte(`{"prompt":["a 550e8400-e29b-41d4-a716-446655440000","b"]}`), []byte(`[]`))
	f.Fuzz(func(t *testing.T, req, resp []byte) {
		var x Extractor
		a, errA := x.Extract(req, resp)
		b, errB := x.Extract(req, resp)
		if (errA == nil) != (errB == nil) || a != b {
			t.Fatalf("two extractions differ: %+v %v / %+v %v", a, errA, b, errB)
		}
		var d Description
		d, _ = x.Describe(req, false)
		_ = d
	})
}
