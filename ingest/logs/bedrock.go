package logs

import (
	"strconv"
	"strings"

	"github.com/killswitch/killswitch/ingest"
)

// bedrock reads Amazon Bedrock model invocation logs: the records Bedrock
// writes for every InvokeModel, InvokeModelWithResponseStream, Converse and
// ConverseStream call when model invocation logging is on. A record:
//
//	{"schemaType": "ModelInvocationLog", "schemaVersion": "1.0",
//	 "timestamp": "2025-03-11T00:38:02Z", "accountId": "…",
//	 "identity": {"arn": "arn:aws:sts::…:assumed-role/ROLE/SESSION"},
//	 "region": "us-east-1", "requestId": "…", "operation": "Converse",
//	 "modelId": "amazon.nova-lite-v1:0",
//	 "input": {"inputContentType": "application/json", "inputBodyJson": {…}, "inputTokenCount": 4},
//	 "output": {"outputContentType": "application/json", "outputBodyJson": {…}, "outputTokenCount": 38},
//	 "requestMetadata": {…}, "errorCode": "ThrottlingException"}
//
// in any of the containers Bedrock and CloudWatch Logs deliver it in:
// one record per line (S3 delivery, usually gzipped), a JSON array of
// records, a CloudWatch Logs export whose items hold the record as the
// string (or object) "@message", or a Logs Insights get-query-results
// document, {"results": [[{"field": "@message", "value": "…"}, …], …]}.
// Positions: "file:12" (a line), "file:[3]" (an array element),
// "file:results[3]" (a query result row). The rows of one query result
// are replayed in time order (Logs Insights sorts newest first).
//
// A record's request and response (see bedrockBodies):
//
//   - Converse and ConverseStream: inputBodyJson's "system", "messages"
//     (content blocks text, toolUse, toolResult; images, documents,
//     reasoning and cache points dropped) and "toolConfig.tools" become an
//     OpenAI chat request; outputBodyJson.output.message an OpenAI chat
//     completion with stopReason as its finish reason;
//   - InvokeModel and InvokeModelWithResponseStream: inputBodyJson is the
//     provider's own body and is kept (an Anthropic Messages body, a
//     legacy "prompt"), with "model" set to the model id when absent;
//     Amazon Titan's "inputText" becomes a "prompt". The output body is
//     kept when it is a provider body or a list of stream chunks; Titan's
//     results[].outputText, Llama's "generation", Mistral's
//     outputs[].text and Claude 2's "completion" become a chat completion.
//
// An embedding model (a model id containing "embed") is skipped. A body
// Bedrock stored in S3 instead of the log (inputBodyS3Path, past 100 KB)
// leaves the request without messages: replay counts such requests as
// having no text.
//
// Other fields: TS from "timestamp"; id from requestId; model from
// modelId (the last path segment of an inference-profile or model ARN);
// provider "bedrock"; tokens from input.inputTokenCount and
// output.outputTokenCount, else the Converse usage; latency from the
// Converse metrics.latencyMs.
//
// A failed invocation (errorCode, no output body) is a request with the
// HTTP status the Bedrock Runtime API answers for that error (see
// bedrockStatus): the error-rate breaker needs exactly those.
//
// Agent, in order: --agent; requestMetadata "agent", "agent_id" or
// "agentId" (Converse's requestMetadata, set by the caller per request);
// the role session name of an assumed-role identity.arn
// (arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION), else the user or role
// name ending the ARN; else "default". Session: requestMetadata
// "session_id" or "sessionId".
type bedrock struct {
	src *source
	opt Options
}

func (c *bedrock) convert(u unit) []*ingest.Record {
	pos := c.src.pos(u, "")
	o, badRec := unitObject(u.raw, pos, "a Bedrock invocation log record")
	if badRec != nil {
		return []*ingest.Record{badRec}
	}
	if rows, ok := o["results"]; ok && o["schemaType"] == nil {
		list, ok := rows.([]any)
		if !ok {
			return []*ingest.Record{bad(c.src.pos(u, "results"), "want an array of result rows, got %s", kind(rows))}
		}
		items := make([]item, len(list))
		for i, row := range list {
			p := c.src.pos(u, "results["+strconv.Itoa(i)+"]")
			msg, err := insightsMessage(row)
			if err != "" {
				items[i] = item{rec: bad(p, "%s", err), i: i}
				continue
			}
			items[i] = c.record(p, msg)
			items[i].i = i
		}
		return sortItems(items)
	}
	if m, ok := o["@message"]; ok && o["schemaType"] == nil {
		return []*ingest.Record{c.record(pos, m).rec}
	}
	return []*ingest.Record{c.record(pos, o).rec}
}

// insightsMessage returns the value of the "@message" field of one Logs
// Insights result row ([{"field", "value"}, …]), or what is wrong.
func insightsMessage(row any) (any, string) {
	fields, ok := row.([]any)
	if !ok {
		return nil, "a result row is an array of {field, value}, got " + kind(row)
	}
	for _, f := range fields {
		if str(get(f, "field")) == "@message" {
			return get(f, "value"), ""
		}
	}
	return nil, `result row without an "@message" field (the query must return @message)`
}

