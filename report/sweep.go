package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/sweep"
	"github.com/killswitch/killswitch/ingest"
)

// Threshold-sweep reports: one row per grid setting (window × threshold),
// then the recommendation, the precision/recall areas, who the false
// positives are, and what the input held. Columns:
//
//	killed       agents the setting killed (or blocked, in block mode)
//	caught       loop agents killed during their loop (late ones included)
//	late         … of which more than LateAfter requests into it
//	early        loop agents killed before their loop started
//	missed       loop agents not killed during their loop
//	healthy killed  healthy agents killed (ground truth)
//	outside loop loop agents killed outside their loop (before or after it);
//	             healthy killed + outside loop are the false positives
//	likely fp    agents without ground truth the heuristic flags
//	blocked      requests refused: each kill and everything refused after
//	saved/lost   tokens and cost of refused requests inside loops / of healthy traffic
//	delay        requests and seconds from a loop's start to its catch: median / p90

var sweepHeader = []string{"window", "threshold", "killed", "caught", "late", "early", "missed", "healthy killed", "outside loop", "likely fp",
	"blocked", "saved tokens", "saved cost", "lost tokens", "lost cost", "delay req (med / p90)", "delay s (med / p90)"}

func sweepNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func hasTruth(r *sweep.Result) bool { return r.Truth.Loop+r.Truth.Legit > 0 }

// sweepSaved renders a Saved's tokens and cost, "-" when empty.
func sweepSaved(s analyze.Saved) (string, string) {
	if s.Requests == 0 {
		return "-", "-"
	}
	return tokens(s), cost(s)
}

func sweepDelay(q sweep.Quantiles, unit string) string {
	if q.N == 0 {
		return "-"
	}
	return sweepNum(q.Median) + " / " + sweepNum(q.P90) + unit
}

func sweepRows(r *sweep.Result) [][]string {
	truth := hasTruth(r)
	var rows [][]string
	for i := range r.Settings {
		s := &r.Settings[i]
		th := sweepNum(s.Threshold)
		if i == r.Recommended {
			th += " *"
		}
		st, sc := sweepSaved(s.SavedLoops)
		lt, lc := sweepSaved(s.LostLegit)
		row := []string{strconv.Itoa(s.Window), th, strconv.Itoa(s.AgentsKilled),
			strconv.Itoa(s.LoopsCaught()), strconv.Itoa(s.CaughtLate), strconv.Itoa(s.KilledEarly), strconv.Itoa(s.Missed),
			strconv.Itoa(s.LegitKilled), strconv.Itoa(len(s.FalsePositives) - s.LegitKilled), strconv.Itoa(len(s.LikelyFalsePositives)),
			strconv.Itoa(s.Refused.Requests), st, sc, lt, lc, sweepDelay(s.DelayRequests, ""), sweepDelay(s.DelaySeconds, "")}
		if !truth {
			for j := 3; j <= 8; j++ {
				row[j] = "-"
			}
			row[11], row[12], row[13], row[14] = "-", "-", "-", "-"
		}
		if r.Truth.Unknown == 0 {
			row[9] = "-"
		}
		rows = append(rows, row)
	}
	return rows
}

func sweepTitle(r *sweep.Result) string {
	op := "score " + r.Profile.Op() + " threshold fires"
	line := fmt.Sprintf("profile %s, mode %s, %d windows × %d thresholds (%s)", r.Profile, r.Mode, len(r.Windows), len(r.Thresholds), op)
	if r.ReactivateAfter > 0 {
		line += ", re-activated " + r.ReactivateAfter.String() + " after a kill"
	}
	return line
}

