package expect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/killswitch/killswitch/analyze"
)

// Error is one problem with an expectation file: where it is, the key it
// concerns, and what is wrong.
type Error struct {
	File      string
	Line, Col int    // 1-based; Col counts characters
	Key       string // dotted path of the key ("agents.billing-bot.at_request"); "" for the whole document
	Msg       string
}

func (e *Error) Error() string {
	s := e.File + ":" + strconv.Itoa(e.Line) + ":" + strconv.Itoa(e.Col) + ": "
	if e.Key != "" {
		s += e.Key + ": "
	}
	return s + e.Msg
}

// ErrorList is every problem found in one file, in file order.
type ErrorList []*Error

// Error returns the problems, one per line.
func (l ErrorList) Error() string {
	lines := make([]string, len(l))
	for i, e := range l {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// maxDepth bounds the nesting of an expectation document: the schema needs
// four levels; anything much deeper is not an expectation file.
const maxDepth = 32

// Parse reads the expectation file named file (the name only labels
// errors) from data. The error, when not nil, is an ErrorList holding
// every problem found, each with its line, column and key.
func Parse(file string, data []byte) (*Expectation, error) {
	p := &parser{file: file, data: data}
	root, err := p.document()
	if err != nil {
		return nil, ErrorList{err}
	}
	e := p.expectation(root)
	if len(p.errs) > 0 {
		sort.SliceStable(p.errs, func(i, j int) bool {
			a, b := p.errs[i], p.errs[j]
			if a.Line != b.Line {
				return a.Line < b.Line
			}
			return a.Col < b.Col
		})
		return nil, p.errs
	}
	return e, nil
}

// kind is the JSON type of a node.
type kind uint8

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

var kindNames = [...]string{"null", "boolean", "number", "string", "array", "object"}

func (k kind) String() string { return "a JSON " + kindNames[k] }

// node is a JSON value with the byte offset where it starts.
type node struct {
	kind    kind
	off     int
	str     string      // kindString
	num     json.Number // kindNumber
	b       bool        // kindBool
	members []member    // kindObject, in file order
	elems   []*node     // kindArray
}

// member is one key of an object.
type member struct {
	key string
	off int // offset of the key
	val *node
}

type parser struct {
	file string
	data []byte
	dec  *json.Decoder
	errs ErrorList
}

// pos returns the 1-based line and column (in characters) of offset off.
func (p *parser) pos(off int) (line, col int) {
	off = max(0, min(off, len(p.data)))
	before := p.data[:off]
	line = 1 + bytes.Count(before, []byte("\n"))
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	return line, 1 + utf8.RuneCount(before[lineStart:])
}

func (p *parser) errAt(off int, key, format string, args ...any) *Error {
	line, col := p.pos(off)
	return &Error{File: p.file, Line: line, Col: col, Key: key, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) errorf(off int, key, format string, args ...any) {
	p.errs = append(p.errs, p.errAt(off, key, format, args...))
}

// document reads the whole input as one JSON value. A UTF-8 byte order
// mark at the start is ignored (read as white space, so that positions
// stay those of the file).
func (p *parser) document() (*node, *Error) {
	if bytes.HasPrefix(p.data, []byte("\uFEFF")) {
		p.data = append([]byte("   "), p.data[3:]...)
	}
	if len(bytes.TrimSpace(p.data)) == 0 {
		return nil, p.errAt(0, "", "empty file: want a JSON object")
	}
	// A first pass finds syntax errors with their exact offset, which the
	// token stream below does not report reliably.
	var raw json.RawMessage
	if err := json.Unmarshal(p.data, &raw); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, p.errAt(int(se.Offset)-1, "", "not valid JSON: %s", se.Error())
		}
		return nil, p.errAt(0, "", "not valid JSON: %v", err)
	}
	p.dec = json.NewDecoder(bytes.NewReader(p.data))
	p.dec.UseNumber()
	return p.value(0)
}

// token reads the next token and returns the offset where it starts.
func (p *parser) token() (int, json.Token, error) {
	off := int(p.dec.InputOffset())
	for off < len(p.data) {
		switch p.data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
			continue
		}
		break
	}
	tok, err := p.dec.Token()
	return off, tok, err
}

