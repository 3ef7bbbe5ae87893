package gateway

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/killswitch/killswitch/report"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/killswitch/killswitch/analyze/gateway"
	"github.com/killswitch/killswitch/ingest"
)

// maxListedCalls bounds the calls a sweep row names; the rest are counted.
const maxListedCalls = 3

// SweepText renders a gateway sweep for a terminal, fitting
// o.Width (Markdown when o.Markdown): the base, then one row per value tried with what it refuses and
// lets through compared with the base.
func SweepText(w io.Writer, r *gateway.SweepResult, o report.TextOptions) error {
	md := o.Markdown
	bw := bufio.NewWriter(w)
	title, base := sweepTitle(r), sweepBase(r)
	if md {
		fmt.Fprintf(bw, "# %s\n\n%s\n", title, base)
	} else {
		fmt.Fprintln(bw, title)
		o.Line(bw, base)
	}
	if len(r.Inert) > 0 {
		fmt.Fprintln(bw)
		o.Line(bw, sweepInert(r))
	}
	if len(r.Settings) > 0 {
		fmt.Fprintln(bw)
		header, rows, narrow := sweepTable(r)
		// Narrow: the answers and tenants left out, the calls counted.
		compact := []int{0, 1, 3, 4, 5}
		if r.Variant != gateway.M22.Name {
			compact = append(compact, 7)
		}
		t := report.FitTable{Header: header, Rows: rows, Narrow: narrow, Compact: compact, Every: "-f json"}
		t.Write(bw, o)
		if t.Narrowed(o) {
			// The calls the narrow table only counts, and the tenants it
			// leaves out, named below it.
			for _, l := range sweepCallLines(r) {
				o.Line(bw, "- "+l)
			}
		}
	}
	return bw.Flush()
}

func sweepTitle(r *gateway.SweepResult) string {
	return fmt.Sprintf("Gateway sweep — variant %s: %d requests", r.Variant, r.Requests)
}

// sweepBase describes the base setting and what it did.
func sweepBase(r *gateway.SweepResult) string {
	c := &r.Config
	base := fmt.Sprintf("Base: max_cost_cents %s, max_tokens %d", strconv.FormatFloat(c.MaxCostCents, 'f', -1, 64), c.MaxTokens)
	if r.Variant != gateway.M22.Name {
		base += fmt.Sprintf(", rpm %d, spike_rate %s", c.RPM, strconv.FormatFloat(c.SpikeRate, 'f', -1, 64))
	}
	return base + fmt.Sprintf(": answered %s; %d refused (%s), %.4f¢ avoided", statusCounts(r.Base.ByStatus), r.Base.Refused,
		report.Plural(len(r.Base.Tenants), "tenant"), r.Base.CostAvoidedCents)
}

func sweepInert(r *gateway.SweepResult) string {
	return fmt.Sprintf("%s: never refused on under %s (not replayed)", strings.Join(r.Inert, " and "), r.Variant)
}

// listTenants names tenants, up to maxListedCalls, and counts the rest:
// "-" when none, "(none)" for calls without a tenant.
func listTenants(ts []string) string {
	if len(ts) == 0 {
		return "-"
	}
	var names []string
	for _, t := range ts[:min(len(ts), maxListedCalls)] {
		if t == "" {
			t = "(none)"
		}
		names = append(names, report.Printable(t))
	}
	s := strconv.Itoa(len(ts)) + ": " + strings.Join(names, ", ")
	if n := len(ts) - maxListedCalls; n > 0 {
		s += fmt.Sprintf(" +%d more", n)
	}
	return s
}

// settingName names a value tried: "max_tokens 4000 (base)".
func settingName(s *gateway.SweepSetting) string {
	name := s.Param + " " + strconv.FormatFloat(s.Value, 'f', -1, 64)
	if s.IsBase {
		name += " (base)"
	}
	return name
}

