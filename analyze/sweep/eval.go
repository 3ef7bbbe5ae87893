package sweep

import (
	"fmt"
	"sort"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
)

// sweepSeg is a stretch of an agent's requests between operator
// activations (each empties the window and re-activates the agent at every
// setting alike): requests [start, live) are scored, [live, end) come after
// an operator deactivation and are refused at every setting.
type sweepSeg struct{ start, live, end int }

// sweepMax is a record-setting score within a segment: a request whose
// score exceeds every earlier one of the segment.
type sweepMax struct {
	i int // request index
	c analyze.Counts
	s float64
}

// sweepShared is one agent scored as if the kill switch never fired, at
// every window at once.
type sweepShared struct {
	segs []sweepSeg
	max  [][][]sweepMax // [window][segment], scores strictly increasing
	// novel[window][request]: -1 not scored, 0 repeats its window, 1 new
	// (see the false-positive heuristic).
	novel [][]int8
}

// segments splits the agent's requests at operator activations.
func (a *sweepTraffic) segments() []sweepSeg {
	segs := []sweepSeg{{start: 0, live: -1}}
	for _, c := range a.ctrls {
		cur := &segs[len(segs)-1]
		switch c.ctl.Event {
		case ingest.ControlActivate:
			cur.end = c.at
			if cur.live < 0 {
				cur.live = c.at
			}
			segs = append(segs, sweepSeg{start: c.at, live: -1})
		case ingest.ControlDeactivate:
			if cur.live < 0 {
				cur.live = c.at
			}
		}
	}
	cur := &segs[len(segs)-1]
	cur.end = len(a.reqs)
	if cur.live < 0 {
		cur.live = cur.end
	}
	return segs
}

// countAll scores cur against the last pasts[j] entries of w for every j
// at once (pasts ascending, each ≥ 0): out[j] equals w.Count(cur,
// pasts[j]). One scan from the newest entry back: counts over the last k
// entries are the running counts after k steps, and the most recent
// response among the last k is the first one met, when it is within k.
// seen[j] reports whether one of those entries has a response within
// SimilarDistance of cur's own response.
func countAll(w *analyze.Window, cur *analyze.Entry, pasts []int, out []analyze.Counts, seen []bool) {
	var c analyze.Counts
	var ref uint64
	hasRef, sawResp := false, false
	j := 0
	for ; j < len(pasts) && pasts[j] <= 0; j++ {
		out[j], seen[j] = analyze.Counts{}, false
	}
	n := w.Len()
	for k := 1; k <= n && j < len(pasts); k++ {
		e := w.At(n - k)
		if cur.HasPrompt && e.HasPrompt && analyze.Distance(e.Prompt, cur.Prompt) <= analyze.SimilarDistance {
			c.SimilarPrompts++
		}
		if e.HasResp {
			if !hasRef {
				ref, hasRef = e.Response, true
			} else if analyze.Distance(e.Response, ref) <= analyze.SimilarDistance {
				c.SimilarResponses++
			}
			if cur.HasResp && analyze.Distance(e.Response, cur.Response) <= analyze.SimilarDistance {
				sawResp = true
			}
		}
		if cur.ToolSig != "" && e.ToolSig == cur.ToolSig {
			c.RepeatedToolCalls++
		}
		for ; j < len(pasts) && pasts[j] == k; j++ {
			out[j], seen[j] = c, sawResp
		}
	}
	for ; j < len(pasts); j++ {
		out[j], seen[j] = c, sawResp
	}
}

