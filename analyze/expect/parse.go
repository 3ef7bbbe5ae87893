package expect

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/killswitch/killswitch/analyze"
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
// errors) from data. schemas are the policies a file may replay, the
// default first; with none, the file replays the loop detector and may
// not name a policy. The error, when not nil, is an ErrorList holding
// every problem found, each with its line, column and key.
func Parse(file string, data []byte, schemas ...*Schema) (*Expectation, error) {
	doc, root, err := jsontree.Parse(file, data, maxDepth, "an expectation file")
	if err != nil {
		return nil, ErrorList{err}
	}
	p := &parser{Parser: &Parser{Doc: doc}, schemas: schemas}
	e := p.expectation(root)
	if err := p.Err(); err != nil {
		return nil, err
	}
	return e, nil
}

// parser checks one expectation document against the policies' schemas.
type parser struct {
	*Parser
	schemas []*Schema
}

// loopOnly is the schema of a file read without schemas: the loop
// detector's settings, no policy to name.
var loopOnly = &Schema{Policy: "loop", LoopSettings: true}

func quoteList(keys []string) string { return jsontree.QuoteList(keys) }

// schema returns the schema of the policy named name ("": the default).
func (p *parser) schema(name string) *Schema {
	if len(p.schemas) == 0 {
		return loopOnly
	}
	if name == "" {
		return p.schemas[0]
	}
	for _, s := range p.schemas {
		if s.Policy == name {
			return s
		}
	}
	return nil
}

// owner returns the schema whose section key is, or nil.
func (p *parser) owner(key string) *Schema {
	for _, s := range p.schemas {
		for _, sec := range s.Sections {
			if sec.Key == key {
				return s
			}
		}
	}
	return nil
}

func (p *parser) expectation(root *Node) *Expectation {
	e := &Expectation{}
	allowed := []string{"about", "settings", "agents", "totals"}
	for _, s := range p.schemas {
		for _, sec := range s.Sections {
			allowed = append(allowed, sec.Key)
		}
	}
	members := p.Object(root, "", allowed...)
	// settings first: they say which policy's sections the file may give.
	sch := p.schema("")
	for _, m := range members {
		if m.Key == "settings" {
			e.Settings, sch = p.settings(m.Val)
		}
	}
	var saw bool
	for _, m := range members {
		switch m.Key {
		case "about":
			if m.Val.Kind != KindString {
				p.Errorf(m.Val.Off, "about", "want a string, got %s", m.Val.Kind)
			}
			e.About = m.Val.Str
		case "settings":
		case "agents":
			saw = true
			e.Agents = p.Outcomes(m.Val, AgentKeys)
		case "totals":
			saw = true
			e.Totals = p.totals(m.Val)
		default:
			saw = true
			own := p.owner(m.Key)
			if sch == nil {
				continue // an unknown policy: reported
			}
			if own != sch {
				p.Errorf(m.Off, m.Key, "%q is the %s's: it needs \"settings\": {\"policy\": %q}", m.Key, own.Policy, own.Policy)
				continue
			}
			for _, sec := range own.Sections {
				if sec.Key == m.Key {
					if e.Parts == nil {
						e.Parts = map[string]Part{}
					}
					e.Parts[m.Key] = sec.Parse(p.Parser, m.Key, m.Val)
				}
			}
		}
	}
	if root.Kind == KindObject && !e.expectsSomething() && len(p.Errs) == 0 {
		if saw {
			p.Errorf(root.Off, "", "expects nothing: every section is empty")
		} else {
			p.Errorf(root.Off, "", "expects nothing: give \"agents\" or \"totals\"")
		}
	}
	return e
}

// loopKeys are the loop detector's settings.
var loopKeys = []string{"profile", "mode", "window", "threshold"}

// settings reads "settings" and returns them with the schema of the
// policy they name (nil when it is unknown).
func (p *parser) settings(n *Node) (Settings, *Schema) {
	var s Settings
	allowed := append([]string{"policy", "variant"}, loopKeys...)
	var names []string
	for _, sc := range p.schemas {
		names = append(names, sc.Policy)
		if sc.Settings != nil {
			allowed = append(allowed, sc.Policy)
		}
	}
	members := p.Object(n, "settings", allowed...)
	sch := p.schema("")
	for _, m := range members {
		if m.Key != "policy" {
			continue
		}
		str, ok := p.Str(m.Val, "settings.policy")
		if !ok {
			return s, nil
		}
		if len(p.schemas) == 0 {
			p.Errorf(m.Val.Off, "settings.policy", "no policy to choose here")
			return s, nil
		}
		if sch = p.schema(str); sch == nil || str == "" {
			p.Errorf(m.Val.Off, "settings.policy", "unknown policy %q (want %s)", str, quoteList(names))
			return s, nil
		}
		s.Policy = &str
	}
	for _, m := range members {
		kp := "settings." + m.Key
		switch {
		case m.Key == "policy":
		case m.Key == "variant":
			if len(sch.Variants) == 0 {
				p.Errorf(m.Off, kp, "the %s policy has no variants", sch.Policy)
				continue
			}
			if str, ok := p.Str(m.Val, kp); ok {
				if !slices.Contains(sch.Variants, str) {
					p.Errorf(m.Val.Off, kp, "unknown %s variant %q (want %s)", sch.Policy, str, quoteList(sch.Variants))
				} else {
					s.Variant = &str
				}
			}
		case slices.Contains(loopKeys, m.Key):
			if !sch.LoopSettings {
				// They mean nothing to this policy: refused, never ignored.
				hint := ""
				if m.Key == "profile" && len(sch.Variants) > 0 {
					hint = " (its " + quoteList(sch.Variants) + " goes in \"variant\")"
				} else if sch.Settings != nil {
					hint = " (its own settings go in settings." + sch.Policy + ")"
				}
				p.Errorf(m.Off, kp, "a loop detector setting: this file replays the %s%s", sch.Policy, hint)
				continue
			}
			p.loopSetting(&s, m, kp)
		default: // a policy's settings object
			if m.Key != sch.Policy {
				p.Errorf(m.Val.Off, kp, "%s settings need \"policy\": %q", m.Key, m.Key)
				continue
			}
			if data, ok := p.ObjectJSON(m.Val, kp); ok {
				sch.Settings(p.Parser, m.Val, kp)
				s.Own = data
			}
		}
	}
	return s, sch
}

