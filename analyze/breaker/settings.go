package breaker

import (
	"math"
	"time"

	"github.com/killswitch/killswitch/internal/jsontree"
)

// SettingsKeys are the keys of a "breaker" settings object: the live
// system's rule keys.
var SettingsKeys = []string{"enabled", "kill_on_error_rate", "error_window_minutes", "min_samples", "auto_recover_after_minutes"}

// Patch is a "breaker" object of a settings file or an expectation: the
// rule keys it gives (nil: not given).
type Patch struct {
	Enabled    *bool
	Rate       *float64
	Window     *time.Duration
	MinSamples *int
	Recover    *time.Duration
}

// Apply returns r with the keys p gives.
func (p Patch) Apply(r Rules) Rules {
	if p.Enabled != nil {
		r.Enabled = *p.Enabled
	}
	if p.Rate != nil {
		r.Rate = *p.Rate
	}
	if p.Window != nil {
		r.Window = *p.Window
	}
	if p.MinSamples != nil {
		r.MinSamples = *p.MinSamples
	}
	if p.Recover != nil {
		r.Recover = *p.Recover
	}
	return r
}

// ParsePatch reads the "breaker" object n, at key path of document d,
// recording in d every unknown key and every value of the wrong type or
// out of the range Rules.Validate allows, each at its position.
func ParsePatch(d *jsontree.Doc, n *jsontree.Node, path string) Patch {
	var p Patch
	for _, m := range d.Object(n, path, SettingsKeys...) {
		kp := jsontree.Join(path, m.Key)
		if m.Key == "enabled" {
			if b, ok := d.Boolean(m.Val, kp); ok {
				p.Enabled = &b
			}
			continue
		}
		f, ok := d.Number(m.Val, kp)
		if !ok {
			continue
		}
		minutes := func(positive bool) *time.Duration {
			if f < 0 || (positive && f == 0) || f > 1e9 {
				want := "minutes from 0 to 1e9"
				if positive {
					want = "minutes above 0, at most 1e9"
				}
				d.Errorf(m.Val.Off, kp, "want %s, got %v", want, f)
				return nil
			}
			t := time.Duration(f * float64(time.Minute))
			return &t
		}
		switch m.Key {
		case "kill_on_error_rate":
			if !(f > 0 && f <= 1) {
				d.Errorf(m.Val.Off, kp, "want a rate in (0, 1], got %v", f)
				continue
			}
			p.Rate = &f
		case "error_window_minutes":
			p.Window = minutes(true)
		case "auto_recover_after_minutes":
			p.Recover = minutes(false)
		case "min_samples":
			if f != math.Trunc(f) || f < 1 || f > 1e9 {
				d.Errorf(m.Val.Off, kp, "want a whole number ≥ 1, got %v", f)
				continue
			}
			n := int(f)
			p.MinSamples = &n
		}
	}
	return p
}
