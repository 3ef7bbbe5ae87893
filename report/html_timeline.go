package report

import (
	"fmt"
	"io"
	"sort"

	"github.com/killswitch/killswitch/analyze"
)

// MaxTimelineCharts bounds the score charts of a replay page: every killed
// agent first, then the others by highest score.
const MaxTimelineCharts = 100

// TimelineHTML writes the timelines of one replay as a self-contained
// HTML page: the timeline table, then each agent's score over its requests
// (series from analyze.SeriesCollector) with its threshold line, kills and
// the requests refused while it was inactive, then the alerts.
func TimelineHTML(w io.Writer, s *analyze.Summary, series []analyze.AgentSeries) error {
	var d htmlDoc
	d.f("<h1>killswitch replay</h1>\n<p class=\"meta\">%s</p>\n", htmlEsc(settingsLine(s)))
	for _, l := range inputLines(s) {
		d.f("<p class=\"meta\">%s</p>\n", htmlEsc(l))
	}
	d.f("<h2>Deactivation timelines</h2>\n")
	rows, total := timelineRows(s)
	htmlTable(&d, timelineHeader, append(rows, total), -1, 0, 2)

	killed := map[string]*analyze.AgentSummary{}
	for _, a := range s.Agents {
		if len(a.Kills()) > 0 {
			killed[a.Agent] = a
		}
	}
	order := make([]*analyze.AgentSeries, 0, len(series))
	for i := range series {
		order = append(order, &series[i])
	}
	sort.SliceStable(order, func(i, j int) bool {
		ki, kj := killed[order[i].Agent] != nil, killed[order[j].Agent] != nil
		if ki != kj {
			return ki
		}
		if !ki && order[i].MaxScore() != order[j].MaxScore() {
			return order[i].MaxScore() > order[j].MaxScore()
		}
		return order[i].Agent < order[j].Agent
	})
	if len(order) > 0 {
		d.f("<h2>Score over time</h2>\n<p class=\"small\">Each request's score; the dashed line is the agent's threshold, red dots the kills, grey the requests refused while the agent was inactive.")
		if len(order) > MaxTimelineCharts {
			d.f(" The %d agents shown are the killed ones first, then the highest scores; %d more are in the table only.", MaxTimelineCharts, len(order)-MaxTimelineCharts)
			order = order[:MaxTimelineCharts]
		}
		d.f("</p>\n<div class=\"charts\">\n")
		for _, sr := range order {
			d.f("<figure class=\"agent\">\n<figcaption><b>%s</b>", htmlEsc(sr.Agent))
			if a := killed[sr.Agent]; a != nil {
				k := a.Kills()[0]
				d.f(`<span class="tag fp">%s</span>`, htmlEsc(fmt.Sprintf("killed at request %d (score %s%s%s), %d refused after",
					k.AgentN, score(k.Score), killOp(s.Profile), sweepNum(k.Threshold), a.Blocked())))
			} else {
				d.f(`<span class="tag ok">%s</span>`, htmlEsc("not killed, max score "+score(sr.MaxScore())))
			}
			d.f("</figcaption>\n")
			scoreChart(&d, sr)
			d.f("</figure>\n")
		}
		d.f("</div>\n")
	}
	if al, _ := alertLines(s, nil); len(al) > 0 {
		d.f("<h2>Alerts that would have gone out</h2>\n<pre>")
		for _, l := range al {
			d.f("%s\n", htmlEsc(l))
		}
		d.f("</pre>\n")
	}
	return htmlPage(w, "killswitch replay", d.String())
}