// shared scores the agent's requests as if the kill switch never fired,
// at every window (ascending) in one pass over a ring of the largest.
func (a *sweepTraffic) shared(p *analyze.Profile, windows []int) *sweepShared {
	nw := len(windows)
	pasts := make([]int, nw)
	ring := 1
	for i, w := range windows {
		pasts[i] = p.Past(w)
		ring = max(ring, pasts[i])
	}
	sh := &sweepShared{segs: a.segments(), max: make([][][]sweepMax, nw), novel: make([][]int8, nw)}
	for wi := range windows {
		sh.max[wi] = make([][]sweepMax, len(sh.segs))
		sh.novel[wi] = make([]int8, len(a.reqs))
		for i := range sh.novel[wi] {
			sh.novel[wi][i] = -1
		}
	}
	win := analyze.NewWindow(min(ring, len(a.reqs)+1))
	counts := make([]analyze.Counts, nw)
	seen := make([]bool, nw)
	best := make([]float64, nw)
	for si, sg := range sh.segs {
		win.Clear()
		for wi := range best {
			best[wi] = -1
		}
		for i := sg.start; i < sg.live; i++ {
			r := &a.reqs[i]
			if r.skip {
				continue
			}
			countAll(win, &r.Entry, pasts, counts, seen)
			for wi := range windows {
				c := counts[wi]
				if s := c.Score(); s > best[wi] {
					best[wi] = s
					sh.max[wi][si] = append(sh.max[wi][si], sweepMax{i, c, s})
				}
				var nv int8
				if (r.HasPrompt && c.SimilarPrompts == 0) || (r.ToolSig != "" && c.RepeatedToolCalls == 0) || (r.HasResp && !seen[wi]) {
					nv = 1
				}
				sh.novel[wi][i] = nv
			}
			win.Push(r.Entry)
		}
	}
	return sh
}

