// Package peertest builds captured conversations for the peer profiles'
// tests: OpenAI chat requests that grow with the conversation, the
// responses the model gave, and a replay of them through a profile.
package peertest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
)

// T0 is the time of a conversation's first call.
var T0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// ToolCall is one call of a response: a name and its arguments as JSON
// text (sent as OpenAI's arguments string).
type ToolCall struct{ Name, Args string }

// Conv is one agent's conversation under construction.
type Conv struct {
	Agent    string
	Tools    []string // the request's tools list (names); nil: none
	msgs     []any
	Records  []ingest.Record
	calls    int
	failBody string
}

// New starts agent's conversation with a system message.
func New(agent string) *Conv {
	return &Conv{Agent: agent, msgs: []any{map[string]any{"role": "system", "content": "You are an agent."}}}
}

// User appends a user message (a new prompt).
func (c *Conv) User(text string) *Conv {
	c.msgs = append(c.msgs, map[string]any{"role": "user", "content": text})
	return c
}

// Results appends the tool results of the last response's calls, in order.
func (c *Conv) Results(texts ...string) *Conv {
	for i, t := range texts {
		c.msgs = append(c.msgs, map[string]any{"role": "tool", "tool_call_id": fmt.Sprintf("call_%d_%d", c.calls, i), "content": t})
	}
	return c
}

// Respond records a call whose response has text and calls; the response
// joins the history.
func (c *Conv) Respond(text string, calls ...ToolCall) *Conv { return c.respond(200, text, calls) }

// Fail records a call that failed with status.
func (c *Conv) Fail(status int) *Conv {
	return c.FailWith(status, `{"error":{"message":"upstream error"}}`)
}

// FailWith records a call that failed with status and body.
func (c *Conv) FailWith(status int, body string) *Conv {
	c.failBody = body
	return c.respond(status, "", nil)
}

func (c *Conv) respond(status int, text string, calls []ToolCall) *Conv {
	req := map[string]any{"model": "m", "messages": c.msgs}
	if c.Tools != nil {
		var ts []any
		for _, n := range c.Tools {
			ts = append(ts, map[string]any{"type": "function", "function": map[string]any{"name": n, "parameters": map[string]any{"type": "object"}}})
		}
		req["tools"] = ts
	}
	reqJSON, err := json.Marshal(req)
	if err != nil {
		panic(err)
	}
	c.calls++
	msg := map[string]any{"role": "assistant", "content": text}
	if text == "" {
		msg["content"] = nil
	}
	var tcs []any
	for i, tc := range calls {
		tcs = append(tcs, map[string]any{"id": fmt.Sprintf("call_%d_%d", c.calls, i), "type": "function",
			"function": map[string]any{"name": tc.Name, "arguments": tc.Args}})
	}
	if tcs != nil {
		msg["tool_calls"] = tcs
	}
	var resp []byte
	if status == 200 {
		resp, _ = json.Marshal(map[string]any{"id": "r", "object": "chat.completion", "choices": []any{map[string]any{"index": 0, "message": msg}}})
		c.msgs = append(c.msgs, msg)
	} else {
		resp = []byte(c.failBody)
	}
	n := len(c.Records)
	c.Records = append(c.Records, ingest.Record{
		Pos: ingest.Pos{File: c.Agent + ".jsonl", Kind: ingest.PosLine, N: int64(n + 1)}, TS: T0.Add(time.Duration(n) * time.Second),
		Agent: c.Agent, Request: reqJSON, Response: resp, Status: status,
	})
	return c
}

// Replay replays records (in order) through profile p with settings s and
// returns the decisions.
func Replay(t testing.TB, p *analyze.Profile, s analyze.Settings, mode analyze.Mode, records []ingest.Record) []analyze.Decision {
	t.Helper()
	cfg := analyze.NewConfig()
	cfg.Profile, cfg.Default, cfg.Mode = p, s, mode
	e, err := analyze.NewEngine(cfg)
	if err != nil {
		t.Fatal(err)
	}
	x := analyze.NewExtractor(p)
	var ds []analyze.Decision
	for i := range records {
		f := x.Extract(&records[i])
		d, ok, _ := e.Step(&records[i], &f)
		if ok {
			ds = append(ds, d)
		}
	}
	return ds
}

// FirstKill returns the 1-based number of the first killed or blocked
// decision, and its reason; 0 when none.
func FirstKill(ds []analyze.Decision) (int, string) {
	for i, d := range ds {
		if d.Action == analyze.ActionKill || d.Action == analyze.ActionBlock {
			return i + 1, d.Reason
		}
	}
	return 0, ""
}

// Loop records n calls on c, each response one call of seq in turn, each
// answered by the same result.
func Loop(c *Conv, n int, seq ...ToolCall) *Conv {
	for i := 0; i < n; i++ {
		c.Respond("", seq[i%len(seq)]).Results("same output")
	}
	return c
}

// Records returns the records of convs, one conversation after the other
// (the same agent starting afresh, when they share it).
func Records(convs ...*Conv) []ingest.Record {
	var rs []ingest.Record
	for _, c := range convs {
		rs = append(rs, c.Records...)
	}
	return rs
}

// Case is one replay at the profile level: conversations replayed one
// after the other at a threshold and mode, and the 1-based request
// expected to be killed (0: none) with a reason that contains Reason.
type Case struct {
	Name      string
	Convs     []*Conv
	Threshold float64
	Mode      analyze.Mode
	At        int
	Reason    string
}

// RunCases replays each case through profile p.
func RunCases(t *testing.T, p *analyze.Profile, cases []Case) {
	t.Helper()
	for _, c := range cases {
		s := analyze.Settings{Enabled: true, WindowSize: 20, Threshold: c.Threshold}
		at, reason := FirstKill(Replay(t, p, s, c.Mode, Records(c.Convs...)))
		if at != c.At || !strings.Contains(reason, c.Reason) || (reason == "") != (c.Reason == "") {
			t.Errorf("%s: killed at %d (%q), want %d (%q)", c.Name, at, reason, c.At, c.Reason)
		}
	}
}

// Expect makes a Case.
func Expect(name string, convs []*Conv, threshold float64, mode analyze.Mode, at int, reason string) Case {
	return Case{Name: name, Convs: convs, Threshold: threshold, Mode: mode, At: at, Reason: reason}
}
