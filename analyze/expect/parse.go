package expect

import (
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/breaker"
	"github.com/killswitch/killswitch/analyze/gateway"
	"github.com/killswitch/killswitch/internal/jsontree"
)

// Error is one problem with an expectation file: where it is, the key it
// concerns, and what is wrong.
type Error = jsontree.Error

// ErrorList is every problem found in one file, in file order.
type ErrorList = jsontree.ErrorList

// maxDepth bounds the nesting of an expectation document: the schema needs
// four levels; anything much deeper is not an expectation file.
const maxDepth = 32

// Parse reads the expectation file named file (the name only labels
// errors) from data. The error, when not nil, is an ErrorList holding
// every problem found, each with its line, column and key.
func Parse(file string, data []byte) (*Expectation, error) {
	doc, root, err := jsontree.Parse(file, data, maxDepth, "an expectation file")
	if err != nil {
		return nil, ErrorList{err}
	}
	p := &parser{Doc: doc}
	e := p.expectation(root)
	if err := p.Err(); err != nil {
		return nil, err
	}
	return e, nil
}

// node is a JSON value with the offset where it starts; member one key of
// an object.
type (
	node   = jsontree.Node
	member = jsontree.Member
)

const (
	kindNull   = jsontree.Null
	kindBool   = jsontree.Bool
	kindNumber = jsontree.Number
	kindString = jsontree.String
	kindArray  = jsontree.Array
	kindObject = jsontree.Object
)

// parser checks one expectation document, collecting its errors.
type parser struct{ *jsontree.Doc }

func (p *parser) pos(off int) (line, col int) { return p.Pos(off) }

func (p *parser) errorf(off int, key, format string, args ...any) {
	p.Errorf(off, key, format, args...)
}

func (p *parser) object(n *node, path string, allowed ...string) []member {
	return p.Object(n, path, allowed...)
}

func join(path, key string) string { return jsontree.Join(path, key) }

func quoteList(keys []string) string { return jsontree.QuoteList(keys) }

func (p *parser) expectation(root *node) *Expectation {
	e := &Expectation{}
	var sawAgents, sawTotals, sawScopes bool
	var gatewayOff = -1 // offset of the first gateway section
	for _, m := range p.object(root, "", "about", "settings", "agents", "scopes", "totals", "http_status", "block_reason", "incidents") {
		if slices.Contains(gatewaySections, m.Key) && gatewayOff < 0 {
			gatewayOff = m.Off
		}
		switch m.Key {
		case "about":
			if m.Val.Kind != kindString {
				p.errorf(m.Val.Off, "about", "want a string, got %s", m.Val.Kind)
			}
			e.About = m.Val.Str
		case "settings":
			e.Settings = p.settings(m.Val)
		case "agents":
			sawAgents = true
			e.Agents = p.agents(m.Val, agentKeys)
		case "scopes":
			sawScopes = true
			e.Scopes = p.agents(m.Val, scopeKeys)
		case "totals":
			sawTotals = true
			e.Totals = p.totals(m.Val)
		case "http_status":
			e.HTTPStatus = p.counts(m.Val, m.Key, true)
		case "block_reason":
			e.BlockReasons = p.counts(m.Val, m.Key, false)
		case "incidents":
			e.Incidents, e.HasIncidents = p.incidents(m.Val), true
			e.IncidentsLine, _ = p.pos(m.Off)
		}
	}
	if gatewayOff >= 0 && (e.Settings.Policy == nil || *e.Settings.Policy != "gateway") {
		p.errorf(gatewayOff, "", "\"http_status\", \"block_reason\" and \"incidents\" are the gateway's: they need \"settings\": {\"policy\": \"gateway\"}")
	}
	if root.Kind == kindObject && len(e.Agents) == 0 && len(e.Scopes) == 0 && len(e.Totals) == 0 && !e.HasGateway() && len(p.Errs) == 0 {
		switch {
		case sawAgents || sawTotals || sawScopes || gatewayOff >= 0:
			p.errorf(root.Off, "", "expects nothing: \"agents\", \"scopes\", \"totals\" and the gateway's sections are empty")
		default:
			p.errorf(root.Off, "", "expects nothing: give \"agents\" or \"totals\"")
		}
	}
	return e
}

