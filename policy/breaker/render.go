package breaker

import (
	"bufio"
	"fmt"
	"github.com/killswitch/killswitch/report"
	"io"
	"strconv"
	"strings"

	"github.com/killswitch/killswitch/analyze/breaker"
	"github.com/killswitch/killswitch/ingest"
)

// AppendDecision appends one breaker decision record.
func AppendDecision(b []byte, d *breaker.Decision) []byte {
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, d.Seq, 10)
	b = append(b, `,"ts":`...)
	b = report.AppendString(b, ingest.FormatTime(d.TS))
	b = append(b, `,"policy":"breaker","scope":`...)
	b = report.AppendString(b, d.Scope.String())
	b = append(b, `,"tenant":`...)
	b = report.AppendString(b, d.Scope.Tenant)
	b = append(b, `,"agent":`...)
	b = report.AppendString(b, d.Scope.Agent)
	b = append(b, `,"workflow":`...)
	b = report.AppendString(b, d.Scope.Workflow)
	b = append(b, `,"source":`...)
	b = report.AppendString(b, d.Source.String())
	b = append(b, `,"action":`...)
	b = report.AppendString(b, d.Action.String())
	b = append(b, `,"error_rate":`...)
	b = strconv.AppendFloat(b, d.ErrorRate, 'f', -1, 64)
	b = append(b, `,"samples":`...)
	b = strconv.AppendInt(b, int64(d.Samples), 10)
	b = append(b, `,"errors":`...)
	b = strconv.AppendInt(b, int64(d.Errors), 10)
	b = append(b, `,"outcome":`...)
	switch {
	case !d.Counted:
		b = append(b, "null"...)
	case d.Error:
		b = append(b, `"error"`...)
	default:
		b = append(b, `"success"`...)
	}
	b = append(b, `,"seconds_left":`...)
	if d.Action == breaker.ActionBlocked {
		b = strconv.AppendInt(b, d.SecondsLeft, 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"reason":`...)
	b = report.AppendNullString(b, d.Reason)
	return append(b, '}')
}

// DecisionsJSONL writes one decision record per line.
func DecisionsJSONL(w io.Writer, ds []breaker.Decision) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var buf []byte
	for i := range ds {
		buf = AppendDecision(buf[:0], &ds[i])
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// Text renders the breaker replay (Markdown when o.Markdown; else
// fitting o.Width): per scope its
// trips with time, error rate and samples, recovery and requests refused;
// totals per tenant; correlated trips first, since they are what an
// operator needs first.
func Text(w io.Writer, res *breaker.Result, o report.TextOptions) error {
	md, width := o.Markdown, o.LineWidth()
	title := breakerTitle(res)
	h := func(s string) {
		if md {
			fmt.Fprintf(w, "\n## %s\n\n", s)
		} else {
			fmt.Fprintf(w, "\n%s\n%s\n", s, strings.Repeat("-", len([]rune(s))))
		}
	}
	if md {
		fmt.Fprintf(w, "# %s\n", title)
	} else {
		fmt.Fprintln(w, report.Wrap(title, width))
	}
	fmt.Fprintf(w, "%s, %s, %d refused\n", report.Plural(res.Requests, "request"), report.Plural(res.Trips, "trip"), res.Refused)
	if len(res.Groups) > 0 {
		h("Correlated trips")
		for _, g := range res.Groups {
			o.Line(w, "- "+report.Printable(g.Text))
			for _, t := range g.Trips {
				fmt.Fprintf(w, "  - %s %s\n", ingest.FormatTime(t.TS), report.Printable(t.Scope.String()))
			}
		}
	}
	h("Breakers")
	rows := breakerScopeRows(res)
	report.FitTable{Header: breakerScopeHeader, Rows: rows, Compact: breakerScopeCompact, Every: "-f csv or json"}.Write(w, o)
	if manual := breakerManualLines(res); len(manual) > 0 {
		h("Operators")
		for _, l := range manual {
			o.Line(w, "- "+l)
		}
	}
	if namesTenants(res) {
		h("Tenants")
		report.TextTable(w, md, breakerTenantHeader, breakerTenantRows(res))
	}
	return nil
}

func breakerTitle(res *breaker.Result) string {
	return "Circuit breaker replay — " + breakerRules(res)
}

// breakerRules describes the breaker's default rules: "error rate ≥ 50%
// over 10+ samples, counters refresh over 5m0s, open 30m0s".
func breakerRules(res *breaker.Result) string {
	c := res.Config
	return fmt.Sprintf("error rate ≥ %s over %d+ samples, counters %s over %s, open %s",
		strconv.FormatFloat(c.Default.Rate*100, 'f', -1, 64)+"%", c.Default.MinSamples, c.TTL, c.Default.Window, c.Default.Recover)
}

// SettingsLine describes the settings of a breaker replay, for
// check's reports: "policy breaker, error rate ≥ 50% over 10+ samples, …".
func SettingsLine(res *breaker.Result) string { return "policy breaker, " + breakerRules(res) }

// breakerScopeCompact are the columns of a narrow scope table: which
// breaker, how busy, when it tripped, what that refused, how it ended.
var breakerScopeCompact = []int{0, 1, 3, 7, 8}

var breakerScopeHeader = []string{"scope", "requests", "errors", "tripped at (request)", "error rate", "samples", "recovers at", "refused", "at the end"}

// breakerScopeRows: one row per trip (a scope's first row names it), one
// for a scope that never tripped.
func breakerScopeRows(res *breaker.Result) [][]string {
	var rows [][]string
	for _, s := range res.Scopes {
		state := "closed"
		if s.Open {
			state = "open"
		}
		if len(s.Trips) == 0 {
			rows = append(rows, []string{report.Printable(s.Scope.String()), strconv.Itoa(s.Requests), strconv.Itoa(s.Errors), "-", "", "", "", strconv.Itoa(s.Refused), state})
			continue
		}
		for i, t := range s.Trips {
			row := []string{report.Printable(s.Scope.String()), strconv.Itoa(s.Requests), strconv.Itoa(s.Errors),
				fmt.Sprintf("%s (#%d)", ingest.FormatTime(t.TS), t.ScopeN), pct100(t.ErrorRate), strconv.Itoa(t.Samples),
				ingest.FormatTime(t.Until), strconv.Itoa(t.Refused), state}
			if i > 0 {
				row[0], row[1], row[2], row[8] = "", "", "", ""
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// breakerManualLines: operators' openings and closings, one line each.
func breakerManualLines(res *breaker.Result) []string {
	var manual []string
	for _, s := range res.Scopes {
		for _, m := range s.Manual {
			if m.Open {
				manual = append(manual, fmt.Sprintf("%s %s opened until %s by an operator (%s): %s; %s refused",
					ingest.FormatTime(m.TS), report.Printable(s.Scope.String()), ingest.FormatTime(m.Until), m.Source, report.Printable(m.Reason), report.Plural(m.Refused, "request")))
			} else {
				manual = append(manual, fmt.Sprintf("%s %s closed by an operator (%s)", ingest.FormatTime(m.TS), report.Printable(s.Scope.String()), m.Source))
			}
		}
	}
	return manual
}

var breakerTenantHeader = []string{"tenant", "scopes", "tripped", "trips", "requests", "refused"}

// namesTenants reports whether a record named a tenant: without one, the
// Tenants section would be a heading over "(none)", the totals again.
func namesTenants(res *breaker.Result) bool {
	return len(res.Tenants) > 1 || len(res.Tenants) == 1 && res.Tenants[0].Tenant != ""
}

func breakerTenantRows(res *breaker.Result) [][]string {
	var rows [][]string
	for _, t := range res.Tenants {
		name := t.Tenant
		if name == "" {
			name = "(none)"
		}
		rows = append(rows, []string{report.Printable(name), strconv.Itoa(t.Scopes), strconv.Itoa(t.ScopesTripped), strconv.Itoa(t.Trips), strconv.Itoa(t.Requests), strconv.Itoa(t.Refused)})
	}
	return rows
}

func pct100(r float64) string { return strconv.FormatFloat(r*100, 'f', 1, 64) + "%" }
