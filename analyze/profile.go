package analyze

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/killswitch/killswitch/ingest"
)

// A Profile is one loop detector: every choice SPEC §1 leaves open, held
// as one value (like crypto.Hash or base64.StdEncoding), so callers hold a
// profile without asking which one it is. It decides what is extracted
// from a request (Extract), how a request is scored against the agent's
// history (NewDetector), how a score compares with the threshold (Fires,
// Op) and what the fingerprint command shows (Fingerprint).
//
// A new profile is a value registered with RegisterProfile (see
// profile_builtin.go for spec and agentgazer); nothing else in the code
// base names it. Profiles are compared by pointer.
type Profile struct {
	// Name is the profile's name on the command line and in reports.
	Name string
	// About is one line for --help.
	About string
	// Inclusive makes the detector fire on score ≥ threshold; else on
	// score > threshold.
	Inclusive bool
	// PastLen is how many past entries a window of n scores against (spec:
	// the n before the request; agentgazer, whose window includes the
	// request itself: n − 1). Only used by windowed profiles.
	PastLen func(n int) int
	// Extract computes the features of one request record, using x's
	// parser state. It is called from several goroutines, each with its
	// own Extractor. rec is neither malformed, skipped nor a control.
	Extract func(x *Extractor, rec *ingest.Record) Features
	// Fingerprint shows how the profile sees one input (a request body,
	// a response body when asResponse, or plain text): it must agree with
	// Extract on every request body (TestFingerprintAgreesWithReplay).
	Fingerprint func(x *Extractor, in []byte, asResponse bool) (Fingerprint, error)
	// NewDetector returns the scoring state of one agent with a window of
	// n requests. Nil means the SPEC §1.4 window of Entries scored by
	// Window.Count over PastLen(n) entries (Windowed reports it), which the
	// sweep evaluates on a fast path.
	NewDetector func(n int) Detector
	// Defaults are the window size and threshold a replay starts from.
	Defaults Settings
	// NoWindow says the detector keeps no window of Settings.WindowSize
	// (a peer's detector keeps what its source keeps): a sweep evaluates
	// the default window only.
	NoWindow bool
	// NoText says the profile fingerprints neither the prompt nor the
	// response (a peer's detector keys on tool calls and content of its
	// own): requests without HasPrompt or HasResponse are then no sign of
	// bodies the replay did not understand, and are not reported as such.
	NoText bool
	// SweepThresholds is the threshold grid a sweep of the profile
	// evaluates unless told otherwise (sweep.ParseThresholds syntax): each
	// profile scores on its own scale.
	SweepThresholds string
	// ToolAgentHint names the profile a report suggests when this one
	// kills agents on a last user message that stays the same while their
	// tool calls change (Summary.ToolAgentKills): a tool-using agent's
	// last user message is its task. "": no suggestion.
	ToolAgentHint string
	// CountNames name, as a report's columns do, what a kill's Counts
	// hold in this profile (SimilarPrompts, SimilarResponses,
	// RepeatedToolCalls, in that order); empty: SPEC §1's similar
	// prompts, similar responses and repeated tool calls.
	CountNames [3]string
}

// CountColumns returns CountNames, or SPEC §1's "prompts", "responses",
// "tool calls" when the profile names none.
func (p *Profile) CountColumns() [3]string {
	if n := p.or().CountNames; n != [3]string{} {
		return n
	}
	return [3]string{"prompts", "responses", "tool calls"}
}

// String returns the profile's name. A nil *Profile is ProfileSpec in
// every method, so that a zero Summary or Config reads as the default.
func (p *Profile) String() string { return p.or().Name }

func (p *Profile) or() *Profile {
	if p == nil {
		return ProfileSpec
	}
	return p
}

// ToolAgentProfile returns ToolAgentHint (of ProfileSpec for a nil p).
func (p *Profile) ToolAgentProfile() string { return p.or().ToolAgentHint }

// Fires reports whether score fires the kill switch at threshold.
func (p *Profile) Fires(score, threshold float64) bool {
	if p.or().Inclusive {
		return score >= threshold
	}
	return score > threshold
}

// Op is the comparison that fires, as reports print it: ">" or "≥".
func (p *Profile) Op() string {
	if p.or().Inclusive {
		return "≥"
	}
	return ">"
}

// Windowed reports whether the profile scores with the SPEC §1.4 window
// (Window.Count), so that the sweep may evaluate every window at once.
func (p *Profile) Windowed() bool { return p.or().NewDetector == nil }

// past is PastLen(n), or n when the profile does not say.
func (p *Profile) Past(n int) int {
	if p = p.or(); p.PastLen == nil {
		return n
	}
	return p.PastLen(n)
}

// detector returns one agent's scoring state.
func (p *Profile) detector(n int) Detector {
	if p = p.or(); p.NewDetector != nil {
		return p.NewDetector(n)
	}
	return &windowDetector{w: Window{size: int32(n)}, n: n, prof: p}
}

