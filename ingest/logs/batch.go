package logs

import (
	"io"
	"math"
	"strings"
	"time"

	"github.com/killswitch/killswitch/ingest"
)

// NewBatchReader reads a batch API input file — OpenAI Batch lines
// {"custom_id", "method", "url", "body"} or Anthropic Message Batches lines
// {"custom_id", "params"}, told apart line by line — and, when output is
// not nil, joins each request with its result in the output file on
// custom_id: OpenAI {"custom_id", "response": {"status_code", "body"},
// "error"} or Anthropic {"custom_id", "result": {"type", "message" |
// "error"}}. The output file is read whole on the first Scan (results come
// in any order); the input is streamed. Both may be JSONL or documents (see
// the package doc); I/O errors of either end the stream (Err). The returned
// error is always nil today; it is there for options that can be wrong.
//
// A request's record:
//
//   - TS: batch files carry no request time, so the time is synthetic: the
//     k-th item of the input (0-based, blank lines not counted) is at
//     anchor + k milliseconds. The anchor is the earliest "created" (Unix
//     seconds) of the OpenAI response bodies in the output file, so that
//     the replay sits near when the batch ran; without one (no output file,
//     Anthropic results, which carry no time) it is the Unix epoch,
//     1970-01-01T00:00:00Z. Records are therefore in input order, 1 ms
//     apart: the order the caller queued them, not the order the API ran
//     them (which batch files do not say).
//   - request: the body (OpenAI) or params (Anthropic), credentials
//     scrubbed; endpoint: the url, or /v1/messages; provider: openai or
//     anthropic; id: custom_id; model: the body's model.
//   - response: the output's response body (OpenAI), or the result's
//     message (Anthropic succeeded); for an errored result, its error body,
//     with the status its error type means (400, 401, 403, 404, 413, 429,
//     500, 529; OpenAI: the line's status_code, or 500 when only "error" is
//     set). Without an output line: no response and status 200.
//   - agent: the mapping flag; else the body's metadata.agent_id; else its
//     user (OpenAI) or metadata.user_id (Anthropic); else "default".
//     custom_id is not used: the APIs require it to be unique per request,
//     so it names a request, not an agent.
//
// Requests to /v1/embeddings or /v1/moderations, and canceled or expired
// results, are skipped. An output line given as the input is skipped, as
// "batch result without its request". After the input, the output's
// malformed lines and the results no request matched are reported in
// output order (positions in the output file).
func NewBatchReader(input io.Reader, inputName string, output io.Reader, outputName string, opt Options) (ingest.Reader, error) {
	b := &batch{src: newSource(input, inputName, opt.MaxValue), opt: opt, anchor: time.Unix(0, 0).UTC()}
	if output != nil {
		b.out = newSource(output, outputName, opt.MaxValue)
	}
	b.seen = map[string]int64{}
	return b, nil
}

type batch struct {
	src  *source
	out  *source // nil: no output file
	opt  Options
	seen map[string]int64 // custom_id → input line, for duplicates

	loaded  bool
	results map[string]*result
	order   []*result        // output items in file order
	tail    []*ingest.Record // output problems, after the input
	anchor  time.Time
	k       int64 // input items so far

	cur *ingest.Record
	err error
}

// result is one output line.
type result struct {
	pos  ingest.Pos
	o    obj
	rec  *ingest.Record // non-nil: a malformed line
	used bool
}

func (b *batch) Scan() bool {
	if !b.loaded {
		b.loaded = true
		b.load()
	}
	if b.err != nil {
		b.cur = nil
		return false
	}
	if u, ok := b.src.next(); ok {
		b.k++
		if u.err != nil {
			b.cur = &ingest.Record{Pos: u.err.Pos, Err: u.err}
		} else {
			b.cur = b.request(u, b.k-1)
		}
		return true
	}
	if b.src.err != nil {
		b.err, b.cur = b.src.ioErr(b.src.err), nil
		return false
	}
	if b.tail == nil {
		b.tail = []*ingest.Record{}
		for _, r := range b.order {
			switch {
			case r.rec != nil:
				b.tail = append(b.tail, r.rec)
			case !r.used:
				b.tail = append(b.tail, skip(r.pos, "batch result without a matching request in the input"))
			}
		}
	}
	if len(b.tail) == 0 {
		b.cur = nil
		return false
	}
	b.cur, b.tail = b.tail[0], b.tail[1:]
	return true
}

func (b *batch) Record() *ingest.Record { return b.cur }
func (b *batch) Err() error             { return b.err }

// load reads the whole output file.
func (b *batch) load() {
	if b.out == nil {
		return
	}
	b.results = map[string]*result{}
	var first int64 // earliest created, Unix seconds
	for {
		u, ok := b.out.next()
		if !ok {
			break
		}
		pos := b.out.pos(u, "")
		r := &result{pos: pos}
		b.order = append(b.order, r)
		if u.err != nil {
			r.rec = &ingest.Record{Pos: u.err.Pos, Err: u.err}
			continue
		}
		v, err := decodeTree(u.raw)
		if err != nil {
			r.rec = bad(pos, "%v", err)
			continue
		}
		o, ok := v.(obj)
		if !ok {
			r.rec = bad(pos, "a batch result is a JSON object, got %s", kind(v))
			continue
		}
		id, ok := o["custom_id"].(string)
		switch {
		case !ok || id == "":
			r.rec = bad(pos, `batch result without a "custom_id" string`)
			continue
		case o["response"] == nil && o["error"] == nil && o["result"] == nil:
			r.rec = bad(pos, `neither an OpenAI batch output line ("response", "error") nor an Anthropic batch result ("result")`)
			continue
		}
		if prev := b.results[id]; prev != nil {
			r.rec = bad(pos, "duplicate custom_id %q (first at %s)", clip(id, 60), prev.pos)
			continue
		}
		r.o = o
		b.results[id] = r
		if f, ok := number(get(o, "response", "body", "created")); ok && f > 0 && f < 1e11 && f == math.Trunc(f) {
			if first == 0 || int64(f) < first {
				first = int64(f)
			}
		}
	}
	if b.out.err != nil {
		b.err = b.out.ioErr(b.out.err)
	}
	if first > 0 {
		b.anchor = time.Unix(first, 0).UTC()
	}
}