// loopSetting reads one of the loop detector's settings into s.
func (p *parser) loopSetting(s *Settings, m Member, kp string) {
	switch m.Key {
	case "profile":
		if str, ok := p.Str(m.Val, kp); ok {
			if v, err := analyze.ParseProfile(str); err != nil || str == "" {
				p.Errorf(m.Val.Off, kp, "unknown profile %q (want %s)", str, analyze.ProfileNames())
			} else {
				s.Profile = v
			}
		}
	case "mode":
		if str, ok := p.Str(m.Val, kp); ok {
			if v, err := analyze.ParseMode(str); err != nil || str == "" {
				p.Errorf(m.Val.Off, kp, "unknown mode %q (want \"deactivate\" or \"block\")", str)
			} else {
				s.Mode = &v
			}
		}
	case "window":
		if w, ok := p.Integer(m.Val, kp); ok {
			if w < 1 || w > analyze.MaxWindow {
				p.Errorf(m.Val.Off, kp, "window %d out of range 1..%d", w, analyze.MaxWindow)
			} else {
				s.Window = &w
			}
		}
	case "threshold":
		if m.Val.Kind != KindNumber {
			p.Errorf(m.Val.Off, kp, "want a number, got %s", m.Val.Kind)
			return
		}
		t, err := strconv.ParseFloat(string(m.Val.Num), 64)
		if err != nil || t < 0 || math.IsInf(t, 0) {
			p.Errorf(m.Val.Off, kp, "threshold %s is not a number ≥ 0", m.Val.Num)
			return
		}
		s.Threshold = &t
	}
}

// Integer reads a whole number (6, or 6.0 as some JSON writers put it).
func (p *Parser) Integer(n *Node, path string) (int, bool) {
	if n.Kind != KindNumber {
		p.Errorf(n.Off, path, "want a whole number, got %s", n.Kind)
		return 0, false
	}
	if i, err := strconv.Atoi(string(n.Num)); err == nil {
		return i, true
	}
	f, err := strconv.ParseFloat(string(n.Num), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		p.Errorf(n.Off, path, "want a whole number, got %s", n.Num)
		return 0, false
	}
	return int(f), true
}

// Count reads a count: an integer n (exactly n) or {"min": A, "max": B}
// with either bound or both; no bound may be below least (what says why
// in the message).
func (p *Parser) Count(n *Node, path string, least int, what string) (Range, bool) {
	if n.Kind == KindNumber {
		v, ok := p.Integer(n, path)
		if !ok {
			return Range{}, false
		}
		if v < least {
			p.Errorf(n.Off, path, "%d is below %d (%s)", v, least, what)
			return Range{}, false
		}
		return Plain(v), true
	}
	if n.Kind != KindObject {
		p.Errorf(n.Off, path, "want a whole number or {\"min\": …, \"max\": …}, got %s", n.Kind)
		return Range{}, false
	}
	var r Range
	before := len(p.Errs)
	for _, m := range p.Object(n, path, "min", "max") {
		kp := path + "." + m.Key
		v, ok := p.Integer(m.Val, kp)
		if !ok {
			continue
		}
		if v < least {
			p.Errorf(m.Val.Off, kp, "%d is below %d (%s)", v, least, what)
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
		p.Errorf(n.Off, path, "empty range: give \"min\", \"max\" or both")
		return Range{}, false
	}
	if r.HasMin && r.HasMax && r.Min > r.Max {
		p.Errorf(n.Off, path, "min %d is greater than max %d", r.Min, r.Max)
		return Range{}, false
	}
	return r, true
}

func (p *parser) totals(n *Node) []Total {
	var out []Total
	for _, m := range p.Object(n, "totals", TotalKeys()...) {
		kp := "totals." + m.Key
		r, ok := p.Count(m.Val, kp, 0, "a count")
		if !ok {
			continue
		}
		line := p.Line(m.Off)
		out = append(out, Total{Key: m.Key, Line: line, Range: r})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// settingsJSON renders the object n (a policy's settings object) back
// to compact JSON; lists are no setting of any policy.
func settingsJSON(n *Node) ([]byte, error) {
	var v func(n *Node) (any, error)
	v = func(n *Node) (any, error) {
		switch n.Kind {
		case KindNull:
			return nil, nil
		case KindBool:
			return n.Bool, nil
		case KindNumber:
			return n.Num, nil
		case KindString:
			return n.Str, nil
		case KindObject:
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
		return nil, fmt.Errorf("a list is no setting here")
	}
	x, err := v(n)
	if err != nil {
		return nil, err
	}
	return json.Marshal(x)
}
