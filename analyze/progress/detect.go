package progress

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/killswitch/killswitch/analyze/simhash"
)

// Defaults, chosen by the sweep over fixtures/progress (see its README).
const (
	// DefaultWindow is how many earlier requests of the agent are kept.
	DefaultWindow = 20
	// DefaultThreshold: the detector fires when the score is ≥ it.
	DefaultThreshold = 4
)

// Tuning constants (see the package documentation for what each means).
const (
	// maxPeriod is the longest cycle of steps looked for: as long as
	// the default window, so that paging that wraps around a long list
	// (pages 1..P, then 1 again) is a cycle of P steps.
	maxPeriod   = DefaultWindow
	nearAnswer  = 3 // SimHash distance within which two answers are the same
	errWeight   = 1.5
	busyGap     = 60 // seconds: gaps up to this are the agent's busy pace
	paceFactor  = 8  // a pause longer than paceFactor × the busy pace is a schedule
	paceSamples = 15 // gaps the pace is the median of
)

// Signal is what a score is made of.
type Signal uint8

const (
	SignalNone    Signal = iota
	SignalRepeat         // the same action with the same observation, step after step
	SignalCycle          // a cycle of steps (A, B, A, B…) with the same observations
	SignalChurn          // the same tool with changing arguments and the same result
	SignalAnswer         // the same answer, with no tool use, again and again
	SignalRecur          // the same action with the same error, other steps between
	SignalReapply        // the same body (an edit, a file) written again, whatever the result
)

func (s Signal) String() string {
	switch s {
	case SignalRepeat:
		return "repeat"
	case SignalCycle:
		return "cycle"
	case SignalChurn:
		return "churn"
	case SignalAnswer:
		return "answer"
	case SignalRecur:
		return "recur"
	case SignalReapply:
		return "reapply"
	}
	return "none"
}

// Result is the score of one request and what it is made of.
type Result struct {
	Score  float64
	Signal Signal
	Period int  // SignalCycle: steps in the cycle (1 for SignalRepeat)
	Error  bool // the repeated observation is an error
	// Matched are the earlier requests (1-based, counting the requests
	// the detector was given) the request repeats, oldest first; at most
	// len(Matched), NMatched of them.
	Matched  [8]int
	NMatched int
	// Seq is the request's own number.
	Seq int
	// Label names the repeated action's tools ("" when there is none).
	Label string
	// Counter (SignalRepeat): the request repeats the one before it but
	// for counters in the action's arguments.
	Counter bool
	// TextAction: the action is a command written in the assistant's
	// text (Label is its program), not a tool call.
	TextAction bool
	// AnyAction (SignalChurn): the repeated error names nothing of the
	// actions, which differ in more than their arguments.
	AnyAction bool
	// Schedule is set when the request came after a pause long against
	// the agent's pace: the history before it is not compared.
	Schedule bool
}

// Reason is a short human explanation: which earlier requests matched, on
// what, and why that is no progress. "" when the score is 0.
func (r *Result) Reason() string {
	if r.Signal == SignalNone {
		if r.Schedule {
			return "after a pause long against the agent's pace: a schedule, not compared with earlier requests"
		}
		return ""
	}
	var b strings.Builder
	b.WriteString("requests ")
	for i := range r.NMatched {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(r.Matched[i]))
	}
	b.WriteString(" and ")
	b.WriteString(strconv.Itoa(r.Seq))
	what := "got the same result"
	if r.Error {
		what = "got the same error"
	}
	act := "made the same call " + r.Label
	if r.Counter {
		act += " (only its counters moved on)"
	}
	if r.TextAction {
		act = "ran the same command " + r.Label
	}
	if r.Label == "" {
		act = "sent the same input (ids and timestamps aside)"
		what = "with no tool call between"
	}
	switch r.Signal {
	case SignalRepeat:
		fmt.Fprintf(&b, " %s and %s: no progress", act, what)
	case SignalCycle:
		fmt.Fprintf(&b, " repeat a cycle of %d steps with the same results: no progress", r.Period)
	case SignalChurn:
		if r.AnyAction {
			fmt.Fprintf(&b, " ran different actions (%s the last) and %s, which names none of them: the action changes nothing", r.Label, what)
			break
		}
		fmt.Fprintf(&b, " called %s with changing arguments and %s: the arguments change nothing", r.Label, what)
	case SignalRecur:
		fmt.Fprintf(&b, " %s and %s, with other steps between: retrying it changes nothing", act, what)
	case SignalReapply:
		fmt.Fprintf(&b, " %s, writing the same body again: re-applying a change is a no-op or stacks a copy", act)
	case SignalAnswer:
		b.Reset()
		b.WriteString("the answers to requests ")
		for i := range r.NMatched {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Itoa(r.Matched[i]))
		}
		b.WriteString(" are the same text with no tool use: the agent repeats itself")
	}
	return b.String()
}