func (p *parser) settings(n *node) Settings {
	var s Settings
	var profile, gw, brk *node
	members := p.object(n, "settings", "policy", "profile", "window", "threshold", "mode", "gateway", "breaker")
	for _, m := range members {
		kp := "settings." + m.Key
		switch m.Key {
		case "policy":
			if str, ok := p.str(m.Val, kp); ok {
				if str != "loop" && str != "breaker" && str != "gateway" {
					p.errorf(m.Val.Off, kp, "unknown policy %q (want \"loop\", \"breaker\" or \"gateway\")", str)
				} else {
					s.Policy = &str
				}
			}
		case "profile":
			profile = m.Val
		case "gateway":
			gw = m.Val
		case "breaker":
			brk = m.Val
		}
	}
	isGateway := s.Policy != nil && *s.Policy == "gateway"
	isBreaker := s.Policy != nil && *s.Policy == "breaker"
	if isBreaker && profile != nil {
		// The breaker has no profile: refused, never ignored.
		p.errorf(profile.Off, "settings.profile", "the breaker has no profile (its settings go in \"breaker\")")
		profile = nil
	}
	if profile != nil {
		const kp = "settings.profile"
		if str, ok := p.str(profile, kp); ok && isGateway {
			if str != "m22" && str != "spec" {
				p.errorf(profile.Off, kp, "unknown gateway profile %q (want \"m22\" or \"spec\")", str)
			} else {
				s.GatewayProfile = &str
			}
		} else if ok {
			if v, err := analyze.ParseProfile(str); err != nil || str == "" {
				p.errorf(profile.Off, kp, "unknown profile %q (want %s)", str, analyze.ProfileNames())
			} else {
				s.Profile = v
			}
		}
	}
	s.Gateway = p.policySection(gw, "gateway", isGateway, func(n *node, kp string) {
		// Over the defaults (the same for both variants), as the
		// replay applies it: the severity thresholds are checked in order.
		cfg := gateway.DefaultConfig(gateway.M22)
		cfg.ApplySettingsNode(p.Doc, n, kp)
	})
	s.Breaker = p.policySection(brk, "breaker", isBreaker, func(n *node, kp string) {
		breaker.ParsePatch(p.Doc, n, kp)
	})
	for _, m := range members {
		kp := "settings." + m.Key
		switch m.Key {
		case "mode", "window", "threshold":
			if isGateway || isBreaker {
				// The loop detector's settings mean nothing to these
				// policies: refused, never ignored.
				p.errorf(m.Off, kp, "a loop detector setting: this file replays the %s (its own settings go in settings.%s)", *s.Policy, *s.Policy)
				continue
			}
		}
		switch m.Key {
		case "mode":
			if str, ok := p.str(m.Val, kp); ok {
				if v, err := analyze.ParseMode(str); err != nil || str == "" {
					p.errorf(m.Val.Off, kp, "unknown mode %q (want \"deactivate\" or \"block\")", str)
				} else {
					s.Mode = &v
				}
			}
		case "window":
			if w, ok := p.integer(m.Val, kp); ok {
				if w < 1 || w > analyze.MaxWindow {
					p.errorf(m.Val.Off, kp, "window %d out of range 1..%d", w, analyze.MaxWindow)
				} else {
					s.Window = &w
				}
			}
		case "threshold":
			if m.Val.Kind != kindNumber {
				p.errorf(m.Val.Off, kp, "want a number, got %s", m.Val.Kind)
				continue
			}
			t, err := strconv.ParseFloat(string(m.Val.Num), 64)
			if err != nil || t < 0 || math.IsInf(t, 0) {
				p.errorf(m.Val.Off, kp, "threshold %s is not a number ≥ 0", m.Val.Num)
				continue
			}
			s.Threshold = &t
		}
	}
	return s
}

// policySection reads settings.<policy> (n; nil when absent), the
// settings object of a policy other than the loop detector, which only a
// file replaying that policy (own) may give; check records the problems
// of its keys. It returns the object as compact JSON, or nil.
func (p *parser) policySection(n *node, policy string, own bool, check func(n *node, kp string)) []byte {
	if n == nil {
		return nil
	}
	kp := "settings." + policy
	if !own {
		p.errorf(n.Off, kp, "%s settings need \"policy\": %q", policy, policy)
		return nil
	}
	if n.Kind != kindObject {
		p.errorf(n.Off, kp, "want a JSON object, got %s", n.Kind)
		return nil
	}
	data, err := settingsJSON(n)
	if err != nil {
		p.errorf(n.Off, kp, "%v", err)
		return nil
	}
	check(n, kp)
	return data
}

func (p *parser) str(n *node, path string) (string, bool) {
	if n.Kind != kindString {
		p.errorf(n.Off, path, "want a string, got %s", n.Kind)
		return "", false
	}
	return n.Str, true
}

// integer reads a whole number (6, or 6.0 as some JSON writers put it).
func (p *parser) integer(n *node, path string) (int, bool) {
	if n.Kind != kindNumber {
		p.errorf(n.Off, path, "want a whole number, got %s", n.Kind)
		return 0, false
	}
	if i, err := strconv.Atoi(string(n.Num)); err == nil {
		return i, true
	}
	f, err := strconv.ParseFloat(string(n.Num), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		p.errorf(n.Off, path, "want a whole number, got %s", n.Num)
		return 0, false
	}
	return int(f), true
}

