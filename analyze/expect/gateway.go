package expect

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/killswitch/killswitch/analyze/gateway"
	"github.com/killswitch/killswitch/ingest"
)

// The gateway's expectations (settings.policy "gateway"):
//
//	{"settings": {"policy": "gateway", "profile": "spec", "gateway": {"rpm": 1}},
//	 "http_status": {"200": 3, "429": {"min": 1}},
//	 "block_reason": {"rate_limit_rpm": 2},
//	 "incidents": [{"tenant": "acme", "trigger": "rate_limit", "calls": 2,
//	                "severity": "low", "status": "resolved",
//	                "started_at": "2026-03-01T10:04:59Z", "ended_at": "2026-03-01T10:19:59Z"}]}
//
//   - settings.profile is the gateway's: "m22" (default) or "spec";
//     settings.gateway holds the numbers of a gateway settings file
//     (max_cost_cents, rpm, max_incidents_per_hour, …), checked as
//     `replay --settings` checks them.
//   - http_status: answer code → how many calls got it (the gateway's
//     answer: 423, 400, …, or the captured status when forwarded). Codes
//     not named are not checked.
//   - block_reason: block_reason → how many calls were refused with it
//     ("killswitch", a guardrail name, "budget_exceeded", …).
//   - incidents: every incident the replay opens, in the order it opens
//     them (an empty list: none). tenant and trigger are required;
//     calls (a count), severity, status ("open" | "resolved"), started_at
//     and ended_at (RFC 3339; the auto-resolve time) are checked when
//     given.

// Count bounds how many calls got one answer: an entry of "http_status"
// or "block_reason".
type Count struct {
	Key   string // the status code or the block reason
	Line  int
	Range Range
}

// IncidentWant is one entry of "incidents".
type IncidentWant struct {
	Line             int
	Tenant, Trigger  string
	Severity, Status string // "": not checked
	Calls            Range
	StartedAt        time.Time // zero: not checked
	EndedAt          time.Time // zero: not checked
}

// gatewaySections are the top-level keys that need settings.policy "gateway".
var gatewaySections = []string{"http_status", "block_reason", "incidents"}

// incidentKeys are the keys of one entry of "incidents".
var incidentKeys = []string{"tenant", "trigger", "calls", "severity", "status", "started_at", "ended_at"}

// HasGateway reports whether e states anything about the gateway.
func (e *Expectation) HasGateway() bool {
	return len(e.HTTPStatus) > 0 || len(e.BlockReasons) > 0 || e.HasIncidents
}

// GatewayConfig returns the gateway configuration the settings name: the
// profile (m22 by default) with the numbers of settings.gateway.
func (s Settings) GatewayConfig() (gateway.Config, error) {
	name := "m22"
	if s.GatewayProfile != nil {
		name = *s.GatewayProfile
	}
	p, err := gateway.VariantByName(name)
	if err != nil {
		return gateway.Config{}, err
	}
	cfg := gateway.DefaultConfig(p)
	if s.Gateway != nil {
		if err := cfg.ApplySettings(s.Gateway); err != nil {
			return gateway.Config{}, err
		}
	}
	return cfg, nil
}

