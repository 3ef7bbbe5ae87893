package openclaw

import (
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/peers/conv"
	"github.com/killswitch/killswitch/ingest"
)

// Profile replays OpenClaw 2026.9.6's tool-loop detection with
// tools.loopDetection.enabled. A request's score is the number, within
// the current run, of the critical detection its response's tool batch
// made (0: none); the threshold is the critical detection that kills: 1
// (the default) kills at the first, as the peer profiles do; 2 is
// OpenClaw's own (the first critical blocks the batch, the second in the
// same run ends the run). Warnings never kill. The window size is not
// used.
var Profile = &analyze.Profile{
	Name: "openclaw",
	About: "OpenClaw 2026.9.6's tool-loop detection (enabled): generic repeats, polling, ping-pong, unknown tools, the global breaker, " +
		"over 30 calls per run; threshold 1 kills at the first critical, 2 at the second in a run (its own)",
	Inclusive:       true,
	NoWindow:        true,
	NoText:          true,
	Extract:         extract,
	Fingerprint:     fingerprint,
	NewDetector:     func(int) analyze.Detector { return new(detector) },
	Defaults:        analyze.Settings{Enabled: true, WindowSize: 20, Threshold: 1},
	SweepThresholds: "1:2:1",
}

func init() { analyze.RegisterProfile(Profile) }

// step is what the detector needs of one record (Features.Ext).
type step struct {
	results   []conv.Result
	newPrompt bool
	failed    bool
	calls     []call
}

// call is one tool call of the response.
type call struct {
	id      string
	tool    string // normalized
	params  Params
	poll    bool
	unknown bool // the request lists tools and does not offer this one
}

type extractor struct{ conv conv.Converter }

func state(x *analyze.Extractor) *extractor { return conv.State[extractor](x) }

func extract(x *analyze.Extractor, rec *ingest.Record) analyze.Features {
	t, f, ok := state(x).conv.Features(x, rec)
	if !ok {
		return f
	}
	st := &step{results: t.Results, newPrompt: t.Prompts > 0, failed: t.Failed}
	for _, c := range t.Calls {
		st.calls = append(st.calls, newCall(&t, c))
	}
	f.Ext = st
	return f
}

func newCall(t *conv.Turn, c conv.Call) call {
	tool := ToolName(c.Name)
	p := NewParams(tool, c.Args)
	return call{id: c.ID, tool: tool, params: p, poll: KnownPoll(tool, p), unknown: t.HasTools && !t.Offers(c.Name)}
}

// session is one agent's state: the history, the current run, its
// critical detections, and the last response's admitted calls, whose
// outcomes the next request brings.
type session struct {
	s         State
	run       int
	criticals int
	pending   []call
}

// detector follows one agent; a record changes its session only when
// answered. The session's history lives in one of two buffers, the
// scored record's copy in the other; proj and scratch are reused by
// admit.
type detector struct {
	conv.StagedDetector[session]
	bufs          [2][]Call
	flip          int
	proj, scratch []Call
}

func (d *detector) Score(f *analyze.Features) analyze.Score {
	st, _ := f.Ext.(*step)
	if st == nil {
		return analyze.Score{}
	}
	ss := d.Begin()
	if d.bufs[d.flip] == nil {
		// Room for a full history and the call that trims it, so that
		// it never grows (RecordCall and RecordOutcome trim each time).
		d.bufs[d.flip] = make([]Call, 0, HistorySize+1)
	}
	ss.s.History = append(d.bufs[d.flip][:0], d.Cur.s.History...)
	defer func() { d.bufs[d.flip] = ss.s.History[:0] }()
	ss.outcomes(st.results)
	if st.newPrompt {
		ss.run++
		ss.criticals = 0
	}
	if st.failed {
		return analyze.Score{}
	}
	return d.admit(ss, st.calls)
}

// Push keeps the scored record's session when it was answered; its
// buffer becomes the session's, the other one the next copy's.
func (d *detector) Push(f *analyze.Features, answered bool) {
	d.StagedDetector.Push(f, answered)
	if answered && f.Ext != nil {
		d.flip ^= 1
	}
}

