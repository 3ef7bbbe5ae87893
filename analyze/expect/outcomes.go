package expect

import (
	"sort"
)

// OutcomeKeys name a section of named outcomes ("agents", the breaker's
// "scopes") and the keys and words of one entry.
type OutcomeKeys struct {
	Section, What string // "agents", "agent id"
	Fired         string // the key and verb of a firing: "killed", "tripped"
	At            string // "at_request"
	Count         string // "kills", "trips"
	Not           string // "not killed", "never tripped"
	AtHint        string // why At starts at 1
}

// AgentKeys are the keys of "agents".
var AgentKeys = OutcomeKeys{"agents", "agent id", "killed", "at_request", "kills", "not killed", "an agent's requests are counted from 1"}

// Outcomes reads a section of named outcomes (sorted by name).
func (p *Parser) Outcomes(n *Node, k OutcomeKeys) []Agent {
	var out []Agent
	for _, m := range p.Object(n, k.Section) {
		kp := k.Section + "." + m.Key
		if m.Key == "" {
			p.Errorf(m.Off, kp, "empty %s", k.What)
			continue
		}
		a := Agent{Name: m.Key, Line: p.Line(m.Off)}
		var hasKilled, sawKilled bool
		var atOff, killsOff int
		for _, f := range p.Object(m.Val, kp, k.Fired, k.At, k.Count) {
			fp := kp + "." + f.Key
			switch f.Key {
			case k.Fired:
				sawKilled = true
				if f.Val.Kind != KindBool {
					p.Errorf(f.Val.Off, fp, "want true or false, got %s", f.Val.Kind)
					continue
				}
				a.Killed, hasKilled = f.Val.Bool, true
			case k.At:
				a.AtRequest, _ = p.Count(f.Val, fp, 1, k.AtHint)
				atOff = f.Off
			case k.Count:
				a.Kills, _ = p.Count(f.Val, fp, 0, "a count")
				killsOff = f.Off
			}
		}
		if m.Val.Kind == KindObject && !sawKilled {
			p.Errorf(m.Val.Off, kp, "missing key %q (true or false)", k.Fired)
			continue
		}
		if hasKilled && !a.Killed {
			if a.AtRequest.IsSet() {
				p.Errorf(atOff, kp+"."+k.At, "given but %q is false", k.Fired)
			}
			if a.Kills.IsSet() {
				p.Errorf(killsOff, kp+"."+k.Count, "given but %q is false (leave it out)", k.Fired)
			}
		}
		if a.Killed && a.Kills.HasMax && a.Kills.Max < 1 {
			p.Errorf(killsOff, kp+"."+k.Count, "at most %d contradicts %q: true", a.Kills.Max, k.Fired)
		}
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Outcomes is a policy's section of named outcomes (the breaker's
// "scopes"), as a Part.
type Outcomes struct {
	Keys OutcomeKeys
	List []Agent // sorted by name
}

// Empty reports whether the section names nothing.
func (o *Outcomes) Empty() bool { return len(o.List) == 0 }

// JSON renders the section for Format.
func (o *Outcomes) JSON() any { return outcomesJSON(o.List, o.Keys) }

func outcomesJSON(list []Agent, k OutcomeKeys) map[string]any {
	entries := map[string]any{}
	for _, a := range list {
		m := map[string]any{k.Fired: a.Killed}
		if a.AtRequest.IsSet() {
			m[k.At] = RangeJSON(a.AtRequest)
		}
		if a.Kills.IsSet() {
			m[k.Count] = RangeJSON(a.Kills)
		}
		entries[a.Name] = m
	}
	return entries
}

// Outcome is what a policy did to one named thing (a breaker scope) in a
// replay, as an Outcomes section is checked against it.
type Outcome struct {
	Name     string
	Requests int   // its requests in the capture
	Fired    []int // its request number (from 1) of each firing, in order
	Desc     string
}

func outcomesByName(outs []Outcome) map[string]Outcome {
	m := make(map[string]Outcome, len(outs))
	for _, o := range outs {
		m[o.Name] = o
	}
	return m
}

// Compare checks the section against the policy's outcomes: one Result
// per entry, in the section's order (by name), keyed SECTION.NAME. An
// entry without requests in the capture fails.
func (o *Outcomes) Compare(outs []Outcome) []Result {
	by := outcomesByName(outs)
	var res []Result
	for _, want := range o.List {
		r := Result{Key: o.Keys.Section + "." + want.Name, Line: want.Line, Want: describeWant(want, o.Keys)}
		got, ok := by[want.Name]
		if !ok || got.Requests == 0 {
			r.Got = "no requests in the capture"
			r.Reason = "no requests of this " + o.Keys.What + " in the capture"
			res = append(res, r)
			continue
		}
		r.Got = got.Desc
		r.Reason = judge(want, o.Keys, got.Fired, r.Got, r.Want)
		r.Pass = r.Reason == ""
		res = append(res, r)
	}
	return res
}

// Update changes the section so that it holds for outs, as Update does
// for agents, and returns the changes made, one line each.
func (o *Outcomes) Update(outs []Outcome) []string {
	by := outcomesByName(outs)
	var changes []string
	for i := range o.List {
		a := &o.List[i]
		key := o.Keys.Section + "." + a.Name
		got, ok := by[a.Name]
		if !ok || got.Requests == 0 {
			changes = append(changes, key+": no requests in the capture: left as is (remove it by hand if it is gone)")
			continue
		}
		before := describeWant(*a, o.Keys)
		updateOutcome(a, got.Fired)
		if after := describeWant(*a, o.Keys); after != before {
			changes = append(changes, key+": "+before+" → "+after)
		}
	}
	return changes
}
