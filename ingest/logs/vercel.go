package logs

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/killswitch/killswitch/ingest"
)

// vercelReader reads the Vercel AI SDK's telemetry as OpenTelemetry JS
// exports it: ReadableSpan objects — {"name", "spanContext": {"traceId",
// "spanId"}, "parentSpanId" (or "parentSpanContext": {"spanId"}),
// "startTime" and "endTime" as [seconds, nanoseconds], "status": {"code"},
// "attributes": {…}} — in a JSON array, one per line, or as a document
// each. JSON.stringify of a live span ("_spanContext") reads the same.
//
// The SDK writes a span per function call (ai.generateText, ai.streamText,
// ai.generateObject, ai.streamObject) over a span per provider call of
// each step (ai.generateText.doGenerate, ai.streamText.doStream, …). The
// provider calls are the requests; a function span is a wrapper by its
// name: skipped (its calls count once) when provider spans are below it
// or, parent links or not (OpenTelemetry JS 2 writes parentSpanContext,
// some exporters write none), anywhere in its trace (same trace id). A
// function span whose trace holds no provider span (an export that
// dropped them) is the call itself. ai.embed, ai.embedMany
// and their doEmbed spans are embeddings, not chat; ai.toolCall spans are
// the tools the app ran; each is skipped by its operation. A call's
// record:
//
//   - TS: startTime; latency: endTime − startTime;
//   - request: {"model", "messages", "tools", settings} from
//     ai.prompt.messages (the provider prompt, a JSON string; tool-call and
//     tool-result parts as OpenAI tool calls and tool messages), else
//     ai.prompt ({"system", "prompt" | "messages"}); ai.prompt.tools as
//     OpenAI tools; ai.settings.temperature, topP, maxTokens (or
//     maxOutputTokens), frequencyPenalty, presencePenalty, seed;
//   - response: ai.response.text and ai.response.toolCalls (a JSON list
//     of {toolCallId, toolName, args | input}), else ai.response.object;
//     none when absent;
//   - model: ai.model.id, else gen_ai.request.model; provider:
//     ai.model.provider, else gen_ai.system; tokens: ai.usage.promptTokens
//     / completionTokens (SDK 5: inputTokens / outputTokens), else
//     gen_ai.usage.input_tokens / output_tokens; id: ai.response.id, else
//     the span id; status 500 when the span status is ERROR (code 2);
//   - agent: --agent; else session.id, ai.telemetry.metadata.sessionId,
//     user.id, ai.telemetry.metadata.userId, ai.telemetry.functionId (the
//     name the app gave the function), each on the span or an ancestor;
//     else the root span's name, else the trace id.
//
// The whole input is read before the first record (a span's parent may
// come after it); records are in start-time order, then input order. A
// span array in a regular file is read in two passes instead of held (see
// docstream.go): the records are the same.
// Positions name the span: "file:[3]" in an array, "file:12" in JSONL.
type vercelReader struct {
	src   *source
	opt   Options
	queue []*ingest.Record
	cur   *ingest.Record
	err   error
	read  bool
	// stream is set when the input is a file whose span array is read
	// twice instead of held (see docstream.go).
	stream *spanStream
}

func (r *vercelReader) Scan() bool {
	if !r.read {
		r.read = true
		if r.stream = r.planStream(); r.stream == nil {
			r.queue = r.readAll()
		}
	}
	if r.stream != nil {
		r.cur, r.err = r.stream.next()
		return r.cur != nil
	}
	if len(r.queue) == 0 {
		r.cur = nil
		return false
	}
	r.cur, r.queue[0], r.queue = r.queue[0], nil, r.queue[1:]
	return true
}

func (r *vercelReader) Record() *ingest.Record { return r.cur }
func (r *vercelReader) Err() error             { return r.src.ioErr(r.err) }

// readAll decodes every span and builds the records.
func (r *vercelReader) readAll() []*ingest.Record {
	var spans []*tspan
	var problems []item
	for {
		u, ok := r.src.next()
		if !ok {
			r.err = r.src.err
			break
		}
		if u.err != nil {
			problems = append(problems, item{rec: &ingest.Record{Pos: u.err.Pos, Err: u.err}, i: len(spans) + len(problems)})
			continue
		}
		s := vercelSpan(r.src.pos(u, ""), u.raw)
		s.order = len(spans) + len(problems)
		spans = append(spans, s)
	}
	tree := newSpanTree(spans)
	tree.markWrappers(spans, vercelWrapper)
	items := append(problems, spanRecords(spans, tree, r.opt, vercelBuild)...)
	return sortItems(items)
}

