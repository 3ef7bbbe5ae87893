package logs

import (
	"math"
	"strings"

	"github.com/killswitch/killswitch/ingest"
)

// litellm reads LiteLLM's StandardLoggingPayload (what its logging
// callbacks receive) and LiteLLM_SpendLogs rows (its proxy database), as
// JSONL or as JSON documents. One payload is one call:
//
//   - TS: startTime, Unix seconds as a number or the zone-less
//     "YYYY-MM-DD HH:MM:SS.ffffff" text, taken as UTC (both forms occur);
//   - request: {"model", "messages"} rebuilt from model and messages (a list
//     of OpenAI messages, kept as logged, or a JSON string holding one, as
//     SpendLogs store it; a plain string is the user message; other shapes
//     map as in inputMessages), with model_parameters' tools, functions and
//     tool_choice; when messages is empty ("{}" in SpendLogs that do not
//     store prompts), proxy_server_request's body if it holds messages,
//     else an empty message list: the call is counted but has no prompt;
//   - response: the response body (an object, or a JSON string holding one;
//     a plain string is the assistant text); none when empty;
//   - status: 200 for "success"; for "failure", the HTTP status in
//     error_information.error_code when it is one, else 500;
//   - agent (SPEC §3 order, first non-empty): the mapping flag; agent_id,
//     metadata.agent_id; session_id, metadata.session_id; end_user,
//     metadata.user_api_key_end_user_id, user, metadata.user_api_key_user_id;
//     else "default". (trace_id is not used: LiteLLM makes a new one per
//     call unless the caller sets it.)
//   - cost: response_cost, or spend; tokens: prompt_tokens,
//     completion_tokens; latency: endTime − startTime; id: id or
//     request_id; session: session_id; tenant: team_id; provider:
//     custom_llm_provider.
//
// Calls that are not chat or text completions (call_type naming
// embeddings, images, moderation, audio or rerank) are skipped.
type litellm struct {
	src *source
	opt Options
}

func (c *litellm) convert(u unit) []*ingest.Record {
	pos := c.src.pos(u, "")
	o, badRec := unitObject(u.raw, pos, "a LiteLLM log entry")
	if badRec != nil {
		return []*ingest.Record{badRec}
	}
	return []*ingest.Record{c.payload(o, pos)}
}

// skippedCallTypes name LiteLLM call types that are no chat or completion.
var skippedCallTypes = [...]string{"embedding", "image", "moderation", "transcription", "speech", "rerank"}

func (c *litellm) payload(o obj, pos ingest.Pos) *ingest.Record {
	ct := str(o["call_type"])
	for _, s := range skippedCallTypes {
		if strings.Contains(strings.ToLower(ct), s) {
			return skip(pos, "LiteLLM call_type "+clip(ct, 40)+" is not an LLM chat or completion call")
		}
	}
	st, ok := o["startTime"]
	if !ok {
		return bad(pos, `missing "startTime"`)
	}
	rec := &ingest.Record{Pos: pos, Status: 200}
	var err error
	if rec.TS, err = timeOf(st); err != nil {
		return bad(pos, `"startTime": %v`, err)
	}
	meta, _ := maybeJSON(o["metadata"]).(obj)
	rec.Model = str(o["model"])
	rec.Request = c.request(o, rec.Model)
	if resp := maybeJSON(o["response"]); !isEmpty(resp) {
		rec.Response = outputBody(resp, rec.Model)
	}
	if str(o["status"]) == "failure" {
		rec.Status = 500
		if f, ok := number(get(o, "error_information", "error_code")); ok && f >= 100 && f <= 599 && f == math.Trunc(f) {
			rec.Status = int(f)
		}
	}
	rec.Agent = c.opt.Agent
	if rec.Agent == "" {
		rec.Agent = firstStr(o["agent_id"], get(meta, "agent_id"),
			o["session_id"], get(meta, "session_id"),
			o["end_user"], get(meta, "user_api_key_end_user_id"), o["user"], get(meta, "user_api_key_user_id"),
			"default")
	}
	if f, ok := cost(o["response_cost"]); ok {
		rec.CostUSD, rec.HasCost = f, true
	} else if f, ok := cost(o["spend"]); ok {
		rec.CostUSD, rec.HasCost = f, true
	}
	if n, ok := count(o["prompt_tokens"]); ok {
		rec.TokensIn, rec.HasTokens = n, true
	}
	if n, ok := count(o["completion_tokens"]); ok {
		rec.TokensOut, rec.HasTokens = n, true
	}
	rec.LatencyMS, rec.HasLatency = latencyMS(rec.TS, o["endTime"])
	rec.ID = firstStr(o["id"], o["request_id"])
	rec.Session = firstStr(o["session_id"], get(meta, "session_id"))
	rec.Tenant = str(o["team_id"])
	rec.Provider = str(o["custom_llm_provider"])
	return rec
}

// request rebuilds the request body (see litellm).
func (c *litellm) request(o obj, model string) []byte {
	req := chatRequest{Model: model, Messages: []message{}}
	m := maybeJSON(o["messages"])
	if isEmpty(m) {
		if p, ok := maybeJSON(o["proxy_server_request"]).(obj); ok && !isEmpty(p["messages"]) {
			m = maybeJSON(p["messages"])
		}
	}
	switch x := m.(type) {
	case []any:
		req.Messages = scrub(x, false) // OpenAI messages already: kept as logged
	default:
		if !isEmpty(x) {
			msgs, _ := inputMessages(scrub(x, false))
			req.Messages = msgs
		}
	}
	if mp, ok := maybeJSON(o["model_parameters"]).(obj); ok {
		for _, f := range [...]struct {
			dst *any
			key string
		}{{&req.Tools, "tools"}, {&req.Functions, "functions"}, {&req.ToolChoice, "tool_choice"}} {
			if v := mp[f.key]; !isEmpty(v) {
				*f.dst = scrub(v, false)
			}
		}
	}
	return marshal(req)
}
