package breaker

import (
	"encoding/csv"
	"fmt"
	"github.com/killswitch/killswitch/report"
	"io"
	"strconv"
	"strings"

	"github.com/killswitch/killswitch/analyze/breaker"
)

// The breaker sweep: one row per setting of rate × min_samples × window
// × counter expiry, in the table, Markdown, CSV, JSON and HTML.

// breakerSweepCompact are the columns of a narrow sweep table: the
// setting, its trips and refusals, and how they fall against the labels.
var breakerSweepCompact = []int{0, 1, 2, 3, 5, 6, 7, 8}

var breakerSweepHeader = []string{"rate", "min samples", "window", "counters", "scopes tripped", "trips", "refused",
	"in incidents", "outside", "unlabelled", "correlated"}

func breakerSweepRows(r *breaker.SweepResult, mark bool) [][]string {
	var rows [][]string
	for i, s := range r.Settings {
		rate := strconv.FormatFloat(s.Rate, 'f', -1, 64)
		if mark && i == r.Recommended {
			rate += " *"
		}
		rows = append(rows, []string{rate, strconv.Itoa(s.MinSamples), s.Window.String(), s.TTL.String(),
			strconv.Itoa(s.ScopesTripped), strconv.Itoa(s.Trips), strconv.Itoa(s.Refused),
			strconv.Itoa(s.Inside), strconv.Itoa(s.Outside), strconv.Itoa(s.Unlabelled), strconv.Itoa(s.InGroups)})
	}
	return rows
}

func breakerSweepTitle(r *breaker.SweepResult) string {
	return fmt.Sprintf("Circuit breaker sweep — %d settings over %d requests", len(r.Settings), r.Requests)
}

const breakerSweepUnlabelled = "no request is labelled: trips cannot be judged inside or outside an incident, and nothing is recommended"

func breakerSweepRecommend(r *breaker.SweepResult) string {
	if r.Recommended < 0 {
		return ""
	}
	s := r.Settings[r.Recommended]
	return fmt.Sprintf("recommended (*): error rate %s, min_samples %d, window %s, %s counters — %d trips in incidents, %d outside (at most %d allowed), %d requests refused; ties go to fewer refusals, then the higher rate",
		strconv.FormatFloat(s.Rate, 'f', -1, 64), s.MinSamples, s.Window, s.TTL, s.Inside, s.Outside, r.MaxOutside, s.Refused)
}

// SweepText writes the sweep as an aligned table fitting o.Width
// (Markdown when o.Markdown).
func SweepText(w io.Writer, r *breaker.SweepResult, o report.TextOptions) error {
	md := o.Markdown
	if md {
		fmt.Fprintf(w, "# %s\n", breakerSweepTitle(r))
	} else {
		fmt.Fprintln(w, breakerSweepTitle(r))
	}
	if !r.Labelled {
		o.Line(w, breakerSweepUnlabelled)
	}
	fmt.Fprintln(w)
	header := breakerSweepHeader
	if !md {
		header = make([]string, len(breakerSweepHeader))
		for i, h := range breakerSweepHeader {
			header[i] = strings.ToUpper(h)
		}
	}
	report.FitTable{Header: header, Rows: breakerSweepRows(r, true), Compact: breakerSweepCompact, Every: "-f csv or json"}.Write(w, o)
	if l := breakerSweepRecommend(r); l != "" {
		fmt.Fprintln(w)
		o.Line(w, l)
	}
	return nil
}

type breakerSweepSetting struct {
	ErrorRate     float64 `json:"kill_on_error_rate"`
	MinSamples    int     `json:"min_samples"`
	WindowSec     float64 `json:"error_window_seconds"`
	CounterTTL    string  `json:"counter_ttl"`
	ScopesTripped int     `json:"scopes_tripped"`
	Trips         int     `json:"trips"`
	Refused       int     `json:"requests_refused"`
	Inside        int     `json:"trips_in_incidents"`
	Outside       int     `json:"trips_outside_incidents"`
	Unlabelled    int     `json:"trips_unlabelled"`
	InGroups      int     `json:"trips_correlated"`
}

