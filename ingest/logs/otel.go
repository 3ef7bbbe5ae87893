package logs

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/killswitch/killswitch/ingest"
)

// otel reads OpenTelemetry traces in OTLP JSON —
// {"resourceSpans":[{"resource":{"attributes":[…]},"scopeSpans":[{"spans":[…]}]}]}
// (or the older instrumentationLibrarySpans), as a document or one per
// line — and maps the spans of the GenAI semantic conventions to records.
//
// A span is an LLM call when gen_ai.operation.name is chat,
// text_completion, generate_content or completion; or when it has no
// operation name but a gen_ai.request.model / gen_ai.response.model, a
// prompt or completion attribute or event, or llm.request.type chat or
// completion (OpenLLMetry). Every other span is a Record skipped with the
// reason why. A call's record:
//
//   - TS: startTimeUnixNano (a string or a number of nanoseconds);
//     latency: endTimeUnixNano − startTimeUnixNano;
//   - request: {"model", "messages"} from, in this order, the first that is
//     present: gen_ai.input.messages (JSON, semconv ≥ 1.37), the flattened
//     gen_ai.prompt.N.role / .content / .tool_calls.M.* attributes
//     (OpenLLMetry), gen_ai.prompt (JSON or text), the span events
//     gen_ai.system.message / gen_ai.user.message / gen_ai.assistant.message
//     / gen_ai.tool.message / gen_ai.content.prompt; with
//     gen_ai.system_instructions as a leading system message;
//   - response: likewise from gen_ai.output.messages, gen_ai.completion.N.*,
//     gen_ai.completion, or the events gen_ai.choice /
//     gen_ai.content.completion; none when absent;
//   - model: gen_ai.request.model, else gen_ai.response.model; provider:
//     gen_ai.provider.name, else gen_ai.system; tokens:
//     gen_ai.usage.input_tokens / output_tokens (or prompt_tokens /
//     completion_tokens); id: gen_ai.response.id, else the span id;
//     session: gen_ai.conversation.id, else session.id;
//   - status: http.response.status_code (or http.status_code) when it is an
//     HTTP status; else 500 when the span status is ERROR; else 200;
//   - agent (SPEC §3: mapping flag, then the format's agent, session and
//     user fields): the mapping flag; gen_ai.agent.id; gen_ai.agent.name;
//     gen_ai.conversation.id; session.id; user.id; enduser.id — each looked
//     up on the span, then on its ancestors in the same document (an agent
//     span is the parent of its chat spans; at most 64 levels up), then on
//     the resource; then the resource's service.name unless it is
//     unknown_service…; else "default". service.name comes last because
//     one service often hosts many agents; it is still finer than
//     "default".
//
// The records of one document are in time order (by start time, then
// document order). Positions name the span:
// "file:resourceSpans[0].scopeSpans[1].spans[4]".
type otel struct {
	src *source
	opt Options
}

// span is one OTLP span with its attributes decoded.
type span struct {
	o      obj
	attrs  obj // attribute key → value (a tree)
	res    obj // its resource's attributes
	path   string
	parent string
	err    error
	pos    ingest.Pos // where the span is (set before it is mapped)
	// evs, when flat, are the span's events as a reader of flat span
	// JSON decoded them (see flatspans.go); else events() reads o.
	evs  []event
	flat bool
}

func (c *otel) convert(u unit) []*ingest.Record {
	spans, ok := otelSpansFast(u.raw, u.valid)
	var problems []item
	if !ok {
		var rec *ingest.Record
		if spans, problems, rec = c.spansStd(u); rec != nil {
			return []*ingest.Record{rec}
		}
	}
	if len(spans)+len(problems) == 0 {
		return []*ingest.Record{skip(c.src.pos(u, ""), "OTLP document without spans")}
	}
	for _, s := range spans {
		s.pos = c.src.pos(u, s.path)
	}
	return c.records(spans, problems)
}

