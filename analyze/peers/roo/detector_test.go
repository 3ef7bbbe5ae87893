package roo

import (
	"crypto/sha256"
	"testing"
)

// key is the key of a tool use of name with arguments args (JSON text).
func key(t *testing.T, name, args string) Key {
	t.Helper()
	s, ok := Serialize(name, args)
	if !ok {
		t.Fatalf("%s %s: no tool use", name, args)
	}
	return sha256.Sum256([]byte(s))
}

// TestRepetitionSpec: the 25 cases of Roo-Code v3.52.1's
// src/core/tools/__tests__/ToolRepetitionDetector.spec.ts, rewritten. Each
// line is one check() call and the allowExecution the spec expects;
// createToolUse(name, displayName, params) is a tool use of displayName
// with params as its arguments. The expectations follow from check():
// the count is 0 for a new tool use and one more for the same, and a
// count ≥ a positive limit refuses the call and starts afresh.
func TestRepetitionSpec(t *testing.T) {
	tool := key(t, "tool-name", `{}`)
	type chk struct {
		k     Key
		allow bool
	}
	same := func(k Key, allows ...bool) []chk {
		var cs []chk
		for _, a := range allows {
			cs = append(cs, chk{k, a})
		}
		return cs
	}
	cat := func(parts ...[]chk) []chk {
		var cs []chk
		for _, p := range parts {
			cs = append(cs, p...)
		}
		return cs
	}
	first, second, third := key(t, "first-tool", `{}`), key(t, "second-tool", `{}`), key(t, "third-tool", `{}`)
	sameTool, different := key(t, "same-tool", `{}`), key(t, "different-tool", `{}`)
	problem, newTool := key(t, "problem-tool", `{}`), key(t, "new-tool", `{}`)
	read := func(args string) Key { return key(t, "read_file", args) }
	cases := []struct {
		name   string
		limit  int
		checks []chk
	}{
		// initialization: the default limit 3 refuses the 4th identical call.
		{"default limit of 3", 3, same(tool, true, true, true, false)},
		{"custom limit 2", 2, same(tool, true, true, false)},
		// no repetition
		{"different tool calls", 3, []chk{{first, true}, {second, true}, {third, true}}},
		{"reset by a different call", 2, []chk{{sameTool, true}, {different, true}, {sameTool, true}}},
		// repetition below and at the limit
		{"below then at limit 3", 3, same(tool, true, true, true, false)},
		// reaches the limit: the 4th is refused (mistake_limit_reached;
		// the message names the tool: the profile's reason does, see
		// TestProfileDecisions).
		{"block at the limit", 3, same(key(t, "repeat-tool", `{}`), true, true, true, false)},
		{"tool name in the message", 2, same(key(t, "special-tool-name", `{}`), true, true, false)},
		// after the limit: the state starts afresh
		{"new tool after the limit", 2, cat(same(tool, true, true, false), []chk{{newTool, true}})},
		{"the same tool after the limit", 2, same(problem, true, true, false, true)},
		{"the limit reached again", 2, same(tool, true, true, false, true, true, false)},
		// edge cases: an empty tool use; different names forced to one
		// serialization (the spec mocks serializeToolUse: one key); the
		// same params in another order serialize the same.
		{"empty tool call", 2, same(key(t, "empty-tool", ``), true, true, false)},
		{"identical serialization", 2, same(key(t, "tool-name-1", `{"param":"value"}`), true, true, false)},
		{"params in another order", 2, []chk{{key(t, "same-tool", `{"a":"1","b":"2","c":"3"}`), true},
			{key(t, "same-tool", `{"c":"3","a":"1","b":"2"}`), true}, {key(t, "same-tool", `{"b":"2","c":"3","a":"1"}`), false}}},
		// explicit Nth call: limit n refuses the (n+1)th; 0 and negative
		// limits never refuse.
		{"limit 1", 1, same(tool, true, false)},
		{"limit 2", 2, same(tool, true, true, false)},
		{"limit 3", 3, same(tool, true, true, true, false)},
		{"limit 0 is unlimited", 0, same(tool, true, true, true, true, true, true, true, true, true, true)},
		{"limit 5", 5, same(tool, true, true, true, true, true, false)},
		{"reset after blocking", 2, same(tool, true, true, false, true)},
		{"negative limit is unlimited", -1, same(tool, true, true, true, true, true)},
		// native protocol: different files, the same file, slice offsets,
		// a cwd that differs.
		{"different files", 2, []chk{{read(`{"path":"file1.ts"}`), true}, {read(`{"path":"file2.ts"}`), true}, {read(`{"path":"file1.ts"}`), true}}},
		{"the same file", 2, same(read(`{"path":"same-file.ts"}`), true, true, false)},
		{"slice offsets", 2, []chk{{read(`{"path":"a.ts","offset":1,"limit":2000}`), true}, {read(`{"path":"a.ts","offset":2001,"limit":2000}`), true}}},
		{"cwd differs", 2, []chk{{key(t, "execute_command", `{"command":"ls","cwd":"/home/user"}`), true},
			{key(t, "execute_command", `{"command":"ls","cwd":"/home/admin"}`), true}}},
		{"params only", 2, same(read(`{"path":"test.txt"}`), true, true, false)},
	}
	for _, c := range cases {
		var r Repetition
		for i, ch := range c.checks {
			if got := r.Check(ch.k, c.limit); got != ch.allow {
				t.Errorf("%s: check %d: allowExecution %v, want %v", c.name, i+1, got, ch.allow)
			}
		}
	}
}

