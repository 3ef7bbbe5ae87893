package report

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
)

// Timeline formats.
const (
	FormatTable    = "table"
	FormatJSON     = "json"
	FormatJSONL    = "jsonl"
	FormatCSV      = "csv"
	FormatMarkdown = "markdown"
	FormatHTML     = "html"
)

var timelineHeader = []string{"agent", "requests", "killed at", "request #", "score", "prompts", "responses", "tool calls", "blocked after", "saved tokens", "saved cost"}

// timelineHeaderOf is timelineHeader with the count columns named as the
// replay's profile means them (analyze.Profile.CountColumns).
func timelineHeaderOf(s *analyze.Summary) []string {
	h := append([]string(nil), timelineHeader...)
	n := s.Profile.CountColumns()
	copy(h[5:8], n[:])
	return h
}

// agentRows are the agent's timeline rows: one per kill, or one for an
// agent never killed (its highest score shown as "max N").
func agentRows(s *analyze.Summary, a *analyze.AgentSummary) [][]string {
	saved := [3]string{"-", "-", "-"}
	if a.Saved().Requests > 0 {
		saved = [3]string{strconv.Itoa(a.Blocked()), tokens(a.Saved()), cost(a.Saved())}
	}
	if len(a.Kills()) == 0 {
		return [][]string{{a.Agent, strconv.Itoa(a.Requests), "-", "-",
			"max " + score(a.MaxScore), "", "", "", saved[0], saved[1], saved[2]}}
	}
	rows := make([][]string, 0, len(a.Kills()))
	for i, k := range a.Kills() {
		row := []string{a.Agent, strconv.Itoa(a.Requests), ingest.FormatTime(k.TS), strconv.Itoa(k.AgentN),
			score(k.Score) + killOp(s.Profile) + strconv.FormatFloat(k.Threshold, 'f', -1, 64),
			strconv.Itoa(k.Counts.SimilarPrompts), strconv.Itoa(k.Counts.SimilarResponses), strconv.Itoa(k.Counts.RepeatedToolCalls),
			saved[0], saved[1], saved[2]}
		if k.Action == analyze.ActionBlock {
			row[2] += " (429)"
		}
		if i > 0 {
			row[0], row[1], row[8], row[9], row[10] = "", "", "", "", ""
		}
		rows = append(rows, row)
	}
	return rows
}

// rowCount is how many timeline rows the agent takes.
func rowCount(a *analyze.AgentSummary) int { return max(1, len(a.Kills())) }

// timelineTotal is the totals row.
func timelineTotal(s *analyze.Summary) []string {
	t := s.Totals
	return []string{fmt.Sprintf("total: %d agents", t.Agents), strconv.Itoa(t.Requests),
		fmt.Sprintf("%d killed", t.AgentsKilled), "", "", "", "", "", strconv.Itoa(t.Blocked), tokens(t.Saved), cost(t.Saved)}
}

// MaxRows is how many timeline rows a table or Markdown report shows
// unless told to show all: past it, the agents that matter most (see
// shownAgents) and a line saying how many rows were left out.
const MaxRows = 50

// shownAgents are the agents whose rows a table shows, and how many rows
// they take, when the whole timeline has more than MaxRows rows: the
// agents killed (or blocked) first, then by highest score, then by what
// their requests cost, then by id; as many as fit in MaxRows rows (the
// last one's rows cut at the limit). It keeps MaxRows agents at most
// while it looks, never a row per agent. With every row fitting (or all),
// it returns nil and the total row count.
func shownAgents(s *analyze.Summary, all bool) (shown []*analyze.AgentSummary, total int) {
	for _, a := range s.Agents {
		total += rowCount(a)
	}
	if all || total <= MaxRows {
		return nil, total
	}
	shown = bestAgents(s.Agents, MaxRows, ranksBefore, nil)
	n := 0
	for i, a := range shown {
		if n += rowCount(a); n >= MaxRows {
			shown = shown[:i+1]
			break
		}
	}
	return shown, total
}