// sweepTable is the table of the values tried: its header, its rows
// (the calls and tenants named), and the rows of a narrow table (counted).
func sweepTable(r *gateway.SweepResult) (header []string, rows, narrow [][]string) {
	header = []string{"setting", "refused", "answered", "cost avoided", "newly refused", "let through", "tenants newly hit"}
	if r.Variant != gateway.M22.Name {
		header = append(header, "incidents")
	}
	for i := range r.Settings {
		s := &r.Settings[i]
		row := []string{settingName(s), strconv.Itoa(s.Refused), statusCounts(s.ByStatus), fmt.Sprintf("%.4f¢", s.CostAvoidedCents),
			listCalls(s.Added), listCalls(s.Dropped), listTenants(s.NewTenants)}
		if r.Variant != gateway.M22.Name {
			row = append(row, strconv.Itoa(s.Incidents))
		}
		rows = append(rows, row)
		n := slices.Clone(row)
		n[4], n[5], n[6] = countCalls(s.Added), countCalls(s.Dropped), countOrDash(len(s.NewTenants))
		narrow = append(narrow, n)
	}
	return header, rows, narrow
}

// sweepCallLines name the calls each value newly refuses or lets
// through and the tenants it newly hits (up to maxListedCalls of each),
// one line each.
func sweepCallLines(r *gateway.SweepResult) []string {
	var lines []string
	for i := range r.Settings {
		s := &r.Settings[i]
		for _, l := range []struct {
			what string
			ps   []ingest.Pos
		}{{"newly refuses", s.Added}, {"lets through", s.Dropped}} {
			if len(l.ps) > 0 {
				lines = append(lines, fmt.Sprintf("%s %s %s %s", s.Param, strconv.FormatFloat(s.Value, 'f', -1, 64), l.what, listCalls(l.ps)))
			}
		}
		if len(s.NewTenants) > 0 {
			lines = append(lines, fmt.Sprintf("%s %s newly hits tenants %s", s.Param, strconv.FormatFloat(s.Value, 'f', -1, 64), listTenants(s.NewTenants)))
		}
	}
	return lines
}

// countCalls counts calls: "-" when none.
func countCalls(ps []ingest.Pos) string { return countOrDash(len(ps)) }

// countOrDash is n, or "-" for 0.
func countOrDash(n int) string {
	if n == 0 {
		return "-"
	}
	return strconv.Itoa(n)
}

// listCalls names up to maxListedCalls calls and counts the rest: "-"
// when none.
func listCalls(ps []ingest.Pos) string {
	if len(ps) == 0 {
		return "-"
	}
	var names []string
	for _, p := range ps[:min(len(ps), maxListedCalls)] {
		names = append(names, report.Printable(p.String()))
	}
	s := strconv.Itoa(len(ps)) + ": " + strings.Join(names, ", ")
	if n := len(ps) - maxListedCalls; n > 0 {
		s += fmt.Sprintf(" +%d more", n)
	}
	return s
}

type gatewaySweepRowJSON struct {
	Param            string         `json:"param,omitempty"`
	Value            *float64       `json:"value,omitempty"`
	IsBase           bool           `json:"is_base"`
	Refused          int            `json:"refused"`
	ByStatus         map[int]int    `json:"by_status"`
	ByReason         map[string]int `json:"by_reason"`
	CostAvoidedCents float64        `json:"cost_avoided_cents"`
	Incidents        int            `json:"incidents"`
	NewlyRefused     []string       `json:"newly_refused"`
	LetThrough       []string       `json:"let_through"`
	Tenants          []string       `json:"tenants_refused"`
	NewTenants       []string       `json:"tenants_newly_refused"`
}