func truthLine(r *sweep.Result) string {
	t := r.Truth
	if !hasTruth(r) {
		return "ground truth: none — false positives are judged by the heuristic below"
	}
	var src []string
	for _, s := range []struct {
		n    int
		name string
	}{{t.Capture, "capture labels"}, {t.LabelsFile, "labels file"}, {t.LiveKill, "live kills"}} {
		if s.n > 0 {
			src = append(src, fmt.Sprintf("%s for %d", s.name, s.n))
		}
	}
	line := fmt.Sprintf("ground truth (%s): loop agents %d, healthy %d, unlabelled %d; a catch more than %d requests into a loop is late",
		strings.Join(src, ", "), t.Loop, t.Legit, t.Unknown, r.LateAfter)
	if t.LiveKill > 0 {
		line += "; delays of agents the live system killed count from the live kill (negative: the replay fires earlier)"
	}
	return line
}

func recommendLine(r *sweep.Result) string {
	if r.Recommended < 0 {
		return fmt.Sprintf("recommended: none — every setting has more than %d false positives (raise --max-false-positives)", r.MaxFalsePositives)
	}
	s := &r.Settings[r.Recommended]
	var what string
	if hasTruth(r) {
		what = fmt.Sprintf("loops caught %d of %d (%d late), false positives %d", s.LoopsCaught(), r.Truth.Loop, s.CaughtLate, len(s.FalsePositives))
	} else {
		what = fmt.Sprintf("agents killed that kept repeating %d", s.HeuristicLoops)
	}
	if r.Truth.Unknown > 0 && hasTruth(r) {
		what += fmt.Sprintf("; among agents without ground truth: likely false positives %d, repeating %d", len(s.LikelyFalsePositives), s.HeuristicLoops)
	} else if !hasTruth(r) {
		what += fmt.Sprintf(", likely false positives %d", len(s.LikelyFalsePositives))
	}
	line := fmt.Sprintf("recommended (*): window %d, threshold %s — %s (at most %d allowed)", s.Window, sweepNum(s.Threshold), what, r.MaxFalsePositives)
	if s.DelayRequests.N > 0 {
		line += fmt.Sprintf("; detection delay median %s requests (%s s)", sweepNum(s.DelayRequests.Median), sweepNum(s.DelaySeconds.Median))
	}
	return line + "; ties go to the higher threshold"
}

func areaLine(r *sweep.Result) string {
	if len(r.Curves) == 0 {
		return ""
	}
	var parts []string
	for _, c := range r.Curves {
		parts = append(parts, fmt.Sprintf("window %d: %.3f", c.Window, c.Area))
	}
	return "precision/recall area (average precision over thresholds): " + strings.Join(parts, ", ")
}

// nameRuns lists, per window, the runs of consecutive thresholds that name
// the same agents: "window 10, thresholds 4–6.5: burst, fixed-prompt".
func nameRuns(r *sweep.Result, names func(s *sweep.Setting) []string) []string {
	var out []string
	nt := len(r.Thresholds)
	for wi, w := range r.Windows {
		for ti := 0; ti < nt; {
			cur := Printable(strings.Join(names(&r.Settings[wi*nt+ti]), ", "))
			tj := ti
			for tj+1 < nt && Printable(strings.Join(names(&r.Settings[wi*nt+tj+1]), ", ")) == cur {
				tj++
			}
			if cur != "" {
				rng := "threshold " + sweepNum(r.Thresholds[ti])
				if tj > ti {
					rng = "thresholds " + sweepNum(r.Thresholds[ti]) + "–" + sweepNum(r.Thresholds[tj])
				}
				out = append(out, fmt.Sprintf("window %d, %s: %s", w, rng, cur))
			}
			ti = tj + 1
		}
	}
	return out
}

func sweepInputLines(r *sweep.Result) []string {
	in := r.Input
	lines := []string{fmt.Sprintf("input: %d requests from %d agents, %d control records (%d live kills), %d malformed items",
		in.Requests, in.Agents, in.Controls, in.LiveKills, in.Malformed)}
	for _, sk := range in.Skips {
		lines = append(lines, fmt.Sprintf("skipped %d: %s", sk.Count, sk.Reason))
	}
	if n := warnTotal(in.WarningCounts); n > 0 {
		lines = append(lines, fmt.Sprintf("%d warnings (see standard error)", n))
	}
	return lines
}

