package progress

import "testing"

// FuzzExtract: any request and response bytes give features or an error,
// never a panic, the same features twice (no state leaks between calls),
// and the same by the fast path of chat requests as by the tree path.
func FuzzExtract(f *testing.F) {
	f.Add([]byte(`{"messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"function":{"name":"grep","arguments":"{\"q\":\"x\"}"}}]},{"role":"tool","content":"Error: no matches for x at 2026-01-02T03:04:05Z"}]}`),
		[]byte(`{"choices":[{"message":{"role":"assistant","content":"Trying again 3.2s later."}}]}`))
	f.Add([]byte(`{"messages":[{"role":"assistant","content":[{"type":"tool_use","name":"bash","input":{"command":"npm test"}}]},{"role":"user","content":[{"type":"tool_result","content":"FAILED","is_error":true}]}]}`),
		[]byte(`{"type":"message","role":"assistant","content":[{"type":"text","text":"x"}]}`))
	f.Add([]byte(`{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":{"a":1}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"ok":true}}}]}]}`), []byte(nil))
	f.Add([]byte(`{"input":[{"type":"function_call","name":"f","arguments":"{}"},{"type":"function_call_output","output":"#123 done"}]}`), []byte("data: {}\n\n"))
	f.Add([]byte(`{"prompt":["a 550e8400-e29b-41d4-a716-446655440000","b"]}`), []byte(`[]`))
	// Text actions (#33): a SWE-agent command block with the shell's line
	// counter, a ReAct Action with a command element, an OpenHands
	// function block, a tool call whose counter moves, a blank output.
	f.Add([]byte(`{"messages":[{"role":"assistant","content":"DISCUSSION\nTry.\n`+"```\\ncd fastjson/\\n```"+`"},{"role":"user","content":"/bin/bash: line 13053: cd: fastjson/: No such file or directory\n(Open file: n/a)\nbash-$"}]}`), []byte(nil))
	f.Add([]byte(`{"messages":[{"role":"assistant","content":"Thought: again\nAction: <command>GOTOOLCHAIN=auto go test ./...</command>"},{"role":"user","content":"Observation:\ngo test ./...\nFAIL 0.41s\n\nexit code: 1"}]}`), []byte(nil))
	f.Add([]byte(`{"messages":[{"role":"assistant","content":"<function=execute_bash>\n<parameter=command>pwd</parameter>\n</function>"},{"role":"user","content":"EXECUTION RESULT of [execute_bash]:\n/tmp\n[Command finished with exit code 0]"}]}`), []byte(nil))
	f.Add([]byte(`{"messages":[{"role":"assistant","tool_calls":[{"function":{"name":"poll","arguments":"{\"attempt\":3,\"job\":\"b\"}"}}]},{"role":"tool","content":"<returncode>1</returncode>\n<output>\n</output>"}]}`), []byte(nil))
	// The fast path of chat requests against the tree path: an escaped
	// role, an escaped member name (left to fastjson), a second
	// "messages", a message that is not an object, bytes after the body.
	f.Add([]byte(`{"messages":[{"role":"user","content":"go"},{"role":"\u0061ssistant","tool_calls":[{"function":{"name":"ls","arguments":"{}"}}]},{"role":"tool","content":"a b"}],"messages":7}`), []byte(nil))
	f.Add([]byte(`{"m\u0065ssages":[{"role":"assistant","content":"`+"```\\nls\\n```"+`"}],"messages":[null,{"role":"assistant","content":"x"},{"role":"user","content":"y"}]}`), []byte(nil))
	f.Add([]byte(`{"messages":[{"role":"assistant","content":"x"},{"role":"user","content":"y"}]} {}`), []byte(nil))
	f.Fuzz(func(t *testing.T, req, resp []byte) {
		var x Extractor
		a, errA := x.Extract(req, resp)
		b, errB := x.Extract(req, resp)
		if (errA == nil) != (errB == nil) || a != b {
			t.Fatalf("two extractions differ: %+v %v / %+v %v", a, errA, b, errB)
		}
		// The fast path of chat requests reads what the tree path reads.
		y := Extractor{treeOnly: true}
		c, errC := y.Extract(req, resp)
		if (errA == nil) != (errC == nil) || a != c {
			t.Fatalf("fast path %+v %v, tree %+v %v", a, errA, c, errC)
		}
		var d Description
		d, _ = x.Describe(req, false)
		_ = d
	})
}
