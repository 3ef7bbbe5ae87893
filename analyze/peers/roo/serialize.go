package roo

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/killswitch/killswitch/analyze/peers/jsjson"
)

// IsMCP reports whether Roo takes a tool name for an MCP tool
// (mcp--server--tool, or with underscores for the hyphens): such a call
// becomes an mcp_tool_use block, which the repetition check does not see.
func IsMCP(name string) bool {
	return strings.HasPrefix(strings.ReplaceAll(name, "-", "_"), "mcp__")
}

// Serialize returns ToolRepetitionDetector.serializeToolUse of the tool
// use a call of name with the given arguments text becomes, ok = false
// when NativeToolCallParser.parseToolCall gives none (the arguments do
// not parse, or parse to null). The call is read as a custom tool's is
// (parseToolCall's default branch): params holds every argument, a
// string as it is and anything else as JSON.stringify writes it, and
// nativeArgs the arguments themselves. The result is safe-stable-stringify
// of {name, params, nativeArgs} (nativeArgs left out when it has no
// keys), every key sorted.
func Serialize(name, args string) (string, bool) {
	if args == "" {
		args = "{}" // parseToolCall: arguments === "" ? {} : JSON.parse(arguments)
	}
	if jsjson.Canonical(args, jsjson.Sorted) {
		return serializeCanonical(name, args), true
	}
	return serializeParsed(name, args)
}

// serializeParsed is Serialize of any arguments text: parsed, then
// written in both orders.
func serializeParsed(name, args string) (string, bool) {
	prop, ok := jsjson.Stringify(args, jsjson.PropertyOrder)
	if !ok || prop.Kind == 'n' {
		return "", false // JSON.parse throws, or Object.entries(null) does
	}
	sorted, _ := jsjson.Stringify(args, jsjson.Sorted)
	// params: Object.entries(args), each value a string or its
	// JSON.stringify; written with its keys sorted.
	type param struct {
		key []uint16
		val string
	}
	var params []param
	switch prop.Kind {
	case '{':
		for _, m := range prop.Members {
			u := m.Units()
			if m.Value.Kind == '"' {
				params = append(params, param{u, m.Value.Out})
			} else {
				params = append(params, param{u, jsjson.QuoteString(m.Value.Out)})
			}
		}
	case '[':
		for i, e := range prop.Elems {
			u := utf16.Encode([]rune(strconv.Itoa(i)))
			if e.Kind == '"' {
				params = append(params, param{u, e.Out})
			} else {
				params = append(params, param{u, jsjson.QuoteString(e.Out)})
			}
		}
	case '"':
		for i, c := range prop.Str {
			params = append(params, param{utf16.Encode([]rune(strconv.Itoa(i))), jsjson.Quote([]uint16{c})})
		}
	}
	slices.SortFunc(params, func(a, b param) int { return slices.Compare(a.key, b.key) })
	var sb strings.Builder
	sb.WriteString(`{"name":`)
	sb.WriteString(jsjson.QuoteString(name))
	// nativeArgs only when it is truthy and has keys: a non-empty
	// object, array or string.
	if n := len(prop.Members) + len(prop.Elems) + len(prop.Str); n > 0 {
		sb.WriteString(`,"nativeArgs":`)
		sb.WriteString(sorted.Out)
	}
	sb.WriteString(`,"params":{`)
	for i, p := range params {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(jsjson.Quote(p.key))
		sb.WriteByte(':')
		sb.WriteString(p.val)
	}
	sb.WriteString("}}")
	return sb.String(), true
}

// serializeCanonical is Serialize of arguments that both stringifies
// write back unchanged (jsjson.Canonical in Sorted order, which implies
// PropertyOrder's: no key is an array index): an object whose keys, at
// every depth, are in sorted order, so that nativeArgs is args itself and
// params are its members as they stand, already in order (Canonical's
// sorted keys are ASCII, so byte order is UTF-16's), each key quoted as in
// args and each value a string as it is, anything else quoted.
func serializeCanonical(name, args string) string {
	var sb strings.Builder
	sb.Grow(len(name) + 2*len(args) + 40)
	sb.WriteString(`{"name":`)
	sb.WriteString(jsjson.QuoteString(name))
	if args != "{}" {
		sb.WriteString(`,"nativeArgs":`)
		sb.WriteString(args)
	}
	sb.WriteString(`,"params":{`)
	first := true
	for k, v := range jsjson.Members(args) {
		if !first {
			sb.WriteByte(',')
		}
		first = false
		sb.WriteString(k)
		sb.WriteByte(':')
		if v[0] == '"' {
			sb.WriteString(v)
		} else {
			sb.WriteString(jsjson.QuoteString(v))
		}
	}
	sb.WriteString("}}")
	return sb.String()
}
