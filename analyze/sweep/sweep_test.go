package sweep_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/sweep"
	"github.com/killswitch/killswitch/ingest"
)

// The fixtures under fixtures/sweep are small captures whose outcome at
// every setting follows by hand from SPEC §1.5 (spec profile: the window is
// the N entries before the request; it fires when the score exceeds T).
// Every agent's requests are 10 s apart, so delays in seconds are 10× the
// delays in requests. The derivations are in the comments of each want
// function below; none uses the code under test.

// grid is the default grid of `killswitch sweep`: windows 10, 20, 40 and
// thresholds 4, 4.5, …, 16.
func grid() ([]int, []float64) {
	var ts []float64
	for t := 4.0; t <= 16; t += 0.5 {
		ts = append(ts, t)
	}
	return []int{10, 20, 40}, ts
}

func sweepConfig() sweep.Config {
	ws, ts := grid()
	return sweep.Config{Windows: ws, Thresholds: ts, LateAfter: sweep.DefaultLateAfter, RetryAfter: time.Minute}
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("../../fixtures/sweep/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func sweepBytes(t testing.TB, name string, data []byte, cfg sweep.Config) *sweep.Result {
	t.Helper()
	res, err := sweep.Run(ingest.NewJSONL(bytes.NewReader(data), name, ingest.JSONLOptions{}), cfg, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// firstM is the smallest m ≥ 1 with f(m) > t, or 0 when none up to limit.
func firstM(limit int, t float64, f func(m int) float64) int {
	for m := 1; m <= limit; m++ {
		if f(m) > t {
			return m
		}
	}
	return 0
}

// wantKill is an agent's expected first kill: its request number (0:
// never), and for loop agents the delay in requests from the loop's start.
type wantKill struct {
	n, delay int
	verdict  sweep.Verdict
}

// labelledWant derives the outcome of every agent of labelled.jsonl at
// window w and threshold t.
func labelledWant(w int, t float64) map[string]wantKill {
	out := map[string]wantKill{}
	loop := func(name string, n, delay int) {
		switch {
		case n == 0:
			out[name] = wantKill{verdict: sweep.VerdictMissed}
		case delay > sweep.DefaultLateAfter:
			out[name] = wantKill{n, delay, sweep.VerdictCaughtLate}
		default:
			out[name] = wantKill{n, delay, sweep.VerdictCaught}
		}
	}
	// loop-identical: 3 unrelated requests, then 14 identical ones from
	// request 4 (the loop's start). The k-th identical request has
	// m = min(k−1, w) identical entries in its window: m similar prompts
	// and m−1 similar responses (the newest response is the reference),
	// score 3m−2. It fires at the first m with 3m−2 > t (m ≤ 13), at
	// request 3+k = m+4, m requests after the loop's start.
	if m := firstM(min(w, 13), t, func(m int) float64 { return float64(3*m - 2) }); m > 0 {
		loop("loop-identical", m+4, m)
	} else {
		loop("loop-identical", 0, 0)
	}
	// loop-prompt: 20 requests, one prompt, all answers different: score
	// m = min(k−1, w) at request k; fires at m > t, request m+1 (m ≤ 19).
	if m := firstM(min(w, 19), t, func(m int) float64 { return float64(m) }); m > 0 {
		loop("loop-prompt", m+1, m)
	} else {
		loop("loop-prompt", 0, 0)
	}
	// loop-tools: 16 requests, only the tool call repeats: score 1.5m,
	// fires at 1.5m > t, request m+1 (m ≤ 15).
	if m := firstM(min(w, 15), t, func(m int) float64 { return 1.5 * float64(m) }); m > 0 {
		loop("loop-tools", m+1, m)
	} else {
		loop("loop-tools", 0, 0)
	}
	// fixed-prompt (healthy): one prompt, new tool calls and answers:
	// score m like loop-prompt.
	if m := firstM(min(w, 19), t, func(m int) float64 { return float64(m) }); m > 0 {
		out["fixed-prompt"] = wantKill{m + 1, 0, sweep.VerdictLegitKilled}
	}
	// burst (healthy): requests 7–10 are one status poll with one answer.
	// Poll k scores (k−1) + 2·max(k−2, 0): 0, 1, 4, 7; request 11 then
	// scores 6 (its prompt is new, the newest response is poll 4's and
	// polls 1–3 match it), later ones 0. For t ≥ 4 only poll 4 can fire:
	// when t < 7, at request 10.
	if t < 7 {
		out["burst"] = wantKill{10, 0, sweep.VerdictLegitKilled}
	}
	// healthy: nothing repeats; never killed.
	return out
}

var labelledRequests = map[string]int{"loop-identical": 17, "loop-prompt": 20, "loop-tools": 16, "healthy": 20, "fixed-prompt": 20, "burst": 16}
var labelledCost = map[string]float64{"loop-identical": 0.001, "loop-prompt": 0.002, "loop-tools": 0.004, "healthy": 0.0005, "fixed-prompt": 0.003, "burst": 0.0001}

func checkLabelled(t *testing.T, res *sweep.Result) {
	t.Helper()
	if got := len(res.Settings); got != 3*25 {
		t.Fatalf("%d settings, want 75", got)
	}
	if res.Truth.Loop != 3 || res.Truth.Legit != 3 || res.Truth.Unknown != 0 {
		t.Errorf("truth %+v, want 3 loop and 3 legit agents", res.Truth)
	}
	for _, s := range res.Settings {
		want := labelledWant(s.Window, s.Threshold)
		var caught, late, missed, legit, killed int
		var fps []string
		var delays []float64
		var savedN, lostN int
		var savedCost, lostCost float64
		for _, name := range []string{"burst", "fixed-prompt", "healthy", "loop-identical", "loop-prompt", "loop-tools"} {
			wk := want[name]
			o := s.Outcome(name)
			if wk.n == 0 {
				if o != nil {
					t.Errorf("w%d t%v %s: %+v, want untouched", s.Window, s.Threshold, name, o)
				}
				if wk.verdict == sweep.VerdictMissed {
					missed++
				}
				continue
			}
			killed++
			if o == nil || o.KillCount != 1 || o.Kills[0].AgentN != wk.n || o.Verdict != wk.verdict || o.DelayRequests != wk.delay {
				t.Errorf("w%d t%v %s: %+v, want kill at %d (%s, delay %d)", s.Window, s.Threshold, name, o, wk.n, wk.verdict, wk.delay)
				continue
			}
			if o.Kills[0].Score <= s.Threshold {
				t.Errorf("w%d t%v %s: kill score %v does not exceed the threshold", s.Window, s.Threshold, name, o.Kills[0].Score)
			}
			// Every request from the kill on is refused.
			refused := labelledRequests[name] - wk.n + 1
			if o.Saved.Requests != refused || o.Blocked != refused-1 || o.Saved.TokensIn != int64(100*refused) {
				t.Errorf("w%d t%v %s: saved %+v blocked %d, want %d refused", s.Window, s.Threshold, name, o.Saved, o.Blocked, refused)
			}
			switch wk.verdict {
			case sweep.VerdictCaught:
				caught++
			case sweep.VerdictCaughtLate:
				late++
			case sweep.VerdictLegitKilled:
				legit++
				fps = append(fps, name)
			}
			if wk.verdict == sweep.VerdictCaught || wk.verdict == sweep.VerdictCaughtLate {
				delays = append(delays, float64(wk.delay))
				savedN += refused
				savedCost += float64(refused) * labelledCost[name]
				if o.DelaySeconds != float64(10*wk.delay) {
					t.Errorf("w%d t%v %s: delay %v s, want %d", s.Window, s.Threshold, name, o.DelaySeconds, 10*wk.delay)
				}
			} else {
				lostN += refused
				lostCost += float64(refused) * labelledCost[name]
			}
		}
		if s.AgentsKilled != killed || s.Caught != caught || s.CaughtLate != late || s.Missed != missed ||
			s.LegitKilled != legit || s.KilledEarly != 0 || !slices.Equal(s.FalsePositives, fps) {
			t.Errorf("w%d t%v: killed %d caught %d late %d missed %d legit %d fps %v; want %d %d %d %d %d %v", s.Window, s.Threshold,
				s.AgentsKilled, s.Caught, s.CaughtLate, s.Missed, s.LegitKilled, s.FalsePositives, killed, caught, late, missed, legit, fps)
		}
		if s.SavedLoops.Requests != savedN || s.LostLegit.Requests != lostN || s.Refused.Requests != savedN+lostN ||
			math.Abs(s.SavedLoops.CostUSD-savedCost) > 1e-12 || math.Abs(s.LostLegit.CostUSD-lostCost) > 1e-12 {
			t.Errorf("w%d t%v: saved %+v lost %+v, want %d ($%v) and %d ($%v)", s.Window, s.Threshold, s.SavedLoops, s.LostLegit, savedN, savedCost, lostN, lostCost)
		}
		if s.DelayRequests.N != len(delays) {
			t.Errorf("w%d t%v: %d delays, want %d", s.Window, s.Threshold, s.DelayRequests.N, len(delays))
		}
		wantP := 1.0
		if caught+late+len(fps) > 0 {
			wantP = float64(caught+late) / float64(caught+late+len(fps))
		}
		if s.Precision != wantP || s.Recall != float64(caught+late)/3 {
			t.Errorf("w%d t%v: precision %v recall %v, want %v %v", s.Window, s.Threshold, s.Precision, s.Recall, wantP, float64(caught+late)/3)
		}
	}
	// At (20, 10): loop-identical caught 5 requests in, loop-tools 7,
	// loop-prompt 11 (late). Sorted 5, 7, 11: the empirical median is the
	// 2nd value (the first with ≥ 50% at or below it), p90 the 3rd.
	s := res.Setting(20, 10)
	if s.DelayRequests != (sweep.Quantiles{N: 3, Median: 7, P90: 11}) || s.DelaySeconds != (sweep.Quantiles{N: 3, Median: 70, P90: 110}) {
		t.Errorf("delays at (20, 10): %+v %+v", s.DelayRequests, s.DelaySeconds)
	}
	// Precision/recall by hand (see labelledWant). Window 10:
	//   t 4–6.5:  3 caught, fixed-prompt and burst killed: P 3/5, R 1
	//   t 7–9.5:  3 caught, fixed-prompt killed:           P 3/4, R 1
	//   t 10–14.5: loop-identical and loop-tools:          P 1,   R 2/3
	//   t 15–16:  loop-identical only:                     P 1,   R 1/3
	// Average precision: 1/3·1 + 1/3·1 + 1/3·3/4 = 11/12. Windows 20 and
	// 40: recall 1 throughout, precision 3/4 at best: 3/4.
	wantArea := []float64{11.0 / 12, 0.75, 0.75}
	for i, c := range res.Curves {
		if math.Abs(c.Area-wantArea[i]) > 1e-12 || len(c.Points) != 25 {
			t.Errorf("window %d: area %v over %d points, want %v", c.Window, c.Area, len(c.Points), wantArea[i])
		}
	}
}

func TestSweepLabelled(t *testing.T) {
	res := sweepBytes(t, "labelled.jsonl", readFixture(t, "labelled.jsonl"), sweepConfig())
	checkLabelled(t, res)
	for _, a := range res.Agents {
		if a.Source != sweep.TruthCapture {
			t.Errorf("%s: truth from %s, want capture labels", a.Agent, a.Source)
		}
	}
	if a := res.Agents[3]; a.Agent != "loop-identical" || a.Start != 4 || a.End != 17 || a.Ref != 4 {
		t.Errorf("loop-identical truth %+v, want loop 4–17", a)
	}
	// One request of "healthy" is not JSON: counted, never scored.
	if res.Input.Requests != 109 || res.Input.Agents != 6 || res.Exact != 0 {
		t.Errorf("input %+v, exact %d", res.Input, res.Exact)
	}
}

// TestSweepRecommended: with no false positive allowed, only window 10
// at t ≥ 10 qualifies (fixed-prompt scores up to min(w, 19), burst 7);
// there loop-identical and loop-tools are caught up to t = 14.5 (1.5·10 >
// 14.5), loop-prompt never (its score is capped at 10): the highest
// threshold among the ties is 14.5. With one allowed, windows 20 and 40
// catch all three loops at every t ≥ 7; ties go to t = 16, then to the
// smaller window.
func TestSweepRecommended(t *testing.T) {
	data := readFixture(t, "labelled.jsonl")
	for _, tt := range []struct {
		maxFP int
		w     int
		th    float64
	}{{0, 10, 14.5}, {1, 20, 16}, {5, 20, 16}} {
		cfg := sweepConfig()
		cfg.MaxFalsePositives = tt.maxFP
		res := sweepBytes(t, "labelled.jsonl", data, cfg)
		if res.Recommended < 0 {
			t.Fatalf("max %d: no recommendation", tt.maxFP)
		}
		if s := res.Settings[res.Recommended]; s.Window != tt.w || s.Threshold != tt.th {
			t.Errorf("max %d false positives: recommended (%d, %v), want (%d, %v)", tt.maxFP, s.Window, s.Threshold, tt.w, tt.th)
		}
	}
	// At window 20 only, every threshold kills fixed-prompt: nothing
	// qualifies with none allowed.
	cfg := sweepConfig()
	cfg.Windows = []int{20}
	if res := sweepBytes(t, "labelled.jsonl", data, cfg); res.Recommended != -1 {
		t.Errorf("window 20 alone: recommended %d, want none", res.Recommended)
	}
}

// stripLabels removes the label field from every line.
func stripLabels(t *testing.T, data []byte) []byte {
	var out bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "label")
		b, _ := json.Marshal(m)
		out.Write(b)
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// TestSweepLabelsFile: the labels files say what the label fields say, so
// a capture without them judged by either file gives the same results.
func TestSweepLabelsFile(t *testing.T) {
	bare := stripLabels(t, readFixture(t, "labelled.jsonl"))
	if bytes.Contains(bare, []byte(`"label"`)) {
		t.Fatal("labels not stripped")
	}
	for _, name := range []string{"labelled.labels.csv", "labelled.labels.jsonl"} {
		t.Run(name, func(t *testing.T) {
			labels, err := sweep.ParseLabels(name, readFixture(t, name))
			if err != nil {
				t.Fatal(err)
			}
			cfg := sweepConfig()
			cfg.Labels = labels
			res := sweepBytes(t, "bare.jsonl", bare, cfg)
			checkLabelled(t, res)
			for _, a := range res.Agents {
				if a.Source != sweep.TruthLabelsFile {
					t.Errorf("%s: truth from %s, want labels file", a.Agent, a.Source)
				}
			}
		})
	}
	// Without labels there is no ground truth: no curves, the heuristic.
	res := sweepBytes(t, "bare.jsonl", bare, sweepConfig())
	if res.Truth.Unknown != 6 || res.Curves != nil {
		t.Errorf("unlabelled: truth %+v, %d curves", res.Truth, len(res.Curves))
	}
}

// TestSweepHeuristic: heuristic.jsonl has no labels.
//   - stuck: 2 unrelated requests, then 18 identical ones: killed during
//     them (score 3m−2 as for loop-identical, request m+3) with ≥ 3
//     identical requests after the kill: nothing new, a plausible loop.
//   - explorer: one task prompt, a new tool call and a new answer each
//     time: score m, killed at request m+1 when m > t (m ≤ min(w, 19));
//     every request after the kill has a new tool call: likely false
//     positive, unless fewer than 3 requests follow (kill at 18: t ≥ 16
//     at windows 20 and 40): unjudged.
//   - short: 8 unrelated requests, then 5 identical ones (requests 9–13):
//     scores 0, 1, 4, 7, 10; killed at 12 (t < 7) or 13 (7 ≤ t < 10)
//     with at most one request after: unjudged; never killed at t ≥ 10.
func TestSweepHeuristic(t *testing.T) {
	res := sweepBytes(t, "heuristic.jsonl", readFixture(t, "heuristic.jsonl"), sweepConfig())
	for _, s := range res.Settings {
		m := firstM(min(s.Window, 17), s.Threshold, func(m int) float64 { return float64(3*m - 2) })
		if o := s.Outcome("stuck"); o == nil || o.Kills[0].AgentN != m+3 || o.Heuristic != sweep.HeuristicLoop {
			t.Errorf("w%d t%v stuck: %+v, want kill at %d, repeating", s.Window, s.Threshold, o, m+3)
		}
		me := firstM(min(s.Window, 19), s.Threshold, func(m int) float64 { return float64(m) })
		o := s.Outcome("explorer")
		switch {
		case me == 0 && o != nil:
			t.Errorf("w%d t%v explorer: %+v, want untouched", s.Window, s.Threshold, o)
		case me > 0 && me+1 <= 17 && (o == nil || o.Kills[0].AgentN != me+1 || o.Heuristic != sweep.HeuristicLikelyFP):
			t.Errorf("w%d t%v explorer: %+v, want kill at %d, likely false positive", s.Window, s.Threshold, o, me+1)
		case me+1 > 17 && (o == nil || o.Kills[0].AgentN != me+1 || o.Heuristic != sweep.HeuristicUnjudged):
			t.Errorf("w%d t%v explorer: %+v, want kill at %d, unjudged", s.Window, s.Threshold, o, me+1)
		}
		ws := 0
		switch {
		case s.Threshold < 7:
			ws = 12
		case s.Threshold < 10:
			ws = 13
		}
		o = s.Outcome("short")
		switch {
		case ws == 0 && o != nil:
			t.Errorf("w%d t%v short: %+v, want untouched", s.Window, s.Threshold, o)
		case ws > 0 && (o == nil || o.Kills[0].AgentN != ws || o.Heuristic != sweep.HeuristicUnjudged):
			t.Errorf("w%d t%v short: %+v, want kill at %d, unjudged", s.Window, s.Threshold, o, ws)
		}
		wantFP := []string(nil)
		if me > 0 && me+1 <= 17 {
			wantFP = []string{"explorer"}
		}
		if !slices.Equal(s.LikelyFalsePositives, wantFP) || s.HeuristicLoops != 1 || len(s.FalsePositives) != 0 || s.Unjudged.Requests != s.Refused.Requests {
			t.Errorf("w%d t%v: likely FPs %v, repeating %d", s.Window, s.Threshold, s.LikelyFalsePositives, s.HeuristicLoops)
		}
	}
	// explorer is no likely false positive only at window 10 with t ≥ 10
	// and at t = 16 of the others; stuck is the one catch everywhere: the
	// highest threshold, 16, then the smallest window wins.
	if s := res.Settings[res.Recommended]; s.Window != 10 || s.Threshold != 16 {
		t.Errorf("recommended (%d, %v), want (10, 16)", s.Window, s.Threshold)
	}
}

// TestSweepLiveKills: live.jsonl has no labels but a kill the live system
// made: looper (12 identical requests) was deactivated by kill_switch 5 s
// after its 9th request (09:01:36) and re-activated after its 12th; 5
// unrelated requests follow. So looper looped over requests 1–12 (until
// the re-activation), delays counting from the live kill; steady and
// chatty, never killed live, are healthy.
//   - looper: at request k the score is 3(k−1)−2; the replay kills it at
//     the first k ≤ 9 with 3k−5 > t, k−9 requests and 10k−95 s after the
//     live kill (request k is at 1 + 10k s). Later requests 10–12 are
//     blocked by the live deactivation at every setting.
//   - chatty: 3 unrelated requests, 4 identical greetings: scores 0, 1,
//     4, 7: killed at request 7 when t < 7, a kill the live system did
//     not make.
func TestSweepLiveKills(t *testing.T) {
	cfg := sweepConfig()
	cfg.Thresholds = append(cfg.Thresholds, 21.5, 22)
	res := sweepBytes(t, "live.jsonl", readFixture(t, "live.jsonl"), cfg)
	if res.Input.LiveKills != 1 || res.Truth.LiveKill != 3 || res.Truth.Loop != 1 || res.Truth.Legit != 2 {
		t.Fatalf("input %+v truth %+v", res.Input, res.Truth)
	}
	lp := res.Agents[1]
	if lp.Agent != "looper" || lp.Start != 1 || lp.End != 12 || lp.Ref != 9 || ingest.FormatTime(lp.RefTS) != "2026-03-02T09:01:36.000Z" {
		t.Errorf("looper truth %+v", lp)
	}
	for _, s := range res.Settings {
		k := 0
		for j := 2; j <= 9; j++ {
			if float64(3*j-5) > s.Threshold {
				k = j
				break
			}
		}
		o := s.Outcome("looper")
		switch {
		case k == 0:
			if o == nil || len(o.Kills) != 0 || o.Verdict != sweep.VerdictMissed || o.Blocked != 3 {
				t.Errorf("t%v looper: %+v, want missed, 3 blocked", s.Threshold, o)
			}
		case o == nil || o.Kills[0].AgentN != k || o.Verdict != sweep.VerdictCaught || o.DelayRequests != k-9 || o.DelaySeconds != float64(10*k-95) || o.Saved.Requests != 13-k || s.SavedLoops.Requests != 13-k:
			t.Errorf("t%v looper: %+v, want kill at %d, delay %d", s.Threshold, o, k, k-9)
		}
		wantFP := []string(nil)
		if s.Threshold < 7 {
			wantFP = []string{"chatty"}
		}
		if !slices.Equal(s.FalsePositives, wantFP) {
			t.Errorf("t%v: false positives %v, want %v", s.Threshold, s.FalsePositives, wantFP)
		}
	}
}

func TestSweepConfigErrors(t *testing.T) {
	data := readFixture(t, "heuristic.jsonl")
	for _, tt := range []struct {
		name string
		edit func(*sweep.Config)
		want string
	}{
		{"no windows", func(c *sweep.Config) { c.Windows = nil }, "empty grid"},
		{"window 0", func(c *sweep.Config) { c.Windows = []int{0, 10} }, "window size 0 out of range"},
		{"negative threshold", func(c *sweep.Config) { c.Thresholds = []float64{-1} }, "threshold -1"},
		{"NaN threshold", func(c *sweep.Config) { c.Thresholds = []float64{math.NaN()} }, "threshold NaN"},
	} {
		cfg := sweepConfig()
		tt.edit(&cfg)
		_, err := sweep.Run(ingest.NewJSONL(bytes.NewReader(data), "h.jsonl", ingest.JSONLOptions{}), cfg, 1, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
	tr, err := sweep.Collect(ingest.NewJSONL(bytes.NewReader(data), "h.jsonl", ingest.JSONLOptions{}), analyze.ProfileSpec, 1, nil, sweep.Spill{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := sweepConfig()
	cfg.Profile = analyze.ProfileAgentGazer
	if _, err := tr.Sweep(cfg); err == nil || !strings.Contains(err.Error(), "collected with profile spec") {
		t.Errorf("profile mismatch: %v", err)
	}
}
