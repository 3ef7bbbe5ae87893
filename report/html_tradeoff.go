package report

import (
	"strconv"
)

// Tradeoff is a chart of settings, one row each: what a setting gains
// drawn right of a middle axis (green), what it costs left of it (red),
// each side scaled to its own largest value. Rows carry data-label,
// data-gain and data-cost; a framed row (the recommended setting, or
// the base) is outlined.
type Tradeoff struct {
	Class      string // the chart's class
	Gain, Cost string // what the two sides count: "trips in incidents", "trips outside"
	Rows       []TradeoffRow
}

// TradeoffRow is one setting of a Tradeoff.
type TradeoffRow struct {
	Label      string
	Gain, Cost int
	Title      string // the row's hover text
	Framed     bool
}

// TradeoffChart draws t.
func TradeoffChart(d *HTMLDoc, t Tradeoff) {
	const labelW, side, rowH, top = 210.0, 260.0, 20.0, 22.0
	mid := labelW + 40 + side
	W, H := mid+side+50, top+rowH*float64(len(t.Rows))+6
	maxGain, maxCost := 1, 1
	for _, r := range t.Rows {
		maxGain, maxCost = max(maxGain, r.Gain), max(maxCost, r.Cost)
	}
	d.F(`<svg class="tradeoff %s" xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" role="img">`+"\n",
		HTMLEsc(t.Class), SVGNum(W), SVGNum(H), SVGNum(W), SVGNum(H))
	d.F("<title>%s</title>\n", HTMLEsc("per setting: "+t.Cost+" (left) and "+t.Gain+" (right)"))
	d.F(`<text x="%s" y="14" text-anchor="end">← %s</text><text x="%s" y="14">%s →</text>`+"\n",
		SVGNum(mid-6), HTMLEsc(t.Cost), SVGNum(mid+6), HTMLEsc(t.Gain))
	for i, r := range t.Rows {
		y := top + rowH*float64(i)
		d.F(`<g class="setting" data-label="%s" data-gain="%d" data-cost="%d"><title>%s</title>`+"\n", HTMLEsc(r.Label), r.Gain, r.Cost, HTMLEsc(r.Title))
		if r.Framed {
			d.F(`<rect x="2" y="%s" width="%s" height="%s" fill="#f1f8f1" stroke="#1d232a" stroke-width="1.5"/>`+"\n", SVGNum(y), SVGNum(W-4), SVGNum(rowH))
		}
		label := Ellipsis(r.Label, 40)
		d.F(`<text class="v" x="%s" y="%s" text-anchor="end">%s</text>`+"\n", SVGNum(labelW), SVGNum(y+14), HTMLEsc(label))
		gw := side * float64(r.Gain) / float64(maxGain)
		cw := side * float64(r.Cost) / float64(maxCost)
		if r.Gain > 0 {
			d.F(`<rect x="%s" y="%s" width="%s" height="%s" fill="#2e9e44"/>`+"\n", SVGNum(mid), SVGNum(y+4), SVGNum(gw), SVGNum(rowH-8))
		}
		if r.Cost > 0 {
			d.F(`<rect x="%s" y="%s" width="%s" height="%s" fill="#d62728"/>`+"\n", SVGNum(mid-cw), SVGNum(y+4), SVGNum(cw), SVGNum(rowH-8))
		}
		d.F(`<text class="v" x="%s" y="%s">%s</text>`+"\n", SVGNum(mid+gw+4), SVGNum(y+14), strconv.Itoa(r.Gain))
		d.F(`<text class="v" x="%s" y="%s" text-anchor="end">%s</text>`+"\n", SVGNum(mid-cw-4), SVGNum(y+14), strconv.Itoa(r.Cost))
		d.F("</g>\n")
	}
	d.F(`<line x1="%s" x2="%s" y1="%s" y2="%s" stroke="#59636e"/>`+"\n", SVGNum(mid), SVGNum(mid), SVGNum(top-2), SVGNum(H-4))
	d.F("</svg>\n")
}