// vercelWrapper is the skip reason of a function span wrapping calls.
func vercelWrapper(*tspan) string {
	return "Vercel AI SDK function span wrapping its provider calls (each counts once, at its doGenerate/doStream span)"
}

// planStream reads the first pass of a span array in a file; nil when
// the input is to be read whole.
func (r *vercelReader) planStream() *spanStream {
	t := newLightTree(keyAttrs(vercelAgentKeys))
	refs, line, ok := r.src.scanArray(func(_ int, raw []byte) {
		t.add(vercelSpan(ingest.Pos{}, raw)) // the light view holds no position
	})
	if !ok {
		return nil
	}
	return &spanStream{src: r.src, refs: refs, line: line, plan: t.plan(true), opt: r.opt,
		decode: vercelSpan, build: vercelBuild, wrapper: vercelWrapper}
}

// vercelSpan decodes one ReadableSpan.
func vercelSpan(pos ingest.Pos, raw []byte) *tspan {
	s := &tspan{pos: pos, agentKeys: vercelAgentKeys}
	v, err := decodeTree(raw)
	if err != nil {
		s.err = err
		return s
	}
	o, ok := v.(obj)
	if !ok {
		s.err = fmt.Errorf("a span is a JSON object, got %s", kind(v))
		return s
	}
	ctx := o["spanContext"]
	if ctx == nil {
		ctx = o["_spanContext"]
	}
	s.name = str(o["name"])
	s.traceID = firstStr(get(ctx, "traceId"), o["traceId"])
	s.spanID = firstStr(get(ctx, "spanId"), o["spanId"], o["id"])
	s.parentID = firstStr(o["parentSpanId"], get(o, "parentSpanContext", "spanId"), o["parentId"])
	switch a := o["attributes"].(type) {
	case obj:
		s.attrs = a
	case nil:
		s.attrs = obj{}
	default:
		s.err = fmt.Errorf(`"attributes": want an object, got %s`, kind(a))
		return s
	}
	s.start, s.startErr = hrTime(o["startTime"])
	s.end, _ = hrTime(o["endTime"])
	switch get(o, "status", "code") {
	case json.Number("2"), "ERROR", "STATUS_CODE_ERROR":
		s.failed = true
	}
	op := firstStr(s.attrs["ai.operationId"], s.name)
	switch {
	case strings.HasPrefix(op, "ai.embed"):
		s.skip = "Vercel AI SDK " + clip(op, 40) + " span is an embedding, not chat"
	case strings.HasSuffix(op, ".doGenerate"), strings.HasSuffix(op, ".doStream"):
		s.call = true
	case vercelFunctions[op]:
		s.call, s.byName = true, true
	case strings.HasPrefix(op, "ai."):
		s.skip = "Vercel AI SDK " + clip(op, 40) + " span is not an LLM call"
	default:
		s.skip = "span without ai.operationId is not a Vercel AI SDK call"
	}
	return s
}

// vercelFunctions are the SDK's function spans that wrap provider calls.
var vercelFunctions = map[string]bool{"ai.generateText": true, "ai.streamText": true, "ai.generateObject": true, "ai.streamObject": true}

var vercelAgentKeys = []agentKey{
	{"session.id", fromSession}, {"ai.telemetry.metadata.sessionId", "ai.telemetry.metadata.sessionId"},
	{"user.id", fromUser}, {"ai.telemetry.metadata.userId", "ai.telemetry.metadata.userId"},
	{"ai.telemetry.functionId", "ai.telemetry.functionId"},
}

