// Package analyzetest builds replays for tests: requests with chosen
// fingerprints, control records, and a replay that collects what the
// engine decided. It is for tests only.
package analyzetest

import (
	"testing"
	"time"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
)

// T0 is the time before a Builder's first record; record n is at T0 + n s.
var T0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// Step is one record with the features an extractor would have given it.
type Step struct {
	Rec  *ingest.Record
	Feat analyze.Features
}

// Builder accumulates records of file "t.jsonl", one second apart.
type Builder struct {
	n     int
	Steps []Step
}

func (b *Builder) at() time.Time { b.n++; return T0.Add(time.Duration(b.n) * time.Second) }

// Req adds a request of agent with prompt hash p, response hash r (0: no
// response) and tool signature sig.
func (b *Builder) Req(agent string, p, r uint64, sig string) *Builder {
	f := analyze.Features{Entry: analyze.Entry{Prompt: p, HasPrompt: true, Response: r, HasResp: r != 0, ToolSig: sig}}
	ts := b.at()
	rec := &ingest.Record{Pos: ingest.Pos{File: "t.jsonl", N: int64(b.n)}, TS: ts, Agent: agent, Status: 200}
	b.Steps = append(b.Steps, Step{rec, f})
	return b
}

// Repeat adds n identical requests.
func (b *Builder) Repeat(n int, agent string, p, r uint64, sig string) *Builder {
	for i := 0; i < n; i++ {
		b.Req(agent, p, r, sig)
	}
	return b
}

// Control adds a control record (by "manual").
func (b *Builder) Control(agent string, ev ingest.ControlEvent, patch ingest.KillSwitchPatch) *Builder {
	ts := b.at()
	rec := &ingest.Record{Pos: ingest.Pos{File: "t.jsonl", N: int64(b.n)}, TS: ts, Agent: agent,
		Control: &ingest.Control{Event: ev, By: "manual", KillSwitch: patch}}
	b.Steps = append(b.Steps, Step{rec, analyze.Features{}})
	return b
}

// Distinct returns a hash far (≥ 16 bits) from every other Distinct(i).
func Distinct(i int) uint64 { return uint64(i+1) * 0x9e3779b97f4a7c15 }

// Replay steps an engine configured by cfg through b's records and
// returns its decisions, transitions and summary.
func Replay(t testing.TB, cfg analyze.Config, b *Builder) ([]analyze.Decision, []analyze.Transition, *analyze.Summary) {
	t.Helper()
	e, err := analyze.NewEngine(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var ds []analyze.Decision
	var ts []analyze.Transition
	for i := range b.Steps {
		d, ok, tr := e.Step(b.Steps[i].Rec, &b.Steps[i].Feat)
		if ok {
			ds = append(ds, d)
		}
		ts = append(ts, tr...)
	}
	return ds, ts, e.Finish()
}

// FirstKill returns the agent-request number of agent's first kill or
// block, 0 when none.
func FirstKill(ds []analyze.Decision, agent string) int {
	for _, d := range ds {
		if d.Agent == agent && (d.Action == analyze.ActionKill || d.Action == analyze.ActionBlock) {
			return d.AgentN
		}
	}
	return 0
}
