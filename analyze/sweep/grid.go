package sweep

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MaxGridValues bounds the values one grid flag may expand to, and the
// settings of a grid.
const MaxGridValues = 10000

// ParseThresholds parses --thresholds: "start:stop:step" (inclusive of
// stop when a step lands on it) or a comma-separated list. Range values
// are rounded to the decimals the flag wrote, so 0.1 steps give 4.3, not
// 4.300000000000001.
func ParseThresholds(s string) ([]float64, error) {
	vals, err := ParseGrid(s, func(f string) (float64, error) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("%q is not a number", f)
		}
		if v < 0 {
			return 0, fmt.Errorf("threshold %s is negative", f)
		}
		return v, nil
	})
	if err != nil {
		return nil, fmt.Errorf("--thresholds: %v", err)
	}
	return vals, nil
}

// ParseWindows parses --windows: a comma-separated list of sizes or
// "start:stop:step".
func ParseWindows(s string) ([]int, error) {
	vals, err := ParseGrid(s, func(f string) (float64, error) {
		v, err := strconv.Atoi(f)
		if err != nil {
			return 0, fmt.Errorf("%q is not a whole number", f)
		}
		if v < 1 {
			return 0, fmt.Errorf("window size %d is below 1", v)
		}
		return float64(v), nil
	})
	if err != nil {
		return nil, fmt.Errorf("--windows: %v", err)
	}
	out := make([]int, len(vals))
	for i, v := range vals {
		out[i] = int(v)
	}
	return out, nil
}

// ParseGrid parses a grid flag: a comma-separated list of values, or
// "start:stop:step" (stop included when a step lands on it), each value
// checked by parse; at most 10,000 values.
func ParseGrid(s string, parse func(string) (float64, error)) ([]float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("empty (want a list like 8,10,12 or a range start:stop:step)")
	}
	if !strings.Contains(s, ":") {
		var out []float64
		for _, f := range strings.Split(s, ",") {
			f = strings.TrimSpace(f)
			if f == "" {
				return nil, fmt.Errorf("empty value in list %q", s)
			}
			v, err := parse(f)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		if len(out) > MaxGridValues {
			return nil, fmt.Errorf("%d values, more than %d", len(out), MaxGridValues)
		}
		return out, nil
	}
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return nil, fmt.Errorf("range %q: want start:stop:step", s)
	}
	var v [3]float64
	decimals := 0
	for i, p := range parts {
		p = strings.TrimSpace(p)
		var err error
		if i == 2 {
			// The step may be fractional even for whole values' bounds;
			// it only has to be a positive number.
			v[i], err = strconv.ParseFloat(p, 64)
			if err != nil || !(v[i] > 0) || math.IsInf(v[i], 0) {
				return nil, fmt.Errorf("range %q: step %q is not a number above 0", s, p)
			}
		} else if v[i], err = parse(p); err != nil {
			return nil, fmt.Errorf("range %q: %v", s, err)
		}
		if strings.ContainsAny(p, "eE") {
			decimals = 9
		} else if dot := strings.IndexByte(p, '.'); dot >= 0 {
			decimals = max(decimals, len(p)-dot-1)
		}
	}
	start, stop, step := v[0], v[1], v[2]
	if stop < start {
		return nil, fmt.Errorf("range %q: stop is below start", s)
	}
	n := math.Floor((stop-start)/step+1e-9) + 1
	if n > MaxGridValues {
		return nil, fmt.Errorf("range %q has %.0f values, more than %d", s, n, MaxGridValues)
	}
	out := make([]float64, 0, int(n))
	for i := 0; i < int(n); i++ {
		x, _ := strconv.ParseFloat(strconv.FormatFloat(start+float64(i)*step, 'f', min(decimals, 9), 64), 64)
		if _, err := parse(strconv.FormatFloat(x, 'f', -1, 64)); err != nil {
			return nil, fmt.Errorf("range %q: %v", s, err)
		}
		out = append(out, x)
	}
	return out, nil
}
