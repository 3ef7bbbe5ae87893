package logs

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/killswitch/killswitch/ingest"
)

// OpenInference (Arize Phoenix, and the instrumentations of LlamaIndex,
// LangChain, DSPy, OpenAI, … that write its conventions) describes each
// span with attributes:
//
//   - openinference.span.kind: LLM, CHAIN, AGENT, TOOL, RETRIEVER,
//     EMBEDDING, RERANKER, GUARDRAIL, EVALUATOR, PROMPT. Only LLM spans are
//     calls; every other span is skipped as "OpenInference KIND span is not
//     an LLM call". An LLM span with an LLM span below it (LlamaIndex's LLM span over the
//     OpenAI client's) is skipped as wrapping it: the call counts once, at
//     the innermost span.
//   - llm.input_messages.N.message.{role, content, name, tool_call_id,
//     contents.M.message_content.{type, text},
//     tool_calls.M.tool_call.{id, function.name, function.arguments},
//     function_call_name, function_call_arguments_json}: the request's
//     messages; without them, input.value (a request body, a message list
//     or text: see inputMessages);
//   - llm.output_messages.N.…: the response's message (tool calls
//     included); without them, output.value (see outputBody);
//   - llm.model_name, llm.provider (else llm.system), llm.invocation_parameters
//     (a JSON object: its members join the request body, credentials
//     scrubbed), llm.tools.N.tool.json_schema (the tool definitions),
//     llm.token_count.prompt / completion;
//   - session.id, user.id: the agent (see spanTree.agent: session.id,
//     else user.id, on the span or an ancestor; else the trace's root span
//     name; else the trace id); session.id is also the record's session.
//
// Attributes arrive flattened (OTLP: "llm.input_messages.0.message.role")
// or nested (Parquet: a list of structs with a "message.role" field); both
// are flattened to dotted names first (flattenAttrs), so the two containers map
// alike.

// oiKindAttr names the span kind attribute.
const oiKindAttr = "openinference.span.kind"

// oiClassify sets s.call or s.skip from the span kind.
func oiClassify(s *tspan, kind string) {
	kind = strings.ToUpper(strings.TrimSpace(kind))
	switch {
	case kind == "":
		s.skip = "span without " + oiKindAttr + " is not an LLM call"
	case kind != "LLM":
		s.skip = oiSkip(kind)
	default:
		s.call = true
	}
	s.agentKeys = oiAgentKeys
}

// oiSkip is the skip reason of a span of kind (not LLM, upper case): the
// kinds of the specification written once, not for every span.
func oiSkip(kind string) string {
	const is = " span is not an LLM call"
	switch kind {
	case "CHAIN":
		return "OpenInference CHAIN" + is
	case "AGENT":
		return "OpenInference AGENT" + is
	case "TOOL":
		return "OpenInference TOOL" + is
	case "RETRIEVER":
		return "OpenInference RETRIEVER" + is
	case "EMBEDDING":
		return "OpenInference EMBEDDING" + is
	case "RERANKER":
		return "OpenInference RERANKER" + is
	case "GUARDRAIL":
		return "OpenInference GUARDRAIL" + is
	case "EVALUATOR":
		return "OpenInference EVALUATOR" + is
	case "PROMPT":
		return "OpenInference PROMPT" + is
	case "UNKNOWN":
		return "OpenInference UNKNOWN" + is
	}
	return "OpenInference " + clip(kind, 24) + is
}

var oiAgentKeys = []agentKey{{"session.id", fromSession}, {"user.id", fromUser}}

func oiWrapper(*tspan) string {
	return "OpenInference LLM span wrapping another LLM span (the call counts once, at the inner span)"
}

// oiBuild fills the record of an OpenInference LLM span.
func oiBuild(s *tspan, rec *ingest.Record) { (*oiBodies)(nil).build(s, rec) }

