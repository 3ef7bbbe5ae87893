package openclaw

import (
	"fmt"
	"testing"
)

// The cases of OpenClaw's src/agents/tool-loop-detection.test.ts,
// rewritten on the port. The stored test file (commit 0410b692) is from
// another version than the published 2026.9.6: every expectation here is
// derived by hand from 2026.9.6's dist/tool-loop-detection-6ndMMrbS.mjs,
// and the comments say where it differs from that file's. Results are
// what a capture shows of them: their text (details are not captured).

// calls is a test session: the history of one run (0, unless set).
type calls struct {
	s   State
	run int
	n   int
}

func key(tool, args string) ArgsKey { return NewParams(tool, args).Key }

// call records a call of tool with args, and its result text (none when
// result is nil).
func (c *calls) call(tool, args string, result *string) {
	c.n++
	id := fmt.Sprintf("%s-%d", tool, c.n)
	p := NewParams(tool, args)
	c.s.RecordCall(tool, p.Key, id, c.run)
	if result != nil {
		c.s.RecordOutcome(tool, p.Key, id, c.run, ResultOutcome(tool, p, *result, false))
	}
}

func (c *calls) fail(tool, args, msg string) {
	c.n++
	id := fmt.Sprintf("%s-e%d", tool, c.n)
	p := NewParams(tool, args)
	c.s.RecordCall(tool, p.Key, id, c.run)
	c.s.RecordOutcome(tool, p.Key, id, c.run, ResultOutcome(tool, p, msg, true))
}

func (c *calls) detect(tool, args string) Detection {
	p := NewParams(tool, args)
	return Detect(c.s.History, tool, p.Key, KnownPoll(tool, p), c.run)
}

func str(s string) *string { return &s }

func TestArgumentHashing(t *testing.T) {
	if key("read", `{"path":"/file.txt"}`) != key("read", `{"path":"/file.txt"}`) {
		t.Error("same tool and params: different keys")
	}
	if key("read", `{"path":"/file1.txt"}`) == key("read", `{"path":"/file2.txt"}`) {
		t.Error("different params: one key")
	}
	if key("read", `{"path":"/file.txt"}`) == key("write", `{"path":"/file.txt"}`) {
		t.Error("different tools: one key")
	}
	if key("tool", `{"a":1,"b":2}`) != key("tool", `{"b":2,"a":1}`) {
		t.Error("key order changed the key")
	}
	ks := map[ArgsKey]bool{key("tool", `"string-param"`): true, key("tool", `123`): true, key("tool", `null`): true}
	if len(ks) != 3 {
		t.Error("non-object params collide")
	}
	if ToolName(" Bash ") != "exec" || ToolName("") != "tool" || ToolName("Apply-Patch") != "apply_patch" || ToolName("Read") != "read" {
		t.Error("tool names not normalized as normalizeToolPolicyName does")
	}
}

func TestHistory(t *testing.T) {
	// maintains sliding window of last N calls: 40 calls keep the last
	// 30, the oldest being iteration 10.
	var c calls
	for i := 0; i < HistorySize+10; i++ {
		c.call("tool", fmt.Sprintf(`{"iteration":%d}`, i), nil)
	}
	if len(c.s.History) != HistorySize || c.s.History[0].Key != key("tool", `{"iteration":10}`) {
		t.Errorf("history of %d, oldest %v", len(c.s.History), c.s.History[0].Key)
	}
	// an outcome attaches to the pre-recorded call; trimming keeps the
	// last 30 call/outcome records (the first is call 3 of 33).
	c = calls{}
	for i := 0; i < HistorySize+3; i++ {
		c.call("gateway", fmt.Sprintf(`{"action":"lookup","path":"config.%d"}`, i), str(fmt.Sprintf("schema-%d", i)))
	}
	if len(c.s.History) != HistorySize || c.s.History[0].ID != "gateway-4" || !c.s.History[HistorySize-1].HasResult {
		t.Errorf("history of %d, first %s", len(c.s.History), c.s.History[0].ID)
	}
	// does not attach outcomes to matching calls from other runs.
	var s State
	p := NewParams("read", `{"path":"/same.txt"}`)
	s.RecordCall("read", p.Key, "call-1", 1)
	s.RecordOutcome("read", p.Key, "call-1", 2, ResultOutcome("read", p, "same output", false))
	if len(s.History) != 2 || s.History[0].HasResult || s.History[1].Run != 2 || !s.History[1].HasResult {
		t.Errorf("outcome of another run: %+v", s.History)
	}
}