// hrTime reads OpenTelemetry JS's HrTime [seconds, nanoseconds]; a plain
// number is milliseconds since the epoch (as Date.now() gives), a string
// an RFC 3339 time.
func hrTime(v any) (time.Time, error) {
	switch x := v.(type) {
	case []any:
		if len(x) != 2 {
			return time.Time{}, fmt.Errorf("want [seconds, nanoseconds], got an array of %d", len(x))
		}
		sec, ok1 := number(x[0])
		ns, ok2 := number(x[1])
		if !ok1 || !ok2 || sec != math.Trunc(sec) || ns != math.Trunc(ns) || sec <= 0 || sec > 1e11 || ns < 0 || ns >= 1e9 {
			return time.Time{}, fmt.Errorf("want [seconds, nanoseconds] as whole numbers, nanoseconds below 1e9")
		}
		return time.Unix(int64(sec), int64(ns)).UTC(), nil
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return time.Time{}, fmt.Errorf("not a time: %s", clip(string(x), 30))
		}
		return ingest.UnixNumber(f)
	case nil:
		return time.Time{}, fmt.Errorf("missing")
	}
	return timeOf(v)
}

// vercelSettings maps ai.settings.* to chat request members.
var vercelSettings = [...][2]string{
	{"temperature", "temperature"}, {"topP", "top_p"}, {"maxTokens", "max_tokens"}, {"maxOutputTokens", "max_tokens"},
	{"frequencyPenalty", "frequency_penalty"}, {"presencePenalty", "presence_penalty"}, {"seed", "seed"},
}

// vercelBuild fills the record of a Vercel AI SDK call span.
func vercelBuild(s *tspan, rec *ingest.Record) {
	a := s.attrs
	rec.Model = firstStr(a["ai.model.id"], a["gen_ai.request.model"], a["ai.response.model"])
	rec.Provider = firstStr(a["ai.model.provider"], a["gen_ai.system"])
	rec.ID = firstStr(a["ai.response.id"], s.spanID)
	rec.Session = firstStr(a["session.id"], a["ai.telemetry.metadata.sessionId"])
	var msgs []message
	var tools any
	if a["ai.prompt.messages"] != nil {
		msgs, tools = inputMessages(scrub(maybeJSON(a["ai.prompt.messages"]), false))
	} else {
		msgs, tools = inputMessages(scrub(maybeJSON(a["ai.prompt"]), false))
	}
	if t := vercelTools(a["ai.prompt.tools"]); t != nil {
		tools = t
	}
	params := obj{}
	for _, kv := range vercelSettings {
		if v, ok := a["ai.settings."+kv[0]]; ok {
			if _, isNum := v.(json.Number); isNum {
				params[kv[1]] = v
			}
		}
	}
	rec.Request = oiRequest(rec.Model, msgs, tools, params)
	var out message
	if t, ok := a["ai.response.text"].(string); ok && t != "" {
		out.Content = &t
	}
	out.ToolCalls = callsOf(a["ai.response.toolCalls"])
	if out.Content == nil && out.ToolCalls == nil {
		if o, ok := a["ai.response.object"].(string); ok && o != "" {
			out.Content = &o
		}
	}
	if out.Content != nil || out.ToolCalls != nil {
		rec.Response = responseBody(rec.Model, out, str(a["ai.response.finishReason"]))
	}
	for _, k := range [...]string{"ai.usage.promptTokens", "ai.usage.inputTokens", "gen_ai.usage.input_tokens"} {
		if n, ok := count(a[k]); ok {
			rec.TokensIn, rec.HasTokens = n, true
			break
		}
	}
	for _, k := range [...]string{"ai.usage.completionTokens", "ai.usage.outputTokens", "gen_ai.usage.output_tokens"} {
		if n, ok := count(a[k]); ok {
			rec.TokensOut, rec.HasTokens = n, true
			break
		}
	}
	latency(rec, s.start, s.end)
	if s.failed {
		rec.Status = 500
	}
}

// vercelTools reads ai.prompt.tools: a list of JSON strings, each a tool
// {"type": "function", "name", "description", "parameters" | "inputSchema"},
// as OpenAI tools; nil when there are none.
func vercelTools(v any) []any {
	list, ok := maybeJSON(v).([]any)
	if !ok {
		return nil
	}
	var tools []any
	for _, e := range list {
		t, ok := maybeJSON(e).(obj)
		if !ok || str(t["name"]) == "" {
			continue
		}
		fn := obj{"name": t["name"]}
		if d := t["description"]; d != nil {
			fn["description"] = d
		}
		if p := firstNonNil(t["parameters"], t["inputSchema"]); p != nil {
			fn["parameters"] = p
		}
		tools = append(tools, obj{"type": "function", "function": fn})
	}
	return tools
}

func firstNonNil(vs ...any) any {
	for _, v := range vs {
		if v != nil {
			return v
		}
	}
	return nil
}