// sweepNotes are the lines after the table, as (heading, lines) pairs.
func sweepNotes(r *sweep.Result) [][2]any {
	var notes [][2]any
	top := []string{recommendLine(r)}
	if l := areaLine(r); l != "" {
		top = append(top, l)
	}
	notes = append(notes, [2]any{"", top})
	if fp := nameRuns(r, func(s *sweep.Setting) []string { return s.FalsePositives }); len(fp) > 0 {
		notes = append(notes, [2]any{"False positives (killed outside a loop)", fp})
	}
	if r.Truth.Unknown > 0 {
		lines := nameRuns(r, func(s *sweep.Setting) []string { return s.LikelyFalsePositives })
		if len(lines) == 0 {
			lines = []string{"none at any setting"}
		}
		lines = append(lines, "heuristic: "+sweep.HeuristicText)
		notes = append(notes, [2]any{"Likely false positives (agents without ground truth)", lines})
	}
	notes = append(notes, [2]any{"", sweepInputLines(r)})
	return notes
}

// SweepTable renders a sweep as a terminal table.
func SweepTable(w io.Writer, r *sweep.Result) error {
	return SweepTableOpts(w, r, SweepTableOptions{TableOptions: TableOptions{Wide: true}, All: true})
}

// SweepTableOptions shape the sweep's terminal table.
type SweepTableOptions struct {
	TableOptions
	// All shows every setting of the grid; else the recommended one and
	// the SweepAround thresholds either side of it in its window, and the
	// other windows at the recommended threshold.
	All bool
}

// SweepAround is how many thresholds either side of the recommended
// setting the default sweep table shows.
const SweepAround = 3

// sweepCompact returns the columns a narrow sweep table keeps and their
// brief names: the setting, kills and catches, the false positives split
// into healthy agents killed and loop agents killed outside their loop
// (with ground truth), the heuristic's likely ones (for agents without
// it), the cost saved and lost, the delay. With both kinds of agent, the
// kill count goes to make room.
func sweepCompact(r *sweep.Result) ([]int, []string) {
	cols := []int{0, 1, 2, 3}
	truth, unknown := hasTruth(r), r.Truth.Unknown > 0
	if truth {
		cols = append(cols, 7, 8)
	}
	if unknown {
		cols = append(cols, 9)
	}
	if truth && unknown {
		cols = append(cols[:2], cols[3:]...)
	}
	cols = append(cols, 12, 14, 15)
	names := map[int]string{0: "WINDOW", 1: "THRESHOLD", 2: "KILLED", 3: "CAUGHT", 7: "HEALTHY", 8: "OUTSIDE", 9: "LIKELY FP",
		12: "SAVED $", 14: "LOST $", 15: "DELAY REQ"}
	header := make([]string, len(cols))
	for i, c := range cols {
		header[i] = names[c]
	}
	return cols, header
}