// counts reads "http_status" (codes when codes) or "block_reason".
func (p *parser) counts(n *node, section string, codes bool) []Count {
	var out []Count
	for _, m := range p.object(n, section) {
		kp := section + "." + m.Key
		if codes {
			if c, err := strconv.Atoi(m.Key); err != nil || c < 100 || c > 599 || len(m.Key) != 3 {
				p.errorf(m.Off, kp, "not an HTTP status (want 100..599)")
				continue
			}
		} else if m.Key == "" {
			p.errorf(m.Off, kp, "empty block reason")
			continue
		}
		r, ok := p.count(m.Val, kp, 0, "a count")
		if !ok {
			continue
		}
		line, _ := p.pos(m.Off)
		out = append(out, Count{Key: m.Key, Line: line, Range: r})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// incidents reads "incidents": a list of objects, kept in file order.
func (p *parser) incidents(n *node) []IncidentWant {
	if n.Kind != kindArray {
		p.errorf(n.Off, "incidents", "want a JSON array, got %s", n.Kind)
		return nil
	}
	out := []IncidentWant{}
	for i, el := range n.Elems {
		kp := "incidents[" + strconv.Itoa(i) + "]"
		line, _ := p.pos(el.Off)
		w := IncidentWant{Line: line}
		for _, m := range p.object(el, kp, incidentKeys...) {
			fp := kp + "." + m.Key
			switch m.Key {
			case "tenant", "trigger", "severity", "status":
				s, ok := p.str(m.Val, fp)
				if !ok {
					continue
				}
				switch {
				case s == "":
					p.errorf(m.Val.Off, fp, "empty")
				case m.Key == "tenant":
					w.Tenant = s
				case m.Key == "trigger":
					w.Trigger = s
				case m.Key == "severity":
					if s != "low" && s != "medium" && s != "high" && s != "critical" {
						p.errorf(m.Val.Off, fp, "unknown severity %q (want low, medium, high or critical)", s)
					}
					w.Severity = s
				default:
					if s != "open" && s != "resolved" {
						p.errorf(m.Val.Off, fp, "unknown status %q (want open or resolved)", s)
					}
					w.Status = s
				}
			case "calls":
				w.Calls, _ = p.count(m.Val, fp, 1, "an incident has at least one call")
			case "started_at", "ended_at":
				s, ok := p.str(m.Val, fp)
				if !ok {
					continue
				}
				t, err := time.Parse(time.RFC3339Nano, s)
				if err != nil {
					p.errorf(m.Val.Off, fp, "not an RFC 3339 time (2026-03-01T10:00:00Z)")
					continue
				}
				if m.Key == "started_at" {
					w.StartedAt = t.UTC()
				} else {
					w.EndedAt = t.UTC()
				}
			}
		}
		for _, k := range []string{"tenant", "trigger"} {
			if el.Kind == kindObject && !el.Has(k) {
				p.errorf(el.Off, kp, "missing key %q", k)
			}
		}
		if w.Status == "open" && !w.EndedAt.IsZero() {
			p.errorf(el.Off, kp, "status \"open\" with an ended_at")
		}
		out = append(out, w)
	}
	return out
}

// settingsJSON renders the object n (settings.gateway) back to compact
// JSON for gateway.Config.ApplySettings; arrays are not kept by the
// parser and are no gateway setting.
func settingsJSON(n *node) ([]byte, error) {
	var v func(n *node) (any, error)
	v = func(n *node) (any, error) {
		switch n.Kind {
		case kindNull:
			return nil, nil
		case kindBool:
			return n.Bool, nil
		case kindNumber:
			return n.Num, nil
		case kindString:
			return n.Str, nil
		case kindObject:
			m := map[string]any{}
			for _, mb := range n.Members {
				x, err := v(mb.Val)
				if err != nil {
					return nil, err
				}
				m[mb.Key] = x
			}
			return m, nil
		}
		return nil, fmt.Errorf("a list is no gateway setting")
	}
	x, err := v(n)
	if err != nil {
		return nil, err
	}
	return json.Marshal(x)
}

// CompareGateway checks the gateway sections of e against res, the
// gateway's result of replaying e's capture: one Result per http_status
// and block_reason entry (by key), then, when e states incidents, one for
// their number and one per expected incident (in order).
func CompareGateway(e *Expectation, res *gateway.Result) []Result {
	var out []Result
	for _, c := range e.HTTPStatus {
		code, _ := strconv.Atoi(c.Key)
		out = append(out, compareCount("http_status", c, res.ByStatus[code]))
	}
	for _, c := range e.BlockReasons {
		out = append(out, compareCount("block_reason", c, res.ByReason[c.Key]))
	}
	if !e.HasIncidents {
		return out
	}
	n := len(res.Incidents)
	r := Result{Key: "incidents", Line: e.IncidentsLine, Got: plural(n, "incident"), Want: plural(len(e.Incidents), "incident")}
	r.Pass = n == len(e.Incidents)
	if !r.Pass {
		var got []string
		for _, in := range res.Incidents {
			got = append(got, DescribeIncident(in))
		}
		r.Reason = fmt.Sprintf("%s, expected %d", plural(n, "incident"), len(e.Incidents))
		if n > 0 {
			r.Reason += ": " + strings.Join(got, "; ")
		}
	}
	out = append(out, r)
	for i, w := range e.Incidents {
		r := Result{Key: "incidents[" + strconv.Itoa(i) + "]", Line: w.Line, Want: describeIncidentWant(w)}
		if i >= n {
			r.Got = "no such incident"
			r.Reason = fmt.Sprintf("the replay opens %s, expected %s", plural(n, "incident"), r.Want)
			out = append(out, r)
			continue
		}
		r.Got = DescribeIncident(res.Incidents[i])
		if why := judgeIncident(w, res.Incidents[i]); len(why) > 0 {
			r.Reason = strings.Join(why, "; ") + " (" + r.Got + ")"
		} else {
			r.Pass = true
		}
		out = append(out, r)
	}
	return out
}

func compareCount(section string, c Count, got int) Result {
	r := Result{Key: section + "." + c.Key, Line: c.Line, Pass: c.Range.Contains(got),
		Got: plural(got, "call"), Want: c.Range.String() + " calls"}
	if !r.Pass {
		r.Reason = fmt.Sprintf("%s, expected %s", plural(got, "call"), c.Range)
	}
	return r
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// judgeIncident returns how in differs from w, one phrase per field.
func judgeIncident(w IncidentWant, in *gateway.Incident) []string {
	var why []string
	diff := func(field, got, want string) {
		if want != "" && got != want {
			why = append(why, field+" "+got+", expected "+want)
		}
	}
	diff("tenant", strconv.Quote(in.Tenant), strconv.Quote(w.Tenant))
	diff("trigger", in.Trigger, w.Trigger)
	diff("severity", in.Severity, w.Severity)
	diff("status", in.Status, w.Status)
	if !w.Calls.Contains(len(in.Calls)) {
		why = append(why, fmt.Sprintf("calls %d, expected %s", len(in.Calls), w.Calls))
	}
	if !w.StartedAt.IsZero() && !in.StartedAt.Equal(w.StartedAt) {
		why = append(why, "started_at "+ingest.FormatTime(in.StartedAt)+", expected "+ingest.FormatTime(w.StartedAt))
	}
	if !w.EndedAt.IsZero() && !in.EndedAt.Equal(w.EndedAt) {
		got := "none (open)"
		if !in.EndedAt.IsZero() {
			got = ingest.FormatTime(in.EndedAt)
		}
		why = append(why, "ended_at "+got+", expected "+ingest.FormatTime(w.EndedAt))
	}
	return why
}

// DescribeIncident says what an incident is: `acme rate_limit (low): 2
// calls, 2026-03-01T10:05:01.000Z – 2026-03-01T10:20:02.000Z, resolved`.
func DescribeIncident(in *gateway.Incident) string {
	s := fmt.Sprintf("%s %s (%s): %s, %s", strconv.Quote(in.Tenant), in.Trigger, in.Severity, plural(len(in.Calls), "call"), ingest.FormatTime(in.StartedAt))
	if !in.EndedAt.IsZero() {
		s += " – " + ingest.FormatTime(in.EndedAt)
	}
	return s + ", " + in.Status
}

func describeIncidentWant(w IncidentWant) string {
	s := strconv.Quote(w.Tenant) + " " + w.Trigger
	if w.Severity != "" {
		s += " (" + w.Severity + ")"
	}
	var parts []string
	if w.Calls.IsSet() {
		parts = append(parts, "calls "+w.Calls.String())
	}
	if !w.StartedAt.IsZero() {
		parts = append(parts, "started "+ingest.FormatTime(w.StartedAt))
	}
	if !w.EndedAt.IsZero() {
		parts = append(parts, "ended "+ingest.FormatTime(w.EndedAt))
	}
	if w.Status != "" {
		parts = append(parts, w.Status)
	}
	if len(parts) > 0 {
		s += ": " + strings.Join(parts, ", ")
	}
	return s
}

// UpdateGateway changes e's gateway sections so that they hold for res, as
// Update does for agents: a failing count is set to (or widened to) the
// observed one; incidents that do not all hold are replaced by the
// replay's, every field given. It returns the changes, one line each.
func UpdateGateway(e *Expectation, res *gateway.Result) []string {
	var changes []string
	// The profile the result was replayed under (a --profile override)
	// is the file's from now on, as Update does for a loop profile.
	was := "m22"
	if e.Settings.GatewayProfile != nil {
		was = *e.Settings.GatewayProfile
	}
	if res.Variant != "" && res.Variant != was {
		now := res.Variant
		e.Settings.GatewayProfile = &now
		changes = append(changes, "settings.profile: "+was+" → "+now)
	}
	for _, sec := range []struct {
		name string
		list []Count
		get  func(string) int
	}{
		{"http_status", e.HTTPStatus, func(k string) int { c, _ := strconv.Atoi(k); return res.ByStatus[c] }},
		{"block_reason", e.BlockReasons, func(k string) int { return res.ByReason[k] }},
	} {
		for i := range sec.list {
			c := &sec.list[i]
			before := c.Range
			if c.Range = widen(c.Range, sec.get(c.Key)); c.Range != before {
				changes = append(changes, sec.name+"."+c.Key+": "+before.String()+" → "+c.Range.String())
			}
		}
	}
	if !e.HasIncidents {
		return changes
	}
	for _, r := range CompareGateway(&Expectation{HasIncidents: true, Incidents: e.Incidents}, res) {
		if !r.Pass {
			before := len(e.Incidents)
			e.Incidents = IncidentsOf(res)
			return append(changes, fmt.Sprintf("incidents: %d expected → the replay's %d, every field given", before, len(e.Incidents)))
		}
	}
	return changes
}

// IncidentsOf describes res's incidents exactly, every field given.
func IncidentsOf(res *gateway.Result) []IncidentWant {
	out := []IncidentWant{}
	for _, in := range res.Incidents {
		out = append(out, IncidentWant{Tenant: in.Tenant, Trigger: in.Trigger, Severity: in.Severity, Status: in.Status,
			Calls: plainCount(len(in.Calls)), StartedAt: in.StartedAt.UTC(), EndedAt: in.EndedAt.UTC()})
	}
	return out
}

// formatGateway adds e's gateway sections to doc, the document Format
// writes.
func formatGateway(doc, st map[string]any, e *Expectation) {
	if e.Settings.GatewayProfile != nil {
		st["profile"] = *e.Settings.GatewayProfile
	}
	if e.Settings.Gateway != nil {
		st["gateway"] = json.RawMessage(e.Settings.Gateway)
	}
	for _, sec := range []struct {
		key  string
		list []Count
	}{{"http_status", e.HTTPStatus}, {"block_reason", e.BlockReasons}} {
		if len(sec.list) > 0 {
			m := map[string]any{}
			for _, c := range sec.list {
				m[c.Key] = rangeJSON(c.Range)
			}
			doc[sec.key] = m
		}
	}
	if !e.HasIncidents {
		return
	}
	list := []any{}
	for _, w := range e.Incidents {
		m := map[string]any{"tenant": w.Tenant, "trigger": w.Trigger}
		if w.Calls.IsSet() {
			m["calls"] = rangeJSON(w.Calls)
		}
		if w.Severity != "" {
			m["severity"] = w.Severity
		}
		if w.Status != "" {
			m["status"] = w.Status
		}
		if !w.StartedAt.IsZero() {
			m["started_at"] = w.StartedAt.Format(time.RFC3339Nano)
		}
		if !w.EndedAt.IsZero() {
			m["ended_at"] = w.EndedAt.Format(time.RFC3339Nano)
		}
		list = append(list, m)
	}
	doc["incidents"] = list
}