// record reads one invocation log record: an object, or a string holding
// one (a CloudWatch message).
func (c *bedrock) record(pos ingest.Pos, v any) item {
	if s, ok := v.(string); ok {
		d, err := decodeTree([]byte(s))
		if err != nil {
			return item{rec: bad(pos, "@message: %v", err)}
		}
		v = d
	}
	o, ok := v.(obj)
	if !ok {
		return item{rec: bad(pos, "a Bedrock invocation log record is a JSON object, got %s", kind(v))}
	}
	switch st := str(o["schemaType"]); {
	case st == "" && o["modelId"] == nil:
		return item{rec: skip(pos, "log message without schemaType or modelId is not a model invocation log")}
	case st != "" && st != "ModelInvocationLog":
		return item{rec: skip(pos, "schemaType "+clip(st, 40)+" is not a model invocation log")}
	}
	if o["timestamp"] == nil {
		return item{rec: bad(pos, `model invocation log without "timestamp"`)}
	}
	at, err := timeOf(o["timestamp"])
	if err != nil {
		return item{rec: bad(pos, `"timestamp": %v`, err)}
	}
	modelID := str(o["modelId"])
	if strings.Contains(strings.ToLower(modelID), "embed") {
		return item{rec: skip(pos, "Bedrock embedding model invocation, not chat"), at: at}
	}
	rec := &ingest.Record{Pos: pos, TS: at, Status: 200, Provider: "bedrock", ID: str(o["requestId"])}
	rec.Model = modelID[strings.LastIndexByte(modelID, '/')+1:]
	in, out := get(o, "input", "inputBodyJson"), get(o, "output", "outputBodyJson")
	rec.Request, rec.Response = bedrockBodies(str(o["operation"]), rec.Model, scrub(maybeJSON(in), false), scrub(maybeJSON(out), false))
	if code := str(o["errorCode"]); code != "" {
		rec.Status = bedrockStatus(code)
	}
	if n, ok := count(get(o, "input", "inputTokenCount")); ok {
		rec.TokensIn, rec.HasTokens = n, true
	} else if n, ok := count(get(out, "usage", "inputTokens")); ok {
		rec.TokensIn, rec.HasTokens = n, true
	}
	if n, ok := count(get(o, "output", "outputTokenCount")); ok {
		rec.TokensOut, rec.HasTokens = n, true
	} else if n, ok := count(get(out, "usage", "outputTokens")); ok {
		rec.TokensOut, rec.HasTokens = n, true
	}
	if n, ok := count(get(out, "metrics", "latencyMs")); ok {
		rec.LatencyMS, rec.HasLatency = n, true
	}
	meta, _ := o["requestMetadata"].(obj)
	rec.Session = firstStr(meta["session_id"], meta["sessionId"])
	switch {
	case c.opt.Agent != "":
		rec.Agent, rec.AgentFrom = c.opt.Agent, fromFlag
	case firstStr(meta["agent"], meta["agent_id"], meta["agentId"]) != "":
		rec.Agent, rec.AgentFrom = firstStr(meta["agent"], meta["agent_id"], meta["agentId"]), "requestMetadata"
	case arnName(str(get(o, "identity", "arn"))) != "":
		rec.Agent, rec.AgentFrom = arnName(str(get(o, "identity", "arn"))), "identity.arn"
	default:
		rec.Agent, rec.AgentFrom = "default", "default"
	}
	return item{rec: rec, at: at}
}

// arnName returns the caller an identity ARN names: the role session name
// of an assumed role (arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION),
// else the last segment of its resource (a user or role name); "" for
// anything that is no ARN.
func arnName(arn string) string {
	if !strings.HasPrefix(arn, "arn:") {
		return ""
	}
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) < 6 {
		return ""
	}
	res := parts[5]
	return res[strings.LastIndexByte(res, '/')+1:]
}

// bedrockStatus is the HTTP status the Bedrock Runtime API answers with
// each error code (as its API model declares them); 500 for a code it does
// not declare.
func bedrockStatus(code string) int {
	switch code {
	case "ThrottlingException", "ModelNotReadyException":
		return 429
	case "ValidationException", "ServiceQuotaExceededException", "ConflictException":
		return 400
	case "AccessDeniedException":
		return 403
	case "ResourceNotFoundException":
		return 404
	case "ModelTimeoutException":
		return 408
	case "ModelErrorException", "ModelStreamErrorException":
		return 424
	case "ServiceUnavailableException":
		return 503
	}
	return 500
}

