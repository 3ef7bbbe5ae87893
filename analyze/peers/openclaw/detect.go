// Package openclaw replays OpenClaw's tool-loop detection over captured
// traffic, as published in the npm package openclaw 2026.9.6
// (dist/tool-loop-detection-6ndMMrbS.mjs, compiled from
// src/agents/tool-loop-detection.ts, tool-loop-no-progress.ts and
// tool-loop-call-kind.ts; wired by tool-loop-admission.ts in
// dist/agent-tools.before-tool-call-D6M7yTR3.mjs), with
// tools.loopDetection.enabled set (it is off by default). docs/peers.md
// says how captured calls become OpenClaw's tool calls and outcomes, and
// what is left out.
package openclaw

import "crypto/sha256"

// The source's thresholds.
const (
	HistorySize       = 30 // TOOL_CALL_HISTORY_SIZE
	WarningThreshold  = 10 // resolveToolLoopWarningThreshold, and the unknown-tool limit
	CriticalThreshold = 20
	GlobalThreshold   = 30 // GLOBAL_CIRCUIT_BREAKER_THRESHOLD
)

// Hash stands for a sha256 digest the source compares.
type Hash = [sha256.Size]byte

// ArgsKey is hashToolCall's `${toolName}:${sha256Hex(stableStringify(params))}`.
type ArgsKey struct {
	Tool string
	Args Hash
}

// Call is one record of toolCallHistory.
type Call struct {
	Tool string
	Key  ArgsKey
	ID   string
	Run  int
	// The outcome, once recorded: a result hash (HasResult), or a loop
	// veto (outcomeKind "tool-loop-veto"); NoProgress and Unknown
	// (unknownToolName) as hashToolOutcome gives them.
	HasResult  bool
	Result     Hash
	Veto       bool
	NoProgress bool
	Unknown    string
}

func (c *Call) hasOutcome() bool { return c.HasResult || c.Veto }

// Outcome is what hashToolOutcome gives for one result.
type Outcome struct {
	HasResult  bool
	Result     Hash
	Veto       bool
	NoProgress bool
	Unknown    string
}

// State is a session's toolCallHistory.
type State struct{ History []Call }

func (s *State) trim() {
	if n := len(s.History) - HistorySize; n > 0 {
		s.History = append(s.History[:0], s.History[n:]...)
	}
}

// RecordCall is recordToolCall: the call joins the history, which keeps
// the last HistorySize records.
func (s *State) RecordCall(tool string, key ArgsKey, id string, run int) {
	s.History = append(s.History, Call{Tool: tool, Key: key, ID: id, Run: run})
	s.trim()
}

// RecordOutcome is recordToolCallOutcome: the outcome goes to the latest
// call of the run with the same id (when given), tool and arguments that
// has none yet, or joins the history as a record of its own.
func (s *State) RecordOutcome(tool string, key ArgsKey, id string, run int, o Outcome) {
	if !o.HasResult && !o.Veto {
		return
	}
	for i := len(s.History) - 1; i >= 0; i-- {
		c := &s.History[i]
		if c.Run != run || (id != "" && c.ID != id) || c.Tool != tool || c.Key != key || c.hasOutcome() {
			continue
		}
		c.HasResult, c.Result, c.Veto, c.NoProgress, c.Unknown = o.HasResult, o.Result, o.Veto, o.NoProgress, o.Unknown
		return
	}
	s.History = append(s.History, Call{Tool: tool, Key: key, ID: id, Run: run,
		HasResult: o.HasResult, Result: o.Result, Veto: o.Veto, NoProgress: o.NoProgress, Unknown: o.Unknown})
	s.trim()
}

// Level is a detection's level.
type Level int

const (
	None Level = iota
	Warning
	Critical
)

// Detection is what detectToolCallLoop returns (without its messages).
type Detection struct {
	Level    Level
	Detector string // unknown_tool_repeat, global_circuit_breaker, known_poll_no_progress, ping_pong, argument_churn, generic_repeat
	Count    int
}

// Detect is detectToolCallLoop for a call of tool with key in run; poll
// says isKnownPollToolCall holds for it. The argument-churn warning is
// not computed: it comes after every critical check and only warns.
func Detect(history []Call, tool string, key ArgsKey, poll bool, run int) Detection {
	d, _ := DetectScratch(nil, history, tool, key, poll, run)
	return d
}

