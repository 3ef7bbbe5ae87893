package logs

import (
	"errors"
	"strconv"
	"strings"

	"github.com/killswitch/killswitch/ingest"
)

// langsmith reads LangSmith runs as they are exported (a JSON array, one
// run per line, documents) or as the SDK sends them: a run's "post"
// payload and its later "patch" payload (end_time, outputs, error) merged
// by run id, one payload per line or in batch documents {"post": [runs],
// "patch": [runs]}. A run:
//
//	{"id", "trace_id", "parent_run_id", "name", "run_type": "llm",
//	 "start_time", "end_time" (ISO 8601, zone-less UTC, or epoch ms),
//	 "inputs": {"messages": …}, "outputs": {…}, "error",
//	 "extra": {"metadata": {"ls_provider", "ls_model_name", "thread_id", …},
//	           "invocation_params": {…}},
//	 "session_name", "prompt_tokens", "completion_tokens"}
//
// A run of run_type "llm" is a call; every other run (chain, tool,
// retriever, prompt, parser, embedding) is skipped by its type. An llm run
// with an llm run below it (a LangChain chat model over a traced OpenAI
// client) is skipped as wrapping it: the call counts once, at the inner
// run. A call's record:
//
//   - TS: start_time; latency: end_time − start_time;
//   - request: inputs.messages (OpenAI messages, or LangChain's serialized
//     messages, a list of lists), else inputs.prompts (a completion
//     model's prompts), else inputs as a whole (see inputMessages);
//   - response: outputs when it is a provider body (an OpenAI chat
//     completion), else the message (or text) of outputs.generations[0][0]
//     (LangChain), else outputs (see outputBody); none when absent;
//   - model: extra.metadata.ls_model_name, else invocation_params model or
//     model_name, else inputs.model; provider: ls_provider;
//   - tokens: outputs.usage_metadata (input_tokens / output_tokens), else
//     outputs.usage (prompt_tokens / completion_tokens, or input / output
//     tokens), else outputs.llm_output.token_usage (or .usage, as
//     ChatAnthropic writes it), else the run's
//     prompt_tokens / completion_tokens;
//   - status: an error naming a rate limit (429 or RateLimit) is 429,
//     any other error 500; else 200; id: the run id;
//   - agent: --agent; extra.metadata agent_id, agent, thread_id,
//     session_id or conversation_id (LangSmith's thread keys), each on the
//     run or an ancestor run; else the name of the trace's root run; else
//     the trace id; session: the thread key found.
//
// Records are in start-time order; positions name the payload: "file:[3]",
// "file:12", "file:post[3]" (the post payload of a merged run).
type langsmith struct {
	src *source
	opt Options
}

// lsAgentKeys are the metadata keys that name an agent, in order.
var lsAgentKeys = []agentKey{
	{"metadata.agent_id", "metadata.agent_id"}, {"metadata.agent", "metadata.agent"},
	{"metadata.thread_id", "metadata.thread_id"}, {"metadata.session_id", "metadata.session_id"},
	{"metadata.conversation_id", "metadata.conversation_id"},
}

func (c *langsmith) readAll() []*ingest.Record {
	var runs []*tspan
	var problems []item
	byID := map[string]*tspan{}
	n := 0
	add := func(pos ingest.Pos, v any) {
		o, ok := v.(obj)
		if !ok {
			problems = append(problems, item{rec: bad(pos, "a LangSmith run is a JSON object, got %s", kind(v)), i: n})
			n++
			return
		}
		id := str(o["id"])
		if prev := byID[id]; id != "" && prev != nil {
			// A patch (or a later copy) of a run seen before: its
			// members complete the run at the first one's position.
			for k, val := range o {
				if val != nil {
					prev.attrs[k] = val
				}
			}
			return
		}
		s := &tspan{pos: pos, attrs: o, order: n, agentKeys: lsAgentKeys}
		n++
		runs = append(runs, s)
		if id != "" {
			byID[id] = s
		}
	}
	c.src.eachDecoded(func(rec *ingest.Record) {
		problems = append(problems, item{rec: rec, i: n})
		n++
	}, func(u unit, pos ingest.Pos, v any) {
		if o, ok := v.(obj); ok && o["run_type"] == nil && o["id"] == nil && (isList(o["post"]) || isList(o["patch"])) {
			for _, key := range [...]string{"post", "patch"} {
				for i, r := range listOf(o[key]) {
					add(c.src.pos(u, key+"["+strconv.Itoa(i)+"]"), r)
				}
			}
			return
		}
		add(pos, v)
	})
	for _, s := range runs {
		lsDecode(s)
	}
	tree := newSpanTree(runs)
	tree.markWrappers(runs, func(*tspan) string { return lsWrapper })
	return sortItems(append(problems, spanRecords(runs, tree, c.opt, lsBuild)...))
}

