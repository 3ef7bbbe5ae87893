package logs

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/killswitch/killswitch/ingest"
)

// datadog reads Datadog APM traces as the tracers send them to the agent
// (the trace API's payload) and as they are dumped: a JSON array of
// traces, each an array of spans — [[span, …], …] — as a document or one
// trace per line; a flat array of spans reads too. A span:
//
//	{"trace_id": 1, "span_id": 2, "parent_id": 0, "name": "openai.request",
//	 "resource": "createChatCompletion", "service": "support-agent",
//	 "start": 1741000000000000000, "duration": 812000000, "error": 0,
//	 "meta": {"openai.request.model": "gpt-4o-mini",
//	          "openai.request.messages.0.role": "user",
//	          "openai.request.messages.0.content": "…",
//	          "openai.response.choices.0.message.content": "…", …},
//	 "metrics": {"openai.response.usage.prompt_tokens": 12, …}}
//
// An "openai.request" span of a chat or completion call (resource
// createChatCompletion, createCompletion, chat.completions.create,
// completions.create, or unnamed) is a call, as dd-trace's OpenAI
// integration writes it; an openai.request span of any other resource
// (embeddings, models, files, …) and every other span (the framework
// spans around the call, langchain.request included, HTTP spans) are
// skipped by name, so a call counts once.
//
// What the tags cannot give: dd-trace tags each request message's role,
// name and content only, so the tool calls of the agent's latest turn are
// not in the request (its tool-call signature is empty), and it truncates
// every text to DD_OPENAI_SPAN_CHAR_LIMIT characters (128 by default, then
// "..."): prompts longer than that are compared on their first 128
// characters. A call's record:
//
//   - TS: start (Unix nanoseconds); latency: duration (nanoseconds);
//   - request: the messages rebuilt from meta
//     openai.request.messages.N.{role, content, name, tool_call_id} (a
//     legacy prompt from openai.request.prompt or .prompt.N);
//   - response: choice 0 from openai.response.choices.0.message.content
//     (or .text) and its tool calls
//     (openai.response.choices.0.message.tool_calls.M.{name, or function
//     as older tracers write it, and arguments}); none when absent;
//   - model: openai.request.model, else openai.response.model; provider
//     "openai"; tokens: metrics openai.response.usage.prompt_tokens /
//     completion_tokens; id: the span id;
//   - status: error 1 is a failed call: meta http.status_code when it is
//     an HTTP status, 429 when error.type or error.message names a rate
//     limit, else 500; else 200;
//   - agent: --agent, else the span's service, else "default".
//
// Records are in start order; positions name the span: "file:[2][5]" (the
// sixth span of the third trace), "file:12:[5]" in JSONL of traces.
type datadog struct {
	src *source
	opt Options
}

func (c *datadog) convert(u unit) []*ingest.Record {
	pos := c.src.pos(u, "")
	v, err := decodeTree(u.raw)
	if err != nil {
		return []*ingest.Record{bad(pos, "%v", err)}
	}
	trace, ok := v.([]any)
	if !ok {
		// A flat array of spans: this unit is one span.
		return []*ingest.Record{c.span(pos, v).rec}
	}
	items := make([]item, len(trace))
	for j, sp := range trace {
		p := pos
		if p.Kind == ingest.PosPath {
			p.Path += "[" + strconv.Itoa(j) + "]"
		} else {
			p = c.src.pos(u, "["+strconv.Itoa(j)+"]")
		}
		items[j] = c.span(p, sp)
		items[j].i = j
	}
	return sortItems(items)
}

// ddCallResources are the resources of an openai.request span that is a
// chat or completion call.
var ddCallResources = map[string]bool{"": true, "createChatCompletion": true, "createCompletion": true,
	"chat.completions.create": true, "completions.create": true, "openai.chat.completions.create": true}

