package logs

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/ingest/pq"
)

// OpenInference span exports in Parquet — Phoenix's TraceDataset as pandas
// and pyarrow save it — hold a row per span: name, span_kind, parent_id,
// start_time, end_time (timestamps), status_code, context.span_id,
// context.trace_id, events, and a column per attribute named
// "attributes.NAME" (attributes.llm.input_messages as a list of structs
// with message.role, message.content, message.tool_calls, …). Nested
// groups ("context" as a struct, "attributes" as a struct) read the same.
//
// The file is read twice: first the columns that place a span in its
// trace (ids, parent, kind, name, start time, session.id, user.id), to know
// which LLM spans wrap others and each trace's root; then every column a
// record needs. A record per row at "file:row N", in row order when the
// rows are in start-time order (streamed: memory holds the first pass's
// small columns and one row); otherwise every record is read first and
// they are yielded in start-time order, then row order (as the OTLP reader
// orders the spans of a document), so that replay sees time order.

// oiParquetLight are the columns of the first pass; oiParquetFull adds
// what records are built from.
var (
	oiParquetLight = []string{"name", "span_kind", "parent_id", "context.span_id", "context.trace_id", "context",
		"span_id", "trace_id", "start_time", "attributes." + oiKindAttr, "attributes.session.id", "attributes.user.id"}
	oiParquetFull = []string{"end_time", "status_code"}
	// oiAttrPrefixes are the attribute columns a record reads.
	oiAttrPrefixes = []string{"attributes.llm.", "attributes.input.", "attributes.output.", "attributes.session.",
		"attributes.user.", "attributes." + oiKindAttr}
)

func keepLight(col string) bool {
	for _, c := range oiParquetLight {
		if col == c {
			return true
		}
	}
	return false
}

func keepFull(col string) bool {
	if keepLight(col) || col == "attributes" {
		return true
	}
	for _, c := range oiParquetFull {
		if col == c {
			return true
		}
	}
	for _, p := range oiAttrPrefixes {
		if strings.HasPrefix(col, p) || col == strings.TrimSuffix(p, ".") {
			return true
		}
	}
	return false
}

// IsOpenInferenceParquet reports whether the columns of a Parquet file
// (top-level names) are those of an OpenInference span export: a span
// kind and a span id.
func IsOpenInferenceParquet(columns []string) bool {
	has := map[string]bool{}
	for _, c := range columns {
		has[c] = true
	}
	kind := has["span_kind"] || has["attributes."+oiKindAttr]
	id := has["context.span_id"] || has["context"] || has["span_id"]
	return kind && id
}

// OIParquetReader reads an OpenInference span export in Parquet. It
// implements ingest.Reader.
type OIParquetReader struct {
	name  string
	ra    io.ReaderAt
	size  int64
	opt   Options
	spans []*tspan // every row's span, from the first pass (attributes: ids and agent keys only)
	tree  *spanTree
	rows  *pq.Rows
	rec   *ingest.Record
	err   error
	// sorted is whether the rows are in start-time order; when not, queue
	// holds every record, sorted, once the first Scan has read them.
	sorted bool
	queue  []*ingest.Record
}

// NewOIParquetReader opens the Parquet file held by r (size bytes) and
// reads its first pass. name is the file name positions carry. The error
// is for a file that is not readable Parquet or not an OpenInference
// export (it lists the columns present); bad values in rows are records.
func NewOIParquetReader(r io.ReaderAt, size int64, name string, opt Options) (*OIParquetReader, error) {
	light, err := pq.OpenRows(r, size, name, keepLight)
	if err != nil {
		return nil, err
	}
	if !IsOpenInferenceParquet(light.AllColumns()) {
		light.Close()
		return nil, fmt.Errorf(`%s: not an OpenInference span export: want columns "span_kind" and "context.span_id"; columns: %s`,
			name, pq.ColumnList(light.AllColumns(), 30))
	}
	pr := &OIParquetReader{name: name, ra: r, size: size, opt: opt, sorted: true}
	var last time.Time
	for light.Next() {
		s := pr.span(light)
		s.attrs = obj{"session.id": s.attrs["session.id"], "user.id": s.attrs["user.id"]}
		pr.spans = append(pr.spans, s)
		if s.err == nil && s.startErr == nil {
			if s.start.Before(last) {
				pr.sorted = false
			}
			last = s.start
		}
	}
	if err := light.Err(); err != nil {
		return nil, err
	}
	pr.tree = newSpanTree(pr.spans)
	pr.tree.markWrappers(pr.spans, oiWrapper)
	if pr.rows, err = pq.OpenRows(r, size, name, keepFull); err != nil {
		return nil, err
	}
	return pr, nil
}