// SweepJSON writes the sweep as one JSON document.
func SweepJSON(w io.Writer, r *breaker.SweepResult) error {
	out := struct {
		Requests    int                   `json:"requests"`
		Labelled    bool                  `json:"labelled"`
		Recommended *int                  `json:"recommended"`
		Settings    []breakerSweepSetting `json:"settings"`
	}{Requests: r.Requests, Labelled: r.Labelled, Settings: []breakerSweepSetting{}}
	if r.Recommended >= 0 {
		out.Recommended = &r.Recommended
	}
	for _, s := range r.Settings {
		out.Settings = append(out.Settings, breakerSweepSetting{s.Rate, s.MinSamples, s.Window.Seconds(), s.TTL.String(),
			s.ScopesTripped, s.Trips, s.Refused, s.Inside, s.Outside, s.Unlabelled, s.InGroups})
	}
	return report.WriteJSON(w, out)
}

// SweepCSV writes one row per setting, with a recommended column.
func SweepCSV(w io.Writer, r *breaker.SweepResult) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"kill_on_error_rate", "min_samples", "error_window_seconds", "counter_ttl", "recommended", "scopes_tripped", "trips",
		"requests_refused", "trips_in_incidents", "trips_outside_incidents", "trips_unlabelled", "trips_correlated"})
	for i, row := range breakerSweepRows(r, false) {
		s := r.Settings[i]
		cw.Write(append([]string{row[0], row[1], strconv.FormatFloat(s.Window.Seconds(), 'f', -1, 64), row[3],
			strconv.FormatBool(i == r.Recommended)}, row[4:]...))
	}
	cw.Flush()
	return cw.Error()
}

// breakerSweepChart draws the trade-off of each setting: trips in
// incidents against trips outside them when requests are labelled, else
// the trips against the requests they refused.
func breakerSweepChart(d *report.HTMLDoc, r *breaker.SweepResult) {
	t := report.Tradeoff{Class: "breaker-sweep", Gain: "trips in incidents", Cost: "trips outside incidents"}
	if !r.Labelled {
		t.Gain, t.Cost = "trips", "requests refused"
	}
	for i, s := range r.Settings {
		row := report.TradeoffRow{
			Label:  fmt.Sprintf("rate %s · min %d · %s · %s", strconv.FormatFloat(s.Rate, 'f', -1, 64), s.MinSamples, s.Window, s.TTL),
			Gain:   s.Inside,
			Cost:   s.Outside,
			Framed: i == r.Recommended,
			Title: fmt.Sprintf("error rate %s, min_samples %d, window %s, %s counters: %s (%d in incidents, %d outside, %d unlabelled) in %s, %d requests refused",
				strconv.FormatFloat(s.Rate, 'f', -1, 64), s.MinSamples, s.Window, s.TTL, report.Plural(s.Trips, "trip"), s.Inside, s.Outside, s.Unlabelled,
				report.Plural(s.ScopesTripped, "scope"), s.Refused),
		}
		if !r.Labelled {
			row.Gain, row.Cost = s.Trips, s.Refused
		}
		t.Rows = append(t.Rows, row)
	}
	d.F("<h2>Trade-off per setting</h2>\n<figure>\n<figcaption>%s, per setting (each side scaled to its largest value)", report.HTMLEsc(t.Gain+" (right) against "+t.Cost+" (left)"))
	if r.Recommended >= 0 {
		d.F("; the framed row is the recommended setting")
	}
	d.F(".</figcaption>\n")
	report.TradeoffChart(d, t)
	d.F("</figure>\n")
}

// SweepHTML writes the sweep as one self-contained page: the
// recommendation, the trade-off of each setting (breakerSweepChart) and
// every setting (the recommended row highlighted).
func SweepHTML(w io.Writer, r *breaker.SweepResult) error {
	var d report.HTMLDoc
	title := "killswitch circuit breaker sweep"
	d.F("<h1>%s</h1>\n<p class=\"meta\">%s</p>\n", report.HTMLEsc(title), report.HTMLEsc(breakerSweepTitle(r)))
	if !r.Labelled {
		d.F("<p class=\"meta\">%s</p>\n", report.HTMLEsc(breakerSweepUnlabelled))
	}
	if l := breakerSweepRecommend(r); l != "" {
		d.F("<div class=\"rec\">\n<p>%s</p>\n</div>\n", report.HTMLEsc(l))
	}
	breakerSweepChart(&d, r)
	d.F("<h2>Every setting</h2>\n<div class=\"scroll\">\n")
	report.HTMLTable(&d, breakerSweepHeader, breakerSweepRows(r, false), r.Recommended)
	d.F("</div>\n")
	return report.HTMLPage(w, title, d.String())
}