// records maps the spans of one trace export (each with its pos), after
// the problems met decoding it, in time order: the spans that carry an
// OpenInference span kind by those conventions, the others by the GenAI
// ones, each call's agent looked up among its ancestors in spans.
func (c *otel) records(spans []*span, problems []item) []*ingest.Record {
	byID := make(map[string]*span, len(spans))
	for _, s := range spans {
		if id := str(s.o["spanId"]); id != "" && byID[id] == nil {
			byID[id] = s
		}
	}
	items := make([]item, 0, len(spans)+len(problems))
	items = append(items, problems...)
	oi := c.openInference(spans)
	up := byIDLookup(byID)
	for i, s := range spans {
		it, ok := oi[s]
		if !ok {
			it = c.span(s, s.pos, up)
		}
		it.i = len(problems) + i
		items = append(items, it)
	}
	return sortItems(items)
}

// spansStd decodes the spans of an OTLP document through a whole tree:
// the reference otelSpansFast is tested against, and the reader of every
// document it does not take. A document that is no OTLP trace is rec.
func (c *otel) spansStd(u unit) (spans []*span, problems []item, rec *ingest.Record) {
	pos := c.src.pos(u, "")
	v, err := decodeTree(u.raw)
	if err != nil {
		return nil, nil, bad(pos, "%v", err)
	}
	doc, ok := v.(obj)
	if !ok {
		return nil, nil, bad(pos, "an OTLP trace document is a JSON object, got %s", kind(v))
	}
	rsKey := "resourceSpans"
	if _, ok := doc[rsKey]; !ok {
		rsKey = "resource_spans"
	}
	rss, ok := doc[rsKey].([]any)
	if !ok {
		return nil, nil, bad(pos, `an OTLP trace document needs a "resourceSpans" array`)
	}
	for ri, rs := range rss {
		rp := fmt.Sprintf("%s[%d]", rsKey, ri)
		rso, ok := rs.(obj)
		if !ok {
			problems = append(problems, item{rec: bad(c.src.pos(u, rp), "want an object, got %s", kind(rs))})
			continue
		}
		res, err := attributes(get(rso, "resource", "attributes"))
		if err != nil {
			problems = append(problems, item{rec: bad(c.src.pos(u, rp+".resource"), "%v", err)})
			continue
		}
		ssKey := "scopeSpans"
		if _, ok := rso[ssKey]; !ok {
			ssKey = "instrumentationLibrarySpans"
		}
		sss, _ := rso[ssKey].([]any)
		for si, ss := range sss {
			list, _ := get(ss, "spans").([]any)
			for pi, sp := range list {
				p := fmt.Sprintf("%s.%s[%d].spans[%d]", rp, ssKey, si, pi)
				s := &span{res: res, path: p}
				s.o, ok = sp.(obj)
				if !ok {
					s.err = fmt.Errorf("a span is a JSON object, got %s", kind(sp))
				} else if s.attrs, err = attributes(s.o["attributes"]); err != nil {
					s.err = err
				}
				s.parent = str(s.o["parentSpanId"])
				spans = append(spans, s)
			}
		}
	}
	return spans, problems, nil
}

// openInference maps the spans that carry openinference.span.kind (see
// openinference.go) to their items; the other spans of the document are
// read by the GenAI conventions.
func (c *otel) openInference(spans []*span) map[*span]item {
	var ts []*tspan
	var from []*span
	for _, s := range spans {
		if s.err != nil || s.attrs[oiKindAttr] == nil {
			continue
		}
		ts = append(ts, oiSpan(s.pos, s, len(ts)))
		from = append(from, s)
	}
	if len(ts) == 0 {
		return nil
	}
	tree := newSpanTree(ts)
	tree.markWrappers(ts, oiWrapper)
	out := make(map[*span]item, len(ts))
	for i, it := range spanRecords(ts, tree, c.opt, oiBuild) {
		out[from[i]] = it
	}
	return out
}