// syntax converts an error of the token stream (the input passed the
// syntax check, so this is not expected) into an Error.
func (p *parser) syntax(err error) *Error {
	return p.errAt(int(p.dec.InputOffset()), "", "not valid JSON: %v", err)
}

// value reads one JSON value (and everything inside it).
func (p *parser) value(depth int) (*node, *Error) {
	off, tok, err := p.token()
	if err != nil {
		return nil, p.syntax(err)
	}
	n := &node{off: off}
	switch t := tok.(type) {
	case nil:
		n.kind = kindNull
	case bool:
		n.kind, n.b = kindBool, t
	case json.Number:
		n.kind, n.num = kindNumber, t
	case string:
		n.kind, n.str = kindString, t
	case json.Delim:
		if depth >= maxDepth {
			return nil, p.errAt(off, "", "nested more than %d levels deep: not an expectation file", maxDepth)
		}
		if t == '[' {
			n.kind = kindArray
			for p.dec.More() {
				el, e := p.value(depth + 1)
				if e != nil {
					return nil, e
				}
				n.elems = append(n.elems, el)
			}
		} else {
			n.kind = kindObject
			for p.dec.More() {
				koff, ktok, err := p.token()
				if err != nil {
					return nil, p.syntax(err)
				}
				key, _ := ktok.(string)
				v, e := p.value(depth + 1)
				if e != nil {
					return nil, e
				}
				n.members = append(n.members, member{key: key, off: koff, val: v})
			}
		}
		if _, _, err := p.token(); err != nil { // the closing delimiter
			return nil, p.syntax(err)
		}
	}
	return n, nil
}