// bedrockBodies maps the input and output bodies of one invocation (see
// bedrock) to a request body and a response body (nil when none).
func bedrockBodies(op, model string, in, out any) (req, resp []byte) {
	if strings.HasPrefix(op, "Converse") {
		msgs, tools := converseInput(in)
		req = requestBody(model, msgs, tools)
		if m, ok := get(out, "output", "message").(obj); ok {
			resp = responseBody(model, converseMessage(m), str(get(out, "stopReason")))
		}
		return req, resp
	}
	switch b := in.(type) {
	case obj:
		if t, ok := b["inputText"].(string); ok && b["messages"] == nil && b["prompt"] == nil {
			b = obj{"prompt": t}
		}
		if _, ok := b["model"]; !ok && model != "" {
			b["model"] = model
		}
		req = marshal(b)
	case nil:
		req = requestBody(model, nil, nil)
	default:
		msgs, tools := inputMessages(b)
		req = requestBody(model, msgs, tools)
	}
	return req, invokeOutput(out, model)
}

// invokeOutput maps an InvokeModel output body (see bedrock).
func invokeOutput(out any, model string) []byte {
	o, ok := out.(obj)
	if !ok {
		if list, ok := out.([]any); ok && len(list) > 0 {
			return marshal(list) // stream chunks, as the body parser reads them
		}
		return outputBody(out, model)
	}
	if providerBody(o) {
		return marshal(o)
	}
	var text []string
	for _, r := range listOf(o["results"]) {
		if s := str(get(r, "outputText")); s != "" {
			text = append(text, s)
		}
	}
	for _, r := range listOf(o["outputs"]) {
		if s := str(get(r, "text")); s != "" {
			text = append(text, s)
		}
	}
	if s := firstStr(o["generation"], o["completion"]); s != "" {
		text = append(text, s)
	}
	if len(text) > 0 {
		return responseBody(model, textMessage("assistant", strings.Join(text, "\n")), firstStr(o["stop_reason"], o["stopReason"]))
	}
	return outputBody(o, model)
}

func listOf(v any) []any {
	l, _ := v.([]any)
	return l
}

// converseInput maps a Converse request body to chat messages and OpenAI
// tool definitions.
func converseInput(v any) ([]message, []any) {
	o, ok := v.(obj)
	if !ok {
		return nil, nil
	}
	var msgs []message
	var sys []string
	for _, b := range listOf(o["system"]) {
		if s := str(get(b, "text")); s != "" {
			sys = append(sys, s)
		}
	}
	if len(sys) > 0 {
		msgs = append(msgs, textMessage("system", strings.Join(sys, "\n")))
	}
	for _, e := range listOf(o["messages"]) {
		m, ok := e.(obj)
		if !ok {
			continue
		}
		// Tool results travel in user messages: each becomes a tool
		// message, before the text the message holds besides them.
		for _, b := range listOf(m["content"]) {
			if r, ok := get(b, "toolResult").(obj); ok {
				msgs = append(msgs, message{Role: "tool", ToolCallID: str(r["toolUseId"]), Content: blocksText(listOf(r["content"]))})
			}
		}
		cm := converseMessage(m)
		if cm.Content != nil || len(cm.ToolCalls) > 0 {
			msgs = append(msgs, cm)
		}
	}
	var tools []any
	for _, t := range listOf(get(o, "toolConfig", "tools")) {
		spec, ok := get(t, "toolSpec").(obj)
		if !ok || str(spec["name"]) == "" {
			continue
		}
		fn := obj{"name": spec["name"]}
		if d := spec["description"]; d != nil {
			fn["description"] = d
		}
		if p := get(spec, "inputSchema", "json"); p != nil {
			fn["parameters"] = maybeJSON(p)
		}
		tools = append(tools, obj{"type": "function", "function": fn})
	}
	return msgs, tools
}

// converseMessage maps one Converse message's text and toolUse blocks
// (its toolResult blocks are read by converseInput).
func converseMessage(m obj) message {
	msg := message{Role: normRole(str(m["role"]))}
	if msg.Role == "" {
		msg.Role = "user"
	}
	blocks := listOf(m["content"])
	msg.Content = blocksText(blocks)
	for _, b := range blocks {
		if u, ok := get(b, "toolUse").(obj); ok && str(u["name"]) != "" {
			msg.ToolCalls = append(msg.ToolCalls, toolCall{ID: str(u["toolUseId"]), Type: "function",
				Function: toolFunction{Name: str(u["name"]), Arguments: argsText(u["input"])}})
		}
	}
	return msg
}

// blocksText joins the text of content blocks ({"text"}, guardrail
// content's text, a tool result's {"json"} as its JSON text) with "\n";
// nil when there is none.
func blocksText(blocks []any) *string {
	var c content
	for _, b := range blocks {
		switch {
		case get(b, "text") != nil:
			if s, ok := get(b, "text").(string); ok {
				c.addText(s)
			}
		case get(b, "guardContent", "text", "text") != nil:
			c.addText(str(get(b, "guardContent", "text", "text")))
		case get(b, "json") != nil:
			c.addText(string(marshal(get(b, "json"))))
		}
	}
	return c.text()
}
