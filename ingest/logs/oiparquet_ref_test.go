package logs

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/ingest/pq"
)

// refOIParquetReader is the OpenInference Parquet reader as it was before
// it kept only a plan per row: both views of every row in memory (the
// light one of every span, as the span tree), records built from the full
// rows read a second time. It is the reference the reader is tested
// against (TestOIParquetReadsAsReference, FuzzOIParquetReference).
type refOIParquetReader struct {
	name  string
	ra    io.ReaderAt
	size  int64
	opt   Options
	spans []*tspan // every row's span, light view (attributes: agent keys only)
	tree  *spanTree
	rows  *pq.Rows // the full view's rows, read twice
	rec   *ingest.Record
	err   error
	// sorted is whether the rows are in start-time order; when not, queue
	// holds every record, sorted, once the first Scan has read them (after
	// an error in a row, nil in the place of each record not read: the
	// stream ends at the first).
	sorted bool
	queue  []*ingest.Record
}

// readTwice reads the file a pass per view: the light view of every row,
// then the full view row by row.
func refReadTwice(r io.ReaderAt, size int64, name string, opt Options) (*refOIParquetReader, error) {
	light, err := pq.OpenRows(r, size, name, keepLight)
	if err != nil {
		return nil, err
	}
	if !IsOpenInferenceParquet(light.AllColumns()) {
		light.Close()
		return nil, fmt.Errorf(`%s: not an OpenInference span export: want columns "span_kind" and "context.span_id"; columns: %s`,
			name, pq.ColumnList(light.AllColumns(), 30))
	}
	pr := &refOIParquetReader{name: name, ra: r, size: size, opt: opt, sorted: true}
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
func (pr *refOIParquetReader) span(rows *pq.Rows) *tspan {
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
	return oiRowSpan(pr.name, n, v)
}

// Scan advances to the next record.
func (pr *refOIParquetReader) Scan() bool {
	if !pr.sorted {
		if pr.queue == nil && pr.rows != nil {
			var items []item
			for pr.scanRow() {
				// Each row is one record: the i-th record is the i-th span.
				i := len(items)
				items = append(items, item{rec: pr.rec, at: pr.spans[i].start, i: i})
			}
			if pr.err != nil {
				// An error in a row: the records before it in start-time
				// order are yielded, then the error (the rows from it on,
				// placed by the first reading, have no record).
				for i := len(items); i < len(pr.spans); i++ {
					items = append(items, item{at: pr.spans[i].start, i: i})
				}
			}
			pr.queue = sortItems(items)
		}
		if len(pr.queue) == 0 || pr.queue[0] == nil {
			pr.rec = nil
			return false
		}
		pr.rec, pr.queue[0], pr.queue = pr.queue[0], nil, pr.queue[1:]
		return true
	}
	return pr.scanRow()
}

// scanRow reads the next row's record.
func (pr *refOIParquetReader) scanRow() bool {
	var full *tspan
	switch {
	case pr.rows == nil || pr.err != nil:
		return false
	case !pr.rows.Next():
		pr.err = pr.rows.Err()
		pr.rows, pr.rec = nil, nil
		return false
	default:
		full = pr.span(pr.rows)
	}
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

func (pr *refOIParquetReader) Record() *ingest.Record { return pr.rec }
func (pr *refOIParquetReader) Err() error             { return pr.err }

func (pr *refOIParquetReader) Close() error {
	if pr.rows != nil {
		pr.rows.Close()
		pr.rows = nil
	}
	return nil
}

// oiRowSpan decodes row n of file name, the tree of a row's JSON, as the
// reader did before it read values (oiColumns.span).
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