// bestAgents are the first n of the agents that keep (nil: all) in the
// order before gives, best first: a bounded selection that keeps the best
// n seen so far, worst last (n is small: insertion beats a heap), never a
// slot per agent.
func bestAgents(agents []*analyze.AgentSummary, n int, before func(a, b *analyze.AgentSummary) bool, keep func(*analyze.AgentSummary) bool) []*analyze.AgentSummary {
	var best []*analyze.AgentSummary
	for _, a := range agents {
		if keep != nil && !keep(a) || len(best) == n && !before(a, best[len(best)-1]) {
			continue
		}
		i := sort.Search(len(best), func(i int) bool { return before(a, best[i]) })
		if len(best) < n {
			best = append(best, nil)
		}
		copy(best[i+1:], best[i:len(best)-1])
		best[i] = a
	}
	return best
}

// ranksBefore orders agents by what matters in a bounded table.
func ranksBefore(a, b *analyze.AgentSummary) bool {
	if ka, kb := len(a.Kills()) > 0, len(b.Kills()) > 0; ka != kb {
		return ka
	}
	if a.MaxScore != b.MaxScore {
		return a.MaxScore > b.MaxScore
	}
	if a.Tokens.CostUSD != b.Tokens.CostUSD {
		return a.Tokens.CostUSD > b.Tokens.CostUSD
	}
	return a.Agent < b.Agent
}

// eachRow calls fn with every row shown: every agent's in id order, or
// when bounded (shown != nil) the shown agents' in rank order, MaxRows
// at most.
func eachRow(s *analyze.Summary, shown []*analyze.AgentSummary, fn func([]string) error) error {
	agents, limit := s.Agents, -1
	if shown != nil {
		agents, limit = shown, MaxRows
	}
	n := 0
	for _, a := range agents {
		for _, r := range agentRows(s, a) {
			if n == limit {
				return nil
			}
			n++
			if err := fn(r); err != nil {
				return err
			}
		}
	}
	return nil
}

// omittedLine says how many rows a bounded table left out.
func omittedLine(shown []*analyze.AgentSummary, total int) string {
	if shown == nil {
		return ""
	}
	return fmt.Sprintf("(%d of %d rows: the agents killed first, then by highest score and cost; --all shows every row, -f csv or json every value)",
		MaxRows, total)
}

func killOp(p *analyze.Profile) string { return " " + p.Op() + " " }