// count reads a count: an integer n (exactly n) or {"min": A, "max": B}
// with either bound or both; no bound may be below least.
func (p *parser) count(n *node, path string, least int, what string) (Range, bool) {
	if n.Kind == kindNumber {
		v, ok := p.integer(n, path)
		if !ok {
			return Range{}, false
		}
		if v < least {
			p.errorf(n.Off, path, "%d is below %d (%s)", v, least, what)
			return Range{}, false
		}
		return plainCount(v), true
	}
	if n.Kind != kindObject {
		p.errorf(n.Off, path, "want a whole number or {\"min\": …, \"max\": …}, got %s", n.Kind)
		return Range{}, false
	}
	var r Range
	before := len(p.Errs)
	for _, m := range p.object(n, path, "min", "max") {
		kp := path + "." + m.Key
		v, ok := p.integer(m.Val, kp)
		if !ok {
			continue
		}
		if v < least {
			p.errorf(m.Val.Off, kp, "%d is below %d (%s)", v, least, what)
			continue
		}
		if m.Key == "min" {
			r.Min, r.HasMin = v, true
		} else {
			r.Max, r.HasMax = v, true
		}
	}
	if len(p.Errs) > before {
		return Range{}, false
	}
	if !r.IsSet() {
		p.errorf(n.Off, path, "empty range: give \"min\", \"max\" or both")
		return Range{}, false
	}
	if r.HasMin && r.HasMax && r.Min > r.Max {
		p.errorf(n.Off, path, "min %d is greater than max %d", r.Min, r.Max)
		return Range{}, false
	}
	return r, true
}

// outcomeKeys name the keys of one entry of "agents" or "scopes".
type outcomeKeys struct {
	section, what    string // "agents", "agent id"
	fired, at, count string // "killed", "at_request", "kills"
	atHint           string
}

var (
	agentKeys = outcomeKeys{"agents", "agent id", "killed", "at_request", "kills", "an agent's requests are counted from 1"}
	scopeKeys = outcomeKeys{"scopes", "scope", "tripped", "at_request", "trips", "a scope's requests are counted from 1"}
)

// agents reads "agents" (or, with scopeKeys, "scopes") into Agents.
func (p *parser) agents(n *node, k outcomeKeys) []Agent {
	var out []Agent
	for _, m := range p.object(n, k.section) {
		kp := k.section + "." + m.Key
		if m.Key == "" {
			p.errorf(m.Off, kp, "empty %s", k.what)
			continue
		}
		line, _ := p.pos(m.Off)
		a := Agent{Name: m.Key, Line: line}
		var hasKilled, sawKilled bool
		var atOff, killsOff int
		for _, f := range p.object(m.Val, kp, k.fired, k.at, k.count) {
			fp := kp + "." + f.Key
			switch f.Key {
			case k.fired:
				sawKilled = true
				if f.Val.Kind != kindBool {
					p.errorf(f.Val.Off, fp, "want true or false, got %s", f.Val.Kind)
					continue
				}
				a.Killed, hasKilled = f.Val.Bool, true
			case k.at:
				a.AtRequest, _ = p.count(f.Val, fp, 1, k.atHint)
				atOff = f.Off
			case k.count:
				a.Kills, _ = p.count(f.Val, fp, 0, "a count")
				killsOff = f.Off
			}
		}
		if m.Val.Kind == kindObject && !sawKilled {
			p.errorf(m.Val.Off, kp, "missing key %q (true or false)", k.fired)
			continue
		}
		if hasKilled && !a.Killed {
			if a.AtRequest.IsSet() {
				p.errorf(atOff, kp+"."+k.at, "given but %q is false", k.fired)
			}
			if a.Kills.IsSet() {
				p.errorf(killsOff, kp+"."+k.count, "given but %q is false (leave it out)", k.fired)
			}
		}
		if a.Killed && a.Kills.HasMax && a.Kills.Max < 1 {
			p.errorf(killsOff, kp+"."+k.count, "at most %d contradicts %q: true", a.Kills.Max, k.fired)
		}
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (p *parser) totals(n *node) []Total {
	var out []Total
	for _, m := range p.object(n, "totals", TotalKeys()...) {
		kp := "totals." + m.Key
		r, ok := p.count(m.Val, kp, 0, "a count")
		if !ok {
			continue
		}
		line, _ := p.pos(m.Off)
		out = append(out, Total{Key: m.Key, Line: line, Range: r})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}
