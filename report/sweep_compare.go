package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/killswitch/killswitch/analyze/sweep"
)

// Profile comparisons (`sweep --profiles spec,progress`): one table of
// every profile at its defaults and at its recommended setting, then each
// profile's own sweep. Each profile scores on its own scale, so thresholds
// are compared by what they do, never by value.

var compareHeader = []string{"profile", "setting", "window", "threshold", "killed", "caught", "late", "early", "missed",
	"healthy killed", "outside loop", "likely fp", "saved cost", "lost cost", "delay req (med / p90)", "pr area"}

// compareCompact are the columns a narrow comparison keeps: the false
// positives as healthy agents killed and loop agents killed outside
// their loop.
var compareCompact = []int{0, 1, 2, 3, 5, 6, 9, 10, 14}

var compareCompactHeader = []string{"PROFILE", "SETTING", "WINDOW", "THRESHOLD", "CAUGHT", "LATE", "HEALTHY", "OUTSIDE", "DELAY REQ"}

func compareTitle(c *sweep.Comparison) string {
	var names []string
	for _, r := range c.Results {
		names = append(names, r.Profile.String())
	}
	r := c.Results[0]
	return fmt.Sprintf("profiles %s, mode %s, the same captures and ground truth; each profile on its own threshold scale",
		strings.Join(names, ", "), r.Mode)
}

