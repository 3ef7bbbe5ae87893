// Package statetest holds a small hand-made replay's state writes, which
// the renderings of writes (report's JSONL, store/sqlite's script and
// statements) are tested on.
package statetest

import (
	"testing"
	"time"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/state"
	"github.com/killswitch/killswitch/ingest"
)

// OddAgent holds every byte class the SQL rendering must keep: a quote, a
// backslash, NUL, a newline, a statement terminator with a comment, a
// non-ASCII letter and a byte that is not UTF-8.
const OddAgent = "o'brien\\\x00\n; DROP TABLE agents; --é\xff"

// Writes is a small hand-made replay: support-bot is configured,
// forwarded once, killed (deactivate mode), refused once, re-activated by an
// operator, deactivated by hand and refused again; OddAgent is killed and
// re-activated by --reactivate-after.
func Writes(t testing.TB) []state.Write {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	pos := func(n int64) ingest.Pos { return ingest.Pos{File: "captures/day1.jsonl", N: n} }
	cfg := analyze.NewConfig()
	var out []state.Write
	sw := state.NewLoopWriter(cfg, func(w *state.Write) error { out = append(out, *w); return nil })
	h := sw.Hooks(analyze.Hooks{})
	bot := analyze.Settings{Enabled: true, WindowSize: 5, Threshold: 12}
	steps := []any{
		&analyze.Transition{Kind: analyze.TransitionConfig, TS: at(0), Agent: "support-bot", Settings: bot, Source: pos(1)},
		&analyze.Decision{Seq: 1, AgentN: 1, TS: at(1), Agent: "support-bot", Source: pos(2), Threshold: 12, Window: 5, Action: analyze.ActionForward},
		&analyze.Transition{Kind: analyze.TransitionKill, TS: at(2), Agent: "support-bot", By: "kill_switch", Seq: 2, Settings: bot, Source: pos(3)},
		&analyze.Decision{Seq: 2, AgentN: 2, TS: at(2), Agent: "support-bot", Source: pos(3), Threshold: 12, Window: 5,
			Counts: analyze.Counts{SimilarPrompts: 4, SimilarResponses: 3, RepeatedToolCalls: 2}, Score: 13, Action: analyze.ActionKill, Status: 403},
		&analyze.Decision{Seq: 3, AgentN: 3, TS: at(3), Agent: "support-bot", Source: pos(4), Threshold: 12, Window: 5, Action: analyze.ActionBlocked, Status: 403},
		&analyze.Transition{Kind: analyze.TransitionActivate, TS: at(4), Agent: "support-bot", By: "operator", Settings: bot, Source: pos(5)},
		&analyze.Transition{Kind: analyze.TransitionDeactivate, TS: at(5), Agent: "support-bot", By: "manual", Settings: bot, Source: pos(6)},
		&analyze.Decision{Seq: 4, AgentN: 4, TS: at(6), Agent: "support-bot", Source: pos(7), Threshold: 12, Window: 5, Action: analyze.ActionBlocked, Status: 403},
		&analyze.Decision{Seq: 5, AgentN: 1, TS: at(7).Add(250 * time.Millisecond), Agent: OddAgent, Source: pos(8), Threshold: 10, Window: 20,
			Counts: analyze.Counts{SimilarPrompts: 5, SimilarResponses: 2, RepeatedToolCalls: 1}, Score: 10.5, Action: analyze.ActionKill, Status: 403},
		&analyze.Transition{Kind: analyze.TransitionActivate, TS: at(67).Add(250 * time.Millisecond), Agent: OddAgent, By: "reactivate-after", Settings: cfg.Default},
	}
	for _, s := range steps {
		var err error
		switch s := s.(type) {
		case *analyze.Decision:
			err = h.Decision(s)
		case *analyze.Transition:
			err = h.Transition(s)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}
