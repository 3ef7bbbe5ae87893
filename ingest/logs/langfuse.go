package logs

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/killswitch/killswitch/ingest"
)

// langfuse reads Langfuse trace exports: a JSON document per trace, either
// {"trace": {…}, "observations": […]} (as the export scripts write it) or
// the public API's trace object with its "observations" inline; one per
// document, per line of a JSONL file, or per element of a top-level array.
//
// Each observation of type GENERATION is one call; every other observation
// (SPAN, TOOL, AGENT, CHAIN, EVENT, EMBEDDING, …) is a Record skipped as
// "observation type T is not an LLM call", and so is a GENERATION with
// neither input nor output (frameworks such as beeai log start/finish
// markers as generations). A call counts once however the producer nests
// it (see langfuseWrappers): a GENERATION with another GENERATION below it
// (parentObservationId, at any depth) is the framework's view of the
// call below (agno's OpenAIChat.invoke over "chat gpt-4o-mini") and is
// skipped; so is a Vercel AI SDK function generation (ai.generateText,
// ai.streamText, ai.generateObject, ai.streamObject) in a trace that holds
// a provider generation (….doGenerate, ….doStream), parent link or not.
// When the inner call logged no answer and its wrapper did (agno's client
// instrumentation writes "None" for a turn that asked for tools), the
// record takes the nearest wrapper's answer. A call's record:
//
//   - TS: the observation's startTime; latency: endTime − startTime;
//   - request: {"model", "messages"} from the observation's input (see
//     inputMessages for the shapes), with the input's tool definitions;
//   - response: from its output (see outputBody); none when null;
//   - tokens: usageDetails (input/output, or the *_tokens names), else
//     usage; cost: costDetails.total, else calculatedTotalCost, else a
//     positive totalCost;
//   - status: 500 when the observation's level is ERROR, else 200;
//   - agent: the mapping flag, else the trace's sessionId, else its userId,
//     else "default"; session: sessionId; id: the observation id.
//
// Observations are not in time order in an export; the records of one
// trace are, by startTime and then by index. Positions name the
// observation: "file:observations[3]" ("file:12:observations[3]" in JSONL).
type langfuse struct {
	src *source
	opt Options
}

// item is a record with the time it sorts by (zero for an undated one).
type item struct {
	rec *ingest.Record
	at  time.Time
	i   int
}

// sortItems orders the records of one document by time, then index.
func sortItems(items []item) []*ingest.Record {
	slices.SortStableFunc(items, func(a, b item) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return a.i - b.i
	})
	recs := make([]*ingest.Record, len(items))
	for i, it := range items {
		recs[i] = it.rec
	}
	return recs
}

func (c *langfuse) convert(u unit) []*ingest.Record {
	pos := c.src.pos(u, "")
	doc, badRec := unitObject(u.raw, pos, "a Langfuse trace export")
	if badRec != nil {
		return []*ingest.Record{badRec}
	}
	trace := doc
	if t, ok := doc["trace"].(obj); ok {
		trace = t
	}
	ov, ok := doc["observations"]
	if !ok {
		return []*ingest.Record{bad(pos, `a Langfuse trace export needs "observations"`)}
	}
	list, ok := ov.([]any)
	if !ok && ov != nil {
		return []*ingest.Record{bad(c.src.pos(u, "observations"), "want an array, got %s", kind(ov))}
	}
	if len(list) == 0 {
		return []*ingest.Record{skip(c.src.pos(u, "observations"), "Langfuse trace without observations")}
	}
	agent := c.opt.Agent
	if agent == "" {
		agent = firstStr(trace["sessionId"], trace["userId"], "default")
	}
	session := str(trace["sessionId"])
	wrapper := langfuseWrappers(list)
	items := make([]item, len(list))
	for i, e := range list {
		p := c.src.pos(u, "observations["+strconv.Itoa(i)+"]")
		if w := wrapper[i]; w.why != "" {
			at, _ := timeOf(get(e, "startTime"))
			items[i] = item{rec: skip(p, w.why), at: at, i: i}
			continue
		}
		items[i] = c.observation(e, p, agent, session)
		items[i].i = i
		if rec := items[i].rec; rec.Err == nil && rec.Skip == "" && rec.Response == nil && wrapper[i].outer >= 0 {
			rec.Response = outputBody(scrub(get(list[wrapper[i].outer], "output"), false), rec.Model)
		}
	}
	return sortItems(items)
}