// Fingerprint is how a profile sees one input: what the fingerprint
// command prints.
type Fingerprint struct {
	Source     string // "text", "request body (openai-chat)", "response body", …
	Prompt     string // the extracted text (bodies only)
	Normalized string
	Hash       uint64
	HasHash    bool
	NoHashWhy  string // when !HasHash: why (shown instead of a hash)
	ToolSig    string
	// Lines are further profile-specific lines (label, value), in order.
	Lines [][2]string
}

var profiles struct {
	sync.Mutex
	byName map[string]*Profile
}

// RegisterProfile makes p available by name (ParseProfile, --profile). It
// panics on a duplicate name: registration happens at init.
func RegisterProfile(p *Profile) {
	profiles.Lock()
	defer profiles.Unlock()
	if profiles.byName == nil {
		profiles.byName = map[string]*Profile{}
	}
	if p.Extract == nil || p.Fingerprint == nil || p.Name == "" {
		panic("analyze: incomplete profile " + p.Name)
	}
	if _, dup := profiles.byName[p.Name]; dup {
		panic("analyze: profile " + p.Name + " registered twice")
	}
	profiles.byName[p.Name] = p
}

// Profiles returns the registered profiles, sorted by name.
func Profiles() []*Profile {
	profiles.Lock()
	defer profiles.Unlock()
	out := make([]*Profile, 0, len(profiles.byName))
	for _, p := range profiles.byName {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ProfileNames lists the registered names, for messages: "agentgazer,
// progress or spec".
func ProfileNames() string {
	ps := Profiles()
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	if len(names) > 1 {
		return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	}
	return strings.Join(names, "")
}

// ProfileHelp describes every registered profile for --help, one
// "name: about" line each, sorted by name.
func ProfileHelp() string {
	var sb strings.Builder
	for _, p := range Profiles() {
		sb.WriteString("\n  " + p.Name + ": " + p.About)
	}
	return sb.String()
}

// ParseProfile returns the registered profile named s ("" is spec).
func ParseProfile(s string) (*Profile, error) {
	if s == "" {
		return ProfileSpec, nil
	}
	profiles.Lock()
	p := profiles.byName[s]
	profiles.Unlock()
	if p == nil {
		return nil, fmt.Errorf("unknown profile %q (want %s)", s, ProfileNames())
	}
	return p, nil
}

// Detector is one agent's scoring state under a profile: the history a
// request is scored against.
type Detector interface {
	// Score scores the request with features f against the history. It
	// does not change the history.
	Score(f *Features) Score
	// Push enters the request into the history after its decision;
	// answered says whether it was forwarded (its response counts).
	Push(f *Features, answered bool)
	// Resize changes the window size, keeping the most recent history.
	Resize(n int)
	// Clear forgets the history (an activation).
	Clear()
}

// Score is a detector's verdict on one request.
type Score struct {
	Counts
	Value float64
	// Explain, when non-empty, says what the score is made of (which
	// earlier requests matched, on what); it goes into the reason.
	Explain string
}

// windowDetector is the SPEC §1.4 window shared by spec and agentgazer.
type windowDetector struct {
	w    Window
	n    int // the window size (the ring may grow to it on demand)
	prof *Profile
}

func (d *windowDetector) Score(f *Features) Score         { return windowScore(&d.w, d.prof, d.n, f) }
func (d *windowDetector) Push(f *Features, answered bool) { windowPush(&d.w, f, answered, nil) }

// windowScore scores f against w, a window of size n of profile p.
func windowScore(w *Window, p *Profile, n int, f *Features) Score {
	cur := f.Entry
	cur.Response, cur.HasResp = 0, false // the answer comes after the decision
	c := w.Count(&cur, p.Past(n))
	return Score{Counts: c, Value: c.Score()}
}

// windowPush enters f into w; its response only if it was answered.
// Its storage grows from slab (nil: the heap).
func windowPush(w *Window, f *Features, answered bool, slab *windowSlab) {
	e := f.Entry
	if !answered {
		e.Response, e.HasResp = 0, false
	}
	w.push(e, slab)
}

func (d *windowDetector) Resize(n int) { d.w.Resize(n); d.n = n }
func (d *windowDetector) Clear()       { d.w.Clear() }

// MarshalText encodes a profile as its name, so that configurations and
// summaries travel as JSON (a distributed replay ships them to workers).
func (p *Profile) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText decodes a registered profile's name into p, a copy of the
// registered value (it behaves the same; compare profiles by Name when a
// value may have been decoded).
func (p *Profile) UnmarshalText(b []byte) error {
	q, err := ParseProfile(string(b))
	if err != nil {
		return err
	}
	*p = *q
	return nil
}

// NewWindowDetector returns the SPEC §1.4 detector of profile p over w, a
// window of size n: what a windowed profile's agents score with. The sweep
// uses it to follow an agent from a window it rebuilt. The detector takes
// w over: the caller must not use w afterwards.
func NewWindowDetector(w *Window, n int, p *Profile) Detector {
	return &windowDetector{w: *w, n: n, prof: p}
}