// SweepTableOpts renders the sweep as a terminal table: led by the
// recommendation and the settings around it unless opt.All, fitting
// opt.Width unless opt.Wide.
func SweepTableOpts(w io.Writer, r *sweep.Result, opt SweepTableOptions) error {
	width := opt.Width
	if width <= 0 {
		width = DefaultWidth
	}
	fmt.Fprintf(w, "%s\n%s\n\n", Wrap("Threshold sweep — "+sweepTitle(r), width), Wrap(truthLine(r), width))
	all := sweepRows(r)
	rows, shown := all, len(all)
	if !opt.All && r.Recommended >= 0 {
		rows, shown = nil, 0
		nt := len(r.Thresholds)
		rw, rt := r.Recommended/nt, r.Recommended%nt
		for i := range r.Settings {
			wi, ti := i/nt, i%nt
			if (wi == rw && ti >= rt-SweepAround && ti <= rt+SweepAround) || (wi != rw && ti == rt) {
				rows = append(rows, all[i])
				shown++
			}
		}
	}
	header := upper(sweepHeader)
	var notes []string
	if shown < len(all) {
		notes = append(notes, fmt.Sprintf("%d of %d settings: the recommended one (*), %d thresholds either side, the other windows at its threshold; --all for the grid", shown, len(all), SweepAround))
	}
	if !opt.Wide && tableWidth(header, rows, nil) > width {
		var cols []int
		cols, header = sweepCompact(r)
		for i := range rows {
			rows[i] = pick(rows[i], cols)
		}
		if hasTruth(r) {
			notes = append(notes, "HEALTHY: healthy agents killed; OUTSIDE: loop agents killed outside their loop; the false positives are both")
		}
		// Narrower still (a small terminal): the last columns go.
		for tableWidth(header, rows, nil) > width && len(header) > 4 {
			header = header[:len(header)-1]
			for i := range rows {
				rows[i] = rows[i][:len(header)]
			}
		}
		notes = append(notes, fmt.Sprintf("%d of %d columns, to fit %d: --wide shows every one", len(header), len(sweepHeader), width))
	}
	if len(notes) > 0 {
		notes[len(notes)-1] += "; -f csv, json or html every value"
	}
	if err := asciiTable(w, header, rows, nil); err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintln(w, Wrap("("+n+")", width))
	}
	for _, n := range sweepNotes(r) {
		fmt.Fprintln(w)
		if h := n[0].(string); h != "" {
			fmt.Fprintln(w, h+":")
		}
		for _, l := range n[1].([]string) {
			fmt.Fprintln(w, Wrap(l, width))
		}
	}
	return nil
}

// SweepMarkdown renders a sweep as GitHub-flavoured Markdown.
func SweepMarkdown(w io.Writer, r *sweep.Result) error {
	fmt.Fprintf(w, "## Threshold sweep\n\n%s\n\n%s\n\n", sweepTitle(r), truthLine(r))
	mdRow(w, sweepHeader)
	seps := make([]string, len(sweepHeader))
	for i := range seps {
		seps[i] = "---:"
	}
	fmt.Fprintf(w, "|%s|\n", strings.Join(seps, "|"))
	for i, row := range sweepRows(r) {
		if i == r.Recommended {
			for j, c := range row {
				row[j] = "**" + strings.Replace(c, " *", ` \*`, 1) + "**"
			}
		}
		mdRow(w, row)
	}
	for _, n := range sweepNotes(r) {
		fmt.Fprintln(w)
		if h := n[0].(string); h != "" {
			fmt.Fprintf(w, "### %s\n\n", h)
		}
		for _, l := range n[1].([]string) {
			fmt.Fprintf(w, "- %s\n", l)
		}
	}
	return nil
}

