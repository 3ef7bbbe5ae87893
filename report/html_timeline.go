package report

import (
	"fmt"
	"io"

	"github.com/killswitch/killswitch/analyze"
)

// MaxTimelineCharts bounds the score charts of a replay page: every killed
// agent first, then the others by highest score.
const MaxTimelineCharts = 100

// chartedAgents are the agents a replay page charts, best first, and how
// many made requests (have a series): killed agents first (by id), then by
// highest score; MaxTimelineCharts at most.
func chartedAgents(s *analyze.Summary) (order []*analyze.AgentSummary, charted int) {
	before := func(a, b *analyze.AgentSummary) bool {
		ka, kb := len(a.Kills()) > 0, len(b.Kills()) > 0
		if ka != kb {
			return ka
		}
		if !ka && a.MaxScore != b.MaxScore {
			return a.MaxScore > b.MaxScore
		}
		return a.Agent < b.Agent
	}
	hasSeries := func(a *analyze.AgentSummary) bool { return a.Requests > 0 } // a decision, a point
	for _, a := range s.Agents {
		if hasSeries(a) {
			charted++
		}
	}
	return bestAgents(s.Agents, MaxTimelineCharts, before, hasSeries), charted
}

// ChartedAgents are the agents whose series TimelineHTML asks for.
func ChartedAgents(s *analyze.Summary) []string {
	order, _ := chartedAgents(s)
	names := make([]string, len(order))
	for i, a := range order {
		names[i] = a.Agent
	}
	return names
}

// TimelineHTML writes the timelines of one replay as a self-contained
// HTML page: the timeline table, then the score over requests of the
// agents that matter most (series gives an agent's, from
// analyze.SeriesCollector) with its threshold line, kills and the
// requests refused while it was inactive, then the alerts. Like the
// terminal table, past MaxRows rows the table shows the agents that
// matter most, unless opt.All; the charts are MaxTimelineCharts at most.
func TimelineHTML(w io.Writer, s *analyze.Summary, series func(agent string) (analyze.AgentSeries, bool), opt TableOptions) error {
	d := newHTMLStream(w, "killswitch replay")
	d.F("<h1>killswitch replay</h1>\n<p class=\"meta\">%s</p>\n", HTMLEsc(settingsLine(s)))
	for _, l := range inputLines(s) {
		d.F("<p class=\"meta\">%s</p>\n", HTMLEsc(l))
	}
	d.F("<h2>Deactivation timelines</h2>\n")
	shown, nrows := shownAgents(s, opt.All)
	left := []int{0, 2}
	htmlTableHead(&d.HTMLDoc, timelineHeaderOf(s), left...)
	if err := eachRow(s, shown, func(r []string) error {
		htmlRow(&d.HTMLDoc, r, false, left...)
		return d.maybeFlush()
	}); err != nil {
		return err
	}
	htmlRow(&d.HTMLDoc, timelineTotal(s), false, left...)
	htmlTableEnd(&d.HTMLDoc)
	if l := omittedLine(shown, nrows); l != "" {
		d.F("<p class=\"small\">%s</p>\n", HTMLEsc(l))
	}

	order, charted := chartedAgents(s)
	if len(order) > 0 {
		d.F("<h2>Score over time</h2>\n<p class=\"small\">Each request's score; the dashed line is the agent's threshold, red dots the kills, grey the requests refused while the agent was inactive.")
		if charted > MaxTimelineCharts {
			d.F(" The %d agents shown are the killed ones first, then the highest scores; %d more are in the table only.", MaxTimelineCharts, charted-MaxTimelineCharts)
		}
		d.F("</p>\n<div class=\"charts\">\n")
		for _, a := range order {
			sr, ok := series(a.Agent)
			if !ok {
				return fmt.Errorf("replay page: no score series for agent %q", a.Agent)
			}
			d.F("<figure class=\"agent\">\n<figcaption><b>%s</b>", HTMLEsc(sr.Agent))
			if len(a.Kills()) > 0 {
				k := a.Kills()[0]
				d.F(`<span class="tag fp">%s</span>`, HTMLEsc(fmt.Sprintf("killed at request %d (score %s%s%s), %d refused after",
					k.AgentN, score(k.Score), killOp(s.Profile), sweepNum(k.Threshold), a.Blocked())))
			} else {
				d.F(`<span class="tag ok">%s</span>`, HTMLEsc("not killed, max score "+score(sr.MaxScore())))
			}
			d.F("</figcaption>\n")
			scoreChart(&d.HTMLDoc, &sr)
			d.F("</figure>\n")
			if err := d.maybeFlush(); err != nil {
				return err
			}
		}
		d.F("</div>\n")
	}
	err := alertSection(s, shown, func() { d.F("<h2>Alerts that would have gone out</h2>\n<pre>") },
		func(l string) error { d.F("%s\n", HTMLEsc(l)); return d.maybeFlush() },
		func(omitted int) {
			if omitted > 0 && shown != nil {
				d.F("%s\n", HTMLEsc(alertsOmittedLine(omitted)))
			}
			d.F("</pre>\n")
		})
	if err != nil {
		return err
	}
	return d.end()
}
