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
// Each row is seen two ways: by the columns that place a span in its
// trace (ids, parent, kind, name, start time, session.id, user.id: the
// light view), to know which LLM spans wrap others and each call's agent;
// and by every column a record needs (the full view). The file is read a
// pass per view. The first pass reads the light columns of every row into
// a compact span tree, then boils it down to a plan of a few bytes per row
// (a spanPlan: whether the row is a call, wraps one, and the agent names
// its ancestors and root give) and drops the tree. The second pass reads the
// full columns row by row and builds each record from its row and its
// plan: a row whose record is a skip decided by the light view (a span
// kind that is no call, a wrapper) is not decoded. A record per row at
// "file:row N", in row order when the rows are in start-time order (only
// the plan is held then); otherwise they are yielded in start-time order,
// then row order (as the OTLP reader orders the spans of a document), so
// that replay sees time order, and every record is held until the last
// row is read.

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
	name string
	opt  Options
	rows *pq.Rows // the full view's rows
	plan spanPlan
	read int // rows the second pass has read
	rec  *ingest.Record
	err  error
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
	defer light.Close()
	if !IsOpenInferenceParquet(light.AllColumns()) {
		return nil, fmt.Errorf(`%s: not an OpenInference span export: want columns "span_kind" and "context.span_id"; columns: %s`,
			name, pq.ColumnList(light.AllColumns(), 30))
	}
	pr := &OIParquetReader{name: name, opt: opt, sorted: true}
	t := newLightTree(keyAttrs(oiAgentKeys))
	t.undecided = true
	var last time.Time
	for light.Next() {
		s := rowSpan(light, name)
		t.add(s)
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
	pr.plan = t.plan(!pr.sorted)
	if pr.rows, err = pq.OpenRows(r, size, name, keepFull); err != nil {
		return nil, err
	}
	return pr, nil
}

// rowSpan decodes the current row of rows.
func rowSpan(rows *pq.Rows, name string) *tspan {
	n := rows.N()
	if err := rows.RowErr(); err != nil {
		return &tspan{pos: ingest.Pos{File: name, Kind: ingest.PosRow, N: n}, order: int(n - 1), attrs: obj{}, err: err}
	}
	v, err := decodeTree(rows.Row())
	if err != nil {
		return &tspan{pos: ingest.Pos{File: name, Kind: ingest.PosRow, N: n}, order: int(n - 1), attrs: obj{}, err: err}
	}
	return oiRowSpan(name, n, v)
}

// oiRowSpan decodes row n of file name, the tree of a row's JSON.
func oiRowSpan(name string, n int64, v any) *tspan {
	s := &tspan{pos: ingest.Pos{File: name, Kind: ingest.PosRow, N: n}, order: int(n - 1), attrs: obj{}}
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
	s.kindSet = str(flat["span_kind"]) != ""
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
			var recs []*ingest.Record
			for pr.scanRow() {
				// Each row is one record: the i-th record is the i-th span.
				recs = append(recs, pr.rec)
			}
			if pr.err != nil {
				return false
			}
			pr.queue = make([]*ingest.Record, len(recs))
			for k, i := range pr.plan.order {
				pr.queue[k] = recs[i]
			}
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
		if pr.err == nil && pr.read < len(pr.plan.flags) {
			pr.err = fmt.Errorf("%s: the file changed between its two readings (fewer rows)", pr.name)
		}
		pr.rows, pr.rec = nil, nil
		return false
	}
	n := pr.rows.N()
	i := int(n - 1)
	pr.read = i + 1
	if i >= len(pr.plan.flags) {
		pr.err = fmt.Errorf("%s: the file changed between its two readings (more rows)", pr.name)
		return false
	}
	flags := pr.plan.flags[i]
	pos := ingest.Pos{File: pr.name, Kind: ingest.PosRow, N: n}
	if err := pr.rows.RowErr(); err != nil {
		pr.rec = bad(pos, "%v", err)
		return true
	}
	if flags&lightKindSet != 0 && flags&lightCall == 0 {
		// The span_kind column decides the kind in both views (no
		// other column flattens to "span_kind"): a span that is no call
		// is a skip at its row, and nothing else is read.
		pr.rec = skip(pos, pr.plan.strs[pr.plan.skip[i]])
		return true
	}
	if flags&(lightKindSet|lightWrapped) == lightKindSet|lightWrapped {
		pr.rec = skip(pos, oiWrapper(nil))
		return true
	}
	full := rowSpan(pr.rows, pr.name)
	if flags&lightWrapped != 0 {
		full.wrapped = oiWrapper(full)
	}
	if full.err == nil && full.startErr == nil && full.start.IsZero() {
		full.startErr = fmt.Errorf(`no "start_time"`)
	}
	if flags&lightErr != 0 && full.err == nil {
		// The light view of the row failed where its full view, a
		// superset of the same columns, does not.
		pr.err = fmt.Errorf("%s: the file changed between its two readings (row %d)", pr.name, n)
		return false
	}
	// The record is built from the full row; its place in the tree comes
	// from the first pass (the same ids, so the same parents), whose plan
	// keeps only the names agents are looked up by.
	pr.rec = spanRecords([]*tspan{full}, pr.plan.ancestors(i), pr.opt, oiBuild)[0].rec
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