// build is oiBuild; with b set, the bodies of a span whose messages were
// read as messages (the column decoder's) are written straight into b's
// buffer where oiBodies knows the result (see request and response).
func (b *oiBodies) build(s *tspan, rec *ingest.Record) {
	a := s.attrs
	rec.Model = str(a["llm.model_name"])
	rec.Provider = firstStr(a["llm.provider"], a["llm.system"])
	rec.ID = s.spanID
	rec.Session = str(a["session.id"])
	var msgs []message
	var tools any
	if in, ok := s.lists["llm.input_messages."].([]message); ok && b != nil && oiTools(s) == nil {
		rec.Request = b.request(rec.Model, in, a["llm.invocation_parameters"])
	}
	if rec.Request == nil {
		if list, ok := oiMessageList(s, "llm.input_messages."); ok {
			msgs = list
		} else {
			msgs, tools = inputMessages(scrub(maybeJSON(a["input.value"]), false))
		}
		if t := oiTools(s); t != nil {
			tools = t
		}
		rec.Request = oiRequest(rec.Model, msgs, tools, a["llm.invocation_parameters"])
	}
	if out, ok := s.lists["llm.output_messages."].([]message); ok && b != nil && b.response(rec, out) {
		// written by b
	} else if list, ok := oiMessageList(s, "llm.output_messages."); ok {
		objs := make([]any, 0, len(list))
		for _, m := range list {
			objs = append(objs, messageObj(m))
		}
		rec.Response = outputBody(objs, rec.Model)
	} else {
		rec.Response = outputBody(scrub(maybeJSON(a["output.value"]), false), rec.Model)
	}
	if n, ok := count(a["llm.token_count.prompt"]); ok {
		rec.TokensIn, rec.HasTokens = n, true
	}
	if n, ok := count(a["llm.token_count.completion"]); ok {
		rec.TokensOut, rec.HasTokens = n, true
	}
	latency(rec, s.start, s.end)
	if s.failed {
		rec.Status = 500
	}
}

// messageObj turns a rebuilt message back into a tree for outputBody.
func messageObj(m message) obj {
	o := obj{"role": m.Role}
	if m.Content != nil {
		o["content"] = *m.Content
	}
	if len(m.ToolCalls) > 0 {
		calls := make([]any, len(m.ToolCalls))
		for i, c := range m.ToolCalls {
			calls[i] = obj{"id": c.ID, "function": obj{"name": c.Function.Name, "arguments": c.Function.Arguments}}
		}
		o["tool_calls"] = calls
	}
	return o
}

// oiRequest writes the request body: the invocation parameters (when they
// are a JSON object) with model, messages and tools set over them.
func oiRequest(model string, msgs []message, tools any, params any) []byte {
	p, ok := maybeJSON(params).(obj)
	if !ok || len(p) == 0 {
		return requestBody(model, msgs, tools)
	}
	body := scrub(p, false).(obj)
	for _, k := range [...]string{"messages", "input", "prompt", "stream_options", "extra_headers", "extra_body", "metadata", "user"} {
		delete(body, k)
	}
	if msgs == nil {
		msgs = []message{}
	}
	body["messages"] = msgs
	if model != "" {
		body["model"] = model
	}
	delete(body, "tools")
	if t, ok := tools.([]any); ok && len(t) > 0 {
		body["tools"] = scrub(t, false)
	}
	return marshal(body)
}

// oiMessageList returns the messages of s's attributes named
// prefix+"N…", from s.lists when the reader read them (as messages, or as
// a list); false when there are none.
func oiMessageList(s *tspan, prefix string) ([]message, bool) {
	if msgs, ok := s.lists[prefix].([]message); ok {
		return msgs, true
	}
	list, ok := oiIndexed(s, prefix)
	if !ok {
		return nil, false
	}
	return oiMessages(list), true
}

// oiIndexed returns the list that s's attributes named prefix+"N…"
// rebuild into (unflatten), from s.lists when the reader read it as one;
// false when there are none.
func oiIndexed(s *tspan, prefix string) ([]any, bool) {
	if t, ok := s.lists[prefix]; ok {
		list, ok := t.([]any)
		return list, ok
	}
	if !hasIndexed(s.attrs, prefix) {
		return nil, false
	}
	list, _ := unflatten(s.attrs, prefix).([]any)
	return list, true
}

// oiTools reads llm.tools.N.tool.json_schema (each a JSON object) as an
// OpenAI tools list; nil when there are none.
func oiTools(s *tspan) []any {
	tree, ok := oiIndexed(s, "llm.tools.")
	if !ok {
		return nil
	}
	var tools []any
	for _, t := range tree {
		s := maybeJSON(get(t, "tool", "json_schema"))
		o, ok := s.(obj)
		if !ok {
			continue
		}
		if o["function"] == nil && o["name"] != nil {
			// A bare function schema: wrap it as OpenAI does.
			o = obj{"type": "function", "function": o}
		}
		tools = append(tools, o)
	}
	return tools
}

