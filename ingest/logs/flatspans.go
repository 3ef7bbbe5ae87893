package logs

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/killswitch/killswitch/ingest"
)

// flatReader reads spans written as JSON objects with flat attributes
// (attribute name → value), not OTLP's key-value lists:
//
//   - OpenTelemetry's ConsoleSpanExporter (format otel-console): Python's
//     prints each span as a pretty-printed JSON document, one after the
//     other — {"name", "context": {"trace_id": "0x…", "span_id": "0x…"},
//     "kind", "parent_id", "start_time" and "end_time" (ISO 8601),
//     "status": {"status_code"}, "attributes": {…}, "events": [{"name",
//     "timestamp", "attributes"}], "resource": {"attributes": {…}}}; the
//     JavaScript exporter's fields written as JSON read too ("traceId",
//     "id", "parentSpanContext": {"spanId"} or "parentId", "timestamp" and
//     "duration" in microseconds, "status": {"code"}). Programs that add
//     the exporter twice print each span twice: a span whose trace and
//     span id were seen before is skipped as printed again.
//   - Arize Phoenix's span JSON (format phoenix): the REST API's and
//     phoenix-client's spans — {"name", "context": {"trace_id",
//     "span_id"}, "span_kind", "parent_id", "start_time", "end_time",
//     "status_code", "attributes": {the OpenInference names}, "events"} —
//     as an array, one per line, as documents, or in the API's {"data":
//     [spans]} page.
//
// Ids lose a "0x" prefix. Each span is then mapped as an OTLP span is
// (see otel): by the OpenInference conventions when it has a span kind
// ("span_kind", or the openinference.span.kind attribute), else by the
// GenAI conventions; agents are looked up among a span's ancestors in the
// whole input, then on its resource. Records are in start-time order.
// Positions: "file:12" (a span in JSONL, or a document starting at line
// 12), "file:[3]" (an array element), "file:data[3]" (a Phoenix page).
type flatReader struct {
	src *source
	opt Options
}

// queueStream yields records made before the first.
type queueStream struct {
	recs []*ingest.Record
	err  error // the read error that ended the input, at the end
}

func (q *queueStream) next() (*ingest.Record, error) {
	if len(q.recs) == 0 {
		return nil, q.err
	}
	rec := q.recs[0]
	q.recs[0], q.recs = nil, q.recs[1:]
	return rec, nil
}

// readAll decodes every span of the input (a span's parent may come after
// it) and maps them.
func (r *flatReader) readAll() []*ingest.Record {
	var spans []*span
	var problems []item
	seen := map[string]ingest.Pos{}
	n := 0 // items so far, for ties in time order
	add := func(pos ingest.Pos, v any) {
		s := flatSpan(pos, v)
		if s.err == nil && s.o["spanId"] != "" {
			key := str(s.o["traceId"]) + "/" + str(s.o["spanId"])
			if first, dup := seen[key]; dup {
				problems = append(problems, item{rec: skip(pos, "span printed again (the same trace and span id as "+first.String()+"): counted once"), i: n})
				n++
				return
			}
			seen[key] = pos
		}
		spans = append(spans, s)
		n++
	}
	r.src.eachDecoded(func(rec *ingest.Record) {
		problems = append(problems, item{rec: rec, i: n})
		n++
	}, func(u unit, pos ingest.Pos, v any) {
		if page, ok := v.(obj); ok && page["context"] == nil && isList(page["data"]) {
			for i, e := range page["data"].([]any) {
				add(r.src.pos(u, "data["+strconv.Itoa(i)+"]"), e)
			}
			return
		}
		add(pos, v)
	})
	c := &otel{src: r.src, opt: r.opt}
	return c.records(spans, problems)
}

