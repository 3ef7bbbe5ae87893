package agentgazer

import (
	"errors"
	"fmt"
	"slices"

	"github.com/valyala/fastjson"
)

// ErrSkipped marks the request bodies on which AgentGazer's extractors
// throw a TypeError. The proxy catches it and skips loop detection for that
// request: nothing is recorded in the window and nothing is scored, exactly
// as for a body that is not JSON. Check returns errors wrapping it.
var ErrSkipped = errors.New("AgentGazer skips loop detection for this request")

// skipped returns an error saying that the value at path makes AgentGazer
// throw.
func skipped(path, why string) error {
	return fmt.Errorf("%s %s: %w", path, why, ErrSkipped)
}

// promptUnits extracts AgentGazer's prompt text from req, and the error
// (wrapping ErrSkipped) with which AgentGazer would have thrown instead.
func promptUnits(req *fastjson.Value) ([]uint16, error) {
	if req == nil {
		return nil, skipped("the request body", "is missing")
	}
	switch kindOf(req) {
	case fastjson.TypeNull:
		// body.messages on null.
		return nil, skipped("the request body", "is null")
	case fastjson.TypeObject:
	default:
		// A string, number, boolean or array has none of the properties.
		return nil, nil
	}
	if msgs := field(req, "messages"); msgs != nil && kindOf(msgs) == fastjson.TypeArray {
		a, _ := msgs.Array()
		for i := len(a) - 1; i >= 0; i-- {
			m := a[i]
			if kindOf(m) == fastjson.TypeNull {
				// msg.role on null.
				return nil, skipped(fmt.Sprintf("messages[%d]", i), "is null")
			}
			if isJSString(field(m, "role"), "user") {
				if c := field(m, "content"); c != nil {
					if u, ok := jsString(c); ok {
						return u, nil
					}
				}
			}
		}
		if len(a) > 0 {
			if c := field(a[len(a)-1], "content"); c != nil {
				if u, ok := jsString(c); ok {
					return u, nil
				}
			}
		}
		return nil, nil
	}
	for _, key := range [...]string{"prompt", "input"} {
		if v := field(req, key); v != nil {
			if u, ok := jsString(v); ok {
				return u, nil
			}
		}
	}
	return nil, nil
}

// Prompt returns AgentGazer's prompt text of the parsed request body req:
//
//   - if req.messages is an array: the content of the last message whose
//     role is "user" and whose content is a string (possibly empty); if there
//     is none, the content of the last message if it is a string, whatever
//     its role; else "". Content-part arrays are ignored.
//   - otherwise req.prompt if it is a string, else req.input if it is a
//     string, else "".
//
// Property reads follow JavaScript: of duplicate keys the last one counts,
// and strings are decoded as JSON.parse decodes them. A lone surrogate
// ("\ud800") is returned in its 3-byte WTF-8 form, which Normalize, SimHash
// and ToolSignature comparisons treat as the single code unit JavaScript
// has; exact only if fastjson has not decoded that string before (see
// jsvalue.go). If Check(req) reports an error, AgentGazer would not have
// used the prompt; Prompt then returns what it found ignoring the values
// that make AgentGazer throw.
func Prompt(req *fastjson.Value) string {
	u, _ := promptUnits(req)
	return wtf8String(u)
}

// PromptHash returns AgentGazer's prompt hash of req:
// SimHash(Normalize(Prompt(req))). A request without prompt text gets the
// hash of "", the FNV offset basis 0xcbf29ce484222325, like every other
// request without prompt text: AgentGazer counts them all as similar.
func PromptHash(req *fastjson.Value) uint64 {
	u, _ := promptUnits(req)
	return simhashUnits(normalizeUnits(u))
}

// toolEntries builds AgentGazer's unsorted tool list of req (see
// ToolSignature), and the error with which AgentGazer would have thrown.
func toolEntries(req *fastjson.Value) ([][]uint16, error) {
	var list [][]uint16
	var firstErr error
	add := func(prefix string, path string, name *fastjson.Value) {
		e, err := appendToString(unitsOf(prefix), name)
		if err != nil {
			if firstErr == nil {
				firstErr = skipped(path, err.Error())
			}
			return
		}
		list = append(list, e)
	}
	if fns := field(req, "functions"); fns != nil && kindOf(fns) == fastjson.TypeArray {
		a, _ := fns.Array()
		for i, fn := range a {
			// typeof fn === "object" && fn !== null && "name" in fn
			if name := field(fn, "name"); name != nil {
				add("fn:", fmt.Sprintf("functions[%d].name", i), name)
			}
		}
	}
	if tools := field(req, "tools"); tools != nil && kindOf(tools) == fastjson.TypeArray {
		a, _ := tools.Array()
		for i, t := range a {
			// t.type === "function" && t.function?.name
			if !isJSString(field(t, "type"), "function") {
				continue
			}
			if name := field(field(t, "function"), "name"); name != nil && truthy(name) {
				add("fn:", fmt.Sprintf("tools[%d].function.name", i), name)
			}
		}
	}
	// body.tool_choice && typeof body.tool_choice === "object": an array
	// passes too but has no name.
	if name := field(field(req, "tool_choice"), "name"); name != nil && truthy(name) {
		add("tool:", "tool_choice.name", name)
	}
	return list, firstErr
}

// ToolSignature returns AgentGazer's tool signature of req, built from the
// tool definitions the request offers, not from the calls in its messages:
//
//   - each element of a req.functions array that is an object with a "name"
//     key gives "fn:" + String(name) (any name: null gives "fn:null");
//   - each element of a req.tools array with type "function" and a truthy
//     function.name gives "fn:" + String(name);
//   - an object req.tool_choice with a truthy name gives "tool:" + String(name);
//
// then the list is sorted as JavaScript's default sort does (by UTF-16 code
// units, so "\U0001F600" sorts before "\uFF5E", unlike Go's byte order) and
// joined with ","; duplicates stay. String(x) is JavaScript's: numbers as
// Number::toString prints them, arrays joined with ",", objects as
// "[object Object]". No definitions give "", which never counts as a
// repeat. The result is WTF-8 (see Prompt); two signatures are equal iff
// they are equal in JavaScript.
func ToolSignature(req *fastjson.Value) string {
	list, _ := toolEntries(req)
	slices.SortStableFunc(list, slices.Compare[[]uint16])
	var b []byte
	for i, e := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendWTF8(b, e)
	}
	return string(b)
}

// Check reports whether AgentGazer's proxy would run loop detection on the
// parsed body req. It returns nil, or an error wrapping ErrSkipped that
// names the value on which AgentGazer's extractors throw a TypeError (in
// their evaluation order: prompt first, then tool definitions):
//
//   - the body is JSON null;
//   - the backward search of messages for the last user message reaches a
//     null element (before it finds one);
//   - a tool name to be printed is, or is an array holding, an object with
//     its own "toString" key.
//
// The proxy swallows the exception: the request is neither recorded in the
// window nor scored. Whether the body is JSON at all is the caller's
// business (fastjson accepts some texts that JSON.parse rejects).
func Check(req *fastjson.Value) error {
	if _, err := promptUnits(req); err != nil {
		return err
	}
	_, err := toolEntries(req)
	return err
}
