package gateway

import (
	"bufio"
	"fmt"
	"github.com/killswitch/killswitch/report"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/killswitch/killswitch/analyze/gateway"
	"github.com/killswitch/killswitch/ingest"
)

// AppendDecision appends one gateway decision record: the call, the
// status the gateway answered, why, the guardrail decisions as M22 stores
// them (policy_decisions_json) and the cost estimate.
func AppendDecision(b []byte, d *gateway.Decision) []byte {
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, d.Seq, 10)
	b = append(b, `,"ts":`...)
	b = report.AppendString(b, ingest.FormatTime(d.TS))
	b = append(b, `,"tenant":`...)
	b = report.AppendString(b, d.Tenant)
	b = append(b, `,"api_key_id":`...)
	b = report.AppendNullString(b, d.APIKeyID)
	b = append(b, `,"source":`...)
	b = report.AppendString(b, d.Source.String())
	b = append(b, `,"call_id":`...)
	b = report.AppendString(b, d.CallID)
	b = append(b, `,"model":`...)
	b = report.AppendNullString(b, d.Model)
	b = append(b, `,"http_status":`...)
	b = strconv.AppendInt(b, int64(d.HTTPStatus), 10)
	b = append(b, `,"was_blocked":`...)
	b = strconv.AppendBool(b, d.Blocked)
	b = append(b, `,"block_reason":`...)
	b = report.AppendNullString(b, d.BlockReason)
	b = append(b, `,"invalid":`...)
	b = report.AppendNullString(b, d.Invalid)
	b = append(b, `,"cost_estimate_cents":`...)
	if d.HasCost {
		b = appendCents(b, d.CostCents)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"policy_decisions":`...)
	if d.Guardrails == nil {
		b = append(b, "null"...)
	} else {
		b = gateway.AppendDecisionsJSON(b, d.Guardrails)
	}
	b = append(b, `,"incident_id":`...)
	b = report.AppendNullString(b, d.IncidentID)
	return append(b, '}')
}

// appendCents appends a cost estimate in cents. Prices are whole cents per
// million tokens, so an estimate is exact at 6 decimals and what follows
// is binary noise: 0.24599999999999997 is appended as 0.246.
func appendCents(b []byte, cents float64) []byte {
	return strconv.AppendFloat(b, math.Round(cents*1e6)/1e6, 'f', -1, 64)
}

// DecisionsJSONL writes one decision record per line.
func DecisionsJSONL(w io.Writer, ds []gateway.Decision) error {
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

// Text renders the gateway replay for a terminal, fitting o.Width
// (Markdown when o.Markdown):
// what each tenant's and key's calls got, the refusals by reason, the
// freezes, and one screen per incident — its trigger, start and end, calls
// affected, cost avoided, its events in order and the requests behind it.
func Text(w io.Writer, res *gateway.Result, o report.TextOptions) error {
	md := o.Markdown
	line := func(s string) { o.Line(w, s) }
	h := func(s string) {
		if md {
			fmt.Fprintf(w, "\n## %s\n\n", s)
		} else {
			fmt.Fprintf(w, "\n%s\n%s\n", s, strings.Repeat("-", len([]rune(s))))
		}
	}
	title := fmt.Sprintf("Gateway replay — variant %s: %s", res.Variant, report.Plural(res.Requests, "call"))
	if md {
		fmt.Fprintf(w, "# %s\n", title)
	} else {
		fmt.Fprintln(w, title)
	}
	h("Calls by tenant and key")
	report.TextTable(w, md, gatewayTotalsHeader, gatewayTotalsRows(res))
	if len(res.ByReason) > 0 {
		h("Refusals by reason")
		writeCounts(w, res.ByReason)
	}
	if len(res.Rejected) > 0 {
		h(fmt.Sprintf("Bodies the gateway rejects (%d)", len(res.Rejected)))
		for _, r := range res.Rejected {
			line(fmt.Sprintf("- call %d (%s): HTTP %d: %s", r.Seq, r.Source, r.Status, report.Printable(r.Msg)))
		}
	}
	if len(res.Freezes) > 0 {
		h("Freezes")
		for _, l := range gatewayFreezeLines(res) {
			line("- " + l)
		}
	}
	h(fmt.Sprintf("Incidents (%d)", len(res.Incidents)))
	if len(res.Incidents) == 0 {
		fmt.Fprintln(w, "none")
	}
	for _, in := range res.Incidents {
		end := "open"
		if !in.EndedAt.IsZero() {
			end = ingest.FormatTime(in.EndedAt) + " (" + in.ResolvedBy + ")"
		}
		fmt.Fprintln(w)
		line(fmt.Sprintf("%s [%s, %s] %s", in.ID, in.Severity, in.Status, report.Printable(in.Title)))
		line(fmt.Sprintf("  tenant %s, trigger %s, from %s to %s, %s affected, cost avoided %.4f¢",
			report.Printable(in.Tenant), in.Trigger, ingest.FormatTime(in.StartedAt), end, report.Plural(len(in.Calls), "call"), in.CostCents))
		for _, ev := range in.Events {
			line(fmt.Sprintf("  %s %s: %s", ingest.FormatTime(ev.TS), ev.Type, report.Printable(ev.Description)))
		}
		for _, c := range in.Calls {
			line(fmt.Sprintf("    call %d at %s: HTTP %d (%s)", c.Seq, ingest.FormatTime(c.TS), c.Status, c.Source))
		}
	}
	if len(res.Warnings) > 0 {
		h("Warnings")
		for _, wn := range res.Warnings {
			line(fmt.Sprintf("- %s: %s", wn.Pos, report.Printable(wn.Msg)))
		}
	}
	return nil
}

// SettingsLine describes the settings of a gateway replay, for
// check's reports: "policy gateway, variant spec, max cost 100¢ a request,
// max tokens 16000, rpm 100, spike rate 0.5"; the rpm and the spike rate
// only under a variant that enforces them.
func SettingsLine(res *gateway.Result) string {
	c := res.Config
	line := fmt.Sprintf("policy gateway, variant %s, max cost %s¢ a request, max tokens %d", res.Variant,
		strconv.FormatFloat(c.MaxCostCents, 'f', -1, 64), c.MaxTokens)
	if res.Variant == gateway.Spec.Name {
		line += fmt.Sprintf(", rpm %d, spike rate %s", c.RPM, strconv.FormatFloat(c.SpikeRate, 'f', -1, 64))
	}
	return line
}

var gatewayTotalsHeader = []string{"tenant / key", "calls", "forwarded", "answered", "cost avoided"}

// gatewayTotalsRows are the calls by tenant, then by key.
func gatewayTotalsRows(res *gateway.Result) [][]string {
	rows := [][]string{}
	for _, t := range append(append([]gateway.Totals(nil), res.Tenants...), res.Keys...) {
		rows = append(rows, []string{tenantKey(t.Tenant, t.APIKeyID), strconv.Itoa(t.Requests), strconv.Itoa(t.Forwarded), statusCounts(t.ByStatus),
			fmt.Sprintf("%.4f¢", t.CostAvoidedCents)})
	}
	return rows
}

// gatewayFreezeLines are the freezes and unfreezes, one line each.
func gatewayFreezeLines(res *gateway.Result) []string {
	var out []string
	for _, f := range res.Freezes {
		verb := "unfrozen"
		if f.Freeze {
			verb = "frozen"
		}
		l := fmt.Sprintf("%s %s %s %s by %s (%s)", ingest.FormatTime(f.TS), f.Entity, report.Printable(f.EntityID), verb, report.Printable(f.By), f.Source)
		if f.Reason != "" {
			l += ": " + report.Printable(f.Reason)
		}
		out = append(out, l)
	}
	return out
}

// tenantKey names a tenant, or one of its keys: "acme", "acme / k1".
func tenantKey(tenant, key string) string {
	if key == "" {
		return report.Printable(tenant)
	}
	return report.Printable(tenant) + " / " + report.Printable(key)
}

// writeCounts writes one "- key: n" line per key of m, by key.
func writeCounts(w io.Writer, m map[string]int) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "- %s: %d\n", report.Printable(k), m[k])
	}
}

func statusCounts(m map[int]int) string {
	var codes []int
	for c := range m {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = fmt.Sprintf("%d×%d", m[c], c)
	}
	return strings.Join(parts, " ")
}