// DetectScratch is Detect, reading the run's records through buf (when
// the history holds other runs' records) and returning it for reuse.
func DetectScratch(buf, history []Call, tool string, key ArgsKey, poll bool, run int) (Detection, []Call) {
	h := history
	for i := range history {
		if history[i].Run != run {
			h = buf[:0]
			for _, c := range history {
				if c.Run == run {
					h = append(h, c)
				}
			}
			buf = h
			break
		}
	}
	return detect(h, tool, key, poll), buf
}

// detect is detectToolCallLoop on the run's history h.
func detect(h []Call, tool string, key ArgsKey, poll bool) Detection {
	if n, _ := unknownToolStreak(h, tool); n >= WarningThreshold {
		return Detection{Critical, "unknown_tool_repeat", n}
	}
	np := noProgressStreak(h, tool, key)
	if np >= GlobalThreshold {
		return Detection{Critical, "global_circuit_breaker", np}
	}
	if poll && np >= CriticalThreshold {
		return Detection{Critical, "known_poll_no_progress", np}
	}
	if poll && np >= WarningThreshold {
		return Detection{Warning, "known_poll_no_progress", np}
	}
	pp, evidence := pingPongStreak(h, key)
	if pp >= CriticalThreshold && evidence {
		return Detection{Critical, "ping_pong", pp}
	}
	if pp >= WarningThreshold {
		return Detection{Warning, "ping_pong", pp}
	}
	if !poll && np >= CriticalThreshold {
		return Detection{Critical, "generic_repeat", np}
	}
	recent := 0
	for i := range h {
		if h[i].Tool == tool && h[i].Key == key {
			recent++
		}
	}
	if !poll && recent >= WarningThreshold {
		return Detection{Warning, "generic_repeat", recent}
	}
	return Detection{}
}

// unknownToolStreak is getUnknownToolRepeatStreak: the latest records of
// tool that failed on the same unknown tool.
func unknownToolStreak(h []Call, tool string) (int, string) {
	n, name := 0, ""
	for i := len(h) - 1; i >= 0; i-- {
		c := &h[i]
		if c.Tool != tool || c.Unknown == "" {
			break
		}
		if name == "" {
			name, n = c.Unknown, 1
			continue
		}
		if c.Unknown != name {
			break
		}
		n++
	}
	return n, name
}

// noProgressStreak is countNoProgressStreak(…, false): walking back over
// the calls of tool with key, how many share the latest result (loop
// vetoes counting with them). For exec, getNoProgressStreak also counts
// terminal exec failures, an outcome kind a capture never gives (it
// needs the tool's details), so that count is 0 here.
func noProgressStreak(h []Call, tool string, key ArgsKey) int {
	streak, vetoes := 0, 0
	var latest *Call
	for i := len(h) - 1; i >= 0; i-- {
		c := &h[i]
		if c.Tool != tool || c.Key != key {
			continue
		}
		if c.Veto {
			vetoes++
			continue
		}
		if !c.HasResult {
			continue
		}
		if latest == nil {
			latest, streak, vetoes = c, vetoes+1, 0
			continue
		}
		if c.Result != latest.Result {
			break
		}
		streak += vetoes + 1
		vetoes = 0
	}
	if latest == nil {
		return vetoes
	}
	return streak
}

// pingPongStreak is getPingPongStreak: the length of the A, B, A, B…
// tail the call would extend (count includes it), and whether every call
// of that tail has a result, the same for each side.
func pingPongStreak(h []Call, current ArgsKey) (int, bool) {
	if len(h) == 0 {
		return 0, false
	}
	last := h[len(h)-1].Key
	var other ArgsKey
	found := false
	for i := len(h) - 2; i >= 0; i-- {
		if h[i].Key != last {
			other, found = h[i].Key, true
			break
		}
	}
	if !found {
		return 0, false
	}
	tail := 0
	for i := len(h) - 1; i >= 0; i-- {
		want := last
		if tail%2 == 1 {
			want = other
		}
		if h[i].Key != want {
			break
		}
		tail++
	}
	if tail < 2 || current != other {
		return 0, false
	}
	var firstA, firstB *Hash
	evidence := true
	for i := len(h) - tail; i < len(h); i++ {
		c := &h[i]
		if !c.HasResult {
			evidence = false // a veto or a pending call: no resultHash
			break
		}
		side := &firstB
		if c.Key == last {
			side = &firstA
		}
		if *side == nil {
			*side = &c.Result
		} else if **side != c.Result {
			evidence = false
			break
		}
	}
	if firstA == nil || firstB == nil {
		evidence = false
	}
	return tail + 1, evidence
}