// oiSpan is the OpenInference view of OTLP span s (one with a span kind).
func oiSpan(pos ingest.Pos, s *span, order int) *tspan {
	t := &tspan{pos: pos, name: str(s.o["name"]), traceID: str(s.o["traceId"]),
		spanID: str(s.o["spanId"]), parentID: s.parent, order: order, attrs: obj{}}
	flattenAttrs(t.attrs, "", s.attrs, 0)
	t.start, t.startErr = unixNano(s.o["startTimeUnixNano"])
	t.end, _ = unixNano(s.o["endTimeUnixNano"])
	t.failed = oiStatusFailed(get(s.o, "status", "code"))
	oiClassify(t, str(s.attrs[oiKindAttr]))
	return t
}

// callOps are the gen_ai.operation.name values of LLM calls.
var callOps = map[string]bool{"chat": true, "text_completion": true, "generate_content": true, "completion": true}

// span maps a span by the GenAI conventions; up looks an agent key up on
// the span and its ancestors (see span.agent).
func (c *otel) span(s *span, pos ingest.Pos, up func(s *span, key string) string) item {
	if s.err != nil {
		return item{rec: bad(pos, "%v", s.err)}
	}
	start, serr := unixNano(s.o["startTimeUnixNano"])
	if reason := s.notCall(); reason != "" {
		return item{rec: skip(pos, reason), at: start}
	}
	if serr != nil {
		return item{rec: bad(pos, `"startTimeUnixNano": %v`, serr)}
	}
	a := s.attrs
	rec := &ingest.Record{Pos: pos, TS: start, Status: 200}
	rec.Model = firstStr(a["gen_ai.request.model"], a["gen_ai.response.model"])
	rec.Provider = firstStr(a["gen_ai.provider.name"], a["gen_ai.system"])
	rec.ID = firstStr(a["gen_ai.response.id"], s.o["spanId"])
	rec.Session = firstStr(a["gen_ai.conversation.id"], a["session.id"])
	rec.Request = requestBody(rec.Model, s.inputMessages(), nil)
	rec.Response = s.output(rec.Model)
	for _, k := range [...]string{"gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"} {
		if n, ok := count(a[k]); ok {
			rec.TokensIn, rec.HasTokens = n, true
			break
		}
	}
	for _, k := range [...]string{"gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens"} {
		if n, ok := count(a[k]); ok {
			rec.TokensOut, rec.HasTokens = n, true
			break
		}
	}
	if end, err := unixNano(s.o["endTimeUnixNano"]); err == nil && !end.Before(start) {
		rec.LatencyMS, rec.HasLatency = end.Sub(start).Round(time.Millisecond).Milliseconds(), true
	}
	rec.Status = s.status()
	rec.Agent = c.opt.Agent
	if rec.Agent == "" {
		rec.Agent = s.agent(up)
	}
	return item{rec: rec, at: start}
}

// notCall returns why s is no LLM call, or "".
func (s *span) notCall() string {
	a := s.attrs
	if op := str(a["gen_ai.operation.name"]); op != "" {
		if callOps[op] {
			return ""
		}
		return "span with gen_ai.operation.name " + clip(op, 40) + " is not an LLM call"
	}
	switch str(a["llm.request.type"]) {
	case "chat", "completion":
		return ""
	}
	for _, k := range [...]string{"gen_ai.request.model", "gen_ai.response.model", "gen_ai.input.messages",
		"gen_ai.output.messages", "gen_ai.prompt", "gen_ai.completion", "gen_ai.prompt.0.content", "gen_ai.prompt.0.role"} {
		if a[k] != nil {
			return ""
		}
	}
	for _, e := range s.events() {
		if strings.HasPrefix(e.name, "gen_ai.") && (strings.HasSuffix(e.name, ".message") || e.name == "gen_ai.choice" ||
			strings.HasPrefix(e.name, "gen_ai.content.")) {
			return ""
		}
	}
	for k := range a {
		if strings.HasPrefix(k, "gen_ai.") {
			return "span without a gen_ai model or messages is not an LLM call"
		}
	}
	return "span without gen_ai attributes is not an LLM call"
}