func compareRows(c *sweep.Comparison) [][]string {
	var rows [][]string
	for _, cr := range c.Rows {
		r := c.Results[cr.Result]
		if cr.Setting < 0 {
			row := []string{r.Profile.String(), "recommended", "none", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-"}
			rows = append(rows, row)
			continue
		}
		s := &r.Settings[cr.Setting]
		full := sweepRows(r)[cr.Setting]
		th := sweepNum(s.Threshold) + " " + r.Profile.Op()
		area := "-"
		if a, ok := r.Area(s.Window); ok {
			area = strconv.FormatFloat(a, 'f', 3, 64)
		}
		// full: window threshold killed caught late early missed healthy outside likely blocked st sc lt lc delayreq delays
		rows = append(rows, []string{r.Profile.String(), cr.What, full[0], th, full[2], full[3], full[4], full[5], full[6],
			full[7], full[8], full[9], full[12], full[14], full[15], area})
	}
	return rows
}

// compareNote says what the rows are.
func compareNote(c *sweep.Comparison) string {
	return fmt.Sprintf("defaults: the profile's own window and threshold (when the grid holds them); recommended: the most loops caught with at most %d false positives, ties to the higher threshold; pr area: average precision over the thresholds of that window",
		c.Results[0].MaxFalsePositives)
}

// SweepCompareTable renders a comparison as terminal tables: the
// comparison, then each profile's sweep as SweepTableOpts renders it.
func SweepCompareTable(w io.Writer, c *sweep.Comparison, opt SweepTableOptions) error {
	width := opt.Width
	if width <= 0 {
		width = DefaultWidth
	}
	fmt.Fprintf(w, "%s\n%s\n\n", Wrap("Profiles compared — "+compareTitle(c), width), Wrap(truthLine(c.Results[0]), width))
	header, rows := upper(compareHeader), compareRows(c)
	if !opt.Wide && tableWidth(header, rows, nil) > width {
		header = compareCompactHeader
		for i := range rows {
			rows[i] = pick(rows[i], compareCompact)
		}
	}
	if err := asciiTable(w, header, rows, nil); err != nil {
		return err
	}
	if header[6] == "HEALTHY" {
		fmt.Fprintln(w, Wrap("(HEALTHY: healthy agents killed; OUTSIDE: loop agents killed outside their loop; the false positives are both)", width))
	}
	fmt.Fprintln(w, Wrap("("+compareNote(c)+")", width))
	for _, r := range c.Results {
		fmt.Fprintln(w)
		if err := SweepTableOpts(w, r, opt); err != nil {
			return err
		}
	}
	return nil
}

// SweepCompareMarkdown renders a comparison as GitHub-flavoured Markdown.
func SweepCompareMarkdown(w io.Writer, c *sweep.Comparison) error {
	fmt.Fprintf(w, "## Profiles compared\n\n%s\n\n%s\n\n", compareTitle(c), truthLine(c.Results[0]))
	mdRow(w, compareHeader)
	seps := make([]string, len(compareHeader))
	for i := range seps {
		seps[i] = "---:"
	}
	seps[0], seps[1] = "---", "---"
	fmt.Fprintf(w, "|%s|\n", strings.Join(seps, "|"))
	for _, row := range compareRows(c) {
		mdRow(w, row)
	}
	fmt.Fprintf(w, "\n%s\n", compareNote(c))
	for _, r := range c.Results {
		fmt.Fprintln(w)
		if err := SweepMarkdown(w, r); err != nil {
			return err
		}
	}
	return nil
}

// SweepCompareCSV writes every profile's settings as SweepCSV does, with
// the profile as the first column.
func SweepCompareCSV(w io.Writer, c *sweep.Comparison) error {
	cw := csv.NewWriter(w)
	cw.Write(append([]string{"profile"}, sweepCSVHeader...))
	for _, r := range c.Results {
		for _, row := range sweepCSVRows(r) {
			cw.Write(append([]string{r.Profile.String()}, row...))
		}
	}
	cw.Flush()
	return cw.Error()
}

type compareJSON struct {
	Profiles   []string         `json:"profiles"`
	Comparison []compareJSONRow `json:"comparison"`
	Sweeps     []sweepJSON      `json:"sweeps"`
}

type compareJSONRow struct {
	Profile string `json:"profile"`
	// Setting is "defaults" or "recommended".
	Setting string `json:"setting"`
	sweepJSONConfig
	PRArea *float64 `json:"pr_area"`
}

// SweepCompareJSON writes one JSON document: "profiles", "comparison" (one
// object per profile and setting, with the per-setting fields of
// SweepJSON's configs) and "sweeps" (each profile's SweepJSON document).
func SweepCompareJSON(w io.Writer, c *sweep.Comparison) error {
	out := compareJSON{Profiles: []string{}, Comparison: []compareJSONRow{}, Sweeps: []sweepJSON{}}
	for _, r := range c.Results {
		out.Profiles = append(out.Profiles, r.Profile.String())
		out.Sweeps = append(out.Sweeps, sweepJSONOf(r))
	}
	for _, cr := range c.Rows {
		r := c.Results[cr.Result]
		if cr.Setting < 0 {
			continue // SweepJSON's "recommended" is null
		}
		row := compareJSONRow{Profile: r.Profile.String(), Setting: cr.What, sweepJSONConfig: out.Sweeps[cr.Result].Configs[cr.Setting]}
		if a, ok := r.Area(r.Settings[cr.Setting].Window); ok {
			row.PRArea = &a
		}
		out.Comparison = append(out.Comparison, row)
	}
	return WriteJSON(w, out)
}

// SweepCompareHTML writes one self-contained page: the comparison table,
// then each profile's sweep with its charts.
func SweepCompareHTML(w io.Writer, c *sweep.Comparison) error {
	var d HTMLDoc
	d.F("<h1>killswitch profiles compared</h1>\n<p class=\"meta\">%s</p>\n<p class=\"meta\">%s</p>\n",
		HTMLEsc(compareTitle(c)), HTMLEsc(truthLine(c.Results[0])))
	d.F("<div class=\"scroll\">\n")
	HTMLTable(&d, compareHeader, compareRows(c), -1, 0, 1)
	d.F("</div>\n<p class=\"small\">%s</p>\n", HTMLEsc(compareNote(c)))
	for _, r := range c.Results {
		d.F("<h1>Profile %s</h1>\n", HTMLEsc(r.Profile.String()))
		sweepHTMLBody(&d, r)
	}
	return HTMLPage(w, "killswitch profiles compared", d.String())
}
