package logs

import (
	"slices"
	"strconv"
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
// markers as generations). A call's record:
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
	v, err := decodeTree(u.raw)
	if err != nil {
		return []*ingest.Record{bad(pos, "%v", err)}
	}
	doc, ok := v.(obj)
	if !ok {
		return []*ingest.Record{bad(pos, "a Langfuse trace export is a JSON object, got %s", kind(v))}
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
	items := make([]item, len(list))
	for i, e := range list {
		p := c.src.pos(u, "observations["+strconv.Itoa(i)+"]")
		items[i] = c.observation(e, p, agent, session)
		items[i].i = i
	}
	return sortItems(items)
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