// status reads the call's HTTP status (see otel).
func (s *span) status() int {
	for _, k := range [...]string{"http.response.status_code", "http.status_code"} {
		if f, ok := number(s.attrs[k]); ok && f >= 100 && f <= 599 && f == math.Trunc(f) {
			return int(f)
		}
	}
	switch code := get(s.o, "status", "code"); code {
	case json.Number("2"), "STATUS_CODE_ERROR", "ERROR":
		return 500
	}
	return 200
}

// agentKeys are the attributes that name the agent, in SPEC §3 order.
var agentKeys = [...]string{"gen_ai.agent.id", "gen_ai.agent.name", "gen_ai.conversation.id", "session.id", "user.id", "enduser.id"}

// maxAncestors bounds the walk up the span tree (agent hierarchies are a
// few levels deep; the bound also ends a cycle of parent ids).
const maxAncestors = 64

// agent derives the call's agent; up looks a key up on s and its
// ancestors (see byIDLookup).
func (s *span) agent(up func(s *span, key string) string) string {
	for _, k := range agentKeys {
		if v := up(s, k); v != "" {
			return v
		}
		if v := str(s.res[k]); v != "" {
			return v
		}
	}
	if v := str(s.res["service.name"]); v != "" && !strings.HasPrefix(v, "unknown_service") {
		return v
	}
	return "default"
}

// byIDLookup looks an agent key up on a span, then on its ancestors in
// byID (at most maxAncestors levels up).
func byIDLookup(byID map[string]*span) func(s *span, key string) string {
	return func(s *span, k string) string {
		for depth := 0; s != nil && depth <= maxAncestors; depth++ {
			if v := str(s.attrs[k]); v != "" {
				return v
			}
			s = byID[s.parent]
		}
		return ""
	}
}

// event is a span event with its attributes decoded.
type event struct {
	name  string
	attrs obj
}

func (s *span) events() []event {
	if s.flat {
		return s.evs
	}
	list, _ := s.o["events"].([]any)
	evs := make([]event, 0, len(list))
	for _, e := range list {
		o, ok := e.(obj)
		if !ok {
			continue
		}
		attrs, _ := attributes(o["attributes"])
		evs = append(evs, event{name: str(o["name"]), attrs: attrs})
	}
	return evs
}

// inputMessages builds the request's messages (see otel).
func (s *span) inputMessages() []message {
	a := s.attrs
	var msgs []message
	switch {
	case a["gen_ai.input.messages"] != nil:
		msgs, _ = inputMessages(scrub(a["gen_ai.input.messages"], false))
	case hasIndexed(a, "gen_ai.prompt."):
		msgs, _ = inputMessages(indexed(a, "gen_ai.prompt."))
	case a["gen_ai.prompt"] != nil:
		msgs, _ = inputMessages(scrub(a["gen_ai.prompt"], false))
	default:
		for _, e := range s.events() {
			switch e.name {
			case "gen_ai.system.message", "gen_ai.user.message", "gen_ai.assistant.message", "gen_ai.tool.message":
				role := strings.TrimSuffix(strings.TrimPrefix(e.name, "gen_ai."), ".message")
				m := obj{"role": role}
				for _, k := range [...]string{"role", "content", "tool_calls", "id"} {
					if v, ok := e.attrs[k]; ok {
						m[k] = maybeJSON(v)
					}
				}
				if m["id"] != nil && role == "tool" {
					m["tool_call_id"] = m["id"]
				}
				msgs = append(msgs, toMessage(scrub(m, false).(obj)))
			case "gen_ai.content.prompt":
				ms, _ := inputMessages(scrub(e.attrs["gen_ai.prompt"], false))
				msgs = append(msgs, ms...)
			}
		}
	}
	if sys := systemText(a["gen_ai.system_instructions"]); sys != "" && (len(msgs) == 0 || msgs[0].Role != "system") {
		msgs = append([]message{textMessage("system", sys)}, msgs...)
	}
	return msgs
}

