package sweep

import "github.com/killswitch/killswitch/analyze"

// A Comparison is several profiles swept over the same captures with the
// same ground truth, for `sweep --profiles spec,progress`: each profile on
// its own threshold scale, compared where each would be run.
type Comparison struct {
	// Results holds one sweep per profile, in the order asked for.
	Results []*Result
	// Rows holds, per profile, the setting at its defaults (when the grid
	// holds it) and the recommended one (when there is one).
	Rows []CompareRow
}

// A CompareRow is one profile at one setting.
type CompareRow struct {
	// Result is the index in Comparison.Results.
	Result int
	// What says which setting: "defaults" or "recommended".
	What string
	// Setting indexes Results[Result].Settings; -1 for a recommended
	// setting the sweep does not have (every setting has too many false
	// positives).
	Setting int
}

// Compare builds the comparison of results, one per profile.
func Compare(results []*Result) *Comparison {
	c := &Comparison{Results: results}
	for i, r := range results {
		d := r.Profile.Defaults
		if r.Profile == nil {
			d = analyze.ProfileSpec.Defaults
		}
		if j := r.settingIndex(d.WindowSize, d.Threshold); j >= 0 {
			c.Rows = append(c.Rows, CompareRow{i, "defaults", j})
		}
		c.Rows = append(c.Rows, CompareRow{i, "recommended", r.Recommended})
	}
	return c
}

// settingIndex returns the index of the setting (w, th), or -1.
func (r *Result) settingIndex(w int, th float64) int {
	for i := range r.Settings {
		if s := &r.Settings[i]; s.Window == w && s.Threshold == th {
			return i
		}
	}
	return -1
}

// Area returns the precision/recall area of window w, and whether there
// is a curve for it.
func (r *Result) Area(w int) (float64, bool) {
	for _, c := range r.Curves {
		if c.Window == w {
			return c.Area, true
		}
	}
	return 0, false
}
