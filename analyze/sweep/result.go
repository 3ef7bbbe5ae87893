package sweep

import "github.com/killswitch/killswitch/analyze"
import "time"

// Result is a sweep's outcome: every setting of the grid judged
// against the ground truth, and the recommendation across them.
type Result struct {
	Profile           *analyze.Profile
	Mode              analyze.Mode
	Windows           []int     // ascending
	Thresholds        []float64 // ascending
	MaxFalsePositives int
	LateAfter         int
	ReactivateAfter   time.Duration

	// Settings holds one entry per grid setting, window-major:
	// Settings[wi*len(Thresholds)+ti] is (Windows[wi], Thresholds[ti]).
	Settings []Setting
	// Agents is every agent's ground truth, sorted by name.
	Agents []Agent
	Truth  TruthCounts
	// Recommended indexes Settings, or is -1 when no setting has at most
	// MaxFalsePositives false positives.
	Recommended int
	// Curves holds one precision/recall curve per window, when some agent
	// is a labelled loop.
	Curves []PRCurve
	// Series holds score-over-time series for charts (Config.Series),
	// at the setting Settings[SeriesSetting]: the recommended one, else the
	// highest threshold of the first window.
	Series        []analyze.AgentSeries
	SeriesSetting int
	// Exact counts the (agent, setting) pairs that were replayed exactly
	// because their future after a kill depends on the setting.
	Exact int
	Input Input
}

// Setting returns the result at window w and threshold th, or nil.
func (r *Result) Setting(w int, th float64) *Setting {
	if i := r.settingIndex(w, th); i >= 0 {
		return &r.Settings[i]
	}
	return nil
}

// TruthClass is what ground truth says an agent is (analyze.TruthClass:
// score charts carry it).
type TruthClass = analyze.TruthClass

const (
	ClassUnknown = analyze.ClassUnknown // no ground truth
	ClassLoop    = analyze.ClassLoop    // it looped (see Agent.Start, End)
	ClassLegit   = analyze.ClassLegit   // healthy: it never looped
)

// TruthSource is where an agent's ground truth came from, in order of
// precedence.
type TruthSource uint8

const (
	TruthNone       TruthSource = iota // none: the false-positive heuristic applies
	TruthCapture                       // the capture's per-request label field
	TruthLabelsFile                    // the labels file (--labels)
	TruthLiveKill                      // kills the live system made (deactivate records by kill_switch)
)

var truthSourceNames = [...]string{"none", "capture labels", "labels file", "live kills"}

func (s TruthSource) String() string { return truthSourceNames[s] }

// Agent is one agent's ground truth.
type Agent struct {
	Agent    string
	Requests int
	Class    TruthClass
	Source   TruthSource
	// For loop agents, the loop episode: agent request numbers (from 1,
	// inclusive). From labels: the first and the last request labelled
	// "loop". From a live kill: the requests from the agent's last
	// activation before the live kill to the next activation.
	Start, End int
	// Ref is the request detection delays are measured from: the first
	// loop request; for a live kill, the last request before it (so a
	// replay that fires earlier has a negative delay), and RefTS the time
	// of the live kill.
	Ref   int
	RefTS time.Time
}

// TruthCounts adds up the agents by class and by source.
type TruthCounts struct {
	Loop, Legit, Unknown          int
	Capture, LabelsFile, LiveKill int // agents judged by each source
}

// Verdict is what one setting did to one agent, judged by ground truth.
type Verdict uint8

const (
	VerdictNone        Verdict = iota // not killed, or no ground truth
	VerdictCaught                     // loop agent killed during its loop, at most LateAfter requests in
	VerdictCaughtLate                 // loop agent killed during its loop, later than that
	VerdictKilledEarly                // loop agent killed before its loop started (a false positive)
	VerdictMissed                     // loop agent not killed during its loop
	VerdictLegitKilled                // healthy agent killed (a false positive)
)

var verdictNames = [...]string{"", "caught", "caught late", "killed early", "missed", "legit killed"}

func (v Verdict) String() string { return verdictNames[v] }

// Heuristic is the false-positive heuristic's judgement of an agent killed
// without ground truth (see LikelyFalsePositive).
type Heuristic uint8

const (
	HeuristicNone     Heuristic = iota // not applied (ground truth exists, or not killed)
	HeuristicLoop                      // its traffic after the kill kept repeating: plausibly a loop
	HeuristicLikelyFP                  // its traffic after the kill kept changing: likely a false positive
	HeuristicUnjudged                  // too little traffic after the kill to judge
)