func score(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

func tokens(s analyze.Saved) string {
	if s.Requests == s.Unpriced {
		return "n/a"
	}
	return group(s.TokensIn+s.TokensOut) + unpricedMark(s)
}

func cost(s analyze.Saved) string {
	if s.Requests == s.Unpriced {
		return "n/a"
	}
	return "$" + strconv.FormatFloat(s.CostUSD, 'f', 4, 64) + unpricedMark(s)
}

func unpricedMark(s analyze.Saved) string {
	if s.Unpriced > 0 {
		return "*"
	}
	return ""
}

// group writes n with thousands separators.
func group(n int64) string {
	s := strconv.FormatInt(n, 10)
	if len(s) <= 3 {
		return s
	}
	var b strings.Builder
	pre := len(s) % 3
	if pre > 0 {
		b.WriteString(s[:pre])
	}
	for i := pre; i < len(s); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}

func settingsLine(s *analyze.Summary) string {
	op := s.Profile.Op() + " threshold fires"
	d := s.Default
	line := fmt.Sprintf("profile %s, mode %s, window %d, threshold %s (score %s)", s.Profile, s.Mode, d.WindowSize,
		strconv.FormatFloat(d.Threshold, 'f', -1, 64), op)
	if !d.Enabled {
		line += ", kill switch disabled by default"
	}
	return line
}

// inputLines describe what the input held besides scored requests.
func inputLines(s *analyze.Summary) []string {
	t := s.Totals
	lines := []string{fmt.Sprintf("input: %d requests (%d forwarded, %d killed, %d blocked by the 429 variant, %d blocked while inactive, %d not scorable), %d control records, %d malformed items",
		t.Requests, t.Forwarded, t.Kills, t.Blocks, t.Blocked, t.Skipped, s.Controls, s.Malformed)}
	for _, sk := range s.Skips {
		lines = append(lines, fmt.Sprintf("skipped %d: %s", sk.Count, sk.Reason))
	}
	if n := s.WarningTotal(); n > 0 {
		lines = append(lines, fmt.Sprintf("%d warnings (see standard error)", n))
	}
	if hint := s.Profile.ToolAgentProfile(); s.ToolAgentKills > 0 && hint != "" {
		lines = append(lines, fmt.Sprintf("note: %d of %d kills scored a last user message that stayed the same while the tool calls changed: a tool-using agent's task, which %s compares as SPEC §1 says; --profile %s compares what each step adds",
			s.ToolAgentKills, t.Kills, s.Profile, hint))
	}
	if t.Saved.Unpriced > 0 {
		lines = append(lines, fmt.Sprintf("* %d refused requests carry no tokens or cost in the capture", t.Saved.Unpriced))
	}
	return lines
}

// alertSection writes the alerts of the kills shown (every kill when
// shown is nil, else those in the first MaxRows rows of the shown agents)
// one line at a time: head before the first line, line for each, tail
// with how many kills' alerts were left out. Without alerts it writes
// nothing.
func alertSection(s *analyze.Summary, shown []*analyze.AgentSummary, head func(), line func(string) error, tail func(omitted int)) error {
	started := false
	omitted, err := eachAlert(s, shown, func(l string) error {
		if !started {
			head()
			started = true
		}
		return line(l)
	})
	if err != nil {
		return err
	}
	if !started && omitted > 0 {
		head()
		started = true
	}
	if started {
		tail(omitted)
	}
	return nil
}

// eachAlert calls fn with each line of the alerts, in time order, and returns
// how many alerts it left out, or fn's first error.
func eachAlert(s *analyze.Summary, shown []*analyze.AgentSummary, fn func(line string) error) (omitted int, err error) {
	agents, limit := s.Agents, -1
	if shown != nil {
		agents, limit = shown, MaxRows
	}
	n := 0
	var kept []*analyze.Kill
	for _, a := range agents {
		if len(a.Kills()) == 0 {
			n++
		}
		for i, k := range a.Kills() {
			if n == limit {
				break
			}
			n++
			if k.Action == analyze.ActionKill {
				kept = append(kept, &a.Kills()[i])
			}
		}
	}
	// In the order they would have gone out; a tie keeps the agents' order.
	sort.SliceStable(kept, func(i, j int) bool { return kept[i].TS.Before(kept[j].TS) })
	for _, k := range kept {
		if err := fn(fmt.Sprintf("%s %s (%s)", ingest.FormatTime(k.TS), k.Alert.RuleType, k.Source)); err != nil {
			return 0, err
		}
		if err := fn("  " + strings.Join(printableRow(strings.Split(k.Alert.Message, "\n")), "\n  ")); err != nil {
			return 0, err
		}
		if k.Why != "" {
			// Not part of the alert: the profile's own words on what fired.
			if err := fn("  why: " + printableRow([]string{k.Why})[0]); err != nil {
				return 0, err
			}
		}
	}
	return s.Totals.Kills - len(kept), nil
}

func alertsOmittedLine(n int) string {
	return fmt.Sprintf("(%d more alerts for agents not shown: --all or -f json shows them)", n)
}

// TableOptions shape a terminal table.
type TableOptions struct {
	// Width is the terminal's width in columns (0: DefaultWidth). A table
	// wider than it shows only the columns that matter (compactColumns).
	Width int
	// Wide shows every column whatever the width.
	Wide bool
	// All shows every row, streamed; else a table of more than MaxRows
	// rows shows the agents that matter most (see MaxRows).
	All bool
}

// DefaultWidth is the width a table fits when the terminal's is unknown
// (output to a file or a pipe).
const DefaultWidth = 100

// compactColumns are the timeline columns a narrow table keeps: who, how
// much, at which request and score it was killed, what that refused.
var compactColumns = []int{0, 1, 3, 4, 8, 10}

// TimelineTable renders the timelines as a terminal table, every column.
func TimelineTable(w io.Writer, s *analyze.Summary) error {
	return TimelineTableOpts(w, s, TableOptions{Wide: true})
}

// TimelineTableOpts renders the timelines as a terminal table that fits
// opt.Width unless opt.Wide, MaxRows rows at most unless opt.All. It
// holds the rows it shows only when they are bounded: with opt.All, one
// pass measures the columns and a second streams the rows.
func TimelineTableOpts(w io.Writer, s *analyze.Summary, opt TableOptions) error {
	shown, nrows := shownAgents(s, opt.All)
	total := timelineTotal(s)
	width := opt.Width
	if width <= 0 {
		width = DefaultWidth
	}
	fmt.Fprintf(w, "%s\n\n", Wrap("Deactivation timelines — "+settingsLine(s), width))
	header := upper(timelineHeaderOf(s))
	widths := make([]int, len(header))
	measure := func(r []string) error {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(Printable(c)))
		}
		return nil
	}
	measure(header)
	measure(total)
	eachRow(s, shown, measure)
	note := ""
	cols := []int(nil) // every column
	if !opt.Wide && widthOf(widths) > width {
		killed := total[2]
		cols = compactColumns
		// Narrower still (a small terminal): the last columns go.
		cw := pick(widths, cols)
		cw[2] = max(cw[2], len("KILLED AT REQUEST"), utf8.RuneCountInString(killed))
		for widthOf(cw) > width && len(cols) > 3 {
			cols, cw = cols[:len(cols)-1], cw[:len(cw)-1]
		}
		header, total = pick(header, cols), pick(total, cols)
		header[2], total[2] = "KILLED AT REQUEST", killed
		note = fmt.Sprintf("(%d of %d columns, to fit %d: --wide shows every one, -f csv or json every value)\n",
			len(cols), len(timelineHeader), width)
	}
	row := func(r []string) []string {
		if cols == nil {
			return printableRow(r)
		}
		out := pick(r, cols)
		if strings.HasSuffix(r[2], " (429)") {
			out[2] += " (429)" // block mode: the time column is gone, the mark stays
		}
		return printableRow(out)
	}
	opts := asciiOptions()
	if opt.All {
		// Streamed rows need their columns' widths up front.
		widths = widths[:len(header)]
		clear(widths)
		measure(header)
		measure(total)
		eachRow(s, shown, func(r []string) error { return measure(row(r)) })
		m := tw.NewMapper[int, int]()
		for i, cw := range widths {
			m.Set(i, cw+2) // a space either side
		}
		opts = append(opts, tablewriter.WithStreaming(tw.StreamConfig{Enable: true}), tablewriter.WithColumnWidths(m))
	}
	tbl := tablewriter.NewTable(w, opts...)
	if opt.All {
		if err := tbl.Start(); err != nil {
			return err
		}
	}
	tbl.Header(header)
	if err := eachRow(s, shown, func(r []string) error { return tbl.Append(row(r)) }); err != nil {
		return err
	}
	tbl.Footer(total)
	if opt.All {
		if err := tbl.Close(); err != nil {
			return err
		}
	} else if err := tbl.Render(); err != nil {
		return err
	}
	fmt.Fprint(w, note)
	if l := omittedLine(shown, nrows); l != "" {
		fmt.Fprintln(w, Wrap(l, width))
	}
	fmt.Fprintln(w)
	for _, l := range inputLines(s) {
		fmt.Fprintln(w, Wrap(l, width))
	}
	return alertSection(s, shown, func() { fmt.Fprintln(w, "\nAlerts that would have gone out:") },
		func(l string) error { _, err := fmt.Fprintln(w, l); return err },
		func(omitted int) {
			if omitted > 0 {
				fmt.Fprintln(w, alertsOmittedLine(omitted))
			}
		})
}