// span decodes the current row of rows.
func (pr *OIParquetReader) span(rows *pq.Rows) *tspan {
	n := rows.N()
	s := &tspan{pos: ingest.Pos{File: pr.name, Kind: ingest.PosRow, N: n}, order: int(n - 1), attrs: obj{}}
	if err := rows.RowErr(); err != nil {
		s.err = err
		return s
	}
	v, err := decodeTree(rows.Row())
	if err != nil {
		s.err = err
		return s
	}
	flat := obj{}
	flattenAttrs(flat, "", v, 0)
	for k, v := range flat {
		if a, ok := strings.CutPrefix(k, "attributes."); ok {
			s.attrs[a] = v
		}
	}
	s.name = str(flat["name"])
	s.spanID = firstStr(flat["context.span_id"], flat["span_id"])
	s.traceID = firstStr(flat["context.trace_id"], flat["trace_id"])
	s.parentID = str(flat["parent_id"])
	if flat["start_time"] != nil {
		s.start, s.startErr = spanTime(flat["start_time"])
	}
	kind := firstStr(flat["span_kind"], s.attrs[oiKindAttr])
	oiClassify(s, kind)
	if e := flat["end_time"]; e != nil {
		s.end, _ = spanTime(e)
	}
	s.failed = oiStatusFailed(flat["status_code"])
	return s
}

// FormatName names what the reader reads, for inspect.
func (pr *OIParquetReader) FormatName() string { return "openinference (parquet)" }

// Scan advances to the next record.
func (pr *OIParquetReader) Scan() bool {
	if !pr.sorted {
		if pr.queue == nil && pr.rows != nil {
			var items []item
			for pr.scanRow() {
				// Each row is one record: the i-th record is the i-th span.
				i := len(items)
				items = append(items, item{rec: pr.rec, at: pr.spans[i].start, i: i})
			}
			if pr.err != nil {
				return false
			}
			pr.queue = sortItems(items)
		}
		if len(pr.queue) == 0 {
			pr.rec = nil
			return false
		}
		pr.rec, pr.queue[0], pr.queue = pr.queue[0], nil, pr.queue[1:]
		return true
	}
	return pr.scanRow()
}

// scanRow reads the next row's record.
func (pr *OIParquetReader) scanRow() bool {
	if pr.rows == nil || pr.err != nil {
		return false
	}
	if !pr.rows.Next() {
		pr.err = pr.rows.Err()
		pr.rows, pr.rec = nil, nil
		return false
	}
	full := pr.span(pr.rows)
	i := full.order
	if i >= len(pr.spans) {
		pr.err = fmt.Errorf("%s: the file changed between its two readings (more rows)", pr.name)
		return false
	}
	light := pr.spans[i]
	full.wrapped = light.wrapped
	if full.err == nil && full.startErr == nil && full.start.IsZero() {
		full.startErr = fmt.Errorf(`no "start_time"`)
	}
	// The record is built from the full row; its place in the tree comes
	// from the first pass (the same ids, so the same parents), whose spans
	// keep only the attributes agents are looked up by.
	pr.rec = spanRecords([]*tspan{full}, pr.tree, pr.opt, oiBuild)[0].rec
	return true
}

// Record returns the current record.
func (pr *OIParquetReader) Record() *ingest.Record { return pr.rec }

// Err returns the error that ended the stream: a corrupt file.
func (pr *OIParquetReader) Err() error { return pr.err }

// Close stops reading.
func (pr *OIParquetReader) Close() error {
	if pr.rows != nil {
		pr.rows.Close()
		pr.rows = nil
	}
	return nil
}

// spanTime reads a span's time as a table holds it: a timestamp (written
// as RFC 3339 text), or a plain integer of Unix nanoseconds (a column that
// lost its timestamp annotation), seconds or milliseconds.
func spanTime(v any) (time.Time, error) {
	if n, ok := v.(json.Number); ok {
		if f, err := n.Float64(); err == nil && f >= 1e17 {
			return unixNano(v)
		}
	}
	return timeOf(v)
}