// SweepCSV writes one row per setting with raw numbers and no notes, so
// that it loads as data. Agent lists are joined with ";". Empty cells mean
// "not applicable" (no delay measured, no loop to recall).
func SweepCSV(w io.Writer, r *sweep.Result) error {
	cw := csv.NewWriter(w)
	cw.Write(sweepCSVHeader)
	for _, row := range sweepCSVRows(r) {
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

var sweepCSVHeader = []string{"window", "threshold", "recommended", "agents_killed", "loop_agents_caught", "loop_agents_caught_late",
	"loop_agents_killed_early", "loop_agents_missed", "legit_agents_killed", "false_positives", "likely_false_positives",
	"requests_blocked", "tokens_blocked", "cost_blocked_usd", "saved_requests", "saved_tokens", "saved_cost_usd",
	"lost_requests", "lost_tokens", "lost_cost_usd", "detection_delay_median", "detection_delay_p90",
	"detection_delay_seconds_median", "detection_delay_seconds_p90", "precision", "recall"}

// sweepCSVRows returns one CSV row per setting (sweepCSVHeader's columns).
func sweepCSVRows(r *sweep.Result) [][]string {
	var rows [][]string
	for i := range r.Settings {
		s := &r.Settings[i]
		q := func(q sweep.Quantiles, p90 bool) string {
			if q.N == 0 {
				return ""
			}
			if p90 {
				return sweepNum(q.P90)
			}
			return sweepNum(q.Median)
		}
		recall, precision := "", ""
		if r.Truth.Loop > 0 {
			recall = sweepNum(s.Recall)
		}
		if r.Truth.Loop+r.Truth.Legit > 0 {
			precision = sweepNum(s.Precision)
		}
		tok := func(s analyze.Saved) string { return strconv.FormatInt(s.TokensIn+s.TokensOut, 10) }
		rows = append(rows, printableRow([]string{strconv.Itoa(s.Window), sweepNum(s.Threshold), strconv.FormatBool(i == r.Recommended),
			strconv.Itoa(s.AgentsKilled), strconv.Itoa(s.LoopsCaught()), strconv.Itoa(s.CaughtLate),
			strconv.Itoa(s.KilledEarly), strconv.Itoa(s.Missed), strconv.Itoa(s.LegitKilled),
			strings.Join(s.FalsePositives, ";"), strings.Join(s.LikelyFalsePositives, ";"),
			strconv.Itoa(s.Refused.Requests), tok(s.Refused), sweepNum(RoundCost(s.Refused.CostUSD)),
			strconv.Itoa(s.SavedLoops.Requests), tok(s.SavedLoops), sweepNum(RoundCost(s.SavedLoops.CostUSD)),
			strconv.Itoa(s.LostLegit.Requests), tok(s.LostLegit), sweepNum(RoundCost(s.LostLegit.CostUSD)),
			q(s.DelayRequests, false), q(s.DelayRequests, true), q(s.DelaySeconds, false), q(s.DelaySeconds, true),
			precision, recall}))
	}
	return rows
}

// JSON shapes of the sweep report.
type sweepJSON struct {
	Profile           string            `json:"profile"`
	Mode              string            `json:"mode"`
	Windows           []int             `json:"windows"`
	Thresholds        []float64         `json:"thresholds"`
	MaxFalsePositives int               `json:"max_false_positives"`
	LateAfter         int               `json:"late_after"`
	Truth             sweepJSONTruth    `json:"truth"`
	Configs           []sweepJSONConfig `json:"configs"`
	Recommended       *sweepJSONRec     `json:"recommended"`
	Curves            []sweepJSONCurve  `json:"pr_curves"`
	Agents            []sweepJSONAgent  `json:"agents"`
	Input             sweepJSONInput    `json:"input"`
}

type sweepJSONTruth struct {
	LoopAgents      int    `json:"loop_agents"`
	LegitAgents     int    `json:"legit_agents"`
	UnknownAgents   int    `json:"unknown_agents"`
	FromCapture     int    `json:"from_capture_labels"`
	FromLabelsFile  int    `json:"from_labels_file"`
	FromLiveKills   int    `json:"from_live_kills"`
	HeuristicForFPs string `json:"false_positive_heuristic"`
}

type sweepJSONConfig struct {
	Window               int                `json:"window"`
	Threshold            float64            `json:"threshold"`
	Recommended          bool               `json:"recommended"`
	AgentsKilled         int                `json:"agents_killed"`
	LoopAgentsCaught     int                `json:"loop_agents_caught"`
	LoopAgentsLate       int                `json:"loop_agents_caught_late"`
	LoopAgentsEarly      int                `json:"loop_agents_killed_early"`
	LoopAgentsMissed     int                `json:"loop_agents_missed"`
	LegitAgentsKilled    int                `json:"legit_agents_killed"`
	FalsePositives       []string           `json:"false_positives"`
	LikelyFalsePositives []string           `json:"likely_false_positives"`
	RequestsBlocked      int                `json:"requests_blocked"`
	Blocked              jsonSaved          `json:"blocked"`
	Saved                jsonSaved          `json:"saved_on_loops"`
	Lost                 jsonSaved          `json:"lost_on_legit"`
	Unjudged             jsonSaved          `json:"blocked_without_truth"`
	DelayMedian          *float64           `json:"detection_delay_median"`
	DelayP90             *float64           `json:"detection_delay_p90"`
	DelaySecondsMedian   *float64           `json:"detection_delay_seconds_median"`
	DelaySecondsP90      *float64           `json:"detection_delay_seconds_p90"`
	Precision            *float64           `json:"precision"`
	Recall               *float64           `json:"recall"`
	Kills                []sweepJSONOutcome `json:"kills"`
}

type sweepJSONOutcome struct {
	Agent         string   `json:"agent"`
	Request       int      `json:"request"`
	TS            string   `json:"ts"`
	Source        string   `json:"source"`
	Score         float64  `json:"score"`
	Kills         int      `json:"kills"`
	Verdict       string   `json:"verdict,omitempty"`
	FalsePositive bool     `json:"false_positive"`
	Heuristic     string   `json:"heuristic,omitempty"`
	DelayRequests *int     `json:"delay_requests,omitempty"`
	DelaySeconds  *float64 `json:"delay_seconds,omitempty"`
}

type sweepJSONRec struct {
	Window    int     `json:"window"`
	Threshold float64 `json:"threshold"`
	Index     int     `json:"index"`
}

type sweepJSONCurve struct {
	Window int              `json:"window"`
	Area   float64          `json:"area"`
	Points []sweepJSONPoint `json:"points"`
}

type sweepJSONPoint struct {
	Threshold float64 `json:"threshold"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
}

type sweepJSONAgent struct {
	Agent     string  `json:"agent"`
	Requests  int     `json:"requests"`
	Class     string  `json:"class"`
	Source    string  `json:"truth_source"`
	LoopStart *int    `json:"loop_start"`
	LoopEnd   *int    `json:"loop_end"`
	DelayFrom *int    `json:"delay_from"`
	DelayTS   *string `json:"delay_from_ts"`
}

type sweepJSONInput struct {
	Agents        int             `json:"agents"`
	Requests      int             `json:"requests"`
	Malformed     int             `json:"malformed"`
	Controls      int             `json:"control_records"`
	LiveKills     int             `json:"live_kills"`
	Skipped       []jsonSkip      `json:"skipped"`
	Warnings      []string        `json:"warnings"`
	WarningCounts []jsonWarnCount `json:"warning_counts"`
}

func sweepPtr[T any](v T) *T { return &v }

// SweepJSON writes the sweep as one indented JSON document: "configs" has
// one object per setting (window-major), "recommended" names the
// recommended setting (null when none qualifies). loop_agents_caught
// includes the late catches; loop_agents_caught_late counts those alone.
// Delays are null when no loop was caught, recall when no agent is a
// labelled loop, precision when no agent has ground truth.
func SweepJSON(w io.Writer, r *sweep.Result) error { return WriteJSON(w, sweepJSONOf(r)) }

// WriteJSON writes v as one indented JSON document, HTML characters as
// they are.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// sweepJSONOf is the JSON shape of one sweep.
func sweepJSONOf(r *sweep.Result) sweepJSON {
	t := r.Truth
	out := sweepJSON{
		Profile: r.Profile.String(), Mode: r.Mode.String(), Windows: r.Windows, Thresholds: r.Thresholds,
		MaxFalsePositives: r.MaxFalsePositives, LateAfter: r.LateAfter,
		Truth:   sweepJSONTruth{t.Loop, t.Legit, t.Unknown, t.Capture, t.LabelsFile, t.LiveKill, sweep.HeuristicText},
		Configs: []sweepJSONConfig{}, Curves: []sweepJSONCurve{}, Agents: []sweepJSONAgent{},
		Input: sweepJSONInput{Agents: r.Input.Agents, Requests: r.Input.Requests, Malformed: r.Input.Malformed,
			Controls: r.Input.Controls, LiveKills: r.Input.LiveKills, Skipped: []jsonSkip{}, Warnings: []string{}},
	}
	for i := range r.Settings {
		s := &r.Settings[i]
		c := sweepJSONConfig{Window: s.Window, Threshold: s.Threshold, Recommended: i == r.Recommended,
			AgentsKilled: s.AgentsKilled, LoopAgentsCaught: s.LoopsCaught(), LoopAgentsLate: s.CaughtLate,
			LoopAgentsEarly: s.KilledEarly, LoopAgentsMissed: s.Missed, LegitAgentsKilled: s.LegitKilled,
			FalsePositives: append([]string{}, s.FalsePositives...), LikelyFalsePositives: append([]string{}, s.LikelyFalsePositives...),
			RequestsBlocked: s.Refused.Requests, Blocked: savedJSON(s.Refused), Saved: savedJSON(s.SavedLoops),
			Lost: savedJSON(s.LostLegit), Unjudged: savedJSON(s.Unjudged), Kills: []sweepJSONOutcome{}}
		if s.DelayRequests.N > 0 {
			c.DelayMedian, c.DelayP90 = sweepPtr(s.DelayRequests.Median), sweepPtr(s.DelayRequests.P90)
			c.DelaySecondsMedian, c.DelaySecondsP90 = sweepPtr(s.DelaySeconds.Median), sweepPtr(s.DelaySeconds.P90)
		}
		if t.Loop > 0 {
			c.Recall = sweepPtr(s.Recall)
		}
		if t.Loop+t.Legit > 0 {
			c.Precision = sweepPtr(s.Precision) // without ground truth, no kill is known to be right or wrong
		}
		for _, o := range s.Agents {
			if len(o.Kills) == 0 {
				continue
			}
			k := o.Kills[0]
			jo := sweepJSONOutcome{Agent: o.Agent, Request: k.AgentN, TS: ingest.FormatTime(k.TS), Source: k.Source.String(),
				Score: k.Score, Kills: o.KillCount, Verdict: o.Verdict.String(), FalsePositive: o.FalsePositive, Heuristic: o.Heuristic.String()}
			if o.Verdict == sweep.VerdictCaught || o.Verdict == sweep.VerdictCaughtLate {
				jo.DelayRequests, jo.DelaySeconds = sweepPtr(o.DelayRequests), sweepPtr(o.DelaySeconds)
			}
			c.Kills = append(c.Kills, jo)
		}
		out.Configs = append(out.Configs, c)
	}
	if r.Recommended >= 0 {
		s := &r.Settings[r.Recommended]
		out.Recommended = &sweepJSONRec{s.Window, s.Threshold, r.Recommended}
	}
	for _, c := range r.Curves {
		jc := sweepJSONCurve{Window: c.Window, Area: c.Area, Points: []sweepJSONPoint{}}
		for _, p := range c.Points {
			jc.Points = append(jc.Points, sweepJSONPoint{p.Threshold, p.Precision, p.Recall})
		}
		out.Curves = append(out.Curves, jc)
	}
	for _, a := range r.Agents {
		ja := sweepJSONAgent{Agent: a.Agent, Requests: a.Requests, Class: a.Class.String(), Source: a.Source.String()}
		if a.Class == sweep.ClassLoop {
			ja.LoopStart, ja.LoopEnd, ja.DelayFrom = sweepPtr(a.Start), sweepPtr(a.End), sweepPtr(a.Ref)
			ja.DelayTS = sweepPtr(ingest.FormatTime(a.RefTS))
		}
		out.Agents = append(out.Agents, ja)
	}
	for _, sk := range r.Input.Skips {
		out.Input.Skipped = append(out.Input.Skipped, jsonSkip{sk.Reason, sk.Count})
	}
	for _, wn := range r.Input.Warnings {
		out.Input.Warnings = append(out.Input.Warnings, wn.String())
	}
	out.Input.WarningCounts = warnCounts(r.Input.WarningCounts)
	return out
}

func warnTotal(cs []analyze.WarningCount) int {
	n := 0
	for _, c := range cs {
		n += c.Count
	}
	return n
}