// asciiTable renders header, rows and an optional footer as an ASCII
// table, cells made printable, none wrapped.
func asciiTable(w io.Writer, header []string, rows [][]string, footer []string) error {
	tbl := tablewriter.NewTable(w, asciiOptions()...)
	tbl.Header(header)
	for _, r := range rows {
		if err := tbl.Append(printableRow(r)); err != nil {
			return err
		}
	}
	if footer != nil {
		tbl.Footer(footer)
	}
	return tbl.Render()
}

// asciiOptions are the options of every ASCII table: no header
// formatting, no cell wrapped.
func asciiOptions() []tablewriter.Option {
	return []tablewriter.Option{
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
	}
}

// tableWidth is how wide an ASCII table of these cells renders: each
// column as wide as its widest cell plus a space either side, and a
// border between and around them.
func tableWidth(header []string, rows [][]string, total []string) int {
	widths := make([]int, len(header))
	for _, r := range append(append([][]string{header}, rows...), total) {
		for i, c := range r {
			if i < len(widths) {
				widths[i] = max(widths[i], utf8.RuneCountInString(Printable(c)))
			}
		}
	}
	return widthOf(widths)
}

// widthOf is how wide an ASCII table with columns this wide renders.
func widthOf(widths []int) int {
	n := 1
	for _, w := range widths {
		n += w + 3
	}
	return n
}

func pick[T any](r []T, cols []int) []T {
	out := make([]T, len(cols))
	for i, c := range cols {
		if c < len(r) {
			out[i] = r[c]
		}
	}
	return out
}

