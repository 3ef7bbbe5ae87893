package geminicli

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/peers/conv"
	"github.com/killswitch/killswitch/analyze/peers/jsjson"
	"github.com/killswitch/killswitch/ingest"
)

// Profile replays gemini-cli 0.61.0's loop detector. Its score is the
// number of the detection a request's response produced (0: none), and
// its threshold the detection that kills: 1 (the default) kills at the
// first, as the peer profiles do; 2 is 0.61.0's own nudge-then-abort (the
// first detection injects a "Potential loop detected" message, assumed
// ignored; the second aborts). The window size is not used.
var Profile = &analyze.Profile{
	Name: "gemini-cli",
	About: "gemini-cli 0.61.0's LoopDetectionService: tool-call cycles and content chanting; " +
		"threshold 1 kills at the first detection, 2 at the second (its nudge-then-abort); its model-based check after 30 turns is left out",
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
	newPrompt bool
	failed    bool
	text      string // the response text, fed one line per content event
	noChant   bool   // no chunk of text can occur 10 times (repeatFinder.CannotChant)
	calls     []call
}

// call is one tool call: its key and, for explanations, its name.
type call struct {
	key  Key
	name string
}

// extractor is the profile's per-goroutine state.
type extractor struct {
	conv conv.Converter
	buf  []byte
	rep  repeatFinder
}

// state is the profile's converter state in x; the profile reads no
// prompt or tool result text.
func state(x *analyze.Extractor) *extractor {
	e := conv.State[extractor](x)
	e.conv.NoTailText = true
	return e
}

func extract(x *analyze.Extractor, rec *ingest.Record) analyze.Features {
	e := state(x)
	t, f, ok := e.conv.Features(x, rec)
	if !ok {
		return f
	}
	st := &step{newPrompt: t.Prompts > 0, failed: t.Failed, text: t.Text}
	st.noChant = t.Text != "" && e.rep.CannotChant(t.Text)
	for _, c := range t.Calls {
		st.calls = append(st.calls, e.key(c))
	}
	f.Ext = st
	return f
}

// key computes a call's key as the CLI does: the name trimmed
// ("generic_tool" when empty), the arguments parsed (a string that does
// not parse stands for itself) and replaced by {} when falsy.
func (e *extractor) key(c conv.Call) call {
	name := jsjson.Trim(c.Name)
	if name == "" {
		name = "generic_tool"
	}
	args := argsString(c)
	e.buf = append(append(append(e.buf[:0], name...), ':'), args...)
	return call{key: sha256.Sum256(e.buf), name: name}
}

// argsString is JSON.stringify(args) for the call's arguments.
func argsString(c conv.Call) string {
	if jsjson.Canonical(c.Args, jsjson.PropertyOrder) {
		return c.Args // as JSON.stringify wrote it: nothing to parse
	}
	v, ok := jsjson.Stringify(c.Args, jsjson.PropertyOrder)
	switch {
	case ok && !v.Falsy:
		return v.Out
	case ok || c.Args == "":
		return "{}"
	}
	return jsjson.QuoteString(c.Args) // unparseable: the raw string stands in
}

// detector is one agent's LoopDetectionService on the Detector seam.
// Score runs the record's events on the service; steps keeps the answered
// records since the last new prompt, so that Push can rebuild the state a
// refused record (block mode) must not have changed.
type detector struct {
	s     Service
	steps []*step
}

func (d *detector) Score(f *analyze.Features) analyze.Score {
	st, _ := f.Ext.(*step)
	if st == nil {
		return analyze.Score{}
	}
	if st.newPrompt {
		d.steps = d.steps[:0]
	}
	return d.run(st)
}

// run feeds one record's events to the service, as client.js does.
func (d *detector) run(st *step) analyze.Score {
	sv := &d.s
	if st.newPrompt {
		sv.Reset()
	}
	sv.TurnStarted()
	if st.failed {
		return analyze.Score{}
	}
	// Content first, one line per event, then the tool calls (turn.js).
	r := sv.AddText(st.text, st.noChant)
	for i := 0; i < len(st.calls) && r.Count == 0; i++ {
		r = sv.AddToolCall(st.calls[i].key, st.calls[i].name)
	}
	if r.Count == 0 {
		return analyze.Score{}
	}
	// The CLI drops the rest of the response and, at the first
	// detection, clears it so that a recovery turn can proceed.
	sc := analyze.Score{Value: float64(r.Count), Explain: explain(r, sv.CycleNames())}
	if r.Type == LoopToolCalls {
		sc.RepeatedToolCalls = r.Cycle * ToolCallLoopThreshold
	} else {
		sc.SimilarResponses = ContentLoopThreshold
	}
	sv.ClearDetection()
	return sc
}

func explain(r Result, names []string) string {
	var s string
	if r.Type == LoopToolCalls {
		s = fmt.Sprintf("gemini-cli: tool call cycle of %d repeated %d times (%s)", r.Cycle, ToolCallLoopThreshold, strings.Join(names, ", "))
	} else {
		s = fmt.Sprintf("gemini-cli: content chanting: a %d-character chunk repeated %d times, on average within %d characters",
			ContentChunkSize, ContentLoopThreshold, 5*ContentChunkSize)
	}
	if r.Count > 1 {
		s += "; detection " + strconv.Itoa(r.Count) + " in this prompt"
	}
	return s
}

func (d *detector) Push(f *analyze.Features, answered bool) {
	st, ok := f.Ext.(*step)
	switch {
	case !ok:
	case answered:
		d.steps = append(d.steps, st)
	default:
		// Refused: the state is what the answered records made it.
		d.s.Reset()
		for _, st := range d.steps {
			d.run(st)
		}
	}
}

func (d *detector) Resize(int) {}
func (d *detector) Clear()     { d.s.Reset(); d.steps = d.steps[:0] }

func fingerprint(x *analyze.Extractor, in []byte, asResponse bool) (analyze.Fingerprint, error) {
	e := state(x)
	return e.conv.Fingerprint(in, asResponse, "gemini-cli keys tool calls and streamed text, not prompts", func(t *conv.Turn) [][2]string {
		if !asResponse {
			np := "no"
			if t.Prompts > 0 {
				np = "yes: the detector resets"
			}
			return [][2]string{{"new prompt", np}, {"tool results", strconv.Itoa(len(t.Results))}}
		}
		lines := strings.Count(t.Text, "\n")
		if t.Text != "" && !strings.HasSuffix(t.Text, "\n") {
			lines++
		}
		out := [][2]string{{"content events", strconv.Itoa(lines) + " (one per line)"}}
		for _, c := range t.Calls {
			k := e.key(c)
			out = append(out, [2]string{"tool call", k.name + " key " + hex.EncodeToString(k.key[:8])})
		}
		return out
	})
}