// entry is one request of the history.
type entry struct {
	seq      int
	ts       int64 // Unix nanoseconds
	session  int
	key      uint64
	loose    uint64 // Features.LooseKey
	numSum   int64
	numCount int
	act      uint64 // the action's hash when it writes a body (Features.ActBody), else 0
	churn    uint64
	err      bool
	label    string
	ans      uint64
	ansSim   uint64
	ansShown bool // a forwarded text-only answer long enough to compare
}

// Detector is one agent's history: the last Window requests. It is not
// safe for concurrent use.
type Detector struct {
	buf     []entry // ring
	head, n int
	size    int
	seq     int
	session int
	gaps    [paceSamples]int64
	ng      int
}

// New returns a detector keeping window earlier requests.
func New(window int) *Detector {
	return &Detector{size: max(1, window)}
}

// Resize keeps the most recent n entries.
func (d *Detector) Resize(n int) {
	n = max(1, n)
	keep := min(d.n, n)
	nb := make([]entry, keep, max(keep, min(n, 64)))
	for i := range keep {
		nb[i] = *d.at(d.n - keep + i)
	}
	d.buf, d.head, d.n, d.size = nb[:cap(nb)], 0, keep, n
}

// Clear forgets the history (an activation). Request numbers go on.
func (d *Detector) Clear() { d.head, d.n, d.ng = 0, 0, 0 }

func (d *Detector) at(i int) *entry { return &d.buf[(d.head+i)%len(d.buf)] }

// Push enters the request into the history after its decision; forwarded
// is false when it was refused (it got no answer).
func (d *Detector) Push(f *Features, ts int64, forwarded bool) {
	d.seq++
	if d.n > 0 {
		last := d.at(d.n - 1)
		gap := ts - last.ts
		if !f.Continues && d.isPause(gap) {
			d.session++
		}
		if gap >= 0 && gap <= busyGap*1e9 {
			copy(d.gaps[:], d.gaps[1:])
			d.gaps[len(d.gaps)-1] = gap
			d.ng = min(d.ng+1, len(d.gaps))
		}
	}
	e := entry{seq: d.seq, ts: ts, session: d.session, key: f.Key(), churn: f.ChurnKey(), err: f.ObsErr, label: f.ActLabel,
		loose: f.LooseKey(), numSum: f.NumSum, numCount: f.NumCount}
	if f.ActBody {
		e.act = f.Act
	}
	if forwarded && f.HasAns && answerCompared(f) && f.AnsWords >= 2*minWords {
		e.ans, e.ansSim, e.ansShown = f.Ans, f.AnsSim, true
	}
	if d.n == len(d.buf) && len(d.buf) < d.size {
		d.grow(min(d.size, max(4, 2*len(d.buf))))
	}
	if d.n < len(d.buf) {
		*d.at(d.n) = e
		d.n++
		return
	}
	*d.at(0) = e
	d.head = (d.head + 1) % len(d.buf)
}

func (d *Detector) grow(n int) {
	nb := make([]entry, n)
	for i := range d.n {
		nb[i] = *d.at(i)
	}
	d.buf, d.head = nb, 0
}

// isPause reports whether a gap (nanoseconds) before a request is long
// against the agent's busy pace: a schedule, not a loop.
func (d *Detector) isPause(gap int64) bool {
	limit := int64(busyGap * 1e9)
	if d.ng > 0 {
		var s [paceSamples]int64
		g := s[:d.ng]
		copy(g, d.gaps[len(d.gaps)-d.ng:])
		for i := 1; i < len(g); i++ {
			for j := i; j > 0 && g[j] < g[j-1]; j-- {
				g[j], g[j-1] = g[j-1], g[j]
			}
		}
		limit = max(limit, paceFactor*g[len(g)/2])
	}
	return gap > limit
}

