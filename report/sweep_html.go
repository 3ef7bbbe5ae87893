package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/sweep"
)

// sweepCatches and sweepFPs are what the recommendation weighs: ground
// truth where it exists, the heuristic for agents without it.
func sweepCatches(s *sweep.Setting) int { return s.LoopsCaught() + s.HeuristicLoops }
func sweepFPs(s *sweep.Setting) int {
	return len(s.FalsePositives) + len(s.LikelyFalsePositives)
}

// heatMap draws one value per setting: windows down, thresholds across.
func heatMap(d *HTMLDoc, r *sweep.Result, metric, title string, val func(*sweep.Setting) int, rgb [3]int) {
	nt, nw := len(r.Thresholds), len(r.Windows)
	cw := min(max(440.0/float64(nt), 14), 48)
	const ch, L, T = 24.0, 76.0, 36.0
	W, H := L+float64(nt)*cw+10, T+float64(nw)*ch+10
	top := 0
	for i := range r.Settings {
		top = max(top, val(&r.Settings[i]))
	}
	d.F(`<figure><figcaption>%s</figcaption>`+"\n", HTMLEsc(title))
	d.F(`<svg class="heatmap" data-metric="%s" xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" role="img">`+"\n",
		metric, SVGNum(W), SVGNum(H), SVGNum(W), SVGNum(H))
	d.F("<title>%s</title>\n", HTMLEsc(title))
	every := max(1, int(30/cw+0.999))
	for ti, th := range r.Thresholds {
		if ti%every == 0 {
			d.F(`<text x="%s" y="%s" text-anchor="middle">%s</text>`+"\n", SVGNum(L+(float64(ti)+0.5)*cw), SVGNum(T-8), sweepNum(th))
		}
	}
	d.F(`<text x="%s" y="%s">threshold →</text>`+"\n", SVGNum(L), SVGNum(11))
	for wi, w := range r.Windows {
		yy := T + float64(wi)*ch
		d.F(`<text x="%s" y="%s" text-anchor="end">window %d</text>`+"\n", SVGNum(L-6), SVGNum(yy+ch/2+4), w)
		for ti, th := range r.Thresholds {
			s := &r.Settings[wi*nt+ti]
			v := val(s)
			share := 0.0
			if top > 0 {
				share = float64(v) / float64(top)
			}
			xx := L + float64(ti)*cw
			mix := 0.12 + 0.88*share*boolF(v > 0)
			d.F(`<rect class="cell" data-window="%d" data-threshold="%s" data-value="%d" x="%s" y="%s" width="%s" height="%s" fill="%s" stroke="#ffffff"><title>window %d, threshold %s: %d</title></rect>`+"\n",
				w, sweepNum(th), v, SVGNum(xx), SVGNum(yy), SVGNum(cw), SVGNum(ch), htmlMix(rgb, mix), w, sweepNum(th), v)
			if cw >= 16 {
				d.F(`<text class="v" x="%s" y="%s" text-anchor="middle" style="fill:%s">%d</text>`+"\n", SVGNum(xx+cw/2), SVGNum(yy+ch/2+4), htmlTextOn(rgb, mix), v)
			}
		}
	}
	if r.Recommended >= 0 {
		wi, ti := r.Recommended/nt, r.Recommended%nt
		d.F(`<rect class="recommended" x="%s" y="%s" width="%s" height="%s" fill="none" stroke="#1d232a" stroke-width="2.5"><title>recommended</title></rect>`+"\n",
			SVGNum(L+float64(ti)*cw), SVGNum(T+float64(wi)*ch), SVGNum(cw), SVGNum(ch))
	}
	d.F("</svg></figure>\n")
}