func upper(h []string) []string {
	out := make([]string, len(h))
	for i, s := range h {
		out[i] = strings.ToUpper(s)
	}
	return out
}

// TimelineMarkdown renders the timelines as GitHub-flavoured Markdown,
// MaxRows rows at most (see TimelineMarkdownOpts).
func TimelineMarkdown(w io.Writer, s *analyze.Summary) error {
	return TimelineMarkdownOpts(w, s, TableOptions{})
}

// TimelineMarkdownOpts renders the timelines as Markdown: every row,
// streamed, with opt.All, else MaxRows rows at most (see MaxRows). Width
// and Wide do not apply.
func TimelineMarkdownOpts(w io.Writer, s *analyze.Summary, opt TableOptions) error {
	shown, nrows := shownAgents(s, opt.All)
	total := timelineTotal(s)
	fmt.Fprintf(w, "## Deactivation timelines\n\n%s\n\n", settingsLine(s))
	mdRow(w, timelineHeaderOf(s))
	seps := make([]string, len(timelineHeader))
	for i := range seps {
		seps[i] = "---"
		if i >= 1 && i != 2 {
			seps[i] = "---:"
		}
	}
	fmt.Fprintf(w, "|%s|\n", strings.Join(seps, "|"))
	eachRow(s, shown, func(r []string) error { mdRow(w, r); return nil })
	bold := make([]string, len(total))
	for i, c := range total {
		if c != "" {
			bold[i] = "**" + c + "**"
		}
	}
	mdRow(w, bold)
	if l := omittedLine(shown, nrows); l != "" {
		fmt.Fprintf(w, "\n%s\n", l)
	}
	fmt.Fprintln(w)
	for _, l := range inputLines(s) {
		fmt.Fprintf(w, "- %s\n", l)
	}
	return alertSection(s, shown, func() { fmt.Fprint(w, "\n### Alerts that would have gone out\n\n```\n") },
		func(l string) error { _, err := fmt.Fprintln(w, l); return err },
		func(omitted int) {
			fmt.Fprintln(w, "```")
			if omitted > 0 {
				fmt.Fprintf(w, "\n%s\n", alertsOmittedLine(omitted))
			}
		})
}

func mdRow(w io.Writer, cells []string) {
	esc := make([]string, len(cells))
	for i, c := range cells {
		esc[i] = strings.NewReplacer("|", `\|`).Replace(Printable(c))
	}
	fmt.Fprintf(w, "| %s |\n", strings.Join(esc, " | "))
}

// TimelineCSV writes one row per kill (or per agent never killed), with
// raw numbers; no totals and no warnings, so that it loads as data.
func TimelineCSV(w io.Writer, s *analyze.Summary) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"agent", "requests", "killed", "kill_seq", "kill_agent_request", "kill_ts", "action", "score", "threshold", "window",
		"similar_prompts", "similar_responses", "repeated_tool_calls", "max_score", "blocked_after", "saved_requests",
		"saved_tokens_in", "saved_tokens_out", "saved_cost_usd", "final_state"})
	for _, a := range s.Agents {
		base := func() []string {
			return []string{a.Agent, strconv.Itoa(a.Requests)}
		}
		tail := []string{score(a.MaxScore), strconv.Itoa(a.Blocked()), strconv.Itoa(a.Saved().Requests),
			strconv.FormatInt(a.Saved().TokensIn, 10), strconv.FormatInt(a.Saved().TokensOut, 10),
			strconv.FormatFloat(RoundCost(a.Saved().CostUSD), 'f', -1, 64), a.FinalState().String()}
		if len(a.Kills()) == 0 {
			cw.Write(printableRow(append(append(base(), "false", "", "", "", "", "", "", "", "", "", ""), tail...)))
			continue
		}
		for _, k := range a.Kills() {
			row := append(base(), "true", strconv.FormatInt(k.Seq, 10), strconv.Itoa(k.AgentN), ingest.FormatTime(k.TS), k.Action.String(),
				score(k.Score), strconv.FormatFloat(k.Threshold, 'f', -1, 64), strconv.Itoa(k.Window),
				strconv.Itoa(k.Counts.SimilarPrompts), strconv.Itoa(k.Counts.SimilarResponses), strconv.Itoa(k.Counts.RepeatedToolCalls))
			cw.Write(printableRow(append(row, tail...)))
		}
	}
	cw.Flush()
	return cw.Error()
}

