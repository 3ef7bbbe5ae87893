package gateway

import (
	"fmt"
	"strings"
	"testing"

	"github.com/killswitch/killswitch/ingest"
)

// TestSweep: four calls of tenant a, costs derived by hand (repr of a
// one-message "hi" list is 49 code points, 12 tokens; prices in cents per
// 1M tokens):
//
//	at 0   gpt-4o-mini, 4096 out:  12×15/1e6 + 4096×60/1e6   = 0.24594¢
//	at 10  gpt-4o, 4096 out:       12×250/1e6 + 4096×1000/1e6 = 4.099¢
//	at 20  claude-opus-4, 15000:   12×1500/1e6 + 15000×7500/1e6 = 112.518¢ → 400 max_cost at the base
//	at 30  gpt-4o-mini, 20000:     1.20018¢, 20000 > 16000 → 400 max_tokens at the base
func TestSweep(t *testing.T) {
	msg := `"messages":[{"role":"user","content":"hi"}]`
	recs := []*ingest.Record{
		chat(0, "a", "k1", `{"model":"gpt-4o-mini",`+msg+`}`),
		chat(10, "a", "k1", `{"model":"gpt-4o",`+msg+`}`),
		chat(20, "a", "k2", `{"model":"claude-opus-4-20250514","max_tokens":15000,`+msg+`}`),
		chat(30, "a", "k1", `{"model":"gpt-4o-mini","max_tokens":20000,`+msg+`}`),
	}
	grid := SweepGrid{MaxCostCents: []float64{1, 100, 200}, MaxTokens: []int64{4000, 32000}, RPM: []int{1}, SpikeRates: []float64{0.5}}
	res, err := Sweep(DefaultConfig(M22), recs, grid)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"base refused 2 map[max_cost_per_request:1 max_tokens_per_request:1] avoided 113.71818 added [] dropped []",
		"max_cost_cents 1 refused 3 map[max_cost_per_request:3] avoided 117.81718 added [10] dropped []",
		"max_cost_cents 100 (base) refused 2 map[max_cost_per_request:1 max_tokens_per_request:1] avoided 113.71818 added [] dropped []",
		"max_cost_cents 200 refused 1 map[max_tokens_per_request:1] avoided 1.20018 added [] dropped [20]",
		"max_tokens 4000 refused 4 map[max_cost_per_request:1 max_tokens_per_request:3] avoided 118.06312 added [0 10] dropped []",
		"max_tokens 32000 refused 1 map[max_cost_per_request:1] avoided 112.51800 added [] dropped [30]",
	}
	if got := sweepLines(res); got != strings.Join(want, "\n") {
		t.Errorf("m22 sweep\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	if strings.Join(res.Inert, ",") != "rpm,spike_rate" || res.Requests != 4 || res.Variant != "m22" {
		t.Errorf("inert %v, requests %d, profile %s", res.Inert, res.Requests, res.Variant)
	}
	// spec at rpm 1: the second call of the minute is throttled; the
	// third and fourth are refused by the pack first (400 before 429).
	res, err = Sweep(DefaultConfig(Spec), recs, SweepGrid{RPM: []int{1}, SpikeRates: []float64{0.5}})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{
		"base refused 2 map[max_cost_per_request:1 max_tokens_per_request:1] avoided 113.71818 added [] dropped []",
		"rpm 1 refused 3 map[max_cost_per_request:1 max_tokens_per_request:1 rate_limit_rpm:1] avoided 117.81718 added [10] dropped []",
		"spike_rate 0.5 (base) refused 2 map[max_cost_per_request:1 max_tokens_per_request:1] avoided 113.71818 added [] dropped []",
	}
	if got := sweepLines(res); got != strings.Join(want, "\n") {
		t.Errorf("spec sweep\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	if len(res.Inert) != 0 {
		t.Errorf("spec: inert %v", res.Inert)
	}
	if _, err := Sweep(DefaultConfig(M22), recs, SweepGrid{MaxCostCents: []float64{-1}}); err == nil || err.Error() != "max_cost_cents -1: max cost must be a number ≥ 0" {
		t.Errorf("negative max cost: %v", err)
	}
}

func sweepLines(res *SweepResult) string {
	line := func(s SweepSetting) string {
		name := "base"
		if s.Param != "" {
			name = s.Param + " " + fmt.Sprint(s.Value)
			if s.IsBase {
				name += " (base)"
			}
		}
		n := func(ps []ingest.Pos) []int64 {
			out := []int64{}
			for _, p := range ps {
				out = append(out, p.N)
			}
			return out
		}
		return fmt.Sprintf("%s refused %d %v avoided %.5f added %v dropped %v", name, s.Refused, s.ByReason,
			s.CostAvoidedCents, n(s.Added), n(s.Dropped))
	}
	lines := []string{line(res.Base)}
	for _, s := range res.Settings {
		lines = append(lines, line(s))
	}
	return strings.Join(lines, "\n")
}

// TestApplySettingsWrapped: a settings file {"gateway": {…}} reads as its
// inner object (it used to keep the "gateway" key and fail on it).
func TestApplySettingsWrapped(t *testing.T) {
	for _, doc := range []string{`{"gateway": {"rpm": 7, "max_cost_cents": 12.5}}`, `{"rpm": 7, "max_cost_cents": 12.5}`} {
		cfg := DefaultConfig(Spec)
		if err := cfg.ApplySettings([]byte(doc)); err != nil || cfg.RPM != 7 || cfg.MaxCostCents != 12.5 || cfg.MaxTokens != 16000 {
			t.Errorf("%s: %v, rpm %d, max cost %v, max tokens %d", doc, err, cfg.RPM, cfg.MaxCostCents, cfg.MaxTokens)
		}
	}
}

// #28: every number of a settings file is checked for range, and the
// severity thresholds for their order; each error names file:line:column,
// the key and what was given. The defaults are 10/50/200.
func TestApplySettingsRanges(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{`{"gateway": null}`, `settings:1:13: gateway: want a JSON object, got a JSON null`},
		{`{"max_cost_cents": 1e300}`, `settings:1:20: max_cost_cents: want a number from 0 to 1e+15, got 1e+300`},
		{`{"default_budget_cents": -1}`, `settings:1:26: default_budget_cents: want a number from 0 to 1e+15, got -1`},
		{`{"max_tokens": 9223372036854775807}`, `settings:1:16: max_tokens: want a number from 0 to 1e+15, got 9.223372036854776e+18`},
		{`{"severity_medium": 50, "severity_high": 10}`, `settings:1:42: severity_high: severity_medium (50) is above severity_high (10): want severity_medium ≤ severity_high ≤ severity_critical`},
		{`{"severity_medium": 60}`, `settings:1:21: severity_medium: severity_medium (60) is above severity_high (50): want severity_medium ≤ severity_high ≤ severity_critical`},
		{`{"severity_critical": 20}`, `settings:1:23: severity_critical: severity_high (50) is above severity_critical (20): want severity_medium ≤ severity_high ≤ severity_critical`},
		{`{"severity_medium": 50, "severity_high": 50, "severity_critical": 50}`, ``},
	} {
		cfg := DefaultConfig(Spec)
		err := cfg.ApplySettings([]byte(c.doc))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.doc, got, c.want)
		}
	}
}
