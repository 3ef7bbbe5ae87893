// Package openhands is OpenHands' V0 loop detector, StuckDetector,
// re-implemented from openhands/controller/stuck.py at commit
// 156d0686c46aafb0fa9d291da6421fb6f64dddc0, and the openhands profiles
// that replay captured traffic through it as AgentController would have
// called it (../shared/PEER-REPLAY.md says how a capture becomes its
// events).
//
// Its five checks, in the source's order, on the history after user
// messages and null events are filtered out (in interactive mode, only
// what follows the last user message): the last 4 actions and the last 4
// observations each equal; the last 3 actions equal with 3 error
// observations (or 3 IPython syntax errors on the same line); the last 3
// agent messages equal with no observation between them; the last 6
// actions and 6 observations alternating A, B, A, B, A, B; and 10
// condensation observations of which two follow each other.
package openhands

import "strings"

// Kind is an event's class.
type Kind uint8

const (
	MessageAction Kind = iota + 1
	SystemMessageAction
	CmdRunAction
	IPythonRunCellAction
	FileReadAction
	FileEditAction
	AgentThinkAction
	AgentFinishAction
	AgentDelegateAction
	TaskTrackingAction
	BrowseInteractiveAction
	CondensationRequestAction
	RecallAction
	MCPAction
	NullAction

	firstObservation // every kind from here on is an Observation
	NullObservation
	CmdOutputObservation
	IPythonRunCellObservation
	ErrorObservation
	FileReadObservation
	FileEditObservation
	AgentThinkObservation
	TaskTrackingObservation
	BrowserOutputObservation
	MCPObservation
	AgentCondensationObservation
	RecallObservation
)

var kindNames = [...]string{MessageAction: "MessageAction", SystemMessageAction: "SystemMessageAction", CmdRunAction: "CmdRunAction",
	IPythonRunCellAction: "IPythonRunCellAction", FileReadAction: "FileReadAction", FileEditAction: "FileEditAction",
	AgentThinkAction: "AgentThinkAction", AgentFinishAction: "AgentFinishAction", AgentDelegateAction: "AgentDelegateAction",
	TaskTrackingAction: "TaskTrackingAction", BrowseInteractiveAction: "BrowseInteractiveAction",
	CondensationRequestAction: "CondensationRequestAction", RecallAction: "RecallAction", MCPAction: "MCPAction",
	NullAction: "NullAction", NullObservation: "NullObservation", CmdOutputObservation: "CmdOutputObservation",
	IPythonRunCellObservation: "IPythonRunCellObservation", ErrorObservation: "ErrorObservation",
	FileReadObservation: "FileReadObservation", FileEditObservation: "FileEditObservation",
	AgentThinkObservation: "AgentThinkObservation", TaskTrackingObservation: "TaskTrackingObservation",
	BrowserOutputObservation: "BrowserOutputObservation", MCPObservation: "MCPObservation",
	AgentCondensationObservation: "AgentCondensationObservation", RecallObservation: "RecallObservation"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "Event"
}

// IsObservation is isinstance(event, Observation); every other kind is
// an Action.
func (k Kind) IsObservation() bool { return k > firstObservation }

// Source is an event's source.
type Source uint8

const (
	SourceNone Source = iota // not set (the source's tests leave most events so)
	SourceAgent
	SourceUser
	SourceEnvironment
)

// Event is one event of the history: its class and source, and what
// equality compares of it.
type Event struct {
	Kind   Kind
	Source Source
	// eq stands for the dataclass fields: two events of one kind are ==
	// when their eq agree (ids, timestamps and sources are not fields).
	eq [16]byte
	// alt is what _eq_no_pid compares instead: a CmdOutputObservation's
	// command and exit code; an IPythonRunCellAction's first 3 code lines.
	alt [16]byte
	// For IPythonRunCellActions: the code calls edit_file_by_replace(,
	// and has more than 2 lines.
	editByReplace, longCode bool
	// Content is an IPythonRunCellObservation's output (the syntax-error
	// checks read its lines).
	Content string
	// Label names the event in explanations (a tool's name).
	Label string
}

// eqNoPid is StuckDetector._eq_no_pid.
func eqNoPid(a, b *Event) bool {
	switch {
	case a.Kind == IPythonRunCellAction && b.Kind == IPythonRunCellAction:
		if a.editByReplace && b.editByReplace {
			return a.longCode && a.alt == b.alt
		}
	case a.Kind == CmdOutputObservation && b.Kind == CmdOutputObservation:
		return a.alt == b.alt
	}
	return eq(a, b)
}