// outcomes records the results of the previous response's calls: by
// tool_call_id, or by position when the ids do not match and the counts
// agree. A call of a tool the request did not offer failed on it, as
// OpenClaw reports an unknown tool ("Tool NAME not found").
func (ss *session) outcomes(results []conv.Result) {
	byID := map[string]int{}
	for i, r := range results {
		byID[r.ID] = i
	}
	for k, c := range ss.pending {
		i, ok := byID[c.id]
		if !ok && len(results) == len(ss.pending) {
			i, ok = k, true
		}
		var o Outcome
		switch {
		case c.unknown:
			o = ResultOutcome(c.tool, c.params, "Tool "+c.tool+" not found", true)
		case ok:
			o = ResultOutcome(c.tool, c.params, results[i].Text, results[i].IsError)
		default:
			continue
		}
		ss.s.RecordOutcome(c.tool, c.params.Key, c.id, ss.run, o)
	}
	ss.pending = nil
}

// admit is admitToolCallBatch: each call is checked against the history
// and the batch's earlier calls (projected as loop vetoes); a critical
// detection blocks the whole batch (the calls with its key are recorded
// as vetoed), else every call joins the history.
func (d *detector) admit(ss *session, calls []call) analyze.Score {
	if d.proj == nil {
		d.proj = make([]Call, 0, HistorySize+8)
	}
	projected := append(d.proj[:0], ss.s.History...)
	defer func() { d.proj = projected[:0] }()
	for _, c := range calls {
		var det Detection
		det, d.scratch = DetectScratch(d.scratch, projected, c.tool, c.params.Key, c.poll, ss.run)
		if det.Level == Critical {
			ss.criticals++
			for _, r := range calls {
				if r.params.Key == c.params.Key {
					ss.s.RecordCall(r.tool, r.params.Key, r.id, ss.run)
					ss.s.History[len(ss.s.History)-1].Veto = true
				}
			}
			return analyze.Score{Value: float64(ss.criticals), Counts: analyze.Counts{RepeatedToolCalls: det.Count},
				Explain: explain(det, c.tool, ss.criticals)}
		}
		projected = append(projected, Call{Tool: c.tool, Key: c.params.Key, ID: c.id, Run: ss.run, Veto: true})
	}
	for _, c := range calls {
		ss.s.RecordCall(c.tool, c.params.Key, c.id, ss.run)
	}
	ss.pending = calls
	return analyze.Score{}
}

func explain(det Detection, tool string, n int) string {
	var s string
	switch det.Detector {
	case "unknown_tool_repeat":
		s = fmt.Sprintf("openclaw: unavailable tool attempted %d times (unknown_tool_repeat)", det.Count)
	case "global_circuit_breaker":
		s = fmt.Sprintf("openclaw: %s repeated %d times with no progress (global_circuit_breaker)", tool, det.Count)
	case "known_poll_no_progress":
		s = fmt.Sprintf("openclaw: %s polled %d times with no progress (known_poll_no_progress)", tool, det.Count)
	case "ping_pong":
		s = fmt.Sprintf("openclaw: alternating tool calls %d times with no progress (ping_pong, %s)", det.Count, tool)
	default:
		s = fmt.Sprintf("openclaw: %s called %d times with identical outcomes (generic_repeat)", tool, det.Count)
	}
	if n > 1 {
		s += "; critical detection " + strconv.Itoa(n) + " in this run"
	}
	return s
}

func fingerprint(x *analyze.Extractor, in []byte, asResponse bool) (analyze.Fingerprint, error) {
	return state(x).conv.Fingerprint(in, asResponse, "OpenClaw keys tool calls and their outcomes, not prompts", func(t *conv.Turn) [][2]string {
		if !asResponse {
			np := "no"
			if t.Prompts > 0 {
				np = "yes: a new run"
			}
			return [][2]string{{"new run", np}, {"tool results", strconv.Itoa(len(t.Results))}}
		}
		out := [][2]string{{"tool calls", strconv.Itoa(len(t.Calls))}}
		for _, c := range t.Calls {
			k := newCall(t, c)
			out = append(out, [2]string{"tool call", k.tool + " args " + hex.EncodeToString(k.params.Key.Args[:8])})
		}
		return out
	})
}
