package gateway

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/killswitch/killswitch/analyze/expect"
	"github.com/killswitch/killswitch/analyze/gateway"
	"github.com/killswitch/killswitch/ingest"
)

// The gateway's expectation sections (settings.policy "gateway"):
//
//	{"settings": {"policy": "gateway", "variant": "spec", "gateway": {"rpm": 1}},
//	 "http_status": {"200": 3, "429": {"min": 1}},
//	 "block_reason": {"rate_limit_rpm": 2},
//	 "incidents": [{"tenant": "acme", "trigger": "rate_limit", "calls": 2,
//	                "severity": "low", "status": "resolved",
//	                "started_at": "2026-03-01T10:04:59Z", "ended_at": "2026-03-01T10:19:59Z"}]}
//
//   - settings.variant is "m22" (default) or "spec"; settings.gateway
//     holds the numbers of a gateway settings file (max_cost_cents, rpm,
//     max_incidents_per_hour, …), checked as `replay --settings` checks
//     them.
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

// schema is the gateway's part of an expectation file.
var schema = &expect.Schema{
	Policy:   "gateway",
	Variants: []string{"m22", "spec"},
	Settings: func(p *expect.Parser, n *expect.Node, path string) {
		// Over the defaults (the same for both variants), as the
		// replay applies it: the severity thresholds are checked in order.
		cfg := gateway.DefaultConfig(gateway.M22)
		cfg.ApplySettingsNode(p.Doc, n, path)
	},
	Sections: []expect.Section{
		{Key: "http_status", Parse: func(p *expect.Parser, key string, n *expect.Node) expect.Part {
			return parseCounts(p, n, key, true)
		}},
		{Key: "block_reason", Parse: func(p *expect.Parser, key string, n *expect.Node) expect.Part {
			return parseCounts(p, n, key, false)
		}},
		{Key: "incidents", Parse: func(p *expect.Parser, key string, n *expect.Node) expect.Part {
			return parseIncidents(p, n)
		}},
	},
}

// Count bounds how many calls got one answer: an entry of "http_status"
// or "block_reason".
type Count struct {
	Key   string // the status code or the block reason
	Line  int
	Range expect.Range
}

// IncidentWant is one entry of "incidents".
type IncidentWant struct {
	Line             int
	Tenant, Trigger  string
	Severity, Status string // "": not checked
	Calls            expect.Range
	StartedAt        time.Time // zero: not checked
	EndedAt          time.Time // zero: not checked
}

// counts is "http_status" or "block_reason" as a part of an expectation.
type counts struct {
	key  string
	list []Count // sorted by key
}

func (c *counts) Empty() bool { return len(c.list) == 0 }
func (c *counts) JSON() any {
	m := map[string]any{}
	for _, x := range c.list {
		m[x.Key] = expect.RangeJSON(x.Range)
	}
	return m
}

// incidents is "incidents" as a part of an expectation: given, perhaps
// empty (no incident).
type incidents struct {
	line int
	list []IncidentWant
}