// SweepJSON writes the sweep as one JSON document: variant,
// requests, the base numbers, the parameters not replayed, the base's
// tally and one row per value tried (every call that changes, by
// position).
func SweepJSON(w io.Writer, r *gateway.SweepResult) error {
	row := func(s *gateway.SweepSetting, param bool) gatewaySweepRowJSON {
		j := gatewaySweepRowJSON{IsBase: s.IsBase, Refused: s.Refused, ByStatus: s.ByStatus, ByReason: s.ByReason,
			CostAvoidedCents: math.Round(s.CostAvoidedCents*1e4) / 1e4, Incidents: s.Incidents,
			NewlyRefused: []string{}, LetThrough: []string{}, Tenants: s.Tenants, NewTenants: s.NewTenants}
		if param {
			v := s.Value
			j.Param, j.Value = s.Param, &v
		}
		for _, p := range s.Added {
			j.NewlyRefused = append(j.NewlyRefused, p.String())
		}
		for _, p := range s.Dropped {
			j.LetThrough = append(j.LetThrough, p.String())
		}
		return j
	}
	doc := struct {
		Variant  string                `json:"variant"`
		Requests int                   `json:"requests"`
		Config   map[string]any        `json:"config"`
		Inert    []string              `json:"inert"`
		Base     gatewaySweepRowJSON   `json:"base"`
		Settings []gatewaySweepRowJSON `json:"settings"`
	}{Variant: r.Variant, Requests: r.Requests, Inert: append([]string{}, r.Inert...), Base: row(&r.Base, false),
		Config: map[string]any{gateway.ParamMaxCost: r.Config.MaxCostCents, gateway.ParamMaxTokens: r.Config.MaxTokens,
			gateway.ParamRPM: r.Config.RPM, gateway.ParamSpikeRate: r.Config.SpikeRate},
		Settings: []gatewaySweepRowJSON{}}
	for i := range r.Settings {
		doc.Settings = append(doc.Settings, row(&r.Settings[i], true))
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// SweepHTML writes the sweep as one self-contained page: the base, the
// trade-off of each value tried (the calls it refuses against the tenants
// it hits that the base leaves alone), and the table of the text report.
func SweepHTML(w io.Writer, r *gateway.SweepResult) error {
	var d report.HTMLDoc
	title := "killswitch gateway sweep"
	d.F("<h1>%s</h1>\n<p class=\"meta\">%s</p>\n<div class=\"rec\">\n<p>%s</p>\n</div>\n", report.HTMLEsc(title), report.HTMLEsc(sweepTitle(r)), report.HTMLEsc(sweepBase(r)))
	if len(r.Inert) > 0 {
		d.F("<p class=\"meta\">%s</p>\n", report.HTMLEsc(sweepInert(r)))
	}
	if len(r.Settings) == 0 {
		d.F("<p>No value was tried.</p>\n")
		return report.HTMLPage(w, title, d.String())
	}
	t := report.Tradeoff{Class: "gateway-sweep", Gain: "calls refused", Cost: "tenants newly hit"}
	for i := range r.Settings {
		s := &r.Settings[i]
		label := settingName(s)
		t.Rows = append(t.Rows, report.TradeoffRow{Label: label, Gain: s.Refused, Cost: len(s.NewTenants), Framed: s.IsBase,
			Title: fmt.Sprintf("%s: %d refused (%s), %.4f¢ avoided, %d incidents; against the base: %d newly refused, %d let through; tenants newly hit: %s",
				label, s.Refused, statusCounts(s.ByStatus), s.CostAvoidedCents, s.Incidents, len(s.Added), len(s.Dropped), listTenants(s.NewTenants))})
	}
	d.F("<h2>Trade-off per value</h2>\n<figure>\n<figcaption>Per value tried (the other numbers at the base): the calls it refuses (right) against the tenants it refuses a call of that the base refuses none of (left); each side scaled to its largest value, the base's rows framed.</figcaption>\n")
	report.TradeoffChart(&d, t)
	d.F("</figure>\n<h2>Every value</h2>\n<div class=\"scroll\">\n")
	header, _, narrow := sweepTable(r)
	report.HTMLTable(&d, header, narrow, -1, 0)
	d.F("</div>\n")
	report.HTMLList(&d, sweepCallLines(r))
	return report.HTMLPage(w, title, d.String())
}