func boolF(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// prChart draws the precision/recall curve of each window, points in
// threshold order.
func prChart(d *HTMLDoc, r *sweep.Result) {
	const W, H, L, R, T, B = 380.0, 330.0, 46.0, 14.0, 12.0, 40.0
	pw, ph := W-L-R, H-T-B
	x := func(v float64) float64 { return L + v*pw }
	y := func(v float64) float64 { return T + ph - v*ph }
	d.F(`<figure><figcaption>Precision and recall per window, over the thresholds</figcaption>` + "\n")
	d.F(`<svg class="pr-curve" xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" role="img">`+"\n", SVGNum(W), SVGNum(H), SVGNum(W), SVGNum(H))
	d.F("<title>precision/recall curves</title>\n")
	d.F(`<rect x="%s" y="%s" width="%s" height="%s" fill="#fbfcfd" stroke="#e3e6ea"/>`+"\n", SVGNum(L), SVGNum(T), SVGNum(pw), SVGNum(ph))
	for _, v := range []float64{0, 0.25, 0.5, 0.75, 1} {
		d.F(`<line x1="%s" x2="%s" y1="%s" y2="%s" stroke="#eceef1"/><text x="%s" y="%s" text-anchor="end">%s</text>`+"\n",
			SVGNum(L), SVGNum(L+pw), SVGNum(y(v)), SVGNum(y(v)), SVGNum(L-4), SVGNum(y(v)+4), sweepNum(v))
		d.F(`<line x1="%s" x2="%s" y1="%s" y2="%s" stroke="#eceef1"/><text x="%s" y="%s" text-anchor="middle">%s</text>`+"\n",
			SVGNum(x(v)), SVGNum(x(v)), SVGNum(T), SVGNum(T+ph), SVGNum(x(v)), SVGNum(T+ph+14), sweepNum(v))
	}
	d.F(`<text x="%s" y="%s" text-anchor="middle">recall</text>`+"\n", SVGNum(L+pw/2), SVGNum(H-6))
	d.F(`<text x="12" y="%s" transform="rotate(-90 12 %s)" text-anchor="middle">precision</text>`+"\n", SVGNum(T+ph/2), SVGNum(T+ph/2))
	for ci, c := range r.Curves {
		color := htmlPalette[ci%len(htmlPalette)]
		var ths, ps, rs, xy []string
		for _, p := range c.Points {
			ths = append(ths, sweepNum(p.Threshold))
			ps = append(ps, strconv.FormatFloat(p.Precision, 'f', 4, 64))
			rs = append(rs, strconv.FormatFloat(p.Recall, 'f', 4, 64))
			xy = append(xy, SVGNum(x(p.Recall))+","+SVGNum(y(p.Precision)))
		}
		// Earlier curves are drawn wider, and later ones dashed, so that
		// curves that coincide stay visible under later ones: through the
		// gaps, and beside them.
		width := 1.8 + 2*float64(len(r.Curves)-1-ci)
		dash := prDash(ci)
		d.F(`<polyline class="pr" data-window="%d" data-area="%s" data-threshold="%s" data-precision="%s" data-recall="%s" points="%s" fill="none" stroke="%s" stroke-width="%s" stroke-linejoin="round"%s opacity="0.85"><title>window %d: area %.3f</title></polyline>`+"\n",
			c.Window, strconv.FormatFloat(c.Area, 'f', 4, 64), strings.Join(ths, " "), strings.Join(ps, " "), strings.Join(rs, " "), strings.Join(xy, " "), color, SVGNum(width), dash, c.Window, c.Area)
		for _, p := range c.Points {
			d.F(`<circle cx="%s" cy="%s" r="3" fill="%s"><title>window %d, threshold %s: precision %.2f, recall %.2f</title></circle>`+"\n",
				SVGNum(x(p.Recall)), SVGNum(y(p.Precision)), color, c.Window, sweepNum(p.Threshold), p.Precision, p.Recall)
		}
		ly := T + ph - 12 - float64(len(r.Curves)-1-ci)*15
		d.F(`<line x1="%s" x2="%s" y1="%s" y2="%s" stroke="%s" stroke-width="3"%s/><text x="%s" y="%s">window %d (area %.3f)</text>`+"\n",
			SVGNum(L+10), SVGNum(L+28), SVGNum(ly), SVGNum(ly), color, dash, SVGNum(L+33), SVGNum(ly+4), c.Window, c.Area)
	}
	d.F("</svg></figure>\n")
}

// prDash is the dash pattern of the ci-th precision/recall curve: the
// first solid, the next ones dashed ever shorter.
func prDash(ci int) string {
	if ci == 0 {
		return ""
	}
	on := max(10-3*(ci-1), 3)
	return fmt.Sprintf(` stroke-dasharray="%d 5"`, on)
}

// seriesCaption describes a chart's agent and what the chart's setting did.
func seriesCaption(d *HTMLDoc, r *sweep.Result, s *analyze.AgentSeries, chart *sweep.Setting) {
	var a *sweep.Agent
	for i := range r.Agents {
		if r.Agents[i].Agent == s.Agent {
			a = &r.Agents[i]
		}
	}
	d.F("<figcaption><b>%s</b>", HTMLEsc(s.Agent))
	if a != nil {
		var tag string
		switch a.Class {
		case sweep.ClassLoop:
			tag = fmt.Sprintf("loop, requests %d–%d (%s)", a.Start, a.End, a.Source)
		case sweep.ClassLegit:
			tag = "healthy (" + a.Source.String() + ")"
		default:
			tag = "no ground truth"
		}
		d.F(`<span class="tag %s">%s</span>`, a.Class, HTMLEsc(tag))
	}
	if o := chart.Outcome(s.Agent); o != nil && len(o.Kills) > 0 {
		k := o.Kills[0]
		what := fmt.Sprintf("killed at request %d (score %s)", k.AgentN, sweepNum(k.Score))
		cls := "ok"
		switch {
		case o.Verdict == sweep.VerdictCaught || o.Verdict == sweep.VerdictCaughtLate:
			what += fmt.Sprintf(", %s: %d requests, %s s after the loop's start", o.Verdict, o.DelayRequests, sweepNum(o.DelaySeconds))
		case o.FalsePositive:
			what += ": false positive"
			cls = "fp"
		case o.Heuristic == sweep.HeuristicLikelyFP:
			what += ": likely false positive"
			cls = "fp"
		case o.Heuristic != sweep.HeuristicNone:
			what += ": " + o.Heuristic.String()
		}
		d.F(`<span class="tag %s">%s</span>`, cls, HTMLEsc(what))
	} else {
		d.F(`<span class="tag unknown">not killed at this setting</span>`)
	}
	d.F("</figcaption>\n")
}

// SweepHTML writes the sweep as one self-contained HTML page: heat maps
// of catches and false positives over the grid, the precision/recall
// curves, the table of every setting, and a score-over-time chart for each
// agent in r.Series (scores as if never killed, the chart setting's
// threshold line and kills).
func SweepHTML(w io.Writer, r *sweep.Result) error {
	var d HTMLDoc
	d.F("<h1>killswitch threshold sweep</h1>\n")
	sweepHTMLBody(&d, r)
	return HTMLPage(w, "killswitch threshold sweep", d.String())
}

// sweepHTMLBody writes one sweep's sections below its title.
func sweepHTMLBody(d *HTMLDoc, r *sweep.Result) {
	d.F("<p class=\"meta\">%s</p>\n<p class=\"meta\">%s</p>\n", HTMLEsc(sweepTitle(r)), HTMLEsc(truthLine(r)))
	// Nothing recommended is a finding to act on, not a success.
	box := "rec"
	if r.Recommended < 0 {
		box = "rec none"
	}
	d.F("<div class=\"%s\">\n<p>%s</p>\n", box, HTMLEsc(recommendLine(r)))
	if l := areaLine(r); l != "" {
		d.F("<p>%s</p>\n", HTMLEsc(l))
	}
	d.F("</div>\n")

	note := ""
	if r.Truth.Unknown > 0 {
		note = " (agents without ground truth counted by the heuristic)"
	}
	d.F("<h2>Catches and false positives over the grid</h2>\n<div class=\"row\">\n")
	heatMap(d, r, "caught", "Loops caught, late ones included"+note, sweepCatches, [3]int{46, 158, 68})
	heatMap(d, r, "false_positives", "False positives: healthy agents killed + loop agents killed outside their loop"+note, sweepFPs, [3]int{214, 39, 40})
	if r.Recommended >= 0 {
		d.F("</div>\n<p class=\"small\">The framed cell is the recommended setting: the most loops caught with at most %d false positives; ties go to the higher threshold.</p>\n", r.MaxFalsePositives)
	} else {
		d.F("</div>\n<p class=\"small\">No cell is framed: every setting has more than %d false positives, so none is recommended.</p>\n", r.MaxFalsePositives)
	}

	if len(r.Curves) > 0 {
		d.F("<h2>Precision and recall</h2>\n<div class=\"row\">\n")
		prChart(d, r)
		d.F("</div>\n<p class=\"small\">Precision = loops caught / (loops caught + agents killed outside a loop); recall = loops caught / loop agents. Area: average precision over the thresholds.</p>\n")
	}

	d.F("<h2>Every setting</h2>\n<div class=\"scroll\">\n")
	HTMLTable(d, sweepHeader, sweepRows(r), r.Recommended)
	d.F("</div>\n")
	for _, n := range sweepNotes(r)[1:] {
		if h := n[0].(string); h != "" {
			d.F("<h2>%s</h2>\n", HTMLEsc(h))
			HTMLList(d, n[1].([]string))
			continue
		}
		for _, l := range n[1].([]string) {
			d.F("<p class=\"small\">%s</p>\n", HTMLEsc(l))
		}
	}

	if len(r.Series) > 0 {
		chart := &r.Settings[r.SeriesSetting]
		d.F("<h2>Score over time</h2>\n<p class=\"small\">Every agent killed at some threshold of window %d, scored as if it had never been killed; the dashed line is threshold %s (%s), red dots its kills, shaded orange the labelled loop.</p>\n",
			chart.Window, sweepNum(chart.Threshold), map[bool]string{true: "the recommended setting", false: "the highest threshold"}[r.Recommended >= 0])
		d.F("<div class=\"charts\">\n")
		for i := range r.Series {
			s := &r.Series[i]
			d.F("<figure class=\"agent\">\n")
			seriesCaption(d, r, s, chart)
			scoreChart(d, s)
			d.F("</figure>\n")
		}
		d.F("</div>\n")
	}
}