// request maps one input item, the k-th (0-based).
func (b *batch) request(u unit, k int64) *ingest.Record {
	pos := b.src.pos(u, "")
	v, err := decodeTree(u.raw)
	if err != nil {
		return bad(pos, "%v", err)
	}
	o, ok := v.(obj)
	if !ok {
		return bad(pos, "a batch request is a JSON object, got %s", kind(v))
	}
	id, ok := o["custom_id"].(string)
	if !ok || id == "" {
		return bad(pos, `batch request without a "custom_id" string`)
	}
	rec := &ingest.Record{Pos: pos, TS: b.anchor.Add(time.Duration(k) * time.Millisecond), Status: 200, ID: id}
	var body obj
	anthropic := false
	switch {
	case o["params"] != nil:
		anthropic = true
		if body, ok = o["params"].(obj); !ok {
			return bad(pos, `"params": want an object, got %s`, kind(o["params"]))
		}
		rec.Endpoint, rec.Provider = "/v1/messages", "anthropic"
	case o["body"] != nil:
		// The query may carry credentials (?key=…): it is not kept.
		url, _, _ := strings.Cut(str(o["url"]), "?")
		url, _, _ = strings.Cut(url, "#")
		if m := str(o["method"]); m != "" && m != "POST" {
			return bad(pos, `"method": batch requests are POST, got %q`, clip(m, 20))
		}
		if strings.Contains(url, "/embeddings") || strings.Contains(url, "/moderations") {
			return skip(pos, "batch request to "+clip(url, 40)+" is not an LLM call")
		}
		if body, ok = maybeJSON(o["body"]).(obj); !ok {
			return bad(pos, `"body": want an object, got %s`, kind(o["body"]))
		}
		rec.Endpoint, rec.Provider = url, "openai"
	case o["response"] != nil || o["result"] != nil || o["error"] != nil:
		return skip(pos, "batch result without its request (give the request file as input and this one as the batch output)")
	default:
		return bad(pos, `neither an OpenAI batch request ("custom_id", "method", "url", "body") nor an Anthropic one ("custom_id", "params")`)
	}
	if line, dup := b.seen[id]; dup {
		return bad(pos, "duplicate custom_id %q (first at line %d)", clip(id, 60), line)
	}
	b.seen[id] = u.line
	rec.Model = str(body["model"])
	rec.Agent = b.opt.Agent
	if rec.Agent == "" {
		rec.Agent = firstStr(get(body, "metadata", "agent_id"), body["user"], get(body, "metadata", "user_id"), "default")
	}
	rec.Request = marshal(scrub(body, false))
	r := b.results[id]
	if r == nil {
		return rec
	}
	r.used = true
	if (r.o["result"] != nil) != anthropic {
		return bad(pos, "custom_id %q: the result at %s is for the other batch API", clip(id, 60), r.pos)
	}
	if anthropic {
		res, ok := r.o["result"].(obj)
		if !ok {
			return bad(pos, `custom_id %q: "result" at %s is not an object`, clip(id, 60), r.pos)
		}
		switch t := str(res["type"]); t {
		case "succeeded":
			if m, ok := res["message"].(obj); ok {
				rec.Response = marshal(scrub(m, false))
			}
		case "errored":
			e := res["error"]
			rec.Status = anthropicStatus(firstStr(get(e, "error", "type"), get(e, "type")))
			if !isEmpty(e) {
				rec.Response = marshal(scrub(e, false))
			}
		case "canceled", "expired":
			return skip(pos, "batch request "+t+": never processed")
		default:
			return bad(pos, "custom_id %q: result type %q at %s is not succeeded, errored, canceled or expired", clip(id, 60), clip(t, 20), r.pos)
		}
	} else {
		resp, _ := r.o["response"].(obj)
		if f, ok := number(resp["status_code"]); ok && f >= 100 && f <= 599 && f == math.Trunc(f) {
			rec.Status = int(f)
		}
		switch bd := resp["body"].(type) {
		case obj:
			rec.Response = marshal(scrub(bd, false))
		case string:
			if bd != "" {
				rec.Response = []byte(bd)
			}
		}
		if e := r.o["error"]; !isEmpty(e) && rec.Response == nil {
			if resp == nil {
				rec.Status = 500
			}
			rec.Response = marshal(obj{"error": scrub(e, false)})
		}
	}
	return rec
}

// anthropicStatus is the HTTP status of an Anthropic error type.
func anthropicStatus(t string) int {
	switch t {
	case "invalid_request_error":
		return 400
	case "authentication_error":
		return 401
	case "permission_error":
		return 403
	case "not_found_error":
		return 404
	case "request_too_large":
		return 413
	case "rate_limit_error":
		return 429
	case "overloaded_error":
		return 529
	}
	return 500
}