func TestDetect(t *testing.T) {
	same := str("same output")
	cases := []struct {
		name  string
		build func(c *calls)
		tool  string
		args  string
		want  Detection
	}{
		{"empty history", func(c *calls) {}, "tool", `{"arg":1}`, Detection{}},
		{"unique calls", func(c *calls) {
			for i := 0; i < 15; i++ {
				c.call("read", fmt.Sprintf(`{"path":"/file%d.txt"}`, i), nil)
			}
		}, "read", `{"path":"/new-file.txt"}`, Detection{}},
		// 10 calls without outcomes: recentCount 10 (no result: no
		// no-progress streak).
		{"generic warning", func(c *calls) {
			for i := 0; i < WarningThreshold; i++ {
				c.call("read", `{"path":"/same.txt"}`, nil)
			}
		}, "read", `{"path":"/same.txt"}`, Detection{Warning, "generic_repeat", 10}},
		// 20 identical outcomes: the no-progress streak is 20.
		{"generic critical", func(c *calls) {
			for i := 0; i < CriticalThreshold; i++ {
				c.call("read", `{"path":"/same.txt"}`, same)
			}
		}, "read", `{"path":"/same.txt"}`, Detection{Critical, "generic_repeat", 20}},
		{"known poll warning", func(c *calls) {
			for i := 0; i < WarningThreshold; i++ {
				c.call("process", `{"action":"poll","sessionId":"sess-1"}`, str("(no new output)\n\nProcess still running."))
			}
		}, "process", `{"action":"poll","sessionId":"sess-1"}`, Detection{Warning, "known_poll_no_progress", 10}},
		{"known poll critical", func(c *calls) {
			for i := 0; i < CriticalThreshold; i++ {
				c.call("process", `{"action":"poll","sessionId":"sess-1"}`, str("(no new output)\n\nProcess still running."))
			}
		}, "process", `{"action":"poll","sessionId":"sess-1"}`, Detection{Critical, "known_poll_no_progress", 20}},
		// Progressing output: the streak is 1; a known poll never gets the
		// generic warning.
		{"known poll progressing", func(c *calls) {
			for i := 0; i < CriticalThreshold+5; i++ {
				c.call("process", `{"action":"poll","sessionId":"sess-1"}`, str(fmt.Sprintf("line %d", i)))
			}
		}, "process", `{"action":"poll","sessionId":"sess-1"}`, Detection{}},
		{"global breaker", func(c *calls) {
			for i := 0; i < GlobalThreshold; i++ {
				c.call("read", `{"path":"/same.txt"}`, same)
			}
		}, "read", `{"path":"/same.txt"}`, Detection{Critical, "global_circuit_breaker", 30}},
		// Argument churn (a, b, a, a, b writes, then c): at 2026.9.6 the
		// streak counts one argument hash only, and churn only warns when
		// the current arguments were seen 3 times: nothing (the stored
		// test expects a global-breaker block, a later change).
		{"argument churn", func(c *calls) {
			paths := []string{"/tmp/a.md", "/tmp/b.md", "/tmp/a.md", "/tmp/a.md", "/tmp/b.md"}
			for i := 0; i < GlobalThreshold; i++ {
				p := paths[i%len(paths)]
				c.call("write", `{"path":"`+p+`","content":"same content"}`, str("wrote "+p))
			}
		}, "write", `{"path":"/tmp/c.md","content":"same content"}`, Detection{}},
		{"one-shot batch", func(c *calls) {
			for i := 0; i < GlobalThreshold; i++ {
				c.call("write", fmt.Sprintf(`{"path":"/tmp/file-%d.md","content":"same content"}`, i), str("write complete"))
			}
		}, "write", `{"path":"/tmp/next.md","content":"same content"}`, Detection{}},
		{"two-pass batch", func(c *calls) {
			for i := 0; i < GlobalThreshold; i++ {
				p := fmt.Sprintf("/tmp/batch-%d.md", i%15)
				c.call("write", `{"path":"`+p+`","content":"same content"}`, str("wrote "+p))
			}
		}, "write", `{"path":"/tmp/next.md","content":"same content"}`, Detection{}},
		// exec with the same output 20 times: critical (in OpenClaw by its
		// status, exit code and output; here by the text).
		{"exec completed", func(c *calls) {
			for i := 0; i < CriticalThreshold; i++ {
				c.call("exec", `{"command":"grafana-api.sh datasources"}`, str("Loki\nPrometheus"))
			}
		}, "exec", `{"command":"grafana-api.sh datasources"}`, Detection{Critical, "generic_repeat", 20}},
		// A running exec whose text names a new session and pid each time:
		// OpenClaw hashes its status and output tail (details) and blocks;
		// a capture has only the text, which differs: a warning only (the
		// profile's departure, docs/peers.md).
		{"exec running (text only)", func(c *calls) {
			for i := 0; i < CriticalThreshold; i++ {
				c.call("exec", `{"command":"tail -f /var/log/app.log","yieldMs":1000}`, str(fmt.Sprintf("Command still running (session sess-%d, pid %d)", i, 1000+i)))
			}
		}, "exec", `{"command":"tail -f /var/log/app.log","yieldMs":1000}`, Detection{Warning, "generic_repeat", 20}},
		{"exec changing output", func(c *calls) {
			for i := 0; i < GlobalThreshold; i++ {
				c.call("exec", `{"command":"date"}`, str(fmt.Sprintf("tick %d", i)))
			}
		}, "exec", `{"command":"date"}`, Detection{Warning, "generic_repeat", 30}},
		{"unknown tool below the limit", func(c *calls) {
			for i := 0; i < WarningThreshold-1; i++ {
				c.fail("exec", fmt.Sprintf(`{"command":"echo %d"}`, i), "Tool exec not found")
			}
		}, "exec", `{"command":"echo still allowed"}`, Detection{}},
		{"unknown tool, changing args", func(c *calls) {
			for _, a := range []string{`{"command":"ls"}`, `{"command":"pwd"}`, `{"input":"whoami"}`, `{"cmd":"env"}`,
				`{"shell":"bash -lc ls"}`, `{"command":"printf ok"}`, `{"cwd":"/tmp","command":"ls"}`, `{"args":["ls","/tmp"]}`,
				`{"command":"find . -maxdepth 1"}`, `{"text":"run ls"}`, `{"command":"uname -a"}`, `{"command":"id"}`,
				`{"command":"date"}`, `{"command":"ps"}`, `{"command":"df -h"}`, `{"command":"free -m"}`, `{"command":"ls /tmp"}`,
				`{"command":"ls -la"}`, `{"command":"cat /etc/hostname"}`, `{"command":"echo done"}`} {
				c.fail("exec", a, "Tool exec not found")
			}
		}, "exec", `{"command":"echo still looping"}`, Detection{Critical, "unknown_tool_repeat", 20}},
		// read, list, read… 9 calls without outcomes, then list: a tail of
		// 9 the call extends to 10, no results: a warning.
		{"ping-pong warning", func(c *calls) {
			for i := 0; i < WarningThreshold-1; i++ {
				if i%2 == 0 {
					c.call("read", `{"path":"/a.txt"}`, nil)
				} else {
					c.call("list", `{"dir":"/workspace"}`, nil)
				}
			}
		}, "list", `{"dir":"/workspace"}`, Detection{Warning, "ping_pong", 10}},
		{"ping-pong critical", func(c *calls) {
			for i := 0; i < CriticalThreshold-1; i++ {
				if i%2 == 0 {
					c.call("read", `{"path":"/a.txt"}`, str("read stable"))
				} else {
					c.call("list", `{"dir":"/workspace"}`, str("list stable"))
				}
			}
		}, "list", `{"dir":"/workspace"}`, Detection{Critical, "ping_pong", 20}},
		{"ping-pong progressing", func(c *calls) {
			for i := 0; i < CriticalThreshold-1; i++ {
				if i%2 == 0 {
					c.call("read", `{"path":"/a.txt"}`, str(fmt.Sprintf("read %d", i)))
				} else {
					c.call("list", `{"dir":"/workspace"}`, str(fmt.Sprintf("list %d", i)))
				}
			}
		}, "list", `{"dir":"/workspace"}`, Detection{Warning, "ping_pong", 20}},
		{"ping-pong broken", func(c *calls) {
			c.call("read", `{"path":"/a.txt"}`, nil)
			c.call("list", `{"dir":"/workspace"}`, nil)
			c.call("read", `{"path":"/a.txt"}`, nil)
			c.call("write", `{"path":"/tmp/out.txt"}`, nil)
		}, "list", `{"dir":"/workspace"}`, Detection{}},
		// Sends: the ids a send strips are details; a capture's send
		// outcomes are all alike: 20 identical sends block.
		{"send loop", func(c *calls) {
			for i := 0; i < CriticalThreshold; i++ {
				c.call("message", `{"action":"send","target":"feishu:oc_chat","text":"ping"}`, str(fmt.Sprintf(`{"ok":true,"messageId":"om_%d"}`, i)))
			}
		}, "message", `{"action":"send","target":"feishu:oc_chat","text":"ping"}`, Detection{Critical, "generic_repeat", 20}},
		{"sessions_send loop", func(c *calls) {
			for i := 0; i < CriticalThreshold; i++ {
				c.call("sessions_send", `{"sessionKey":"agent:main:peer","text":"ping"}`, str(fmt.Sprintf(`{"ok":true,"runId":"run_%d"}`, i)))
			}
		}, "sessions_send", `{"sessionKey":"agent:main:peer","text":"ping"}`, Detection{Critical, "generic_repeat", 20}},
		{"distinct messages", func(c *calls) {
			for i := 0; i < CriticalThreshold; i++ {
				c.call("message", fmt.Sprintf(`{"action":"send","target":"feishu:oc_chat","text":"line %d"}`, i), str(`{"ok":true}`))
			}
		}, "message", `{"action":"send","target":"feishu:oc_chat","text":"line final"}`, Detection{}},
		// A non-send action keeps its full result: ids that change are
		// progress (streak 1), 20 calls only warn.
		{"message read", func(c *calls) {
			for i := 0; i < CriticalThreshold; i++ {
				c.call("message", `{"action":"read","target":"feishu:oc_chat"}`, str(fmt.Sprintf(`{"ok":true,"messageId":"m_%d"}`, i)))
			}
		}, "message", `{"action":"read","target":"feishu:oc_chat"}`, Detection{Warning, "generic_repeat", 20}},
		// The veto after a critical block keeps the streak: 20 sends, a
		// vetoed one, then the same send: 21.
		{"veto is sticky", func(c *calls) {
			for i := 0; i < CriticalThreshold; i++ {
				c.call("message", `{"action":"send","target":"feishu:oc_chat","text":"ping"}`, str("sent"))
			}
			p := NewParams("message", `{"action":"send","target":"feishu:oc_chat","text":"ping"}`)
			c.s.RecordCall("message", p.Key, "veto", 0)
			c.s.RecordOutcome("message", p.Key, "veto", 0, Outcome{Veto: true})
		}, "message", `{"action":"send","target":"feishu:oc_chat","text":"ping"}`, Detection{Critical, "generic_repeat", 21}},
		// Another run's history does not count.
		{"other run", func(c *calls) {
			c.run = 1
			for i := 0; i < WarningThreshold; i++ {
				c.call("read", `{"path":"/same.txt"}`, nil)
			}
			c.run = 2
		}, "read", `{"path":"/same.txt"}`, Detection{}},
	}
	for _, tc := range cases {
		var c calls
		tc.build(&c)
		if got := c.detect(tc.tool, tc.args); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestCanonicalNonces: the wrapper's 16-hex ids become zeros when both
// ends carry the same id and no other marker lies between.
func TestCanonicalNonces(t *testing.T) {
	w := func(a, b, body string) string {
		return `<<<EXTERNAL_UNTRUSTED_CONTENT id="` + a + `">>>` + body + `<<<END_EXTERNAL_UNTRUSTED_CONTENT id="` + b + `">>>`
	}
	z := "0000000000000000"
	cases := []struct{ in, want string }{
		{"x" + w("0123456789abcdef", "0123456789abcdef", "page <<<not a marker") + "y", "x" + w(z, z, "page <<<not a marker") + "y"},
		{w("0123456789abcdef", "fedcba9876543210", "b"), w("0123456789abcdef", "fedcba9876543210", "b")},
		{w("0123456789ABCDEF", "0123456789ABCDEF", "b"), w("0123456789ABCDEF", "0123456789ABCDEF", "b")},
		{w("aaaaaaaaaaaaaaaa", "aaaaaaaaaaaaaaaa", "1") + w("bbbbbbbbbbbbbbbb", "bbbbbbbbbbbbbbbb", "2"), w(z, z, "1") + w(z, z, "2")},
		{`<<<EXTERNAL_UNTRUSTED_CONTENT id="aaaaaaaaaaaaaaaa">>>` + w("bbbbbbbbbbbbbbbb", "bbbbbbbbbbbbbbbb", "in"),
			`<<<EXTERNAL_UNTRUSTED_CONTENT id="aaaaaaaaaaaaaaaa">>>` + w(z, z, "in")},
	}
	for _, c := range cases {
		if got := canonicalNonces(c.in); got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.in, got, c.want)
		}
	}
	if unknownTool("Error: Unknown tool: \"Foo.Bar\"") != "foo.bar" || unknownTool("Tool exec not found") != "exec" || unknownTool("no such file") != "" {
		t.Error("unknown tool names not extracted")
	}
}