// TestSerialize: serializeToolUse of the tool use parseToolCall makes of
// a custom tool's call, derived by hand: params holds each argument as a
// string (JSON.stringify keeps a nested object's key order), nativeArgs
// the arguments with every key sorted (safe-stable-stringify: "10" before
// "9"), and the top-level keys are name, nativeArgs, params.
func TestSerialize(t *testing.T) {
	cases := []struct{ args, want string }{
		{`{"path":"a.ts","offset":1}`, `{"name":"t","nativeArgs":{"offset":1,"path":"a.ts"},"params":{"offset":"1","path":"a.ts"}}`},
		{`{"b":{"y":1,"x":2}}`, `{"name":"t","nativeArgs":{"b":{"x":2,"y":1}},"params":{"b":"{\"y\":1,\"x\":2}"}}`},
		{`{"10":1,"9":[true,null]}`, `{"name":"t","nativeArgs":{"10":1,"9":[true,null]},"params":{"10":"1","9":"[true,null]"}}`},
		{`{}`, `{"name":"t","params":{}}`},
		{``, `{"name":"t","params":{}}`},
		{`5`, `{"name":"t","params":{}}`},
		{`"ab"`, `{"name":"t","nativeArgs":"ab","params":{"0":"a","1":"b"}}`},
		{`[1,"x"]`, `{"name":"t","nativeArgs":[1,"x"],"params":{"0":"1","1":"x"}}`},
	}
	for _, c := range cases {
		if got, ok := Serialize("t", c.args); !ok || got != c.want {
			t.Errorf("%q: got %s (%v), want %s", c.args, got, ok, c.want)
		}
	}
	for _, bad := range []string{`null`, `not json`, `{"a":1,}`} {
		if got, ok := Serialize("t", bad); ok {
			t.Errorf("%q: got %s, want no tool use", bad, got)
		}
	}
	for _, n := range []string{"mcp--github--search", "mcp__github__search", "mcp_-x"} {
		if !IsMCP(n) {
			t.Errorf("%s: not taken for an MCP tool", n)
		}
	}
	if IsMCP("mcpx") || IsMCP("read_file") {
		t.Error("a plain tool taken for an MCP tool")
	}
}
