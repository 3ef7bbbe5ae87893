package report

import (
	"math"
	"strconv"
	"testing"
)

// TestAppendScore: a score is written as strconv.AppendFloat writes it
// with one decimal, on AppendScore's fast path (multiples of 0.5) and off
// it.
func TestAppendScore(t *testing.T) {
	scores := []float64{0, math.Copysign(0, -1), 0.5, 1, 1.5, 2, 3.5, 7, 12.5, 100, 4503599627370495.5,
		1 << 52, 1 << 53, 1 << 60, 0.25, 0.75, 0.05, 1.45, 2.999, -0.5, -3, 1e300,
		math.Inf(1), math.Inf(-1), math.NaN(), math.SmallestNonzeroFloat64}
	for i := range 200 {
		scores = append(scores, float64(i)/2, float64(i)*1.5, float64(i)/3)
	}
	for _, s := range scores {
		want := strconv.AppendFloat([]byte("x"), s, 'f', 1, 64)
		if got := AppendScore([]byte("x"), s); string(got) != string(want) {
			t.Errorf("AppendScore(%v) = %s, want %s", s, got, want)
		}
	}
}
