package openhands

import (
	"slices"
	"strconv"
	"strings"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/peers/conv"
	"github.com/killswitch/killswitch/ingest"
)

// The profiles: OpenHands interactive (the CLI and GUI: a user message
// starts a fresh window) and headless (evaluation runs: the whole
// history). The score is 1 on the call OpenHands would not have made
// (the detector fired before it), else 0; the threshold is 1. The window
// size is not used.
var (
	Profile = &analyze.Profile{
		Name: "openhands",
		About: "OpenHands V0 StuckDetector (stuck.py at 156d0686), interactive mode: repeated action/observation, " +
			"action/error, monologue, alternation, context-window loops after the last user message",
		Inclusive:       true,
		NoWindow:        true,
		NoText:          true,
		Extract:         extract,
		Fingerprint:     fingerprint,
		NewDetector:     func(int) analyze.Detector { return &detector{} },
		Defaults:        analyze.Settings{Enabled: true, WindowSize: 20, Threshold: 1},
		SweepThresholds: "1",
	}
	ProfileHeadless = &analyze.Profile{
		Name:            "openhands-headless",
		About:           "OpenHands V0 StuckDetector in headless mode (evaluation runs): the whole history, user messages filtered out",
		Inclusive:       true,
		NoWindow:        true,
		NoText:          true,
		Extract:         extract,
		Fingerprint:     fingerprint,
		NewDetector:     func(int) analyze.Detector { return &detector{headless: true} },
		Defaults:        analyze.Settings{Enabled: true, WindowSize: 20, Threshold: 1},
		SweepThresholds: "1",
	}
)

func init() {
	analyze.RegisterProfile(Profile)
	analyze.RegisterProfile(ProfileHeadless)
}

// step is what the detector needs of one record (Features.Ext).
type step struct {
	results []result
	prompts []prompt
	failed  bool
	// condensation: the call failed on its context window (one of
	// _step's strings in the body).
	condensation bool
	actions      []action
	errObs       *Event
}

// prompt is a new user prompt's events: its message and the recall it
// triggers, the first one (workspace_context) or a later one (knowledge).
// They are made while the record is extracted, from the parser's bytes,
// so that the prompt's text is never copied.
type prompt struct{ msg, firstRecall, recall Event }

func newPrompt(p []byte) prompt {
	msg := newHasher(byte(MessageAction))
	addField(&msg, p)
	addField(&msg, F(false))
	recall := func(kind string) Event {
		h := newHasher(byte(RecallAction))
		addField(&h, kind)
		addField(&h, p)
		addField(&h, "")
		return Event{Kind: RecallAction, Source: SourceUser, Label: "recall", eq: h.sum()}
	}
	return prompt{msg: Event{Kind: MessageAction, Source: SourceUser, Label: "message", eq: msg.sum()},
		firstRecall: recall("workspace_context"), recall: recall("knowledge")}
}

type extractor struct {
	conv    conv.Converter
	prompts []prompt // the record's, as conv hands them over
}

func state(x *analyze.Extractor) *extractor {
	e := conv.State[extractor](x)
	if e.conv.Prompt == nil {
		e.conv.Prompt = func(p []byte) { e.prompts = append(e.prompts, newPrompt(p)) }
	}
	return e
}

// contextWindowErrors are the strings _step takes for a context-window
// error (compared lower-cased).
var contextWindowErrors = []string{"contextwindowexceedederror", "prompt is too long",
	"input length and `max_tokens` exceed context limit", "please reduce the length of",
	"the request exceeds the available context size", "context length exceeded"}

func extract(x *analyze.Extractor, rec *ingest.Record) analyze.Features {
	e := state(x)
	e.prompts = e.prompts[:0]
	t, f, ok := e.conv.Features(x, rec)
	if !ok {
		return f
	}
	st := &step{prompts: slices.Clone(e.prompts), failed: t.Failed}
	for _, r := range t.Results {
		st.results = append(st.results, newResult(r))
	}
	if t.Failed {
		low := strings.ToLower(string(rec.Response))
		for _, s := range contextWindowErrors {
			if strings.Contains(low, s) {
				st.condensation = true
				break
			}
		}
	} else {
		st.actions, st.errObs = responseToActions(&t)
	}
	f.Ext = st
	return f
}

// detector follows one agent as AgentController would have. Score works
// on the state as it stands and remembers how to undo what it added;
// Push without an answer undoes it (the call was refused).
type detector struct {
	headless bool
	h        history
	undo     history
}