// eq is the dataclass ==: the same class and the same fields.
func eq(a, b *Event) bool { return a.Kind == b.Kind && a.eq == b.eq }

// Loop types, as stuck_analysis.loop_type names them.
const (
	LoopActionObservation = "repeating_action_observation"
	LoopActionError       = "repeating_action_error"
	LoopMonologue         = "monologue"
	LoopPattern           = "repeating_action_observation_pattern"
	LoopContextWindow     = "context_window_error"
)

// Analysis is stuck_analysis: what was found, how many repeats, and the
// events involved (for explanations: the labels of the repeated actions).
type Analysis struct {
	LoopType    string
	RepeatTimes int
	Actions     []string
}

// Filter reports whether is_stuck keeps e: user messages and null events
// are filtered out.
func Filter(e *Event) bool {
	return !(e.Kind == MessageAction && e.Source == SourceUser) && e.Kind != NullAction && e.Kind != NullObservation
}

// IsStuck is is_stuck(headless_mode) over a whole history.
func IsStuck(history []Event, headless bool) (Analysis, bool) {
	if !headless {
		for i := len(history) - 1; i >= 0; i-- {
			if history[i].Kind == MessageAction && history[i].Source == SourceUser {
				history = history[i+1:]
				break
			}
		}
	}
	var filtered []Event
	for i := range history {
		if Filter(&history[i]) {
			filtered = append(filtered, history[i])
		}
	}
	return Check(filtered)
}

// Check runs the five checks, in order, on a filtered history.
func Check(h []Event) (Analysis, bool) {
	if len(h) < 3 {
		return Analysis{}, false
	}
	var acts, obs [6]*Event
	na, no := last(h, 4, acts[:], obs[:])
	if a, ok := repeatingActionObservation(acts[:na], obs[:no]); ok {
		return a, true
	}
	if a, ok := repeatingActionError(acts[:na], obs[:no]); ok {
		return a, true
	}
	if a, ok := monologue(h); ok {
		return a, true
	}
	if len(h) >= 6 {
		na, no = last(h, 6, acts[:], obs[:])
		if a, ok := pattern(acts[:na], obs[:no]); ok {
			return a, true
		}
	}
	if len(h) >= 10 {
		if a, ok := contextWindow(h); ok {
			return a, true
		}
	}
	return Analysis{}, false
}

// last collects the last n actions and n observations, newest first,
// scanning back until it has both (the source's loop).
func last(h []Event, n int, acts, obs []*Event) (na, no int) {
	for i := len(h) - 1; i >= 0; i-- {
		e := &h[i]
		if !e.Kind.IsObservation() && na < n {
			acts[na] = e
			na++
		} else if e.Kind.IsObservation() && no < n {
			obs[no] = e
			no++
		}
		if na == n && no == n {
			break
		}
	}
	return na, no
}

func labels(acts []*Event) []string {
	var out []string
	for i := len(acts) - 1; i >= 0; i-- {
		out = append(out, acts[i].Label)
	}
	return out
}

func allEq(es []*Event) bool {
	for _, e := range es {
		if !eqNoPid(es[0], e) {
			return false
		}
	}
	return true
}

// repeatingActionObservation is scenario 1.
func repeatingActionObservation(acts, obs []*Event) (Analysis, bool) {
	if len(acts) == 4 && len(obs) == 4 && allEq(acts) && allEq(obs) {
		return Analysis{LoopType: LoopActionObservation, RepeatTimes: 4, Actions: labels(acts[:1])}, true
	}
	return Analysis{}, false
}

// The IPython syntax errors scenario 2 also accepts.
const (
	unterminated = "SyntaxError: unterminated string literal (detected at line"
	invalid      = "SyntaxError: invalid syntax. Perhaps you forgot a comma?"
	incomplete   = "SyntaxError: incomplete input"
)

// repeatingActionError is scenario 2.
func repeatingActionError(acts, obs []*Event) (Analysis, bool) {
	if len(acts) < 3 || len(obs) < 3 || !allEq(acts[:3]) {
		return Analysis{}, false
	}
	found := Analysis{LoopType: LoopActionError, RepeatTimes: 3, Actions: labels(acts[:1])}
	errs, ipy := true, true
	for _, o := range obs[:3] {
		errs = errs && o.Kind == ErrorObservation
		ipy = ipy && o.Kind == IPythonRunCellObservation
	}
	switch {
	case errs:
		return found, true
	case ipy:
		// SYNTAX_ERROR_MESSAGES in order: the first by its line, the
		// other two by the whole error.
		if consistentLineError(obs[:3], unterminated) ||
			consistentInvalidSyntax(obs[:3], invalid) || consistentInvalidSyntax(obs[:3], incomplete) {
			return found, true
		}
	}
	return Analysis{}, false
}