// Score scores the request with features f at ts (Unix nanoseconds)
// against the history, without changing it.
func (d *Detector) Score(f *Features, ts int64) Result {
	r := Result{Seq: d.seq + 1}
	// The comparable history: the current session's entries.
	m := d.n
	if m > 0 && !f.Continues && d.isPause(ts-d.at(m-1).ts) {
		r.Schedule = true
		return r
	}
	first := m
	for first > 0 && d.at(first-1).session == d.session {
		first--
	}
	key, churn := f.Key(), f.ChurnKey()
	keyAt := func(i int) uint64 {
		if i == m {
			return key
		}
		return d.at(i).key
	}
	// Repeats and cycles: the run of steps equal to the step p back. A
	// step also repeats the one before it when only counters moved on:
	// the same action with its numbers as placeholders, the same
	// observation, and the numbers' sum up by 1 to their count (a poll's
	// attempt 3, 4, 5).
	loose := f.LooseKey()
	counted := func(i int) bool {
		li, lj := loose, uint64(0)
		si, ni := f.NumSum, f.NumCount
		if i < m {
			e := d.at(i)
			li, si, ni = e.loose, e.numSum, e.numCount
		}
		if li == 0 || i-1 < first {
			return false
		}
		p := d.at(i - 1)
		lj = p.loose
		return li == lj && si-p.numSum >= 1 && si-p.numSum <= int64(ni)
	}
	if key != 0 {
		for p := 1; p <= maxPeriod && m-p >= first; p++ {
			l := 0
			for i := m; i-p >= first && keyAt(i) != 0 && (keyAt(i) == keyAt(i-p) || (p == 1 && counted(i))); i-- {
				l++
			}
			if l == 0 {
				continue
			}
			s := float64(l)
			if p == 1 && f.ObsErr {
				s *= errWeight
			}
			if s > r.Score || (s == r.Score && r.Signal == SignalCycle && p == 1) {
				r.Score, r.Period, r.Error = s, p, p == 1 && f.ObsErr
				r.Counter = p == 1 && key != keyAt(m-1)
				r.Signal = SignalCycle
				if p == 1 {
					r.Signal = SignalRepeat
				}
				r.NMatched = 0
				for t := 1; t*p <= l+p-1 && m-t*p >= first; t++ {
					r.addMatch(d.at(m - t*p).seq)
				}
				r.Label, r.TextAction = f.ActLabel, f.ActText
			}
		}
	}
	// Recurring errors: the same action with the same error, anywhere in
	// the session's window (a failing edit retried between other steps).
	if key != 0 && f.Act != 0 && f.ObsErr {
		c := 0
		for i := m - 1; i >= first; i-- {
			if d.at(i).key == key {
				c++
			}
		}
		if s := float64(c) * errWeight; s > r.Score {
			r.Score, r.Signal, r.Period, r.Error, r.Label, r.TextAction = s, SignalRecur, 1, f.ObsErr, f.ActLabel, f.ActText
			r.Counter = false
			r.NMatched = 0
			for i := m - 1; i >= first && r.NMatched < len(r.Matched); i-- {
				if d.at(i).key == key {
					r.addMatch(d.at(i).seq)
				}
			}
		}
	}
	// Re-applied bodies: the same edit or file written again, whatever
	// the result (the file may show a stacked copy).
	if f.ActBody {
		c := 0
		for i := m - 1; i >= first; i-- {
			if d.at(i).act == f.Act {
				c++
			}
		}
		if s := float64(c) * errWeight; s > r.Score {
			r.Score, r.Signal, r.Period, r.Error, r.Label, r.TextAction = s, SignalReapply, 1, f.ObsErr, f.ActLabel, f.ActText
			r.Counter = false
			r.NMatched = 0
			for i := m - 1; i >= first && r.NMatched < len(r.Matched); i-- {
				if d.at(i).act == f.Act {
					r.addMatch(d.at(i).seq)
				}
			}
		}
	}
	// Argument churn: the same tools, the same result, arguments changing.
	if churn != 0 {
		l := 0
		for i := m - 1; i >= first && d.at(i).churn == churn; i-- {
			l++
		}
		if s := float64(l); s > r.Score {
			r.Score, r.Signal, r.Period, r.Error, r.Label, r.TextAction = s, SignalChurn, 1, f.ObsErr, f.ActLabel, f.ActText
			r.Counter = false
			r.AnyAction = f.ObsErr && !f.ObsEcho
			r.NMatched = 0
			for t := 1; t <= l; t++ {
				r.addMatch(d.at(m - t).seq)
			}
		}
	}
	// Answers: the newest answers, text only, the same again and again.
	if m-1 >= first && d.at(m-1).ansShown {
		newest := d.at(m - 1)
		l := 0
		for i := m - 2; i >= first; i-- {
			e := d.at(i)
			if !e.ansShown || (e.ans != newest.ans && simhash.Distance(e.ansSim, newest.ansSim) > nearAnswer) {
				break
			}
			l++
		}
		if s := float64(l); s > r.Score {
			r.Score, r.Signal, r.Period, r.Error, r.Label, r.TextAction = s, SignalAnswer, 1, false, "", false
			r.Counter = false
			r.NMatched = 0
			for t := l + 1; t >= 1; t-- {
				r.addMatch(d.at(m - t).seq)
			}
		}
	}
	r.sortMatches()
	return r
}

func (r *Result) addMatch(seq int) {
	if r.NMatched < len(r.Matched) {
		r.Matched[r.NMatched] = seq
		r.NMatched++
	}
}

func (r *Result) sortMatches() {
	m := r.Matched[:r.NMatched]
	for i := 1; i < len(m); i++ {
		for j := i; j > 0 && m[j] < m[j-1]; j-- {
			m[j], m[j-1] = m[j-1], m[j]
		}
	}
}