// history is the agent's state: the filtered history (in interactive
// mode, since the last user message), the previous response's actions
// (the first already in the history) and whether the user has spoken.
type history struct {
	events  []Event
	prev    []action
	spoken  bool
	pending bool // prev's observations are still to come
}

func (d *detector) add(e Event) {
	if e.Kind == MessageAction && e.Source == SourceUser && !d.headless {
		d.h.events = nil // a fresh window; the old array stays with undo
		return
	}
	if Filter(&e) {
		d.h.events = append(d.h.events, e)
	}
}

func (d *detector) Score(f *analyze.Features) analyze.Score {
	st, _ := f.Ext.(*step)
	if st == nil {
		return analyze.Score{}
	}
	d.undo = d.h
	// 1. The previous response's actions: each one's observation, and
	// a check before each further action is taken from the queue.
	for k := range d.h.prev {
		a := &d.h.prev[k]
		if k > 0 {
			if an, stuck := Check(d.h.events); stuck {
				return found(an)
			}
			d.add(a.ev)
		}
		if r := match(st.results, d.h.prev, k); r != nil {
			if o, ok := a.observation(r); ok {
				d.add(o)
			}
		}
	}
	d.h.prev = nil
	// 2. New user prompts: the message, the recall it triggers, and a
	// null observation (filtered out).
	for _, p := range st.prompts {
		d.add(p.msg)       // Message(SourceUser, text, false)
		recall := p.recall // RecallAction("knowledge", text, "")
		if !d.h.spoken {
			recall = p.firstRecall // RecallAction("workspace_context", text, "")
		}
		d.h.spoken = true
		d.add(recall)
	}
	// 3. The step that makes this call.
	if an, stuck := Check(d.h.events); stuck {
		return found(an)
	}
	// 4. This response.
	switch {
	case st.failed && st.condensation:
		d.add(Condensation("Trimming prompt to meet context window limitations"))
	case st.failed:
	case st.errObs != nil:
		d.add(*st.errObs)
	default:
		d.add(st.actions[0].ev)
		d.h.prev = st.actions
	}
	return analyze.Score{}
}

// match returns the result of prev[k]: by tool call id, or by position
// when no id matches and the counts agree.
func match(rs []result, prev []action, k int) *result {
	for i := range rs {
		if rs[i].id != "" && rs[i].id == prev[k].id {
			return &rs[i]
		}
	}
	if len(rs) == len(prev) {
		for i := range rs {
			for j := range prev {
				if rs[i].id != "" && rs[i].id == prev[j].id {
					return nil // ids match other actions: this one has none
				}
			}
		}
		return &rs[k]
	}
	return nil
}

// reasons name the checks as the reports do.
var reasons = map[string]string{
	LoopActionObservation: "repeating action/observation ×4",
	LoopActionError:       "repeating action/error ×3",
	LoopMonologue:         "monologue ×3",
	LoopPattern:           "alternating action/observation pattern ×3",
	LoopContextWindow:     "context window error loop",
}

func found(a Analysis) analyze.Score {
	s := "openhands: " + reasons[a.LoopType]
	if len(a.Actions) > 0 {
		s += " (" + strings.Join(a.Actions, ", ") + ")"
	}
	sc := analyze.Score{Value: 1, Explain: s}
	sc.RepeatedToolCalls = a.RepeatTimes
	return sc
}

func (d *detector) Push(f *analyze.Features, answered bool) {
	if !answered {
		d.h = d.undo
	}
}

func (d *detector) Resize(int) {}
func (d *detector) Clear()     { d.h = history{spoken: d.h.spoken} }

func fingerprint(x *analyze.Extractor, in []byte, asResponse bool) (analyze.Fingerprint, error) {
	return state(x).conv.Fingerprint(in, asResponse, "OpenHands compares events, not prompts", func(t *conv.Turn) [][2]string {
		if !asResponse {
			return [][2]string{{"user messages", strconv.Itoa(t.Prompts)}, {"tool results", strconv.Itoa(len(t.Results))}}
		}
		acts, errEv := responseToActions(t)
		var out [][2]string
		if errEv != nil {
			out = append(out, [2]string{"observation", "ErrorObservation (the response cannot become actions)"})
		}
		for _, a := range acts {
			out = append(out, [2]string{"action", a.ev.Kind.String() + " " + a.ev.Label})
		}
		return out
	})
}