var heuristicNames = [...]string{"", "repeating after the kill", "likely false positive", "too little traffic after the kill"}

func (h Heuristic) String() string { return heuristicNames[h] }

// The false-positive heuristic, for agents killed without ground truth:
// look at the agent's next HeuristicLookahead scorable requests after its
// first kill, as the capture has them (the live system let them through),
// scored as if the agent had never been killed. A request is "new" when
// its prompt is not within SimilarDistance bits of any prompt among the
// entries the detector compares it with (the window's past entries), or
// it carries a non-empty tool-call signature none of them carries, or its
// response is not within SimilarDistance bits of any of their responses.
// With fewer than HeuristicMinAfter such requests the kill is unjudged;
// when more than half of them are new, the agent kept changing after the
// kill and the kill is a likely false positive.
const (
	HeuristicLookahead = 10
	HeuristicMinAfter  = 3
)

// HeuristicText states the heuristic for reports.
const HeuristicText = "a kill without ground truth is a likely false positive when, among the agent's next 10 scorable requests after its first kill (at least 3 needed, else unjudged), more than half are new: a prompt not within 2 bits of any prompt in the window, a tool-call signature not in the window, or a response not within 2 bits of any response in the window (scored as if the agent had not been killed)"

// AgentOutcome is what one setting did to one agent that it killed or
// refused requests of.
type AgentOutcome struct {
	Agent string
	// Kills are the first firings (Alert is not filled in): the first
	// one only, so that a setting's outcomes stay bounded
	// in agents when the block variant fires at every request of a loop;
	// KillCount counts them all.
	Kills     []analyze.Kill
	KillCount int
	Blocked   int           // requests refused while inactive
	Blocks    int           // requests refused by the block variant
	Saved     analyze.Saved // every refused request, as AgentSummary.Saved
	// Verdict judges the outcome by ground truth; FalsePositive says some
	// kill hit the agent outside its loop (any kill of a legit agent).
	Verdict       Verdict
	FalsePositive bool
	// Heuristic judges it when there is no ground truth.
	Heuristic Heuristic
	// Delay from Agent.Ref to the kill that caught the loop.
	DelayRequests int
	DelaySeconds  float64
}

// Quantiles are the median and 90th percentile of a sample: empirical
// quantiles (the smallest value with at least that share of the sample
// at or below it), from gonum's stat.Quantile.
type Quantiles struct {
	N           int
	Median, P90 float64
}

// Setting is the outcome of one grid setting.
type Setting struct {
	Window    int
	Threshold float64
	// Agents holds the agents the setting killed or refused requests of,
	// sorted by name.
	Agents       []AgentOutcome
	AgentsKilled int
	// Loop agents by verdict; the four add up to TruthCounts.Loop.
	Caught, CaughtLate, KilledEarly, Missed int
	LegitKilled                             int
	// FalsePositives names the agents killed outside their loop (legit
	// agents and loop agents killed before or after it); sorted.
	FalsePositives []string
	// LikelyFalsePositives names agents without ground truth that the
	// heuristic flags; HeuristicLoops counts those it finds repeating.
	LikelyFalsePositives []string
	HeuristicLoops       int
	// Refused adds up every refused request (as Totals.Saved of a replay);
	// SavedLoops the ones inside a loop, LostLegit those of healthy
	// traffic, Unjudged those of agents without ground truth.
	Refused, SavedLoops, LostLegit, Unjudged analyze.Saved
	// Detection delays of the caught loops (late ones included).
	DelayRequests, DelaySeconds Quantiles
	// Precision = caught / (caught + false-positive agents), 1 when
	// nothing was killed; meaningful only with ground truth (reports leave
	// it out without). Recall = caught / loop agents (late included).
	Precision, Recall float64
}

// LoopsCaught counts loops caught, late ones included.
func (s *Setting) LoopsCaught() int { return s.Caught + s.CaughtLate }

// Outcome returns the outcome of agent at this setting, or nil when the
// setting left it alone.
func (s *Setting) Outcome(agent string) *AgentOutcome {
	for i := range s.Agents {
		if s.Agents[i].Agent == agent {
			return &s.Agents[i]
		}
	}
	return nil
}

// PRCurve is the precision/recall curve of one window over the thresholds.
type PRCurve struct {
	Window int
	Points []PRPoint // by threshold, ascending
	// Area is the average precision: Σ (Rₙ − Rₙ₋₁)·Pₙ over the points
	// sorted by recall (ties: higher precision first), R₀ = 0.
	Area float64
}

// PRPoint is one threshold's precision and recall.
type PRPoint struct {
	Threshold, Precision, Recall float64
}