// wrapping says of one observation whether it wraps another call (why:
// the skip reason) and which generation wraps it (outer: the nearest
// counted generation above it, -1 for none).
type wrapping struct {
	why   string
	outer int
}

// langfuseWrappers finds, among the observations of one trace, the
// GENERATIONs that wrap another (see langfuse): by parentObservationId
// at any depth, and by name for the Vercel AI SDK's function generations.
// Only generations that count (input or output present) wrap or are
// wrapped.
func langfuseWrappers(list []any) []wrapping {
	w := make([]wrapping, len(list))
	byID := make(map[string]int, len(list))
	isCall := make([]bool, len(list))
	provider := false
	for i, e := range list {
		w[i].outer = -1
		if id := str(get(e, "id")); id != "" {
			if _, dup := byID[id]; !dup {
				byID[id] = i
			}
		}
		o, ok := e.(obj)
		if !ok || str(o["type"]) != "GENERATION" || (isEmpty(o["input"]) && isEmpty(o["output"])) {
			continue
		}
		isCall[i] = true
		name := str(o["name"])
		provider = provider || strings.HasSuffix(name, ".doGenerate") || strings.HasSuffix(name, ".doStream")
	}
	for i, e := range list {
		if !isCall[i] {
			continue
		}
		p := str(get(e, "parentObservationId"))
		for depth := 0; p != "" && depth < maxDepth; depth++ {
			j, ok := byID[p]
			if !ok {
				break
			}
			if isCall[j] && j != i {
				if w[i].outer < 0 {
					w[i].outer = j
				}
				w[j].why = "GENERATION observation wrapping another (the call counts once, at the inner one)"
			}
			p = str(get(list[j], "parentObservationId"))
		}
		if provider && vercelFunctions[str(get(e, "name"))] && w[i].why == "" {
			w[i].why = "Vercel AI SDK function generation wrapping its provider calls (each counts once, at its doGenerate/doStream generation)"
		}
	}
	return w
}

func (c *langfuse) observation(e any, pos ingest.Pos, agent, session string) item {
	o, ok := e.(obj)
	if !ok {
		return item{rec: bad(pos, "an observation is a JSON object, got %s", kind(e))}
	}
	at, terr := timeOf(o["startTime"])
	if typ := str(o["type"]); typ != "GENERATION" {
		if typ == "" {
			typ = "(none)"
		}
		return item{rec: skip(pos, "observation type "+clip(typ, 40)+" is not an LLM call"), at: at}
	}
	if isEmpty(o["input"]) && isEmpty(o["output"]) {
		return item{rec: skip(pos, "GENERATION observation without input or output"), at: at}
	}
	if o["startTime"] == nil {
		return item{rec: bad(pos, `GENERATION observation without "startTime"`)}
	}
	if terr != nil {
		return item{rec: bad(pos, `"startTime": %v`, terr)}
	}
	rec := &ingest.Record{Pos: pos, TS: at, Status: 200, Agent: agent, Session: session}
	rec.Model = str(o["model"])
	rec.ID = str(o["id"])
	msgs, tools := inputMessages(scrub(o["input"], false))
	rec.Request = requestBody(rec.Model, msgs, tools)
	rec.Response = outputBody(scrub(o["output"], false), rec.Model)
	if str(o["level"]) == "ERROR" {
		rec.Status = 500
	}
	rec.LatencyMS, rec.HasLatency = latencyMS(at, o["endTime"])
	usage, _ := o["usageDetails"].(obj)
	if len(usage) == 0 {
		usage, _ = o["usage"].(obj)
	}
	for _, k := range [...]string{"input", "prompt_tokens", "input_tokens", "promptTokens"} {
		if n, ok := count(usage[k]); ok {
			rec.TokensIn, rec.HasTokens = n, true
			break
		}
	}
	for _, k := range [...]string{"output", "completion_tokens", "output_tokens", "completionTokens"} {
		if n, ok := count(usage[k]); ok {
			rec.TokensOut, rec.HasTokens = n, true
			break
		}
	}
	if f, ok := cost(get(o, "costDetails", "total")); ok {
		rec.CostUSD, rec.HasCost = f, true
	} else if f, ok := cost(o["calculatedTotalCost"]); ok {
		rec.CostUSD, rec.HasCost = f, true
	} else if f, ok := cost(o["totalCost"]); ok && f > 0 {
		rec.CostUSD, rec.HasCost = f, true
	}
	return item{rec: rec, at: at}
}
