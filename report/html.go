package report

import (
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
)

// HTML reports are one self-contained file: inline CSS, hand-written SVG,
// no script and nothing fetched. The markup is also well-formed XML
// (every element closed, attributes quoted, text escaped with the XML
// entities or numeric ones), so tests read it with encoding/xml. Charts
// carry their data in data-* attributes: data-n / data-score on a score
// path, data-value on a threshold line, data-window / data-threshold
// / data-value on heat-map cells, data-recall / data-precision on
// precision/recall curves.

// HTMLDoc accumulates a page.
type HTMLDoc struct{ strings.Builder }

func (d *HTMLDoc) F(format string, args ...any) { fmt.Fprintf(d, format, args...) }

// HTMLEsc escapes text and attribute values.
func HTMLEsc(s string) string { return html.EscapeString(s) }

// SVGNum formats a coordinate.
func SVGNum(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

const htmlCSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px auto;max-width:1200px;color:#1d232a;padding:0 16px}
h1{font-size:22px;margin:0 0 6px}
h2{font-size:17px;margin:30px 0 10px;border-bottom:1px solid #e3e6ea;padding-bottom:4px}
p.meta{color:#59636e;margin:2px 0}
div.rec{background:#eef7ee;border:1px solid #b7dcb7;border-radius:6px;padding:10px 14px;margin:16px 0}
div.rec p{margin:3px 0}
div.rec.none{background:#fff6e5;border-color:#e8c27a}
td.l{max-width:32em;overflow:hidden;text-overflow:ellipsis}
table{border-collapse:collapse;font-size:12.5px;font-variant-numeric:tabular-nums}
th,td{padding:3px 8px;border-bottom:1px solid #eceef1;text-align:right;white-space:nowrap}
th{background:#f6f8fa}
td.l,th.l{text-align:left}
tr.recommended td{background:#e3f3e3;font-weight:600}
div.row{display:flex;flex-wrap:wrap;gap:18px;align-items:flex-start}
div.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));gap:14px}
figure{margin:0;border:1px solid #e3e6ea;border-radius:6px;padding:8px 10px;background:#fff}
figcaption{font-size:13px;margin-bottom:4px}
figure.lane{margin:10px 0}
b.lane{font-size:15px}
svg text{font-size:11px;fill:#59636e}
svg text.v{fill:#1d232a;font-size:10.5px}
svg text.lane{fill:#1d232a;font-size:13px;font-weight:600}
span.tag{display:inline-block;border-radius:3px;padding:0 5px;font-size:11.5px;margin-left:4px}
span.loop{background:#fde2c8} span.legit{background:#d8ecfb} span.unknown{background:#eceef1}
span.fp{background:#f9d0d0} span.ok{background:#d4efd4}
ul.notes li{margin:2px 0}
div.scroll{overflow-x:auto;max-width:100%}
p.small{font-size:12px;color:#59636e}
@media print{body{margin:0;max-width:none}figure,tr{break-inside:avoid}div.scroll{overflow:visible}table{font-size:10px}}
`

// HTMLPage writes a page with title and body (already markup).
func HTMLPage(w io.Writer, title, body string) error {
	var d HTMLDoc
	htmlPageHead(&d, title)
	d.WriteString(body)
	htmlPageTail(&d)
	_, err := io.WriteString(w, d.String())
	return err
}

// htmlPageHead and htmlPageTail are what htmlPage writes around the body,
// for a page written in pieces (htmlStream).
func htmlPageHead(d *HTMLDoc, title string) {
	d.F("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n")
	d.F("<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n", HTMLEsc(title), htmlCSS)
}

func htmlPageTail(d *HTMLDoc) { d.F("</body>\n</html>\n") }

// htmlStream is a page written to w in pieces: its markup is gathered in
// the HTMLDoc and passed on whenever more than htmlFlushAt bytes are
// waiting, so a page of a million table rows is never held whole. The
// first write error is kept and returned by flush and end.
type htmlStream struct {
	HTMLDoc
	w   io.Writer
	err error
}

const htmlFlushAt = 64 << 10

func newHTMLStream(w io.Writer, title string) *htmlStream {
	s := &htmlStream{w: w}
	htmlPageHead(&s.HTMLDoc, title)
	return s
}

// maybeFlush passes the markup on once enough is waiting.
func (s *htmlStream) maybeFlush() error {
	if s.Len() < htmlFlushAt {
		return s.err
	}
	return s.flush()
}

func (s *htmlStream) flush() error {
	if s.err == nil {
		_, s.err = io.WriteString(s.w, s.String())
	}
	s.Reset()
	return s.err
}

// end closes the page and writes what is left.
func (s *htmlStream) end() error {
	htmlPageTail(&s.HTMLDoc)
	return s.flush()
}

// HTMLTable writes a table; rows whose index is hi get class recommended.
// Columns listed in left are left-aligned.
func HTMLTable(d *HTMLDoc, header []string, rows [][]string, hi int, left ...int) {
	htmlTableHead(d, header, left...)
	for ri, r := range rows {
		htmlRow(d, r, ri == hi, left...)
	}
	htmlTableEnd(d)
}

// htmlTableHead, htmlRow and htmlTableEnd write a table in pieces, as
// HTMLTable does; a recommended row gets class recommended.
func htmlTableHead(d *HTMLDoc, header []string, left ...int) {
	d.F("<table>\n<thead><tr>")
	for i, h := range header {
		d.F("<th%s>%s</th>", htmlAlign(i, left), HTMLEsc(h))
	}
	d.F("</tr></thead>\n<tbody>\n")
}

func htmlRow(d *HTMLDoc, r []string, recommended bool, left ...int) {
	if recommended {
		d.F(`<tr class="recommended">`)
	} else {
		d.F("<tr>")
	}
	for i, c := range r {
		if len(c) > 40 && slices.Contains(left, i) {
			// A long name is cut with an ellipsis (td.l); the whole name
			// is its title.
			d.F(`<td class="l" title="%s">%s</td>`, HTMLEsc(c), HTMLEsc(c))
			continue
		}
		d.F("<td%s>%s</td>", htmlAlign(i, left), HTMLEsc(c))
	}
	d.F("</tr>\n")
}

func htmlTableEnd(d *HTMLDoc) { d.F("</tbody>\n</table>\n") }

// htmlAlign is the class attribute of column i: left-aligned when listed
// in left.
func htmlAlign(i int, left []int) string {
	if slices.Contains(left, i) {
		return ` class="l"`
	}
	return ""
}

func HTMLList(d *HTMLDoc, lines []string) {
	if len(lines) == 0 {
		return
	}
	d.F("<ul class=\"notes\">\n")
	for _, l := range lines {
		d.F("<li>%s</li>\n", HTMLEsc(l))
	}
	d.F("</ul>\n")
}

// niceCeil rounds v up to 1, 2, 2.5 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// mix blends white with rgb by share t in [0, 1].
func htmlMix(rgb [3]int, t float64) string {
	c := func(v int) int { return int(math.Round(255 + (float64(v)-255)*t)) }
	return fmt.Sprintf("#%02x%02x%02x", c(rgb[0]), c(rgb[1]), c(rgb[2]))
}

// htmlTextOn returns the text color readable on a background of rgb mixed
// with white by t (htmlMix): the page's dark text, or white where that
// has the better contrast (WCAG's relative luminance), so that a number
// on a dark heat-map cell stays legible.
func htmlTextOn(rgb [3]int, t float64) string {
	lum := 0.0
	for i, w := range [3]float64{0.2126, 0.7152, 0.0722} {
		c := math.Round(255+(float64(rgb[i])-255)*t) / 255
		if c <= 0.04045 {
			c /= 12.92
		} else {
			c = math.Pow((c+0.055)/1.055, 2.4)
		}
		lum += w * c
	}
	const dark = 0.0159 // #1d232a
	if (1.05)/(lum+0.05) > (lum+0.05)/(dark+0.05) {
		return "#ffffff"
	}
	return "#1d232a"
}

var htmlPalette = []string{"#3b6fb6", "#e07b39", "#2e9e44", "#9467bd", "#8c564b", "#17becf", "#bcbd22", "#7f7f7f"}

// maxChartPoints bounds the points drawn per score chart; longer series
// keep the highest score of each bucket (and every kill).
const maxChartPoints = 1500

// scoredPoints returns the points that carry a score (not refused while
// inactive, not skipped), thinned to maxChartPoints, and the bucket size.
func scoredPoints(s *analyze.AgentSeries) ([]analyze.ScorePoint, int) {
	var pts []analyze.ScorePoint
	for _, p := range s.Points {
		if p.Action != analyze.ActionBlocked && p.Action != analyze.ActionSkip {
			pts = append(pts, p)
		}
	}
	if len(pts) <= maxChartPoints {
		return pts, 1
	}
	kill := map[int]bool{}
	for _, k := range s.Kills {
		kill[k] = true
	}
	b := (len(pts) + maxChartPoints - 1) / maxChartPoints
	var out []analyze.ScorePoint
	for i := 0; i < len(pts); i += b {
		best := pts[i]
		for _, p := range pts[i:min(i+b, len(pts))] {
			if kill[p.N] {
				out = append(out, p)
			}
			if p.Score > best.Score {
				best = p
			}
		}
		if !kill[best.N] {
			out = append(out, best)
		}
	}
	// Kills and bucket maxima interleave: restore request order.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].N < out[j-1].N; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out, b
}

// scoreChart draws one agent's score over its requests: the score line,
// the threshold line, the kills, the loop episode when known, the requests
// refused while inactive, and (for hypothetical series) a veil over what
// follows the first kill.
func scoreChart(d *HTMLDoc, s *analyze.AgentSeries) {
	if len(s.Points) == 0 {
		return
	}
	const W, H, L, R, T, B = 560.0, 190.0, 40.0, 12.0, 10.0, 28.0
	pw, ph := W-L-R, H-T-B
	maxN := s.Points[len(s.Points)-1].N
	top := s.MaxScore()
	for _, p := range s.Points {
		top = max(top, p.Threshold)
	}
	ymax := niceCeil(top * 1.1)
	x := func(n float64) float64 {
		if maxN <= 1 {
			return L + pw/2
		}
		return L + (n-1)/float64(maxN-1)*pw
	}
	clampX := func(v float64) float64 { return min(max(v, L), L+pw) }
	y := func(v float64) float64 { return T + ph - v/ymax*ph }
	d.F(`<svg class="score-chart" xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" role="img" data-agent="%s" data-window="%d">`+"\n",
		SVGNum(W), SVGNum(H), SVGNum(W), SVGNum(H), HTMLEsc(s.Agent), s.Window)
	d.F("<title>%s: score per request</title>\n", HTMLEsc(s.Agent))
	d.F(`<rect x="%s" y="%s" width="%s" height="%s" fill="#fbfcfd" stroke="#e3e6ea"/>`+"\n", SVGNum(L), SVGNum(T), SVGNum(pw), SVGNum(ph))
	half := 0.5
	if maxN <= 1 {
		half = 0
	}
	if s.LoopStart > 0 {
		x0, x1 := clampX(x(float64(s.LoopStart)-half)), clampX(x(float64(s.LoopEnd)+half))
		d.F(`<rect class="loop" data-start="%d" data-end="%d" x="%s" y="%s" width="%s" height="%s" fill="#fde2c8" opacity="0.7"><title>loop: requests %d–%d</title></rect>`+"\n",
			s.LoopStart, s.LoopEnd, SVGNum(x0), SVGNum(T), SVGNum(max(x1-x0, 1)), SVGNum(ph), s.LoopStart, s.LoopEnd)
		d.F(`<text x="%s" y="%s">loop</text>`+"\n", SVGNum(x0+3), SVGNum(T+12))
	}
	// Runs of requests refused while inactive.
	for i := 0; i < len(s.Points); {
		if s.Points[i].Action != analyze.ActionBlocked {
			i++
			continue
		}
		j := i
		for j+1 < len(s.Points) && s.Points[j+1].Action == analyze.ActionBlocked {
			j++
		}
		x0, x1 := clampX(x(float64(s.Points[i].N)-half)), clampX(x(float64(s.Points[j].N)+half))
		d.F(`<rect class="refused" data-start="%d" data-end="%d" x="%s" y="%s" width="%s" height="%s" fill="#dfe3e8" opacity="0.8"><title>requests %d–%d refused: agent inactive</title></rect>`+"\n",
			s.Points[i].N, s.Points[j].N, SVGNum(x0), SVGNum(T), SVGNum(max(x1-x0, 1)), SVGNum(ph), s.Points[i].N, s.Points[j].N)
		i = j + 1
	}
	// Axes: three score ticks, about six request ticks.
	for _, v := range []float64{0, ymax / 2, ymax} {
		d.F(`<line x1="%s" x2="%s" y1="%s" y2="%s" stroke="#e3e6ea"/><text x="%s" y="%s" text-anchor="end">%s</text>`+"\n",
			SVGNum(L), SVGNum(L+pw), SVGNum(y(v)), SVGNum(y(v)), SVGNum(L-4), SVGNum(y(v)+4), sweepNum(v))
	}
	stepN := int(niceCeil(float64(maxN) / 6))
	for n := 1; n <= maxN; n += max(stepN, 1) {
		d.F(`<text x="%s" y="%s" text-anchor="middle">%d</text>`+"\n", SVGNum(x(float64(n))), SVGNum(T+ph+14), n)
	}
	d.F(`<text x="%s" y="%s" text-anchor="end">request #</text>`+"\n", SVGNum(L+pw), SVGNum(H-2))
	// Threshold: a line when constant, else a step line.
	th0, constant := s.Points[0].Threshold, true
	for _, p := range s.Points {
		constant = constant && p.Threshold == th0
	}
	if constant {
		d.F(`<line class="threshold" data-value="%s" x1="%s" x2="%s" y1="%s" y2="%s" stroke="#d62728" stroke-dasharray="5 4" stroke-width="1.3"><title>threshold %s</title></line>`+"\n",
			sweepNum(th0), SVGNum(L), SVGNum(L+pw), SVGNum(y(th0)), SVGNum(y(th0)), sweepNum(th0))
	} else {
		var pts, vals []string
		for _, p := range s.Points {
			pts = append(pts, SVGNum(clampX(x(float64(p.N)-half)))+","+SVGNum(y(p.Threshold)), SVGNum(clampX(x(float64(p.N)+half)))+","+SVGNum(y(p.Threshold)))
			vals = append(vals, sweepNum(p.Threshold))
		}
		d.F(`<polyline class="threshold" data-values="%s" points="%s" fill="none" stroke="#d62728" stroke-dasharray="5 4" stroke-width="1.3"><title>threshold per request: %s to %s</title></polyline>`+"\n",
			strings.Join(vals, " "), strings.Join(pts, " "), vals[0], vals[len(vals)-1])
	}
	pts, bucket := scoredPoints(s)
	if len(pts) > 0 {
		// One path, broken where requests were not scored (refused or
		// skipped), so that the line never bridges a gap.
		var ns, ss, path []string
		for i, p := range pts {
			ns = append(ns, strconv.Itoa(p.N))
			ss = append(ss, sweepNum(p.Score))
			cmd := "L"
			if i == 0 || (bucket == 1 && p.N != pts[i-1].N+1) {
				cmd = "M"
			}
			path = append(path, cmd+SVGNum(x(float64(p.N)))+","+SVGNum(y(p.Score)))
		}
		d.F(`<path class="score" data-n="%s" data-score="%s" data-bucket="%d" d="%s" fill="none" stroke="#3b6fb6" stroke-width="1.6" stroke-linejoin="round"><title>%s</title></path>`+"\n",
			strings.Join(ns, " "), strings.Join(ss, " "), bucket, strings.Join(path, " "),
			HTMLEsc(fmt.Sprintf("%s: score of requests 1–%d (%s – %s), at most %s", s.Agent, maxN, ingest.FormatTime(s.Points[0].TS), ingest.FormatTime(s.Points[len(s.Points)-1].TS), sweepNum(s.MaxScore()))))
		if len(pts) <= 60 {
			for _, p := range pts {
				d.F(`<circle cx="%s" cy="%s" r="2" fill="#3b6fb6"><title>%s</title></circle>`+"\n", SVGNum(x(float64(p.N))), SVGNum(y(p.Score)),
					HTMLEsc(fmt.Sprintf("%s %s request %d: score %s (threshold %s)", ingest.FormatTime(p.TS), s.Agent, p.N, sweepNum(p.Score), sweepNum(p.Threshold))))
			}
		}
	}
	if s.Hypothetical && len(s.Kills) > 0 && s.Kills[0] < maxN {
		x0 := clampX(x(float64(s.Kills[0]) + half))
		d.F(`<rect class="after" x="%s" y="%s" width="%s" height="%s" fill="#ffffff" opacity="0.55"><title>scores after the kill: what the agent would have scored had it not been killed</title></rect>`+"\n",
			SVGNum(x0), SVGNum(T), SVGNum(L+pw-x0), SVGNum(ph))
		d.F(`<text x="%s" y="%s" text-anchor="end">if not killed</text>`+"\n", SVGNum(L+pw-4), SVGNum(T+12))
	}
	for _, k := range s.Kills {
		var kp analyze.ScorePoint
		for _, p := range s.Points {
			if p.N == k {
				kp = p
			}
		}
		d.F(`<circle class="kill" data-n="%d" data-score="%s" cx="%s" cy="%s" r="5" fill="#d62728" stroke="#fff" stroke-width="1.5"><title>%s</title></circle>`+"\n",
			k, sweepNum(kp.Score), SVGNum(x(float64(k))), SVGNum(y(kp.Score)),
			HTMLEsc(fmt.Sprintf("%s %s killed at request %d: score %s, threshold %s", ingest.FormatTime(kp.TS), s.Agent, k, sweepNum(kp.Score), sweepNum(kp.Threshold))))
	}
	d.F("</svg>\n")
}