// lsWrapper is the skip reason of an llm run wrapping another.
const lsWrapper = "LangSmith llm run wrapping another llm run (the call counts once, at the inner run)"

// lsDecode sets the span view of a run (merged with its patches).
func lsDecode(s *tspan) {
	o := s.attrs
	s.name = str(o["name"])
	s.spanID = str(o["id"])
	s.traceID = firstStr(o["trace_id"], s.spanID)
	s.parentID = str(o["parent_run_id"])
	if o["start_time"] == nil {
		s.startErr = errors.New(`missing ("start_time")`)
	} else {
		s.start, s.startErr = timeOf(o["start_time"])
	}
	if o["end_time"] != nil {
		s.end, _ = timeOf(o["end_time"])
	}
	s.failed = !isEmpty(o["error"])
	meta, _ := get(o, "extra", "metadata").(obj)
	for _, k := range lsAgentKeys {
		if v := str(meta[strings.TrimPrefix(k.attr, "metadata.")]); v != "" {
			o[k.attr] = v
		}
	}
	switch t := str(o["run_type"]); t {
	case "llm":
		s.call = true
	case "":
		s.skip = "LangSmith run without run_type is not an LLM call"
	default:
		s.skip = "LangSmith " + clip(t, 24) + " run is not an LLM call"
	}
}

// lsBuild fills the record of an llm run (see langsmith).
func lsBuild(s *tspan, rec *ingest.Record) {
	o := s.attrs
	meta, _ := get(o, "extra", "metadata").(obj)
	params, _ := get(o, "extra", "invocation_params").(obj)
	inputs := scrub(maybeJSON(o["inputs"]), false)
	rec.Model = firstStr(meta["ls_model_name"], params["model"], params["model_name"], get(inputs, "model"))
	rec.Provider = str(meta["ls_provider"])
	rec.ID = s.spanID
	for _, k := range lsAgentKeys[2:] {
		if v := str(o[k.attr]); v != "" {
			rec.Session = v
			break
		}
	}
	var msgs []message
	var tools any
	switch in := inputs.(type) {
	case obj:
		switch {
		case in["messages"] != nil:
			msgs, _ = inputMessages(in["messages"])
			tools = in["tools"]
		case in["prompts"] != nil:
			msgs, _ = inputMessages(in["prompts"])
		default:
			msgs, tools = inputMessages(in)
		}
	default:
		msgs, tools = inputMessages(in)
	}
	if tools == nil {
		tools = params["tools"]
	}
	rec.Request = requestBody(rec.Model, msgs, tools)
	outputs := scrub(maybeJSON(o["outputs"]), false)
	rec.Response = lsOutput(outputs, rec.Model)
	lsTokens(rec, outputs, o)
	latency(rec, s.start, s.end)
	if s.failed {
		rec.Status = 500
		if e := strings.ToLower(str(o["error"])); strings.Contains(e, "ratelimit") || strings.Contains(e, "rate limit") || strings.Contains(e, "429") {
			rec.Status = 429
		}
	}
}

// lsOutput maps a run's outputs to a response body (see langsmith).
func lsOutput(out any, model string) []byte {
	o, ok := out.(obj)
	if !ok || len(o) == 0 {
		return outputBody(out, model)
	}
	if providerBody(o) {
		return marshal(o)
	}
	if gens := listOf(o["generations"]); len(gens) > 0 {
		first := gens[0]
		if l, ok := first.([]any); ok && len(l) > 0 {
			first = l[0]
		}
		if m, ok := get(first, "message").(obj); ok {
			return responseBody(model, toMessage(m), str(get(first, "generation_info", "finish_reason")))
		}
		if t := str(get(first, "text")); t != "" {
			return responseBody(model, textMessage("assistant", t), "")
		}
	}
	return outputBody(o, model)
}

// lsTokens sets the record's tokens from the first source that has them.
func lsTokens(rec *ingest.Record, outputs any, run obj) {
	for _, u := range []struct {
		v       any
		in, out string
	}{
		{get(outputs, "usage_metadata"), "input_tokens", "output_tokens"},
		{get(outputs, "usage"), "prompt_tokens", "completion_tokens"},
		{get(outputs, "usage"), "input_tokens", "output_tokens"},
		{get(outputs, "llm_output", "token_usage"), "prompt_tokens", "completion_tokens"},
		{get(outputs, "llm_output", "usage"), "input_tokens", "output_tokens"},
		{run, "prompt_tokens", "completion_tokens"},
	} {
		in, ok1 := count(get(u.v, u.in))
		out, ok2 := count(get(u.v, u.out))
		if ok1 || ok2 {
			rec.TokensIn, rec.TokensOut, rec.HasTokens = in, out, true
			return
		}
	}
}
