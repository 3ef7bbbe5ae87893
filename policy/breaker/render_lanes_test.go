package breaker

import (
	"testing"
	"time"

	"github.com/killswitch/killswitch/analyze/breaker"
)

// A busy lane's line keeps at most a few points per pixel column, and
// every trip, every start of a segment (after refused requests) and each
// column's highest rate.
func TestThinRates(t *testing.T) {
	t0 := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	const n = 100_000
	var pts []breaker.RatePoint
	for i := range n {
		p := breaker.RatePoint{TS: t0.Add(time.Duration(i) * time.Second), N: i + 1, Rate: float64(i%97) / 100}
		if i == 5000 || i == 70_000 {
			p.Trip = true
		}
		if i > 5000 && i < 5100 || i > 70_000 && i < 70_050 {
			continue // refused while open: no rate read
		}
		if i == 42_424 {
			p.Rate = 0.999
		}
		pts = append(pts, p)
	}
	span := float64(pts[len(pts)-1].TS.Sub(t0))
	x := func(ts time.Time) float64 { return laneL + laneW*float64(ts.Sub(t0))/span }
	kept := thinRates(pts, x)
	if len(kept) > 3*int(laneW)+10 {
		t.Errorf("%d points kept of %d, want at most about 3 per column", len(kept), len(pts))
	}
	has := func(pred func(p breaker.RatePoint) bool) bool {
		for _, k := range kept {
			if pred(pts[k]) {
				return true
			}
		}
		return false
	}
	for _, c := range []struct {
		what string
		pred func(p breaker.RatePoint) bool
	}{
		{"the first trip", func(p breaker.RatePoint) bool { return p.Trip && p.N == 5001 }},
		{"the second trip", func(p breaker.RatePoint) bool { return p.Trip && p.N == 70_001 }},
		{"the start after the first open span", func(p breaker.RatePoint) bool { return p.N == 5101 }},
		{"the start after the second open span", func(p breaker.RatePoint) bool { return p.N == 70_051 }},
		{"the peak", func(p breaker.RatePoint) bool { return p.Rate == 0.999 }},
	} {
		if !has(c.pred) {
			t.Errorf("%s is lost", c.what)
		}
	}
	for i := 1; i < len(kept); i++ {
		if kept[i] <= kept[i-1] {
			t.Fatalf("kept points out of order at %d", i)
		}
	}
}
