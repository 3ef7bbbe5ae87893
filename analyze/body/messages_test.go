package body

import (
	"testing"

	"github.com/valyala/fastjson"
)

// TestChatMessages: what ChatMessages vouches for, and what it leaves to
// fastjson. When it reports true, fastjson parses the body and each
// message's text is the element fastjson finds.
func TestChatMessages(t *testing.T) {
	for _, c := range []struct {
		body      string
		ok        bool
		assistant string // per message: 'a' assistant, '-' not
	}{
		{`{"model":"m","messages":[{"role":"system","content":"s"},{"role":"assistant","content":"x"},{"role":"user","content":"y"}]}`, true, "-a-"},
		{` {"messages":[{"role":"\u0061ssistant"},{"role":"assistant","role":"user"},{"role":"user","role":"assistant"},"x",null,{"role":1}]} `, true, "aa----"},
		{`{"messages":[]}`, true, ""},
		{`{"messages":[{"role":"assistant"}],"messages":{"x":1}}`, true, "a"},
		{`{"messages":{"role":"assistant"}}`, false, ""},                 // not an array
		{`{"messages":[{"role":"assistant"}]} x`, false, ""},             // bytes after the object
		{`{"messages":[{"r\u006fle":"assistant"}]}`, false, ""},          // an escaped name
		{`{"m\u0065ssages":[],"messages":[{"role":"user"}]}`, false, ""}, // an escaped name
		{`{"messages":[{"role":"assistant","n":01}]}`, false, ""},        // a number outside the grammar
		{`{"messages":[{"role":"assistant"}`, false, ""},                 // cut short
		{`{"contents":[{"role":"model"}]}`, false, ""},                   // no messages
		{`[{"messages":[]}]`, false, ""},                                 // not an object
	} {
		msgs, ok := ChatMessages([]byte(c.body), nil)
		if ok != c.ok {
			t.Errorf("%s: ok %v, want %v", c.body, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		var p fastjson.Parser
		v, err := p.Parse(c.body)
		if err != nil {
			t.Fatalf("%s: vouched for, but fastjson: %v", c.body, err)
		}
		want := v.GetArray("messages")
		got := ""
		for i, m := range msgs {
			if m.Assistant {
				got += "a"
			} else {
				got += "-"
			}
			var q fastjson.Parser
			if w, err := q.ParseBytes(m.Raw); err != nil || i >= len(want) || w.String() != want[i].String() {
				t.Errorf("%s: message %d is %s (%v), fastjson finds another", c.body, i, m.Raw, err)
			}
		}
		if got != c.assistant || len(msgs) != len(want) {
			t.Errorf("%s: roles %q (%d messages), want %q (%d)", c.body, got, len(msgs), c.assistant, len(want))
		}
	}
}