// object checks that n is an object whose keys are all in allowed (in the
// order the message lists them) and none repeated; it returns the members
// that passed.
func (p *parser) object(n *node, path string, allowed ...string) []member {
	if n.kind != kindObject {
		p.errorf(n.off, path, "want a JSON object, got %s", n.kind)
		return nil
	}
	seen := map[string]int{}
	var ok []member
	for _, m := range n.members {
		kp := join(path, m.key)
		if first, dup := seen[m.key]; dup {
			line, col := p.pos(first)
			p.errorf(m.off, kp, "key given twice (first at %d:%d)", line, col)
			continue
		}
		seen[m.key] = m.off
		if allowed != nil && !contains(allowed, m.key) {
			p.errorf(m.off, kp, "unknown key (want %s)", quoteList(allowed))
			continue
		}
		ok = append(ok, m)
	}
	return ok
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func quoteList(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = strconv.Quote(k)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

func (p *parser) expectation(root *node) *Expectation {
	e := &Expectation{}
	var sawAgents, sawTotals, sawScopes bool
	var gatewayOff = -1 // offset of the first gateway section
	for _, m := range p.object(root, "", "about", "settings", "agents", "scopes", "totals", "http_status", "block_reason", "incidents") {
		if contains(gatewaySections, m.key) && gatewayOff < 0 {
			gatewayOff = m.off
		}
		switch m.key {
		case "about":
			if m.val.kind != kindString {
				p.errorf(m.val.off, "about", "want a string, got %s", m.val.kind)
			}
			e.About = m.val.str
		case "settings":
			e.Settings = p.settings(m.val)
		case "agents":
			sawAgents = true
			e.Agents = p.agents(m.val, agentKeys)
		case "scopes":
			sawScopes = true
			e.Scopes = p.agents(m.val, scopeKeys)
		case "totals":
			sawTotals = true
			e.Totals = p.totals(m.val)
		case "http_status":
			e.HTTPStatus = p.counts(m.val, m.key, true)
		case "block_reason":
			e.BlockReasons = p.counts(m.val, m.key, false)
		case "incidents":
			e.Incidents, e.HasIncidents = p.incidents(m.val), true
			e.IncidentsLine, _ = p.pos(m.off)
		}
	}
	if gatewayOff >= 0 && (e.Settings.Policy == nil || *e.Settings.Policy != "gateway") {
		p.errorf(gatewayOff, "", "\"http_status\", \"block_reason\" and \"incidents\" are the gateway's: they need \"settings\": {\"policy\": \"gateway\"}")
	}
	if root.kind == kindObject && len(e.Agents) == 0 && len(e.Scopes) == 0 && len(e.Totals) == 0 && !e.HasGateway() && len(p.errs) == 0 {
		switch {
		case sawAgents || sawTotals || sawScopes || gatewayOff >= 0:
			p.errorf(root.off, "", "expects nothing: \"agents\", \"scopes\", \"totals\" and the gateway's sections are empty")
		default:
			p.errorf(root.off, "", "expects nothing: give \"agents\" or \"totals\"")
		}
	}
	return e
}

func (p *parser) settings(n *node) Settings {
	var s Settings
	var profile, gw *node
	members := p.object(n, "settings", "policy", "profile", "window", "threshold", "mode", "gateway")
	for _, m := range members {
		kp := "settings." + m.key
		switch m.key {
		case "policy":
			if str, ok := p.str(m.val, kp); ok {
				if str != "loop" && str != "breaker" && str != "gateway" {
					p.errorf(m.val.off, kp, "unknown policy %q (want \"loop\", \"breaker\" or \"gateway\")", str)
				} else {
					s.Policy = &str
				}
			}
		case "profile":
			profile = m.val
		case "gateway":
			gw = m.val
		}
	}
	gateway := s.Policy != nil && *s.Policy == "gateway"
	if profile != nil {
		const kp = "settings.profile"
		if str, ok := p.str(profile, kp); ok && gateway {
			if str != "m22" && str != "spec" {
				p.errorf(profile.off, kp, "unknown gateway profile %q (want \"m22\" or \"spec\")", str)
			} else {
				s.GatewayProfile = &str
			}
		} else if ok {
			if v, err := analyze.ParseProfile(str); err != nil || str == "" {
				p.errorf(profile.off, kp, "unknown profile %q (want %s)", str, analyze.ProfileNames())
			} else {
				s.Profile = v
			}
		}
	}
	if gw != nil {
		const kp = "settings.gateway"
		if !gateway {
			p.errorf(gw.off, kp, "gateway settings need \"policy\": \"gateway\"")
		} else if gw.kind != kindObject {
			p.errorf(gw.off, kp, "want a JSON object, got %s", gw.kind)
		} else if data, err := settingsJSON(gw); err != nil {
			p.errorf(gw.off, kp, "%v", err)
		} else {
			s.Gateway = data
			if _, err := s.GatewayConfig(); err != nil {
				p.errorf(gw.off, kp, "%v", err)
			}
		}
	}
	for _, m := range members {
		kp := "settings." + m.key
		switch m.key {
		case "mode":
			if str, ok := p.str(m.val, kp); ok {
				if v, err := analyze.ParseMode(str); err != nil || str == "" {
					p.errorf(m.val.off, kp, "unknown mode %q (want \"deactivate\" or \"block\")", str)
				} else {
					s.Mode = &v
				}
			}
		case "window":
			if w, ok := p.integer(m.val, kp); ok {
				if w < 1 || w > analyze.MaxWindow {
					p.errorf(m.val.off, kp, "window %d out of range 1..%d", w, analyze.MaxWindow)
				} else {
					s.Window = &w
				}
			}
		case "threshold":
			if m.val.kind != kindNumber {
				p.errorf(m.val.off, kp, "want a number, got %s", m.val.kind)
				continue
			}
			t, err := strconv.ParseFloat(string(m.val.num), 64)
			if err != nil || t < 0 || math.IsInf(t, 0) {
				p.errorf(m.val.off, kp, "threshold %s is not a number ≥ 0", m.val.num)
				continue
			}
			s.Threshold = &t
		}
	}
	return s
}

func (p *parser) str(n *node, path string) (string, bool) {
	if n.kind != kindString {
		p.errorf(n.off, path, "want a string, got %s", n.kind)
		return "", false
	}
	return n.str, true
}

// integer reads a whole number (6, or 6.0 as some JSON writers put it).
func (p *parser) integer(n *node, path string) (int, bool) {
	if n.kind != kindNumber {
		p.errorf(n.off, path, "want a whole number, got %s", n.kind)
		return 0, false
	}
	if i, err := strconv.Atoi(string(n.num)); err == nil {
		return i, true
	}
	f, err := strconv.ParseFloat(string(n.num), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		p.errorf(n.off, path, "want a whole number, got %s", n.num)
		return 0, false
	}
	return int(f), true
}

// count reads a count: an integer n (exactly n) or {"min": A, "max": B}
// with either bound or both; no bound may be below least.
func (p *parser) count(n *node, path string, least int, what string) (Range, bool) {
	if n.kind == kindNumber {
		v, ok := p.integer(n, path)
		if !ok {
			return Range{}, false
		}
		if v < least {
			p.errorf(n.off, path, "%d is below %d (%s)", v, least, what)
			return Range{}, false
		}
		return plainCount(v), true
	}
	if n.kind != kindObject {
		p.errorf(n.off, path, "want a whole number or {\"min\": …, \"max\": …}, got %s", n.kind)
		return Range{}, false
	}
	var r Range
	before := len(p.errs)
	for _, m := range p.object(n, path, "min", "max") {
		kp := path + "." + m.key
		v, ok := p.integer(m.val, kp)
		if !ok {
			continue
		}
		if v < least {
			p.errorf(m.val.off, kp, "%d is below %d (%s)", v, least, what)
			continue
		}
		if m.key == "min" {
			r.Min, r.HasMin = v, true
		} else {
			r.Max, r.HasMax = v, true
		}
	}
	if len(p.errs) > before {
		return Range{}, false
	}
	if !r.IsSet() {
		p.errorf(n.off, path, "empty range: give \"min\", \"max\" or both")
		return Range{}, false
	}
	if r.HasMin && r.HasMax && r.Min > r.Max {
		p.errorf(n.off, path, "min %d is greater than max %d", r.Min, r.Max)
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
		kp := k.section + "." + m.key
		if m.key == "" {
			p.errorf(m.off, kp, "empty %s", k.what)
			continue
		}
		line, _ := p.pos(m.off)
		a := Agent{Name: m.key, Line: line}
		var hasKilled, sawKilled bool
		var atOff, killsOff int
		for _, f := range p.object(m.val, kp, k.fired, k.at, k.count) {
			fp := kp + "." + f.key
			switch f.key {
			case k.fired:
				sawKilled = true
				if f.val.kind != kindBool {
					p.errorf(f.val.off, fp, "want true or false, got %s", f.val.kind)
					continue
				}
				a.Killed, hasKilled = f.val.b, true
			case k.at:
				a.AtRequest, _ = p.count(f.val, fp, 1, k.atHint)
				atOff = f.off
			case k.count:
				a.Kills, _ = p.count(f.val, fp, 0, "a count")
				killsOff = f.off
			}
		}
		if m.val.kind == kindObject && !sawKilled {
			p.errorf(m.val.off, kp, "missing key %q (true or false)", k.fired)
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
		kp := "totals." + m.key
		r, ok := p.count(m.val, kp, 0, "a count")
		if !ok {
			continue
		}
		line, _ := p.pos(m.off)
		out = append(out, Total{Key: m.key, Line: line, Range: r})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}