// JSON shapes of the timeline report.
type jsonSummary struct {
	Profile  string       `json:"profile"`
	Mode     string       `json:"mode"`
	Settings jsonSettings `json:"settings"`
	Agents   []jsonAgent  `json:"agents"`
	Totals   jsonTotals   `json:"totals"`
	Input    jsonInput    `json:"input"`
}

type jsonSettings struct {
	Enabled    bool    `json:"enabled"`
	WindowSize int     `json:"window_size"`
	Threshold  float64 `json:"threshold"`
}

type jsonSaved struct {
	Requests  int     `json:"requests"`
	TokensIn  int64   `json:"tokens_in"`
	TokensOut int64   `json:"tokens_out"`
	CostUSD   float64 `json:"cost_usd"`
	Unpriced  int     `json:"unpriced"`
}

type jsonAlert struct {
	AgentID   string `json:"agent_id"`
	RuleType  string `json:"rule_type"`
	Message   string `json:"message"`
	Timestamp string `json:"timestamp"`
}

type jsonKill struct {
	Seq               int64   `json:"seq"`
	AgentRequest      int     `json:"agent_request"`
	TS                string  `json:"ts"`
	Source            string  `json:"source"`
	Action            string  `json:"action"`
	Score             float64 `json:"score"`
	Threshold         float64 `json:"threshold"`
	Window            int     `json:"window"`
	SimilarPrompts    int     `json:"similar_prompts"`
	SimilarResponses  int     `json:"similar_responses"`
	RepeatedToolCalls int     `json:"repeated_tool_calls"`
	// Why is the profile's explanation of the firing (progress and the
	// peer profiles), left out when it has none.
	Why   string     `json:"why,omitempty"`
	Alert *jsonAlert `json:"alert,omitempty"`
}

type jsonAgent struct {
	Agent         string     `json:"agent"`
	Requests      int        `json:"requests"`
	Forwarded     int        `json:"forwarded"`
	Skipped       int        `json:"skipped"`
	Kills         []jsonKill `json:"kills"`
	BlockedAfter  int        `json:"blocked_after"`
	Blocks        int        `json:"blocks"`
	Saved         jsonSaved  `json:"saved"`
	Total         jsonSaved  `json:"total"`
	MaxScore      float64    `json:"max_score"`
	First         string     `json:"first"`
	Last          string     `json:"last"`
	FinalState    string     `json:"final_state"`
	DeactivatedBy *string    `json:"deactivated_by"`
}

type jsonTotals struct {
	Agents       int       `json:"agents"`
	AgentsKilled int       `json:"agents_killed"`
	Requests     int       `json:"requests"`
	Forwarded    int       `json:"forwarded"`
	Kills        int       `json:"kills"`
	Blocks       int       `json:"blocks"`
	Blocked      int       `json:"blocked_after"`
	Skipped      int       `json:"skipped"`
	Saved        jsonSaved `json:"saved"`
	Total        jsonSaved `json:"total"`
}

type jsonSkip struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

type jsonInput struct {
	Malformed int        `json:"malformed"`
	Controls  int        `json:"control_records"`
	Skipped   []jsonSkip `json:"skipped"`
	// Warnings are the first analyze.KeptWarnings of each kind;
	// WarningCounts counts every one by kind.
	Warnings      []string        `json:"warnings"`
	WarningCounts []jsonWarnCount `json:"warning_counts"`
}

type jsonWarnCount struct {
	Kind  string `json:"kind"`
	Count int    `json:"count"`
}

func warnCounts(cs []analyze.WarningCount) []jsonWarnCount {
	out := []jsonWarnCount{}
	for _, c := range cs {
		out = append(out, jsonWarnCount{c.Kind.String(), c.Count})
	}
	return out
}

func savedJSON(s analyze.Saved) jsonSaved {
	return jsonSaved{s.Requests, s.TokensIn, s.TokensOut, RoundCost(s.CostUSD), s.Unpriced}
}

// RoundCost rounds a sum of costs to nano-dollars, so that float noise
// from adding many small costs (0.00007319999999999999) does not show.
func RoundCost(usd float64) float64 { return math.Round(usd*1e9) / 1e9 }

