package report

import (
	"time"
)

// timeSteps are the steps a time axis may take, shortest first: round
// times a reader counts in.
var timeSteps = []time.Duration{
	time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour,
	24 * time.Hour, 2 * 24 * time.Hour, 7 * 24 * time.Hour,
}

// TimeTick is one tick of a time axis: its time and its label (UTC).
type TimeTick struct {
	T     time.Time
	Label string
}

// TimeTicks returns the ticks of a time axis from start to end: at the
// multiples (since the Unix epoch, so at round UTC times) of the shortest
// step in timeSteps that gives at most max ticks, and that step. Labels
// are UTC: "15:04:05" under a minute's step, "15:04" under a day's,
// "Jan 2" from a day; the first tick, and any tick on a new day (below a
// day's step), also names its date ("Mar 2 09:00"). An empty or reversed
// span has no ticks.
func TimeTicks(start, end time.Time, max int) ([]TimeTick, time.Duration) {
	if !end.After(start) || max < 1 {
		return nil, 0
	}
	span := end.Sub(start)
	step := timeSteps[len(timeSteps)-1]
	for _, s := range timeSteps {
		if int64(span/s)+1 <= int64(max) {
			step = s
			break
		}
	}
	// The first multiple of step at or after start.
	first := time.Unix(0, 0).UTC().Add(start.Sub(time.Unix(0, 0)).Truncate(step))
	if first.Before(start) {
		first = first.Add(step)
	}
	var ticks []TimeTick
	prevDay := ""
	for t := first; !t.After(end); t = t.Add(step) {
		u := t.UTC()
		day := u.Format("Jan 2")
		var label string
		switch {
		case step >= 24*time.Hour:
			label = day
		case step >= time.Minute:
			label = u.Format("15:04")
		default:
			label = u.Format("15:04:05")
		}
		if step < 24*time.Hour && day != prevDay {
			label = day + " " + label
		}
		prevDay = day
		ticks = append(ticks, TimeTick{T: u, Label: label})
	}
	return ticks, step
}

// TimeAxis draws a time axis under a chart: a tick line and label at
// each of TimeTicks(start, end, max), a faint grid line from top to the
// axis at y; the first label says UTC. x places a time.
func TimeAxis(d *HTMLDoc, x func(time.Time) float64, start, end time.Time, top, y float64, max int) {
	ticks, _ := TimeTicks(start, end, max)
	for i, tk := range ticks {
		xx := x(tk.T)
		if i == 0 {
			tk.Label += " UTC"
		}
		d.F(`<line class="tick" x1="%s" x2="%s" y1="%s" y2="%s" stroke="#e3e6ea"/>`+"\n", SVGNum(xx), SVGNum(xx), SVGNum(top), SVGNum(y+3))
		d.F(`<text class="tick" x="%s" y="%s" text-anchor="middle" data-t="%s">%s</text>`+"\n", SVGNum(xx), SVGNum(y+14), tk.T.Format(time.RFC3339), HTMLEsc(tk.Label))
	}
}