func (c *datadog) span(pos ingest.Pos, v any) item {
	o, ok := v.(obj)
	if !ok {
		return item{rec: bad(pos, "a Datadog span is a JSON object, got %s", kind(v))}
	}
	at, err := unixNano(o["start"])
	if err != nil {
		return item{rec: bad(pos, `"start": %v`, err)}
	}
	name, resource := str(o["name"]), str(o["resource"])
	switch {
	case name != "openai.request":
		return item{rec: skip(pos, "Datadog span "+clip(name, 40)+" is not an LLM call (only openai.request spans are)"), at: at}
	case !ddCallResources[resource]:
		return item{rec: skip(pos, "Datadog openai.request span of "+clip(resource, 40)+" is not a chat or completion call"), at: at}
	}
	meta, _ := o["meta"].(obj)
	metrics, _ := o["metrics"].(obj)
	rec := &ingest.Record{Pos: pos, TS: at, Status: 200, Provider: "openai", ID: idText(o["span_id"])}
	rec.Model = firstStr(meta["openai.request.model"], meta["openai.response.model"])
	var msgs []message
	if hasIndexed(meta, "openai.request.messages.") {
		msgs, _ = inputMessages(indexed(meta, "openai.request.messages."))
	} else if p := firstStr(meta["openai.request.prompt"], meta["openai.request.prompt.0"]); p != "" {
		msgs = []message{textMessage("user", p)}
	}
	rec.Request = requestBody(rec.Model, msgs, nil)
	rec.Response = ddResponse(meta, rec.Model)
	in, ok1 := count(metrics["openai.response.usage.prompt_tokens"])
	out, ok2 := count(metrics["openai.response.usage.completion_tokens"])
	if ok1 || ok2 {
		rec.TokensIn, rec.TokensOut, rec.HasTokens = in, out, true
	}
	if d, err := strconv.ParseInt(idText(o["duration"]), 10, 64); err == nil && d >= 0 {
		rec.LatencyMS, rec.HasLatency = time.Duration(d).Round(time.Millisecond).Milliseconds(), true
	}
	if f, _ := number(o["error"]); f != 0 {
		rec.Status = 500
		if s, ok := number(meta["http.status_code"]); ok && s >= 400 && s <= 599 {
			rec.Status = int(s)
		} else if e := strings.ToLower(str(meta["error.type"]) + " " + str(meta["error.message"]) + " " + str(meta["error.msg"])); strings.Contains(e, "ratelimit") || strings.Contains(e, "429") {
			rec.Status = 429
		}
	}
	switch {
	case c.opt.Agent != "":
		rec.Agent, rec.AgentFrom = c.opt.Agent, fromFlag
	case str(o["service"]) != "":
		rec.Agent, rec.AgentFrom = str(o["service"]), "service"
	default:
		rec.Agent, rec.AgentFrom = "default", "default"
	}
	return item{rec: rec, at: at}
}

// ddResponse rebuilds choice 0 (see datadog); nil when meta holds none.
func ddResponse(meta obj, model string) []byte {
	const p = "openai.response.choices.0."
	var m message
	if s, ok := meta[p+"message.content"].(string); ok {
		m.Content = &s
	} else if s, ok := meta[p+"text"].(string); ok {
		m.Content = &s
	}
	for j := 0; ; j++ {
		tp := p + "message.tool_calls." + strconv.Itoa(j) + "."
		name := firstStr(meta[tp+"name"], meta[tp+"function"], meta[tp+"function.name"])
		if name == "" {
			break
		}
		args := firstStr(meta[tp+"function.arguments"], meta[tp+"arguments"])
		if args == "" {
			args = "{}"
		}
		m.ToolCalls = append(m.ToolCalls, toolCall{ID: str(meta[tp+"id"]), Type: "function",
			Function: toolFunction{Name: name, Arguments: args}})
	}
	if m.Content == nil && m.ToolCalls == nil {
		return nil
	}
	return responseBody(model, m, str(meta[p+"finish_reason"]))
}

// idText writes a span id (a number, as the tracers send it, or a
// string) as text.
func idText(v any) string {
	switch x := v.(type) {
	case json.Number:
		return string(x)
	case string:
		return x
	}
	return ""
}