// TimelineJSON writes the whole summary as one indented JSON document. The
// agents are encoded one at a time as they are written, so that the
// document is never held whole (1M agents make ~600 MB of it).
func TimelineJSON(w io.Writer, s *analyze.Summary) error {
	out := jsonSummary{
		Profile: s.Profile.String(), Mode: s.Mode.String(),
		Settings: jsonSettings{s.Default.Enabled, s.Default.WindowSize, s.Default.Threshold},
		Agents:   []jsonAgent{},
		Input:    jsonInput{Malformed: s.Malformed, Controls: s.Controls, Skipped: []jsonSkip{}, Warnings: []string{}},
	}
	t := s.Totals
	out.Totals = jsonTotals{t.Agents, t.AgentsKilled, t.Requests, t.Forwarded, t.Kills, t.Blocks, t.Blocked, t.Skipped, savedJSON(t.Saved), savedJSON(t.Tokens)}
	for _, sk := range s.Skips {
		out.Input.Skipped = append(out.Input.Skipped, jsonSkip{sk.Reason, sk.Count})
	}
	for _, wn := range s.Warnings {
		out.Input.Warnings = append(out.Input.Warnings, wn.String())
	}
	out.Input.WarningCounts = warnCounts(s.WarningCounts)
	// The document without its agents, split where they go: the agents
	// array is the first one in it (after profile, mode and settings).
	var doc bytes.Buffer
	if err := WriteJSON(&doc, out); err != nil {
		return err
	}
	const open = `"agents": [`
	i := bytes.Index(doc.Bytes(), []byte(open+"]"))
	if i < 0 {
		return fmt.Errorf("timeline JSON: no agents array") // cannot happen: jsonSummary has one
	}
	i += len(open)
	bw := bufio.NewWriter(w)
	bw.Write(doc.Bytes()[:i])
	var ab bytes.Buffer
	enc := json.NewEncoder(&ab)
	enc.SetIndent("    ", "  ") // an element of a top-level array, as the document's encoder indents it
	enc.SetEscapeHTML(false)
	for k, a := range s.Agents {
		ab.Reset()
		if err := enc.Encode(agentJSON(a)); err != nil {
			return err
		}
		if k > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		bw.Write(bytes.TrimSuffix(ab.Bytes(), []byte("\n")))
	}
	if len(s.Agents) > 0 {
		bw.WriteString("\n  ")
	}
	bw.Write(doc.Bytes()[i:])
	return bw.Flush()
}

// agentJSON is one agent of the timeline document.
func agentJSON(a *analyze.AgentSummary) jsonAgent {
	ja := jsonAgent{Agent: a.Agent, Requests: a.Requests, Forwarded: a.Forwarded(), Skipped: a.Skipped(),
		Kills: []jsonKill{}, BlockedAfter: a.Blocked(), Blocks: a.Blocks(), Saved: savedJSON(a.Saved()), Total: savedJSON(a.Tokens),
		MaxScore: a.MaxScore, First: ingest.FormatTime(a.First), Last: ingest.FormatTime(a.Last), FinalState: a.FinalState().String()}
	if by := a.FinalDeactivatedBy(); by != "" {
		ja.DeactivatedBy = &by
	}
	for _, k := range a.Kills() {
		jk := jsonKill{Seq: k.Seq, AgentRequest: k.AgentN, TS: ingest.FormatTime(k.TS), Source: k.Source.String(),
			Action: k.Action.String(), Score: k.Score, Threshold: k.Threshold, Window: k.Window,
			SimilarPrompts: k.Counts.SimilarPrompts, SimilarResponses: k.Counts.SimilarResponses, RepeatedToolCalls: k.Counts.RepeatedToolCalls,
			Why: k.Why}
		if k.Action == analyze.ActionKill {
			jk.Alert = &jsonAlert{k.Alert.AgentID, k.Alert.RuleType, k.Alert.Message, ingest.FormatTime(k.Alert.Timestamp)}
		}
		ja.Kills = append(ja.Kills, jk)
	}
	return ja
}

// Wrap breaks a line of prose at spaces so that no line is wider than
// width; continuation lines are indented two spaces more than the line.
// A word longer than the width stays whole.
func Wrap(s string, width int) string {
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	indent := "  " + s[:len(s)-len(strings.TrimLeft(s, " "))]
	var b strings.Builder
	n := 0
	for i, word := range strings.Split(s, " ") {
		wl := utf8.RuneCountInString(word)
		switch {
		case i == 0:
		case n+1+wl > width:
			b.WriteString("\n" + indent)
			n = len(indent)
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(word)
		n += wl
	}
	return b.String()
}
