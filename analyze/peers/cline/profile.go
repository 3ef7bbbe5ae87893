package cline

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/peers/conv"
	"github.com/killswitch/killswitch/analyze/peers/jsjson"
	"github.com/killswitch/killswitch/ingest"
)

// SoftThreshold is the CLI's soft threshold: a recovery notice, no stop.
const SoftThreshold = 3

// Profile replays the Cline CLI 3.0.65's loop detection. A request's
// score is the largest consecutiveIdenticalCount its response's tool
// calls reach; the threshold is the hard threshold (the CLI's 5: the 5th
// identical call in a row stops the run). The window size is not used.
var Profile = &analyze.Profile{
	Name: "cline",
	About: "Cline CLI 3.0.65's loop detection (@cline/core 0.0.86): identical consecutive tool calls " +
		"(name and sorted-key input); the threshold is the hard threshold (5: the 5th stops; a notice at 3)",
	Inclusive:       true,
	NoWindow:        true,
	NoText:          true,
	Extract:         extract,
	Fingerprint:     fingerprint,
	NewDetector:     func(int) analyze.Detector { return new(detector) },
	Defaults:        analyze.Settings{Enabled: true, WindowSize: 20, Threshold: 5},
	SweepThresholds: "3:8:1",
}

func init() { analyze.RegisterProfile(Profile) }

// step is what the detector needs of one record (Features.Ext).
type step struct {
	fresh bool // a new conversation: the request holds no assistant message
	calls []call
}

// call is one tool call: its name and signature (as a sha256, which is
// compared instead of the text).
type call struct {
	name string
	sig  [sha256.Size]byte
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
	st := &step{fresh: t.Fresh}
	for _, c := range t.Calls {
		if c.Name == "" {
			continue // missing_name: not a tool call
		}
		st.calls = append(st.calls, call{name: c.Name, sig: sha256.Sum256([]byte(Signature(c.Args)))})
	}
	f.Ext = st
	return f
}

// Signature is toolCallSignature of the input a call's arguments text
// becomes: blank or unparseable text is the input {} (the runtime's
// parse, which marks the call invalid but still starts it); a string is
// itself, a number or boolean its String(), null "null", and anything
// else JSON.stringify(sortKeys(input)).
func Signature(args string) string {
	if jsjson.Canonical(args, jsjson.SortedIndexFirst) {
		return args // an object as JSON.stringify(sortKeys(…)) writes it
	}
	v, ok := jsjson.Stringify(args, jsjson.SortedIndexFirst)
	if !ok || strings.TrimSpace(args) == "" {
		return "{}"
	}
	switch v.Kind {
	case '"':
		return string(utf16.Decode(v.Str))
	case '0':
		if v.Out == "null" { // an overflow: String() writes Infinity
			if strings.HasPrefix(strings.TrimSpace(args), "-") {
				return "-Infinity"
			}
			return "Infinity"
		}
	}
	return v.Out
}

// detector follows one agent's session: its tracker, changed by an
// answered record only.
type detector struct{ conv.StagedDetector[Tracker] }

func (d *detector) Score(f *analyze.Features) analyze.Score {
	st, _ := f.Ext.(*step)
	if st == nil {
		return analyze.Score{}
	}
	tr := d.Begin()
	if st.fresh {
		tr.Reset()
	}
	var sc analyze.Score
	for _, c := range st.calls {
		// The hard threshold is the profile's; the soft one only adds a
		// notice the capture shows.
		n, _ := tr.Inspect(c.name, string(c.sig[:]), SoftThreshold, int(^uint(0)>>1))
		if float64(n) > sc.Value {
			sc.Value, sc.RepeatedToolCalls = float64(n), n
			sc.Explain = fmt.Sprintf("cline: %d consecutive identical calls to %s", n, c.name)
		}
	}
	return sc
}

func fingerprint(x *analyze.Extractor, in []byte, asResponse bool) (analyze.Fingerprint, error) {
	return state(x).conv.Fingerprint(in, asResponse, "Cline keys tool calls, not prompts", func(t *conv.Turn) [][2]string {
		if !asResponse {
			nc := "no"
			if t.Fresh {
				nc = "yes: the tracker starts afresh"
			}
			return [][2]string{{"new conversation", nc}}
		}
		out := [][2]string{{"tool calls", strconv.Itoa(len(t.Calls))}}
		for _, c := range t.Calls {
			sig := sha256.Sum256([]byte(Signature(c.Args)))
			out = append(out, [2]string{"tool call", c.Name + " signature " + hex.EncodeToString(sig[:8])})
		}
		return out
	})
}