// output builds the response body (see otel); nil when the span has none.
func (s *span) output(model string) []byte {
	a := s.attrs
	switch {
	case a["gen_ai.output.messages"] != nil:
		return outputBody(scrub(a["gen_ai.output.messages"], false), model)
	case hasIndexed(a, "gen_ai.completion."):
		return outputBody(indexed(a, "gen_ai.completion."), model)
	case a["gen_ai.completion"] != nil:
		return outputBody(scrub(a["gen_ai.completion"], false), model)
	}
	var parts []any
	for _, e := range s.events() {
		switch e.name {
		case "gen_ai.choice":
			if m := maybeJSON(e.attrs["message"]); m != nil {
				parts = append(parts, scrub(m, false))
			} else if e.attrs["content"] != nil || e.attrs["tool_calls"] != nil {
				m := obj{"role": "assistant"}
				for _, k := range [...]string{"content", "tool_calls"} {
					if v, ok := e.attrs[k]; ok {
						m[k] = maybeJSON(v)
					}
				}
				parts = append(parts, scrub(m, false))
			}
		case "gen_ai.content.completion":
			if v := e.attrs["gen_ai.completion"]; v != nil {
				parts = append(parts, scrub(maybeJSON(v), false))
			}
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return outputBody(flatten(parts), model)
}

// flatten makes one list of the parts gathered from events, whose values
// may themselves be lists.
func flatten(parts []any) []any {
	var out []any
	for _, p := range parts {
		if l, ok := p.([]any); ok {
			out = append(out, l...)
		} else {
			out = append(out, p)
		}
	}
	return out
}

// hasIndexed reports whether attributes prefix+"N…" exist.
func hasIndexed(a obj, prefix string) bool {
	for k := range a {
		if rest, ok := strings.CutPrefix(k, prefix); ok && rest != "" && rest[0] >= '0' && rest[0] <= '9' {
			return true
		}
	}
	return false
}

// indexed rebuilds the list of messages flattened into attributes
// prefix+"N.field" and prefix+"N.tool_calls.M.field" (OpenLLMetry's
// gen_ai.prompt.0.content), in index order. Malformed indexes are ignored.
func indexed(a obj, prefix string) []any {
	type msg struct {
		fields obj
		calls  map[int]obj
	}
	byIndex := map[int]*msg{}
	for k, v := range a {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		is, field, ok := strings.Cut(rest, ".")
		n, err := strconv.Atoi(is)
		if !ok || err != nil || n < 0 {
			continue
		}
		m := byIndex[n]
		if m == nil {
			m = &msg{fields: obj{}, calls: map[int]obj{}}
			byIndex[n] = m
		}
		if cs, ok := strings.CutPrefix(field, "tool_calls."); ok {
			js, f, ok := strings.Cut(cs, ".")
			j, err := strconv.Atoi(js)
			if !ok || err != nil || j < 0 {
				continue
			}
			if m.calls[j] == nil {
				m.calls[j] = obj{}
			}
			m.calls[j][f] = v
			continue
		}
		m.fields[field] = v
	}
	idx := make([]int, 0, len(byIndex))
	for n := range byIndex {
		idx = append(idx, n)
	}
	slices.Sort(idx)
	list := make([]any, 0, len(idx))
	for _, n := range idx {
		m := byIndex[n]
		if len(m.calls) > 0 {
			cidx := make([]int, 0, len(m.calls))
			for j := range m.calls {
				cidx = append(cidx, j)
			}
			slices.Sort(cidx)
			calls := make([]any, 0, len(cidx))
			for _, j := range cidx {
				c := m.calls[j]
				calls = append(calls, obj{"id": c["id"], "function": obj{"name": c["name"], "arguments": c["arguments"]}})
			}
			m.fields["tool_calls"] = calls
		}
		list = append(list, scrub(m.fields, false))
	}
	return list
}

// attributes decodes an OTLP attribute list [{"key", "value": AnyValue}]
// into a tree keyed by attribute name (a later duplicate wins). A missing
// list is empty.
func attributes(v any) (obj, error) {
	a := obj{}
	if v == nil {
		return a, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf(`"attributes": want an array, got %s`, kind(v))
	}
	for i, e := range list {
		kv, ok := e.(obj)
		k, kok := kv["key"].(string)
		if !ok || !kok {
			return nil, fmt.Errorf(`attributes[%d]: want {"key": …, "value": …}`, i)
		}
		val, err := anyValue(kv["value"], 0)
		if err != nil {
			return nil, fmt.Errorf("attribute %q: %v", clip(k, 60), err)
		}
		a[k] = val
	}
	return a, nil
}

// anyValue decodes an OTLP AnyValue into a tree: strings stay strings
// (JSON held in a string is decoded where a structure is expected),
// numbers become json.Number, arrays and key-value lists become lists and
// objects.
func anyValue(v any, depth int) (any, error) {
	if depth > 64 {
		return nil, fmt.Errorf("AnyValue nested deeper than 64")
	}
	o, ok := v.(obj)
	if !ok {
		if v == nil {
			return nil, nil
		}
		return nil, fmt.Errorf("want an AnyValue object, got %s", kind(v))
	}
	switch {
	case o["stringValue"] != nil:
		s, ok := o["stringValue"].(string)
		if !ok {
			return nil, fmt.Errorf("stringValue is %s", kind(o["stringValue"]))
		}
		return s, nil
	case o["intValue"] != nil:
		f, ok := number(o["intValue"])
		if !ok || f != math.Trunc(f) {
			return nil, fmt.Errorf("intValue is not an integer")
		}
		return json.Number(strconv.FormatFloat(f, 'f', -1, 64)), nil
	case o["doubleValue"] != nil:
		f, ok := number(o["doubleValue"])
		if !ok {
			return nil, fmt.Errorf("doubleValue is not a number")
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
	case o["boolValue"] != nil:
		b, ok := o["boolValue"].(bool)
		if !ok {
			return nil, fmt.Errorf("boolValue is %s", kind(o["boolValue"]))
		}
		return b, nil
	case o["arrayValue"] != nil:
		vals, _ := get(o, "arrayValue", "values").([]any)
		out := make([]any, len(vals))
		for i, e := range vals {
			x, err := anyValue(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case o["kvlistValue"] != nil:
		vals, _ := get(o, "kvlistValue", "values").([]any)
		out := obj{}
		for _, e := range vals {
			kv, _ := e.(obj)
			k, ok := kv["key"].(string)
			if !ok {
				return nil, fmt.Errorf("kvlistValue entry without a key")
			}
			x, err := anyValue(kv["value"], depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = x
		}
		return out, nil
	case o["bytesValue"] != nil:
		return str(o["bytesValue"]), nil
	}
	return nil, nil
}

// unixNano reads an OTLP time: nanoseconds since the Unix epoch as a
// decimal string or a JSON number.
func unixNano(v any) (time.Time, error) {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case json.Number:
		s = string(x)
	case nil:
		return time.Time{}, fmt.Errorf("missing")
	default:
		return time.Time{}, fmt.Errorf("not a number of nanoseconds: %s", kind(v))
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || f != math.Trunc(f) || f < 0 || f > math.MaxInt64 {
			return time.Time{}, fmt.Errorf("not a number of nanoseconds: %q", clip(s, 30))
		}
		n = int64(f)
	}
	if n <= 0 {
		return time.Time{}, fmt.Errorf("%d is not a time", n)
	}
	return time.Unix(0, n).UTC(), nil
}