// eachDecoded calls fn with every item of s decoded, and its position; an
// item that is no JSON is handed to bad as its malformed record.
func (s *source) eachDecoded(bad func(*ingest.Record), fn func(u unit, pos ingest.Pos, v any)) {
	for {
		u, ok := s.next()
		if !ok {
			return
		}
		if u.err != nil {
			bad(&ingest.Record{Pos: u.err.Pos, Err: u.err})
			continue
		}
		pos := s.pos(u, "")
		v, err := decodeTree(u.raw)
		if err != nil {
			bad(&ingest.Record{Pos: pos, Err: ingest.Errorf(pos, "%v", err)})
			continue
		}
		fn(u, pos, v)
	}
}

// flatSpan decodes one span object into the OTLP view the otel reader
// maps (see flatReader).
func flatSpan(pos ingest.Pos, v any) *span {
	s := &span{pos: pos, flat: true, o: obj{}, attrs: obj{}, res: obj{}}
	o, ok := v.(obj)
	if !ok {
		s.err = fmt.Errorf("a span is a JSON object, got %s", kind(v))
		return s
	}
	ctx := get(o, "context")
	s.o["name"] = o["name"]
	s.o["traceId"] = hexID(firstStr(get(ctx, "trace_id"), o["traceId"], get(o, "spanContext", "traceId")))
	s.o["spanId"] = hexID(firstStr(get(ctx, "span_id"), o["spanId"], o["id"], get(o, "spanContext", "spanId")))
	s.parent = hexID(firstStr(o["parent_id"], o["parentId"], o["parentSpanId"], get(o, "parentSpanContext", "spanId")))
	s.o["parentSpanId"] = s.parent
	switch a := o["attributes"].(type) {
	case obj:
		s.attrs = a
	case nil:
	default:
		s.err = fmt.Errorf(`"attributes": want an object, got %s`, kind(a))
		return s
	}
	if k := str(o["span_kind"]); k != "" && s.attrs[oiKindAttr] == nil {
		s.attrs[oiKindAttr] = k
	}
	if res, ok := get(o, "resource", "attributes").(obj); ok {
		s.res = res
	}
	start, end, err := flatTimes(o)
	if err != nil {
		s.err = err
		return s
	}
	s.o["startTimeUnixNano"] = json.Number(strconv.FormatInt(start.UnixNano(), 10))
	if !end.IsZero() {
		s.o["endTimeUnixNano"] = json.Number(strconv.FormatInt(end.UnixNano(), 10))
	}
	switch firstNonNil(get(o, "status", "status_code"), o["status_code"], get(o, "status", "code")) {
	case "ERROR", "STATUS_CODE_ERROR", "StatusCode.ERROR", json.Number("2"):
		s.o["status"] = obj{"code": json.Number("2")}
	}
	for _, e := range listOf(o["events"]) {
		if eo, ok := e.(obj); ok {
			attrs, _ := eo["attributes"].(obj)
			s.evs = append(s.evs, event{name: str(eo["name"]), attrs: attrs})
		}
	}
	return s
}

// flatTimes reads a flat span's start and end: "start_time" / "end_time"
// (ISO 8601, as Python and Phoenix write them), or JavaScript's
// "timestamp" and "duration" in microseconds. end is zero when unknown.
func flatTimes(o obj) (start, end time.Time, err error) {
	if v, ok := o["start_time"]; ok {
		if start, err = timeOf(v); err != nil {
			return start, end, fmt.Errorf(`"start_time": %v`, err)
		}
		if e, err := timeOf(o["end_time"]); err == nil {
			end = e
		}
		return start, end, nil
	}
	us, ok := number(o["timestamp"])
	if !ok || us <= 0 || us > 1e17 {
		return start, end, fmt.Errorf(`span without "start_time" (ISO 8601) or "timestamp" (microseconds)`)
	}
	start = time.UnixMicro(int64(us)).UTC()
	if d, ok := number(o["duration"]); ok && d >= 0 {
		end = start.Add(time.Duration(d * float64(time.Microsecond)))
	}
	return start, end, nil
}

// hexID drops a "0x" prefix (Python's console exporter writes ids so).
func hexID(s string) string {
	if len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X") {
		return strings.ToLower(s[2:])
	}
	return s
}