func (in *incidents) Empty() bool { return false }
func (in *incidents) JSON() any {
	list := []any{}
	for _, w := range in.list {
		m := map[string]any{"tenant": w.Tenant, "trigger": w.Trigger}
		if w.Calls.IsSet() {
			m["calls"] = expect.RangeJSON(w.Calls)
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
	return list
}

// incidentKeys are the keys of one entry of "incidents".
var incidentKeys = []string{"tenant", "trigger", "calls", "severity", "status", "started_at", "ended_at"}

// checkConfig returns the gateway configuration an expectation's settings
// name: the variant (m22 by default) with the numbers of settings.gateway.
func checkConfig(s expect.Settings) (gateway.Config, error) {
	name := "m22"
	if s.Variant != nil {
		name = *s.Variant
	}
	p, err := gateway.VariantByName(name)
	if err != nil {
		return gateway.Config{}, err
	}
	cfg := gateway.DefaultConfig(p)
	if s.Own != nil {
		if err := cfg.ApplySettings(s.Own); err != nil {
			return gateway.Config{}, err
		}
	}
	return cfg, nil
}

// parseCounts reads "http_status" (codes when codes) or "block_reason".
func parseCounts(p *expect.Parser, n *expect.Node, section string, codes bool) *counts {
	var out []Count
	for _, m := range p.Object(n, section) {
		kp := section + "." + m.Key
		if codes {
			if c, err := strconv.Atoi(m.Key); err != nil || c < 100 || c > 599 || len(m.Key) != 3 {
				p.Errorf(m.Off, kp, "not an HTTP status (want 100..599)")
				continue
			}
		} else if m.Key == "" {
			p.Errorf(m.Off, kp, "empty block reason")
			continue
		}
		r, ok := p.Count(m.Val, kp, 0, "a count")
		if !ok {
			continue
		}
		out = append(out, Count{Key: m.Key, Line: p.Line(m.Off), Range: r})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return &counts{section, out}
}

// parseIncidents reads "incidents": a list of objects, kept in file order.
func parseIncidents(p *expect.Parser, n *expect.Node) *incidents {
	if n.Kind != expect.KindArray {
		p.Errorf(n.Off, "incidents", "want a JSON array, got %s", n.Kind)
		return &incidents{line: p.Line(n.Off)}
	}
	out := []IncidentWant{}
	for i, el := range n.Elems {
		kp := "incidents[" + strconv.Itoa(i) + "]"
		w := IncidentWant{Line: p.Line(el.Off)}
		for _, m := range p.Object(el, kp, incidentKeys...) {
			fp := kp + "." + m.Key
			switch m.Key {
			case "tenant", "trigger", "severity", "status":
				s, ok := p.Str(m.Val, fp)
				if !ok {
					continue
				}
				switch {
				case s == "":
					p.Errorf(m.Val.Off, fp, "empty")
				case m.Key == "tenant":
					w.Tenant = s
				case m.Key == "trigger":
					w.Trigger = s
				case m.Key == "severity":
					if s != "low" && s != "medium" && s != "high" && s != "critical" {
						p.Errorf(m.Val.Off, fp, "unknown severity %q (want low, medium, high or critical)", s)
					}
					w.Severity = s
				default:
					if s != "open" && s != "resolved" {
						p.Errorf(m.Val.Off, fp, "unknown status %q (want open or resolved)", s)
					}
					w.Status = s
				}
			case "calls":
				w.Calls, _ = p.Count(m.Val, fp, 1, "an incident has at least one call")
			case "started_at", "ended_at":
				s, ok := p.Str(m.Val, fp)
				if !ok {
					continue
				}
				t, err := time.Parse(time.RFC3339Nano, s)
				if err != nil {
					p.Errorf(m.Val.Off, fp, "not an RFC 3339 time (2026-03-01T10:00:00Z)")
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
			if el.Kind == expect.KindObject && !el.Has(k) {
				p.Errorf(el.Off, kp, "missing key %q", k)
			}
		}
		if w.Status == "open" && !w.EndedAt.IsZero() {
			p.Errorf(el.Off, kp, "status \"open\" with an ended_at")
		}
		out = append(out, w)
	}
	return &incidents{line: p.Line(n.Off), list: out}
}

// sections returns e's gateway sections (nil where not given).
func sections(e *expect.Expectation) (status, reasons *counts, ins *incidents) {
	status, _ = e.Part("http_status").(*counts)
	reasons, _ = e.Part("block_reason").(*counts)
	ins, _ = e.Part("incidents").(*incidents)
	return status, reasons, ins
}

// compareSections checks the gateway sections of e against res, the
// gateway's result of replaying e's capture: one Result per http_status
// and block_reason entry (by key), then, when e states incidents, one for
// their number and one per expected incident (in order).
func compareSections(e *expect.Expectation, res *gateway.Result) []expect.Result {
	var out []expect.Result
	status, reasons, ins := sections(e)
	if status != nil {
		for _, c := range status.list {
			code, _ := strconv.Atoi(c.Key)
			out = append(out, compareCount("http_status", c, res.ByStatus[code]))
		}
	}
	if reasons != nil {
		for _, c := range reasons.list {
			out = append(out, compareCount("block_reason", c, res.ByReason[c.Key]))
		}
	}
	if ins != nil {
		out = append(out, compareIncidents(ins, res)...)
	}
	return out
}

// compareIncidents checks the incidents: their number, then each in order.
func compareIncidents(ins *incidents, res *gateway.Result) []expect.Result {
	var out []expect.Result
	n := len(res.Incidents)
	r := expect.Result{Key: "incidents", Line: ins.line, Got: plural(n, "incident"), Want: plural(len(ins.list), "incident")}
	r.Pass = n == len(ins.list)
	if !r.Pass {
		var got []string
		for _, in := range res.Incidents {
			got = append(got, DescribeIncident(in))
		}
		r.Reason = fmt.Sprintf("%s, expected %d", plural(n, "incident"), len(ins.list))
		if n > 0 {
			r.Reason += ": " + strings.Join(got, "; ")
		}
	}
	out = append(out, r)
	for i, w := range ins.list {
		r := expect.Result{Key: "incidents[" + strconv.Itoa(i) + "]", Line: w.Line, Want: describeIncidentWant(w)}
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

func compareCount(section string, c Count, got int) expect.Result {
	r := expect.Result{Key: section + "." + c.Key, Line: c.Line, Pass: c.Range.Contains(got),
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

// updateSections changes e's gateway sections so that they hold for
// res, as expect.Update does for agents: a failing count is set to (or
// widened to) the observed one; incidents that do not all hold are
// replaced by the replay's, every field given. It returns the changes,
// one line each.
func updateSections(e *expect.Expectation, res *gateway.Result) []string {
	var changes []string
	// The variant the result was replayed under (a --variant override)
	// is the file's from now on, as Update does for a loop profile.
	was := "m22"
	if e.Settings.Variant != nil {
		was = *e.Settings.Variant
	}
	if res.Variant != "" && res.Variant != was {
		now := res.Variant
		e.Settings.Variant = &now
		changes = append(changes, "settings.variant: "+was+" → "+now)
	}
	status, reasons, ins := sections(e)
	for _, sec := range []struct {
		c   *counts
		get func(string) int
	}{
		{status, func(k string) int { c, _ := strconv.Atoi(k); return res.ByStatus[c] }},
		{reasons, func(k string) int { return res.ByReason[k] }},
	} {
		if sec.c == nil {
			continue
		}
		list := append([]Count(nil), sec.c.list...)
		for i := range list {
			c := &list[i]
			before := c.Range
			if c.Range = expect.Widen(c.Range, sec.get(c.Key)); c.Range != before {
				changes = append(changes, sec.c.key+"."+c.Key+": "+before.String()+" → "+c.Range.String())
			}
		}
		e.Parts[sec.c.key] = &counts{sec.c.key, list}
	}
	if ins == nil {
		return changes
	}
	for _, r := range compareIncidents(ins, res) {
		if !r.Pass {
			before := len(ins.list)
			e.Parts["incidents"] = &incidents{line: ins.line, list: incidentsOf(res)}
			return append(changes, fmt.Sprintf("incidents: %d expected → the replay's %d, every field given", before, len(res.Incidents)))
		}
	}
	return changes
}

// incidentsOf describes res's incidents exactly, every field given.
func incidentsOf(res *gateway.Result) []IncidentWant {
	out := []IncidentWant{}
	for _, in := range res.Incidents {
		out = append(out, IncidentWant{Tenant: in.Tenant, Trigger: in.Trigger, Severity: in.Severity, Status: in.Status,
			Calls: expect.Plain(len(in.Calls)), StartedAt: in.StartedAt.UTC(), EndedAt: in.EndedAt.UTC()})
	}
	return out
}
