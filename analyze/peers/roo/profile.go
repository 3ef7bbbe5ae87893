package roo

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/peers/conv"
	"github.com/killswitch/killswitch/ingest"
)

// Profile replays Roo-Code v3.52.1's guards. A request's score is the
// larger of consecutiveMistakeCount before it is made and the
// consecutiveIdenticalToolCallCount its response's tool uses reach; the
// threshold is consecutiveMistakeLimit (3 by default: the 4th identical
// call in a row is refused, and the request after 3 counted mistakes is
// not made). The window size is not used.
var Profile = &analyze.Profile{
	Name: "roo",
	About: "Roo-Code v3.52.1's ToolRepetitionDetector and consecutive-mistake limit: the threshold is the limit " +
		"(3: the 4th identical tool call in a row, or the call after 3 replies without a tool use counted as mistakes)",
	Inclusive:       true,
	NoWindow:        true,
	NoText:          true,
	Extract:         extract,
	Fingerprint:     fingerprint,
	NewDetector:     func(int) analyze.Detector { return new(detector) },
	Defaults:        analyze.Settings{Enabled: true, WindowSize: 20, Threshold: 3},
	SweepThresholds: "1:5:1",
}

func init() { analyze.RegisterProfile(Profile) }

// step is what the detector needs of one record (Features.Ext).
type step struct {
	fresh  bool // a new task: the request holds no assistant message
	failed bool
	text   bool // the response has text
	calls  []call
}

// call is one tool call of the response.
type call struct {
	name    string
	key     Key
	checked bool // a tool_use block the repetition check sees
}

type extractor struct{ conv conv.Converter }

// state is the profile's converter state in x; the profile reads no
// prompt or tool result text.
func state(x *analyze.Extractor) *extractor {
	e := conv.State[extractor](x)
	e.conv.NoTailText = true
	return e
}

func extract(x *analyze.Extractor, rec *ingest.Record) analyze.Features {
	t, f, ok := state(x).conv.Features(x, rec)
	if !ok {
		return f
	}
	st := &step{fresh: t.Fresh, failed: t.Failed, text: t.Text != ""}
	for _, c := range t.Calls {
		st.calls = append(st.calls, newCall(c))
	}
	f.Ext = st
	return f
}

func newCall(c conv.Call) call {
	cl := call{name: c.Name}
	if IsMCP(c.Name) {
		return cl
	}
	s, ok := Serialize(c.Name, c.Args)
	if ok {
		cl.key, cl.checked = sha256.Sum256([]byte(s)), true
	}
	return cl
}

// task is one agent's counters.
type task struct {
	rep Repetition
	mis Mistakes
}

// detector follows one agent's task: its counters, changed by an answered
// record only.
type detector struct{ conv.StagedDetector[task] }

func (d *detector) Score(f *analyze.Features) analyze.Score {
	st, _ := f.Ext.(*step)
	if st == nil {
		return analyze.Score{}
	}
	tk := d.Begin()
	if st.fresh {
		*tk = task{} // a new Task
	}
	var sc analyze.Score
	// recursivelyMakeClineRequests checks the mistake count before the
	// request is made.
	if n := tk.mis.Count(); n > 0 {
		sc.Value = float64(n)
		sc.Explain = fmt.Sprintf("roo: %d consecutive mistakes (replies without a tool use)", n)
	}
	if st.failed || (!st.text && len(st.calls) == 0) {
		return sc // retried, not a mistake
	}
	for _, c := range st.calls {
		if !c.checked {
			continue
		}
		if n := tk.rep.Count(c.key); n > 0 && float64(n) > sc.Value {
			sc.Value = float64(n)
			sc.RepeatedToolCalls = n + 1
			sc.Explain = fmt.Sprintf("roo: identical tool call %d times in a row (%s)", n+1, c.name)
		}
	}
	tk.mis.Reply(len(st.calls) > 0)
	return sc
}

func fingerprint(x *analyze.Extractor, in []byte, asResponse bool) (analyze.Fingerprint, error) {
	return state(x).conv.Fingerprint(in, asResponse, "Roo-Code keys tool uses, not prompts", func(t *conv.Turn) [][2]string {
		if !asResponse {
			nt := "no"
			if t.Fresh {
				nt = "yes: the counters start afresh"
			}
			return [][2]string{{"new task", nt}}
		}
		if len(t.Calls) == 0 {
			return [][2]string{{"tool uses", "none: a reply without a tool use"}}
		}
		var out [][2]string
		for _, c := range t.Calls {
			k := newCall(c)
			switch {
			case IsMCP(c.Name):
				out = append(out, [2]string{"tool use", c.Name + " (MCP: not checked)"})
			case !k.checked:
				out = append(out, [2]string{"tool use", c.Name + " (arguments do not parse: not checked)"})
			default:
				out = append(out, [2]string{"tool use", c.Name + " key " + hex.EncodeToString(k.key[:8])})
			}
		}
		out = append(out, [2]string{"tool uses", strconv.Itoa(len(t.Calls))})
		return out
	})
}
