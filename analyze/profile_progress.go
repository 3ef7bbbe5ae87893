package analyze

import (
	"github.com/killswitch/killswitch/analyze/progress"
	"github.com/killswitch/killswitch/ingest"
)

// ProfileProgress scores what is new in each request (the observation
// after the agent's last turn) against the action that produced it (its
// tool calls, or the command its text holds), and fires when the agent
// gets nowhere: the same action with the same result step after step (a
// counter aside), a cycle of steps, the same error retried between other
// steps, the same body written again, changing arguments (or any action)
// with the same result, the same answer again and again. Its scale is its
// own: the score counts repeated steps (an error or a re-applied body
// counts 1.5). Package progress and docs/progress.md describe each rule.
var ProfileProgress = &Profile{
	Name:        "progress",
	About:       "what is new in each request: the same action (tool call or text command) with the same result, cycles, retried errors, re-applied edits, churn, repeated answers",
	Inclusive:   true,
	Extract:     progressExtract,
	Fingerprint: progressFingerprint,
	NewDetector: func(n int) Detector { return &progressDetector{d: progress.New(n)} },
	Defaults:    Settings{Enabled: true, WindowSize: progress.DefaultWindow, Threshold: progress.DefaultThreshold},
	// SweepThresholds: its scores count repeated steps; on the fixture
	// library the first false positive is at 1 and the first miss at 9.5,
	// on the real trajectories 2 and 4.5 (docs/progress.md).
	SweepThresholds: "1:12:0.5",
	// A kill's counts are the earlier steps its rule matched: steps
	// without an action (SimilarPrompts), repeated answers
	// (SimilarResponses), steps with an action (RepeatedToolCalls).
	CountNames: [3]string{"no-action repeats", "answer repeats", "action repeats"},
}

func init() { RegisterProfile(ProfileProgress) }

func progressExtractor(x *Extractor) *progress.Extractor {
	pe, _ := x.Ext.(*progress.Extractor)
	if pe == nil {
		pe = new(progress.Extractor)
		x.Ext = pe
	}
	return pe
}

func progressExtract(x *Extractor, rec *ingest.Record) Features {
	var f Features
	pf, err := progressExtractor(x).Extract(rec.Request, rec.Response)
	if err != nil {
		f.Err = err
		return f
	}
	// The decision records show the observation's hash as the prompt hash
	// and the answer's SimHash as the response hash.
	f.Prompt, f.HasPrompt = pf.Obs, pf.Obs != 0
	f.Response, f.HasResp = pf.AnsSim, pf.HasAns
	f.ToolSig = pf.ActLabel
	f.TokensIn, f.TokensOut, f.HasUsage = pf.TokensIn, pf.TokensOut, pf.HasUsage
	f.Ext = &pf
	return f
}

func progressFingerprint(x *Extractor, in []byte, asResponse bool) (Fingerprint, error) {
	d, err := progressExtractor(x).Describe(in, asResponse)
	if err != nil {
		return Fingerprint{}, err
	}
	r := Fingerprint{Source: d.Source, Prompt: d.Text, Normalized: d.Normalized, Hash: d.Hash, HasHash: d.Hash != 0,
		ToolSig: d.Action}
	if !r.HasHash {
		r.NoHashWhy = "no observation: nothing new to compare"
	}
	for _, l := range d.Lines {
		r.Lines = append(r.Lines, l)
	}
	return r, nil
}

// progressDetector puts progress.Detector on the Detector seam.
type progressDetector struct{ d *progress.Detector }

func (p *progressDetector) Score(f *Features) Score {
	pf, _ := f.Ext.(*progress.Features)
	if pf == nil {
		return Score{}
	}
	r := p.d.Score(pf, f.TS)
	sc := Score{Value: r.Score, Explain: r.Reason()}
	switch r.Signal {
	case progress.SignalRepeat, progress.SignalCycle, progress.SignalChurn, progress.SignalRecur, progress.SignalReapply:
		if pf.Act == 0 {
			sc.SimilarPrompts = r.NMatched
		} else {
			sc.RepeatedToolCalls = r.NMatched
		}
	case progress.SignalAnswer:
		sc.SimilarResponses = r.NMatched
	}
	return sc
}

func (p *progressDetector) Push(f *Features, answered bool) {
	if pf, _ := f.Ext.(*progress.Features); pf != nil {
		p.d.Push(pf, f.TS, answered)
	}
}

func (p *progressDetector) Resize(n int) { p.d.Resize(n) }
func (p *progressDetector) Clear()       { p.d.Clear() }