// pyLines is content.strip().split('\n').
func pyLines(s string) []string { return strings.Split(strings.TrimFunc(s, pyIsSpace), "\n") }

// pyIsSpace is what Python's str.strip() removes.
func pyIsSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x1f, 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// consistentInvalidSyntax is _check_for_consistent_invalid_syntax.
func consistentInvalidSyntax(obs []*Event, msg string) bool {
	var first string
	valid := 0
	var errLine string
	for i, o := range obs {
		lines := pyLines(o.Content)
		if len(lines) < 6 {
			return false
		}
		l1 := strings.TrimFunc(lines[0], pyIsSpace)
		if !strings.HasPrefix(l1, "Cell In[1], line") {
			return false
		}
		if i == 0 {
			first = l1
		} else if l1 != first {
			first = "\x00differs"
		}
		n := len(lines)
		if strings.HasPrefix(lines[n-1], "[Jupyter Python interpreter:") &&
			strings.HasPrefix(lines[n-2], "[Jupyter current working directory:") && strings.Contains(lines[n-3], msg) {
			// obs.content.strip().split('\n')[:-2][-1]: the line
			// before the last two.
			if valid == 0 {
				errLine = lines[n-3]
			} else if lines[n-3] != errLine {
				errLine = "\x00differs"
			}
			valid++
		}
	}
	return first != "\x00differs" && valid == 3 && errLine != "\x00differs"
}

// consistentLineError is _check_for_consistent_line_error.
func consistentLineError(obs []*Event, msg string) bool {
	var lines3 []string
	for _, o := range obs {
		lines := pyLines(o.Content)
		if len(lines) < 3 {
			return false
		}
		l := lines[len(lines)-3:]
		if !strings.HasPrefix(l[1], "[Jupyter current working directory:") || !strings.HasPrefix(l[2], "[Jupyter Python interpreter:") {
			return false
		}
		if strings.Contains(l[0], msg) {
			lines3 = append(lines3, l[0])
		}
	}
	return len(lines3) == 3 && lines3[0] == lines3[1] && lines3[1] == lines3[2]
}

// monologue is scenario 3.
func monologue(h []Event) (Analysis, bool) {
	var idx [3]int
	n := 0
	for i := len(h) - 1; i >= 0 && n < 3; i-- {
		if h[i].Kind == MessageAction && h[i].Source == SourceAgent {
			idx[2-n] = i
			n++
		}
	}
	if n < 3 || !eq(&h[idx[0]], &h[idx[1]]) || !eq(&h[idx[0]], &h[idx[2]]) {
		return Analysis{}, false
	}
	for i := idx[0] + 1; i < idx[2]; i++ {
		if h[i].Kind.IsObservation() {
			return Analysis{}, false
		}
	}
	return Analysis{LoopType: LoopMonologue, RepeatTimes: 3, Actions: []string{"message"}}, true
}

// pattern is scenario 4.
func pattern(a, o []*Event) (Analysis, bool) {
	if len(a) == 6 && len(o) == 6 &&
		eqNoPid(a[0], a[2]) && eqNoPid(a[0], a[4]) && eqNoPid(a[1], a[3]) && eqNoPid(a[1], a[5]) &&
		eqNoPid(o[0], o[2]) && eqNoPid(o[0], o[4]) && eqNoPid(o[1], o[3]) && eqNoPid(o[1], o[5]) {
		return Analysis{LoopType: LoopPattern, RepeatTimes: 3, Actions: labels(a[:2])}, true
	}
	return Analysis{}, false
}

// contextWindow is scenario 5: among the last 10 condensation
// observations, two with nothing else between them.
func contextWindow(h []Event) (Analysis, bool) {
	var idx [10]int
	n := 0
	for i := len(h) - 1; i >= 0 && n < 10; i-- {
		if h[i].Kind == AgentCondensationObservation {
			idx[9-n] = i
			n++
		}
	}
	if n < 10 {
		return Analysis{}, false
	}
	for k := 0; k < 9; k++ {
		other := false
		for i := idx[k] + 1; i < idx[k+1]; i++ {
			if h[i].Kind != AgentCondensationObservation {
				other = true
				break
			}
		}
		if !other {
			return Analysis{LoopType: LoopContextWindow, RepeatTimes: 2}, true
		}
	}
	return Analysis{}, false
}