// oiMessages reads a message list rebuilt from flattened attributes.
func oiMessages(list []any) []message {
	msgs := make([]message, 0, len(list))
	for _, e := range list {
		m, _ := get(e, "message").(obj)
		if m == nil {
			continue
		}
		o := obj{}
		if r := str(m["role"]); r != "" {
			o["role"] = r
		}
		if c, ok := m["content"]; ok {
			o["content"] = c
		} else if parts, ok := m["contents"].([]any); ok {
			var ps []any
			for _, p := range parts {
				if mc, ok := get(p, "message_content").(obj); ok {
					ps = append(ps, mc)
				}
			}
			o["content"] = ps
		}
		if id := str(m["tool_call_id"]); id != "" {
			o["tool_call_id"] = id
		}
		if calls, ok := m["tool_calls"].([]any); ok {
			var cs []any
			for _, c := range calls {
				if tc, ok := get(c, "tool_call").(obj); ok {
					cs = append(cs, tc)
				}
			}
			o["tool_calls"] = cs
		}
		if n := str(m["function_call_name"]); n != "" {
			o["function_call"] = obj{"name": n, "arguments": m["function_call_arguments_json"]}
		}
		msgs = append(msgs, toMessage(scrub(o, false).(obj)))
	}
	return msgs
}

// flattenAttrs writes the leaves of v into dst under dotted names: members of
// objects join with ".", list elements by index ("a.0.b"). Object members
// are visited in name order, so that a name written twice (a member
// "a.b" beside an object "a" with "b") resolves the same way every time.
func flattenAttrs(dst obj, prefix string, v any, depth int) {
	if depth > maxDepth {
		return
	}
	join := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + "." + k
	}
	switch x := v.(type) {
	case obj:
		if scalars(x) {
			// No member flattens into another's name: any order will do.
			for k, e := range x {
				if p := join(k); e != nil && p != "" {
					dst[p] = e
				}
			}
			return
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			flattenAttrs(dst, join(k), x[k], depth+1)
		}
	case []any:
		for i, e := range x {
			flattenAttrs(dst, join(strconv.Itoa(i)), e, depth+1)
		}
	case nil:
	default:
		if prefix != "" {
			dst[prefix] = v
		}
	}
}

// scalars reports whether no member of o is an object or a list.
func scalars(o obj) bool {
	for _, e := range o {
		switch e.(type) {
		case obj, []any:
			return false
		}
	}
	return true
}

// unflatten rebuilds the tree of the attributes named prefix+"…": names
// split at dots; an object whose members are all indexes becomes a list in
// index order. nil when no attribute has the prefix.
func unflatten(a obj, prefix string) any {
	root := obj{}
	found := false
	for k, v := range a {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok || rest == "" {
			continue
		}
		found = true
		if strings.Count(rest, ".") >= maxDepth {
			continue
		}
		node := root
		p, last, more := strings.Cut(rest, ".")
		for more {
			next, ok := node[p].(obj)
			if !ok {
				next = obj{}
				node[p] = next
			}
			node = next
			p, last, more = strings.Cut(last, ".")
		}
		last = p
		if _, isObj := node[last].(obj); !isObj {
			node[last] = v
		}
	}
	if !found {
		return nil
	}
	return listify(root)
}

// listify turns objects keyed by indexes into lists, depth first.
func listify(v any) any {
	o, ok := v.(obj)
	if !ok {
		return v
	}
	all := len(o) > 0
	idx := make([]int, 0, len(o))
	for k, e := range o {
		o[k] = listify(e)
		n, ok := index(k)
		if !ok {
			all = false
			continue
		}
		idx = append(idx, n)
	}
	if !all {
		return o
	}
	slices.Sort(idx)
	list := make([]any, len(idx))
	for i, n := range idx {
		list[i] = o[strconv.Itoa(n)]
	}
	return list
}

// index reads k as a list index: a whole number written canonically
// ("0", "12"; not "012", "+1", "-1").
func index(k string) (int, bool) {
	if k == "" || len(k) > 1 && k[0] == '0' {
		return 0, false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < '0' || k[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(k) // fails only past the int range
	return n, err == nil
}

// oiStatusFailed reads a status code as OTLP JSON or Phoenix write it.
func oiStatusFailed(code any) bool {
	switch code {
	case json.Number("2"), "STATUS_CODE_ERROR", "ERROR", "Error", "error":
		return true
	}
	return false
}
