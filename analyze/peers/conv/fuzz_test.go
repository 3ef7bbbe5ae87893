package conv

import (
	"reflect"
	"testing"
)

// FuzzConvert: any request and response bytes give a turn or an error,
// never a panic, and the same turn twice (no state leaks between calls).
func FuzzConvert(f *testing.F) {
	f.Add([]byte(`{"messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"grep","arguments":"{\"q\":\"x\"}"}}]},{"role":"tool","tool_call_id":"c1","content":"no matches"}],"tools":[{"type":"function","function":{"name":"grep"}}]}`),
		[]byte(`{"choices":[{"message":{"role":"assistant","content":"Again.","tool_calls":[{"id":"c2","function":{"name":"grep","arguments":"{\"q\":\"x\"}"}}]}}]}`), 200)
	f.Add([]byte(`{"system":"s","messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"bash","input":{"command":"npm test"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"FAILED"}],"is_error":true},{"type":"text","text":"dropped"}]}]}`),
		[]byte(`{"type":"message","role":"assistant","content":[{"type":"text","text":"x"},{"type":"tool_use","id":"t2","name":"bash","input":{"command":"npm test"}}]}`), 200)
	f.Add([]byte(`"{\"messages\":[]}"`), []byte(`{"choices":[]}`), 200)
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"text","text":"a"},"b"]}]}`), []byte("data: {}\n\n"), 200)
	f.Add([]byte(`{"messages":[{"role":"user","content":"x"}]}`), []byte(`{"error":{"message":"prompt is too long"}}`), 400)
	f.Add([]byte(`{"prompt":"legacy"}`), []byte(nil), 0)
	f.Fuzz(func(t *testing.T, req, resp []byte, status int) {
		var c Converter
		a, wa, errA := c.Convert(req, resp, status)
		b, wb, errB := c.Convert(req, resp, status)
		if (errA == nil) != (errB == nil) || wa != wb || !reflect.DeepEqual(a, b) {
			t.Fatalf("two conversions differ: %+v %q %v / %+v %q %v", a, wa, errA, b, wb, errB)
		}
		// The fast path reads what the full parser reads.
		var fast, tree Turn
		var c2 Converter
		if errF, errT := c.Request(req, &fast), c2.requestTree(req, &tree); errF == nil && errT == nil {
			fast.tools, tree.tools = nil, nil
			if !reflect.DeepEqual(fast, tree) {
				t.Fatalf("fast path %+v, full parser %+v", fast, tree)
			}
		}
		if a.Failed && (a.Text != "" || len(a.Calls) > 0) {
			t.Fatalf("a failed call with events: %+v", a)
		}
	})
}