// Sweep evaluates the grid of cfg over the collected traffic.
func (t *Traffic) Sweep(cfg Config) (*Result, error) {
	if _, err := cfg.normalize(); err != nil {
		return nil, err
	}
	if cfg.Profile.String() != t.Profile.String() {
		return nil, fmt.Errorf("traffic collected with profile %s, sweep asks for %s", t.Profile, cfg.Profile)
	}
	nw, nt := len(cfg.Windows), len(cfg.Thresholds)
	res := &Result{
		Profile: cfg.Profile, Mode: cfg.Mode, Windows: cfg.Windows, Thresholds: cfg.Thresholds,
		MaxFalsePositives: cfg.MaxFalsePositives, LateAfter: cfg.LateAfter, ReactivateAfter: cfg.ReactivateAfter,
		Settings: make([]Setting, nw*nt), Agents: make([]Agent, len(t.agents)),
		Recommended: -1, Input: t.Input,
	}
	for wi, w := range cfg.Windows {
		for ti, th := range cfg.Thresholds {
			res.Settings[wi*nt+ti] = Setting{Window: w, Threshold: th}
		}
	}
	delays := make([][2][]float64, len(res.Settings))
	var killAt []int
	var scratch []sweepReq
	for ai, a := range t.agents {
		var err error
		scratch, err = t.unpacked(a, scratch, func() error {
			return t.sweepAgent(&cfg, res, ai, a, delays, &killAt)
		})
		if err != nil {
			return nil, err
		}
	}
	for si := range res.Settings {
		res.Settings[si].finish(res.Truth.Loop, delays[si])
	}
	res.Recommended = recommend(res.Settings, cfg.MaxFalsePositives)
	if res.Truth.Loop > 0 {
		res.Curves = prCurves(res)
	}
	if cfg.Series {
		if err := t.series(&cfg, res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// sweepAgent evaluates agent ai (its requests unpacked) at every setting
// and adds its outcomes to res.
func (t *Traffic) sweepAgent(cfg *Config, res *Result, ai int, a *sweepTraffic, delays [][2][]float64, killAt *[]int) error {
	nt := len(cfg.Thresholds)
	truth := t.truth(a, cfg.Labels)
	res.Agents[ai] = truth
	res.Truth.add(&truth)
	// Windowed profiles score every window in one pass; a profile
	// with its own detector is replayed at every setting.
	var sh *sweepShared
	if cfg.Profile.Windowed() {
		sh = a.shared(cfg.Profile, cfg.Windows)
	}
	for wi, w := range cfg.Windows {
		for ti, th := range cfg.Thresholds {
			si := wi*nt + ti
			ob := outcomeBuilder{a: a, truth: &truth}
			switch {
			case a.config || sh == nil:
				// Settings change mid-stream, or the profile has no
				// fast path: replay the agent exactly.
				res.Exact++
				if err := ob.replay(cfg.settingConfig(w, th)); err != nil {
					return err
				}
			case cfg.ReactivateAfter > 0 && a.liveKill:
				// Live kills re-activate on their own: follow the agent
				// from its start.
				res.Exact++
				a.simulate(cfg, w, th, 0, 0, a.newWindow(w), &ob)
			default:
				*killAt = a.fastPath(cfg, sh, wi, w, th, (*killAt)[:0], &ob, &res.Exact)
			}
			if !ob.touched {
				continue
			}
			var novel []int8
			if sh != nil {
				novel = sh.novel[wi]
			}
			o := ob.judge(cfg.LateAfter, novel)
			st := &res.Settings[si]
			st.add(o, &truth, &ob)
			if o.Verdict == VerdictCaught || o.Verdict == VerdictCaughtLate {
				delays[si][0] = append(delays[si][0], float64(o.DelayRequests))
				delays[si][1] = append(delays[si][1], o.DelaySeconds)
			}
		}
	}
	return nil
}

// fastPath derives the agent's outcome at (w, th) from the shared pass:
// segment by segment, the first kill is the first record-setting score
// that fires, and everything after it in the segment is refused. When
// what follows a kill depends on the setting (block mode: the agent stays
// active and its window changes; --reactivate-after: it comes back at a
// time that depends on the kill), the agent is simulated from that first
// kill on, with the window it had then.
// killAt is scratch space, returned for reuse.
func (a *sweepTraffic) fastPath(cfg *Config, sh *sweepShared, wi, w int, th float64, killAt []int, ob *outcomeBuilder, exact *int) []int {
	anyKill := false
	for s := range sh.segs {
		list := sh.max[wi][s]
		j := sort.Search(len(list), func(j int) bool { return cfg.Profile.Fires(list[j].s, th) })
		if j == len(list) {
			j = -1
		}
		anyKill = anyKill || j >= 0
		killAt = append(killAt, j)
	}
	follow := anyKill && (cfg.Mode == analyze.ModeBlock || cfg.ReactivateAfter > 0)
	for s, sg := range sh.segs {
		k := killAt[s]
		if k < 0 {
			for i := sg.live; i < sg.end; i++ {
				ob.blocked(i)
			}
			continue
		}
		m := sh.max[wi][s][k]
		if follow {
			*exact++
			win := a.newWindow(w)
			var back []int
			for j := m.i - 1; j >= sg.start && len(back) < win.Cap(); j-- {
				if !a.reqs[j].skip {
					back = append(back, j)
				}
			}
			for j := len(back) - 1; j >= 0; j-- {
				win.Push(a.reqs[back[j]].Entry)
			}
			ci := sort.Search(len(a.ctrls), func(j int) bool { return a.ctrls[j].at > m.i })
			a.simulate(cfg, w, th, m.i, ci, win, ob)
			return killAt
		}
		ob.kill(m.i, analyze.Kill{Counts: m.c, Score: m.s, Threshold: th, Window: w, Action: analyze.ActionKill})
		for i := m.i + 1; i < sg.end; i++ {
			ob.blocked(i)
		}
	}
	return killAt
}

// newWindow returns an empty window that behaves as one of size w for
// this agent: it never holds more entries than the agent has requests.
func (a *sweepTraffic) newWindow(w int) *analyze.Window {
	return analyze.NewWindow(max(1, min(w, len(a.reqs))))
}

// simulate follows the agent at (w, th) from request k on, given its
// state just before request k: active, win holding its window, ctrls[ci:]
// the control records still to come. It runs the replay's own state
// machine (LoopAgent) for agents without config records (settings fixed):
// re-activation after --reactivate-after, operator activations (which
// empty the window) and deactivations, and both enforcement modes.
func (a *sweepTraffic) simulate(cfg *Config, w int, th float64, k, ci int, win *analyze.Window, ob *outcomeBuilder) {
	lc := analyze.Config{Profile: cfg.Profile, Mode: cfg.Mode}
	la := analyze.NewLoopAgent(analyze.Settings{Enabled: true, WindowSize: w, Threshold: th},
		analyze.NewWindowDetector(win, w, cfg.Profile))
	for i := k; i < len(a.reqs); i++ {
		for ; ci < len(a.ctrls) && a.ctrls[ci].at <= i; ci++ {
			c := &a.ctrls[ci]
			la.MaybeReactivate(cfg.ReactivateAfter, c.ts, nil)
			switch c.ctl.Event {
			case ingest.ControlActivate:
				la.Activate(c.ts, "operator", ingest.Pos{}, nil)
			case ingest.ControlDeactivate:
				by := c.ctl.By
				if by == "" {
					by = "manual"
				}
				la.Deactivate(by, c.ts)
			}
		}
		r := &a.reqs[i]
		la.MaybeReactivate(cfg.ReactivateAfter, r.ts, nil)
		switch {
		case la.State() == analyze.StateInactive:
			ob.blocked(i)
		case r.skip:
		default:
			f := analyze.Features{Entry: r.Entry}
			sc, act := la.Decide(&lc, &f)
			switch act {
			case analyze.ActionBlock:
				ob.kill(i, analyze.Kill{Counts: sc.Counts, Score: sc.Value, Threshold: th, Window: w, Action: analyze.ActionBlock})
			case analyze.ActionKill:
				ob.kill(i, analyze.Kill{Counts: sc.Counts, Score: sc.Value, Threshold: th, Window: w, Action: analyze.ActionKill})
				la.Kill(r.ts, 0)
			}
		}
	}
}

// outcomeBuilder accumulates one agent's outcome at one setting, in
// request order, as Summary.add does.
type outcomeBuilder struct {
	a       *sweepTraffic
	truth   *Agent
	o       AgentOutcome
	touched bool
	saved   [3]analyze.Saved // inside a loop, healthy traffic, no ground truth
	// For a loop agent: the first kill inside its loop, and whether some
	// kill came before it starts or after it ends.
	caught         analyze.Kill
	hasCaught      bool
	early, outside bool
}

// outcomeKills is how many of an agent's kills AgentOutcome.Kills keeps
// (tests raise it to compare every kill with a replay).
var outcomeKills = 1

func (b *outcomeBuilder) refuse(i int) {
	b.touched = true
	r := &b.a.reqs[i]
	d := analyze.Decision{TokensIn: r.tokensIn, TokensOut: r.tokensOut, CostUSD: r.cost, HasTokens: r.hasTokens, HasCost: r.hasCost}
	b.o.Saved.Add(&d)
	n := i + 1
	switch {
	case b.truth.Class == ClassLoop && n >= b.truth.Start && n <= b.truth.End:
		b.saved[0].Add(&d)
	case b.truth.Class != ClassUnknown:
		b.saved[1].Add(&d)
	default:
		b.saved[2].Add(&d)
	}
}

// kill records a firing at request i; k carries the score and settings.
func (b *outcomeBuilder) kill(i int, k analyze.Kill) {
	r := &b.a.reqs[i]
	k.Seq, k.AgentN, k.TS, k.Source = r.seq, i+1, r.ts, r.pos
	b.o.KillCount++
	if len(b.o.Kills) < outcomeKills {
		b.o.Kills = append(b.o.Kills, k)
	}
	if tr := b.truth; tr.Class == ClassLoop {
		switch {
		case k.AgentN >= tr.Start && k.AgentN <= tr.End:
			if !b.hasCaught {
				b.caught, b.hasCaught = k, true
			}
		case k.AgentN < tr.Start:
			b.early = true
		default:
			b.outside = true
		}
	}
	if k.Action == analyze.ActionBlock {
		b.o.Blocks++
	}
	b.refuse(i)
}

func (b *outcomeBuilder) blocked(i int) {
	b.o.Blocked++
	b.refuse(i)
}

// replay runs the agent exactly at cfg.
func (b *outcomeBuilder) replay(cfg analyze.Config) error {
	return b.a.replay(cfg, func(i int, d *analyze.Decision) {
		switch d.Action {
		case analyze.ActionKill, analyze.ActionBlock:
			b.kill(i, analyze.Kill{Counts: d.Counts, Score: d.Score, Threshold: d.Threshold, Window: d.Window, Action: d.Action})
		case analyze.ActionBlocked:
			b.blocked(i)
		}
	})
}

// judge classifies the outcome by the agent's ground truth, or by the
// false-positive heuristic when it has none.
func (b *outcomeBuilder) judge(lateAfter int, novel []int8) *AgentOutcome {
	o := &b.o
	o.Agent = b.a.name
	if o.KillCount == 0 {
		if b.truth.Class == ClassLoop {
			o.Verdict = VerdictMissed
		}
		return o
	}
	tr := b.truth
	switch tr.Class {
	case ClassLoop:
		o.FalsePositive = b.early || b.outside
		switch {
		case b.hasCaught:
			caught := &b.caught
			o.DelayRequests = caught.AgentN - tr.Ref
			o.DelaySeconds = caught.TS.Sub(tr.RefTS).Seconds()
			o.Verdict = VerdictCaught
			if o.DelayRequests > lateAfter {
				o.Verdict = VerdictCaughtLate
			}
		case b.early:
			o.Verdict = VerdictKilledEarly
		default:
			o.Verdict = VerdictMissed
		}
	case ClassLegit:
		o.Verdict, o.FalsePositive = VerdictLegitKilled, true
	default:
		o.Heuristic = heuristic(novel, o.Kills[0].AgentN)
	}
	return o
}

// heuristic applies the false-positive heuristic to a first kill at
// request number n (see HeuristicText).
func heuristic(novel []int8, n int) Heuristic {
	seen, fresh := 0, 0
	for i := n; i < len(novel) && seen < HeuristicLookahead; i++ {
		if novel[i] < 0 {
			continue
		}
		seen++
		fresh += int(novel[i])
	}
	switch {
	case seen < HeuristicMinAfter:
		return HeuristicUnjudged
	case 2*fresh > seen:
		return HeuristicLikelyFP
	}
	return HeuristicLoop
}

func (tc *TruthCounts) add(a *Agent) {
	switch a.Class {
	case ClassLoop:
		tc.Loop++
	case ClassLegit:
		tc.Legit++
	default:
		tc.Unknown++
	}
	switch a.Source {
	case TruthCapture:
		tc.Capture++
	case TruthLabelsFile:
		tc.LabelsFile++
	case TruthLiveKill:
		tc.LiveKill++
	}
}

// add counts one agent's outcome into the setting (agents come in name
// order, so the sums are those of a replay's totals).
func (s *Setting) add(o *AgentOutcome, tr *Agent, b *outcomeBuilder) {
	s.Agents = append(s.Agents, *o)
	if o.KillCount > 0 {
		s.AgentsKilled++
	}
	switch o.Verdict {
	case VerdictCaught:
		s.Caught++
	case VerdictCaughtLate:
		s.CaughtLate++
	case VerdictKilledEarly:
		s.KilledEarly++
	case VerdictLegitKilled:
		s.LegitKilled++
	}
	if o.FalsePositive {
		s.FalsePositives = append(s.FalsePositives, o.Agent)
	}
	switch o.Heuristic {
	case HeuristicLikelyFP:
		s.LikelyFalsePositives = append(s.LikelyFalsePositives, o.Agent)
	case HeuristicLoop:
		s.HeuristicLoops++
	}
	analyze.AddSaved(&s.Refused, o.Saved)
	analyze.AddSaved(&s.SavedLoops, b.saved[0])
	analyze.AddSaved(&s.LostLegit, b.saved[1])
	analyze.AddSaved(&s.Unjudged, b.saved[2])
}

func (s *Setting) finish(loops int, delays [2][]float64) {
	s.Missed = loops - s.Caught - s.CaughtLate - s.KilledEarly
	s.DelayRequests = quantiles(delays[0])
	s.DelaySeconds = quantiles(delays[1])
	tp, fp := s.LoopsCaught(), len(s.FalsePositives)
	s.Precision = 1
	if tp+fp > 0 {
		s.Precision = float64(tp) / float64(tp+fp)
	}
	if loops > 0 {
		s.Recall = float64(tp) / float64(loops)
	}
}

// recommend picks the setting that catches the most loops with at most
// the allowed false positives. Ground truth counts where it exists; agents
// without it count by the heuristic (a kill judged repeating is a catch, a
// likely false positive is a false positive). Ties go to the higher
// threshold, then fewer false positives, fewer late catches, the smaller
// window. -1 when no setting qualifies.
func recommend(settings []Setting, maxFP int) int {
	best := -1
	for i := range settings {
		s := &settings[i]
		if s.falsePositives() > maxFP {
			continue
		}
		if best < 0 || better(s, &settings[best]) {
			best = i
		}
	}
	return best
}

func (s *Setting) falsePositives() int {
	return len(s.FalsePositives) + len(s.LikelyFalsePositives)
}

func (s *Setting) catches() int { return s.Caught + s.CaughtLate + s.HeuristicLoops }

func better(a, b *Setting) bool {
	if a.catches() != b.catches() {
		return a.catches() > b.catches()
	}
	if a.Threshold != b.Threshold {
		return a.Threshold > b.Threshold
	}
	if a.falsePositives() != b.falsePositives() {
		return a.falsePositives() < b.falsePositives()
	}
	if a.CaughtLate != b.CaughtLate {
		return a.CaughtLate < b.CaughtLate
	}
	return a.Window < b.Window
}
