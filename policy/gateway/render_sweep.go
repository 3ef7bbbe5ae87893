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
	c := &r.Config
	title := fmt.Sprintf("Gateway sweep — variant %s: %d requests", r.Variant, r.Requests)
	base := fmt.Sprintf("Base: max_cost_cents %s, max_tokens %d", strconv.FormatFloat(c.MaxCostCents, 'f', -1, 64), c.MaxTokens)
	if r.Variant != gateway.M22.Name {
		base += fmt.Sprintf(", rpm %d, spike_rate %s", c.RPM, strconv.FormatFloat(c.SpikeRate, 'f', -1, 64))
	}
	base += fmt.Sprintf(": answered %s; %d refused, %.4f¢ avoided", statusCounts(r.Base.ByStatus), r.Base.Refused, r.Base.CostAvoidedCents)
	if md {
		fmt.Fprintf(bw, "# %s\n\n%s\n", title, base)
	} else {
		fmt.Fprintln(bw, title)
		o.Line(bw, base)
	}
	if len(r.Inert) > 0 {
		fmt.Fprintln(bw)
		o.Line(bw, fmt.Sprintf("%s: never refused on under %s (not replayed)", strings.Join(r.Inert, " and "), r.Variant))
	}
	if len(r.Settings) > 0 {
		fmt.Fprintln(bw)
		header := []string{"setting", "refused", "answered", "cost avoided", "newly refused", "let through"}
		if r.Variant != gateway.M22.Name {
			header = append(header, "incidents")
		}
		rows := make([][]string, 0, len(r.Settings))
		narrow := make([][]string, 0, len(r.Settings)) // the calls counted, not named
		for i := range r.Settings {
			s := &r.Settings[i]
			name := s.Param + " " + strconv.FormatFloat(s.Value, 'f', -1, 64)
			if s.IsBase {
				name += " (base)"
			}
			row := []string{name, strconv.Itoa(s.Refused), statusCounts(s.ByStatus), fmt.Sprintf("%.4f¢", s.CostAvoidedCents),
				listCalls(s.Added), listCalls(s.Dropped)}
			if r.Variant != gateway.M22.Name {
				row = append(row, strconv.Itoa(s.Incidents))
			}
			rows = append(rows, row)
			n := slices.Clone(row)
			n[4], n[5] = countCalls(s.Added), countCalls(s.Dropped)
			narrow = append(narrow, n)
		}
		// Narrow: the answers left out, the calls counted.
		compact := []int{0, 1, 3, 4, 5}
		if r.Variant != gateway.M22.Name {
			compact = append(compact, 6)
		}
		t := report.FitTable{Header: header, Rows: rows, Narrow: narrow, Compact: compact, Every: "-f json"}
		t.Write(bw, o)
		if t.Narrowed(o) {
			// The calls the narrow table only counts, named below it.
			for i := range r.Settings {
				s := &r.Settings[i]
				for _, l := range []struct {
					what string
					ps   []ingest.Pos
				}{{"newly refuses", s.Added}, {"lets through", s.Dropped}} {
					if len(l.ps) > 0 {
						o.Line(bw, fmt.Sprintf("- %s %s %s %s", s.Param, strconv.FormatFloat(s.Value, 'f', -1, 64), l.what, listCalls(l.ps)))
					}
				}
			}
		}
	}
	return bw.Flush()
}

// countCalls counts calls: "-" when none.
func countCalls(ps []ingest.Pos) string {
	if len(ps) == 0 {
		return "-"
	}
	return strconv.Itoa(len(ps))
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
}

// SweepJSON writes the sweep as one JSON document: variant,
// requests, the base numbers, the parameters not replayed, the base's
// tally and one row per value tried (every call that changes, by
// position).
func SweepJSON(w io.Writer, r *gateway.SweepResult) error {
	row := func(s *gateway.SweepSetting, param bool) gatewaySweepRowJSON {
		j := gatewaySweepRowJSON{IsBase: s.IsBase, Refused: s.Refused, ByStatus: s.ByStatus, ByReason: s.ByReason,
			CostAvoidedCents: math.Round(s.CostAvoidedCents*1e4) / 1e4, Incidents: s.Incidents,
			NewlyRefused: []string{}, LetThrough: []string{}}
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
