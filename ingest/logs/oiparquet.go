package logs

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
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
// pass per view. The first pass makes a plan of a few bytes per row (a
// spanPlan: whether the row is a call, wraps one, and the agent names its
// ancestors and root give) from the light view. When the rows are in
// start-time order it holds one trace's rows at a time (runPlanner: an
// export that writes a trace's spans together); when they are not, or a
// parent lies in another trace's rows, it reads the light columns again
// into a compact span tree of every row, plans, and drops the tree: the
// plan is the same either way. The second pass reads the
// full columns row by row and builds each record from its row and its
// plan: a row whose record is a skip decided by the light view (a span
// kind that is no call, a wrapper) is only checked, not decoded. Both
// passes read the columns' values straight into Go values (pq.OpenValues:
// no JSON text written and parsed again), and a message list in Phoenix's
// layout straight into messages (oiDirectMessages). A record per row at
// "file:row N", in row order when the rows are in start-time order (only
// the plan is held then); otherwise they are yielded in start-time order,
// then row order (as the OTLP reader orders the spans of a document), so
// that replay sees time order, a window of that order at a time (Scan).

// oiParquetLight are the columns of the first pass; oiParquetFull adds
// what records are built from.
var (
	oiParquetLight = []string{"name", "span_kind", "parent_id", "context.span_id", "context.trace_id", "context",
		"span_id", "trace_id", "start_time", "attributes." + oiKindAttr, "attributes.session.id", "attributes.user.id"}
	oiParquetFull = []string{"end_time", "status_code"}
	// oiRecordAttrs are the attributes a record is read from (oiBuild,
	// the agent keys), besides the lists of oiListAttrs.
	oiRecordAttrs = []string{oiKindAttr, "session.id", "user.id", "llm.model_name", "llm.provider", "llm.system",
		"llm.invocation_parameters", "input.value", "output.value", "llm.token_count.prompt", "llm.token_count.completion"}
)

// oiUsedAttr reports whether the column of attribute a (its name after
// "attributes.") can hold an attribute a record is read from: one of
// them, a group above one ("llm.token_count"), or a list of oiListAttrs
// or what lies below it. Other attribute columns (prompt templates,
// retrieved documents, embeddings, …) are not read.
func oiUsedAttr(a string) bool {
	for _, r := range oiRecordAttrs {
		if a == r || strings.HasPrefix(r, a+".") {
			return true
		}
	}
	for _, l := range oiListAttrs {
		if a == l || strings.HasPrefix(a, l+".") || strings.HasPrefix(l, a+".") {
			return true
		}
	}
	return false
}

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
	a, ok := strings.CutPrefix(col, "attributes.")
	return ok && oiUsedAttr(a)
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
	rows *pq.Rows // the full view's rows (the generic path)
	cols *oiColumns
	// fast reads the full view while the column decoder reads the table
	// (rows is nil then); ra and size reopen the file for the generic
	// path when it stops.
	fast *oiFast
	ra   io.ReaderAt
	size int64
	// bodies writes the records' bodies (buildRec: its build).
	bodies   oiBodies
	buildRec func(*tspan, *ingest.Record)
	plan     spanPlan
	skips    []ingest.Record // the records skip hands out next
	anc      planAncestors   // the ancestry of the row build builds
	read     int             // rows the second pass has read
	rec      *ingest.Record
	err      error
	// sorted is whether the rows are in start-time order; when not, the
	// records are read a window at a time (win).
	sorted bool
	win    *oiWindow
	closed bool
	// lightChecked: the first pass read the light columns through the
	// column decoder, every row: the full view's decoder does not check
	// them again (oiFast.trust). checkedRows: the table's first rows,
	// up to that number, were read by the full view's column decoder in
	// some pass (each pass reads from the first row, and hands over to
	// the generic path only for good): the later passes of an
	// out-of-order table trust them (oiFast.trustedRows).
	lightChecked bool
	checkedRows  int
	handovers    int    // rows handed over to the generic path (tests)
	planner      string // how the first pass planned: "runs", "groups" or "tree" (tests)
}

// NewOIParquetReader opens the Parquet file held by r (size bytes) and
// reads its first pass. name is the file name positions carry. The error
// is for a file that is not readable Parquet or not an OpenInference
// export (it lists the columns present); bad values in rows are records.
func NewOIParquetReader(r io.ReaderAt, size int64, name string, opt Options) (*OIParquetReader, error) {
	light, cols, err := oiOpenValues(r, size, name, keepLight)
	if err != nil {
		return nil, err
	}
	defer light.Close()
	if !IsOpenInferenceParquet(light.AllColumns()) {
		return nil, fmt.Errorf(`%s: not an OpenInference span export: want columns "span_kind" and "context.span_id"; columns: %s`,
			name, pq.ColumnList(light.AllColumns(), 30))
	}
	pr := &OIParquetReader{name: name, opt: opt}
	rows := oiRowsHint(light.NumRows(), size)
	// The column decoder first; the generic path when it does not read
	// the table, or stops before its end (a row it does not read, or an
	// error: the generic path then says what it says of that row).
	fp, planned, _ := oiPlan(func() (oiSource, func(), error) {
		if f := openOIFast(r, size, name, keepLight); f != nil {
			return f, f.close, nil
		}
		return nil, nil, nil
	}, rows, light.NumRows(), size)
	if !planned {
		first := true
		if fp, _, err = oiPlan(func() (oiSource, func(), error) {
			if first { // the reading opened above (closed again by the defer: Close is idempotent)
				first = false
				return &oiGeneric{rows: light, cols: cols, name: name}, func() { light.Close() }, nil
			}
			again, cols, err := oiOpenValues(r, size, name, keepLight)
			if err != nil {
				return nil, nil, err
			}
			return &oiGeneric{rows: again, cols: cols, name: name}, func() { again.Close() }, nil
		}, rows, light.NumRows(), size); err != nil {
			return nil, err
		}
	}
	pr.plan, pr.sorted, pr.planner = fp.plan, fp.sorted, fp.planner
	pr.ra, pr.size, pr.lightChecked = r, size, planned
	// Records of a table out of start-time order are held for a window:
	// their bodies are their own.
	pr.bodies.own = !pr.sorted
	if pr.fast = pr.openFull(); pr.fast != nil {
		return pr, nil
	}
	if pr.rows, pr.cols, err = oiOpenValues(r, size, name, keepFull); err != nil {
		return nil, err
	}
	return pr, nil
}

// oiFirstPass is the plan of the first pass, whether the rows are in
// start-time order, and which planner made it ("runs", "groups" or
// "tree": the tests ask).
type oiFirstPass struct {
	plan    spanPlan
	sorted  bool
	planner string
}

// oiPlan makes the first pass's plan with the planners in turn, each on a
// new reading of the light columns (open; no source: the reader does not
// read the table): by runs (the rows in start-time order, a trace's rows
// together), by groups (a trace at a time), else the whole tree, which
// plans any table. planned is false when there was no source or a
// reading stopped before the end (err: its error, if any).
func oiPlan(open func() (oiSource, func(), error), rows int, numRows, size int64) (fp oiFirstPass, planned bool, err error) {
	planners := []struct {
		name string
		plan func(oiSource) (pl spanPlan, sorted, ok bool)
	}{
		{"runs", func(src oiSource) (spanPlan, bool, bool) { pl, ok := oiPlanRuns(src, rows); return pl, true, ok }},
		{"groups", func(src oiSource) (spanPlan, bool, bool) { return oiPlanGroups(src, rows) }},
		{"tree", func(src oiSource) (spanPlan, bool, bool) {
			pl, sorted := oiPlanTree(src, numRows, size)
			return pl, sorted, true
		}},
	}
	for _, p := range planners {
		src, done, err := open()
		if err != nil || src == nil {
			return oiFirstPass{}, false, err
		}
		pl, sorted, ok := p.plan(src)
		err, weird := src.stopped()
		done()
		if err != nil || weird {
			return oiFirstPass{}, false, err
		}
		if ok {
			return oiFirstPass{pl, sorted, p.name}, true, nil
		}
	}
	return oiFirstPass{}, false, nil // not reached: the tree plans any table
}

// oiPlanRuns is the first pass of a table whose rows are in start-time
// order, planned a run at a time (runPlanner); ok is false when the rows
// are not in that order or the runs do not plan as the whole tree does.
// rows is how many rows to make room for; the caller asks src whether it
// read every row.
func oiPlanRuns(src oiSource, rows int) (pl spanPlan, ok bool) {
	rp := newRunPlanner(keyAttrs(oiAgentKeys), true, rows)
	var last time.Time
	for {
		s, more := src.next()
		if !more {
			break
		}
		if s.err == nil && s.startErr == nil {
			if s.start.Before(last) {
				return spanPlan{}, false
			}
			last = s.start
		}
		rp.add(s)
	}
	if err, weird := src.stopped(); err != nil || weird {
		return spanPlan{}, true
	}
	return rp.finish()
}

// oiPlanGroups is the first pass of a table out of start-time order (or
// whose traces' rows are not together), planned a trace at a time
// (groupPlanner): the plan, whether the rows are in start-time order (the
// plan orders them when not), and ok false when the plan may not be the
// whole tree's. rows is how many rows to make room for; the caller asks
// src whether it read every row.
func oiPlanGroups(src oiSource, rows int) (pl spanPlan, sorted, ok bool) {
	gp := newGroupPlanner(keyAttrs(oiAgentKeys), true, rows)
	for {
		s, more := src.next()
		if !more {
			break
		}
		gp.add(s)
	}
	if err, weird := src.stopped(); err != nil || weird {
		return spanPlan{}, true, true
	}
	return gp.finish()
}

// oiRowsHint is the number of rows a file of size bytes claims to hold,
// as a hint to size the first pass's tables: bounded by the file's size
// and by 2^20.
func oiRowsHint(numRows, size int64) int { return int(min(max(numRows, 0), size/16, 1<<20)) }

// oiPlanTree is the first pass holding the light view of every row, for
// any order of rows (numRows: what the file claims): the plan, and
// whether the rows are in start-time order (the plan orders them when
// not). The caller asks src whether it read every row.
func oiPlanTree(src oiSource, numRows, size int64) (pl spanPlan, sorted bool) {
	t := newLightTree(keyAttrs(oiAgentKeys))
	t.undecided = true
	t.strs.own = true // the plan keeps them
	// The rows the file claims, as a hint bounded by its size.
	t.grow(oiRowsHint(numRows, size))
	sorted = true
	var last time.Time
	for {
		s, more := src.next()
		if !more {
			break
		}
		t.add(s)
		if s.err == nil && s.startErr == nil {
			if s.start.Before(last) {
				sorted = false
			}
			last = s.start
		}
	}
	if err, weird := src.stopped(); err != nil || weird {
		return spanPlan{}, true
	}
	return t.plan(!sorted), sorted
}

// oiOpenValues opens the columns keep accepts, read as values (start_time
// and end_time as times).
func oiOpenValues(r io.ReaderAt, size int64, name string, keep func(string) bool) (*pq.Rows, *oiColumns, error) {
	rows, err := pq.OpenValues(r, size, name, keep, pq.ValueOptions{
		JSON:  decodeTree,
		Times: func(c string) bool { return c == "start_time" || c == "end_time" },
	})
	if err != nil {
		return nil, nil, err
	}
	return rows, newOIColumns(rows.Columns()), nil
}

// oiColumns is how the columns of a span table make a span: each row is
// the object {column: value}, flattened to dotted names (flattenAttrs)
// as oiRowSpan flattens it, without a JSON text in between. A message or
// tool list column ("attributes.llm.input_messages") is read as the list
// its flattened names rebuild into (oiList) when nothing else flattens
// into its names; oiBuild reads it from tspan.lists.
type oiColumns struct {
	names []string
	order []int    // column indexes by name (flattenAttrs' order), schema order among equal names
	lists []string // by column: its attribute's prefix ("llm.input_messages.") when read as a list
	s     tspan    // the span span returns
}

// oiListAttrs are the attributes oiBuild rebuilds lists from.
var oiListAttrs = []string{"llm.input_messages", "llm.output_messages", "llm.tools"}

func newOIColumns(names []string) *oiColumns {
	c := &oiColumns{names: names, order: make([]int, len(names)), lists: make([]string, len(names))}
	for i := range c.order {
		c.order[i] = i
	}
	slices.SortStableFunc(c.order, func(a, b int) int { return strings.Compare(names[a], names[b]) })
	for i, n := range names {
		a, ok := strings.CutPrefix(n, "attributes.")
		if !ok || !slices.Contains(oiListAttrs, a) {
			continue
		}
		alone := true
		for j, m := range names {
			if j != i && (m == n || strings.HasPrefix(n, m+".") || strings.HasPrefix(m, n+".")) {
				alone = false
			}
		}
		if alone {
			c.lists[i] = a + "."
		}
	}
	return c
}

// span decodes the current row of rows (read with values) as row n of
// file name, as oiRowSpan decodes the row's JSON.
// The span returned is c's own, overwritten by the next call: those who
// read it (lightTree.add, spanRecords) keep none of its maps.
func (c *oiColumns) span(rows *pq.Rows, name string, n int64) *tspan {
	attrs, lists := c.s.attrs, c.s.lists
	if attrs == nil {
		attrs = obj{}
	}
	clear(attrs)
	clear(lists)
	c.s = tspan{pos: ingest.Pos{File: name, Kind: ingest.PosRow, N: n}, order: int(n - 1), attrs: attrs, lists: lists}
	s := &c.s
	if err := rows.RowErr(); err != nil {
		s.err = err
		return s
	}
	var f oiFields
	for j := 0; j < len(c.order); j++ {
		i := c.order[j]
		v := rows.Value(i)
		// Of columns of one name, the row's JSON object keeps the last
		// that is not null.
		for j+1 < len(c.order) && c.names[c.order[j+1]] == c.names[i] {
			j++
			if w := rows.Value(c.order[j]); w != nil {
				i, v = c.order[j], w
			}
		}
		switch v.(type) {
		case nil:
		case obj, []any:
			if p := c.lists[i]; p != "" {
				if p != "llm.tools." {
					if msgs, ok := oiDirectMessages(v); ok {
						if msgs != nil {
							if s.lists == nil {
								s.lists = obj{}
							}
							s.lists[p] = msgs
						}
						continue
					}
				}
				if l, ok := oiList(v, 1); ok {
					if l != nil {
						if s.lists == nil {
							s.lists = obj{}
						}
						s.lists[p] = l
					}
					continue
				}
			}
			flat := obj{}
			flattenAttrs(flat, c.names[i], v, 1)
			for k, x := range flat {
				f.put(s, k, x)
			}
		default:
			f.put(s, c.names[i], v)
		}
	}
	f.finish(s)
	return s
}

// finish sets s's fields from the row's members.
func (f *oiFields) finish(s *tspan) {
	t := oiText{name: str(f.name), kind: str(f.kind), parentID: str(f.parentID), ctxSpanID: str(f.ctxSpanID),
		spanID: str(f.spanID), ctxTraceID: str(f.ctxTraceID), traceID: str(f.traceID)}
	t.finish(s, f.status, f.start, f.end)
}

// oiText are the members of a row that are read as text (str), as
// oiFields.finish reads them or the column decoder reads text columns.
type oiText struct {
	name, kind, parentID, ctxSpanID, spanID, ctxTraceID, traceID string
}

// finish sets s's fields from the row's text members, its status and its
// times (nil when null).
func (t *oiText) finish(s *tspan, status, start, end any) {
	s.name = t.name
	s.spanID = cmp.Or(t.ctxSpanID, t.spanID)
	s.traceID = cmp.Or(t.ctxTraceID, t.traceID)
	s.parentID = t.parentID
	if start != nil {
		s.start, s.startErr = spanTime(start)
	}
	s.kindSet = t.kind != ""
	oiClassify(s, cmp.Or(t.kind, str(s.attrs[oiKindAttr])))
	if end != nil {
		s.end, _ = spanTime(end)
	}
	s.failed = oiStatusFailed(status)
}

// oiFields are the members of a row's flattened object a span reads
// besides its attributes.
type oiFields struct {
	name, kind, parentID, ctxSpanID, spanID, ctxTraceID, traceID, start, end, status any
}

// put sets the flattened member k of the row to v.
func (f *oiFields) put(s *tspan, k string, v any) {
	if a, ok := strings.CutPrefix(k, "attributes."); ok {
		s.attrs[a] = v
		return
	}
	switch k {
	case "name":
		f.name = v
	case "span_kind":
		f.kind = v
	case "parent_id":
		f.parentID = v
	case "context.span_id":
		f.ctxSpanID = v
	case "span_id":
		f.spanID = v
	case "context.trace_id":
		f.ctxTraceID = v
	case "trace_id":
		f.traceID = v
	case "start_time":
		f.start = v
	case "end_time":
		f.end = v
	case "status_code":
		f.status = v
	}
}

// oiList returns what the names flattenAttrs gives list value v (under
// some prefix) rebuild into with unflatten: nulls, empty objects and
// empty lists left out, list elements closed up, object members named
// with dots ("message.role") nested. ok is false where unflatten would
// do more than that (members whose dotted names meet, a name with an
// part that is empty or starts with a digit, deep nesting): the caller
// flattens v then. parts counts the parts of the names so far.
func oiList(v any, parts int) (any, bool) {
	if parts > 32 {
		return nil, false
	}
	switch x := v.(type) {
	case nil:
		return nil, true
	case []any:
		var out []any
		for _, e := range x {
			t, ok := oiList(e, parts+1)
			if !ok {
				return nil, false
			}
			if t != nil {
				out = append(out, t)
			}
		}
		if out == nil {
			return nil, true
		}
		return out, true
	case obj:
		var out obj
		for k, e := range x {
			t, ok := oiList(e, parts+1+strings.Count(k, "."))
			if !ok {
				return nil, false
			}
			if t == nil {
				continue
			}
			if out == nil {
				out = obj{}
			}
			if !setDotted(out, k, t) {
				return nil, false
			}
		}
		if out == nil {
			return nil, true
		}
		return out, true
	}
	return v, true
}

// oiDirectMessages reads the value of a message list column in
// Phoenix's layout — a list of structs of message.role, message.content,
// message.tool_call_id, message.name and message.tool_calls (a list of
// structs of tool_call.id, tool_call.function.name and
// tool_call.function.arguments), each a scalar or null — straight into
// the messages oiMessages makes of the list oiList rebuilds from it: no
// tree in between. nil when no element holds a value (oiList's nil).
// false for any other shape.
func oiDirectMessages(v any) ([]message, bool) {
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	var msgs []message
	for _, e := range list {
		o, ok := e.(obj)
		if !ok {
			if e == nil {
				continue
			}
			return nil, false
		}
		var role, content, id any
		var calls []toolCall
		present := false
		for k, x := range o {
			if x == nil {
				continue
			}
			if k == "message.tool_calls" {
				cs, any, ok := oiDirectCalls(x)
				if !ok {
					return nil, false
				}
				calls, present = cs, present || any
				continue
			}
			if !scalar(x) {
				return nil, false
			}
			switch k {
			case "message.role":
				role = x
			case "message.content":
				content = x
			case "message.tool_call_id":
				id = x
			case "message.name": // oiMessages reads no name
			default:
				return nil, false
			}
			present = true
		}
		if !present {
			continue
		}
		// toMessage of what oiMessages makes of the element: a role, a
		// content that is text (or a scalar, as its JSON), tool calls.
		c := contentOf(content)
		m := message{Content: c.text(), ToolCalls: calls, ToolCallID: str(id)}
		if m.Role = normRole(str(role)); m.Role == "" {
			m.Role = "user"
		}
		if msgs == nil {
			msgs = make([]message, 0, len(list)) // nil stays nil: no element held a value
		}
		msgs = append(msgs, m)
	}
	return msgs, true
}

// oiDirectCalls reads message.tool_calls as oiDirectMessages reads
// messages, into the calls toMessage keeps (those with a function name);
// present reports whether any call holds a value.
func oiDirectCalls(v any) (calls []toolCall, present, ok bool) {
	list, ok := v.([]any)
	if !ok {
		return nil, false, false
	}
	for _, e := range list {
		o, ok := e.(obj)
		if !ok {
			if e == nil {
				continue
			}
			return nil, false, false
		}
		var id, name, args any
		for k, x := range o {
			if x == nil {
				continue
			}
			if !scalar(x) {
				return nil, false, false
			}
			switch k {
			case "tool_call.id":
				id = x
			case "tool_call.function.name":
				name = x
			case "tool_call.function.arguments":
				args = x
			default:
				return nil, false, false
			}
			present = true
		}
		if n := str(name); n != "" {
			calls = append(calls, toolCall{ID: str(id), Type: "function", Function: toolFunction{Name: n, Arguments: argsText(args)}})
		}
	}
	return calls, present, true
}

// scalar reports whether v is a string, a number or a boolean.
func scalar(v any) bool {
	switch v.(type) {
	case string, json.Number, bool:
		return true
	}
	return false
}

// setDotted sets o's member at the dotted path k to v; false when a part
// of k is empty or starts with a digit (hasIndexed and listify read such
// names), or the path meets a member already set.
func setDotted(o obj, k string, v any) bool {
	for {
		part, rest, more := strings.Cut(k, ".")
		if part == "" || part[0] >= '0' && part[0] <= '9' {
			return false
		}
		if !more {
			if _, taken := o[part]; taken {
				return false
			}
			o[part] = v
			return true
		}
		next, ok := o[part].(obj)
		if !ok {
			if _, taken := o[part]; taken {
				return false
			}
			next = obj{}
			o[part] = next
		}
		o, k = next, rest
	}
}

// FormatName names what the reader reads, for inspect.
func (pr *OIParquetReader) FormatName() string { return "openinference (parquet)" }

// Records of a table whose rows are not in start-time order are yielded
// in that order by reading the full view again for each window of ranks
// (places in that order). A window holds at most oiWindowBytes of records
// and at most oiWindowRanks ranks: memory is bounded whatever the file's
// size, and a file whose records fit is read in one pass.
//
// Every pass slides: it yields each record as soon as the records of
// every rank before it are yielded, and takes the rank of a row it reads
// into its window when every rank between the window's end and that one
// is still to be read (so each will be held when read) and the record
// fits. A table exported in the order its spans ended (Phoenix's: a
// child ends before its parent, an agent's trace before a later one
// ends) holds only the records read ahead of the earliest span still
// open, and is read in one pass whatever its size. A pass ends at the
// end of the table, or as soon as the next rank to yield is one it read
// and could not hold; the next pass reads the table again from its first
// row.
//
// An error in a row ends the stream after the records that come before
// that row's in start-time order, as in a table in that order: a pass
// reads on only while the next rank to yield is still to be read, so
// when a row fails every rank before the next is yielded, and the next
// one's row is the failing one or comes after it. (Until session 22 the
// first pass read every row before it yielded a record, so that an error
// anywhere came before any record; that cost a whole reading of the
// table.)
var (
	oiWindowBytes = 32 << 20
	oiWindowRanks = 1 << 18 // variables: tests make windows of a few records
)

// oiWindow is the state of the passes over an out-of-order table.
type oiWindow struct {
	rank []int32 // by row: the rank of its record
	// recs holds the records of ranks [next, end), rank r at r % len(recs);
	// nil for a rank whose row is still to be read.
	recs       []*ingest.Record
	bytes      int // what recs holds (recordBytes)
	start, end int // the ranks of this pass: from start; [next, end) held or to be read
	next       int // the next rank Scan yields
	// block is the first rank at or past end that this pass read without
	// holding it (or dropped): the window cannot grow past it. The number
	// of ranks when none.
	block  int
	passes int // passes made
	// sliding: a pass is under way, yielding as it reads; scanRow builds
	// only the records whose rank the window may take.
	sliding bool
	// built and builtBytes count the records the passes built and what
	// they hold: their mean tells a sliding pass how many ranks fit.
	built, builtBytes int64
}

// Scan advances to the next record.
func (pr *OIParquetReader) Scan() bool {
	if pr.sorted {
		return pr.scanRow()
	}
	w := pr.win
	if w == nil {
		w = &oiWindow{rank: make([]int32, len(pr.plan.order))}
		for k, i := range pr.plan.order {
			w.rank[i] = int32(k)
		}
		pr.plan.order = nil
		pr.win = w
	}
	for {
		if w.next < w.end {
			k := w.next % len(w.recs)
			if r := w.recs[k]; r != nil {
				pr.rec, w.recs[k] = r, nil
				w.bytes -= recordBytes(r)
				w.next++
				return true
			}
		}
		if w.next >= len(w.rank) || pr.err != nil {
			pr.rec = nil
			return false
		}
		switch {
		case w.sliding && w.next < w.block:
			if !pr.slide() {
				if pr.err != nil || w.next < w.end && w.recs[w.next%len(w.recs)] == nil {
					// An error, or the table ended before a row of the
					// window (the file changed: the error says so). The
					// window holds nothing to yield first: Scan yields a
					// record as soon as it is held, before the next row
					// is read, so the next rank's row is the failing one
					// or after it.
					pr.rec = nil
					return false
				}
			}
		case w.passes > 0 && w.next == w.start:
			// Every pass yields a record (its window takes the first
			// rank it reads): one that did not would start again forever.
			pr.err = fmt.Errorf("%s: a pass over the table yielded no record (at rank %d of %d): a bug in the reader", pr.name, w.next, len(w.rank))
			pr.rec = nil
			return false
		case !pr.pass():
			pr.rec = nil
			return false
		}
	}
}

// openFull opens the full view's column decoder; nil when it does not
// read the table.
func (pr *OIParquetReader) openFull() *oiFast {
	f := openOIFast(pr.ra, pr.size, pr.name, keepFull)
	if f == nil {
		return nil
	}
	if pr.lightChecked {
		f.trust(keepLight)
	}
	f.prefetch()
	return f
}

// pass starts the next pass over the table, from its first row (the
// first pass reads the views the reader opened): Scan slides on. False
// when the table could not be opened again.
func (pr *OIParquetReader) pass() bool {
	w := pr.win
	if pr.closed {
		return false
	}
	if w.passes > 0 {
		pr.closeViews()
		pr.read = 0
		if pr.fast = pr.openFull(); pr.fast != nil {
			pr.fast.trustedRows = int64(pr.checkedRows)
		} else if pr.rows, pr.cols, pr.err = oiOpenValues(pr.ra, pr.size, pr.name, keepFull); pr.err != nil {
			return false
		}
	}
	w.passes++
	w.start = w.next
	if len(w.recs) != min(oiWindowRanks, len(w.rank)) {
		w.recs = make([]*ingest.Record, min(oiWindowRanks, len(w.rank)))
	}
	clear(w.recs)
	w.bytes = 0
	w.end, w.block, w.sliding = w.next, len(w.rank), true
	return true
}

// slide reads the next row of a sliding pass and holds its record when
// its rank is, or can be taken, in the window; false at the end of the
// table or at an error.
func (pr *OIParquetReader) slide() bool {
	w := pr.win
	if !pr.scanRow() {
		w.sliding = false
		return false
	}
	if pr.read > len(w.rank) {
		return true // more rows than planned: scanRow says so next
	}
	r := int(w.rank[pr.read-1])
	if pr.rec == nil {
		// A row not wanted: yielded already, or past what the window
		// can take; then the window cannot grow past it.
		if r >= w.end {
			w.block = min(w.block, r)
		}
		return true
	}
	size := recordBytes(pr.rec)
	if r >= w.end {
		// Ranks [end, r] are still to be read (wanted: r < block), and
		// so will be held when read: the window grows to r when the
		// record fits, or when the window is empty (a pass yields at
		// least one record).
		if w.end > w.next && w.bytes+size > oiWindowBytes {
			w.built, w.builtBytes = w.built+1, w.builtBytes+int64(size)
			w.block = min(w.block, r)
			return true
		}
		w.end = r + 1
	}
	pr.hold(r, size)
	return true
}

// hold holds the record just built, of rank r in the window and size
// bytes, counts it among those built, and drops the last ranks of the
// window while it holds too much (keeping one rank): those wait for a
// later pass.
func (pr *OIParquetReader) hold(r, size int) {
	w := pr.win
	w.recs[r%len(w.recs)] = pr.rec
	w.bytes += size
	w.built, w.builtBytes = w.built+1, w.builtBytes+int64(size)
	for w.bytes > oiWindowBytes && w.end-w.next > 1 {
		w.end--
		k := w.end % len(w.recs)
		if rec := w.recs[k]; rec != nil {
			w.bytes -= recordBytes(rec)
			w.recs[k] = nil
			w.block = min(w.block, w.end) // read, and no longer held
		}
	}
}

// wanted reports whether scanRow builds row i's record: always, except in
// a pass over an out-of-order table, for the rows whose rank the window
// may take.
func (pr *OIParquetReader) wanted(i int) bool {
	w := pr.win
	if w == nil || !w.sliding || i >= len(w.rank) {
		return true
	}
	r := int(w.rank[i])
	if r < w.next || r >= w.block || r-w.next >= len(w.recs) {
		return false
	}
	// A rank past the window's end is taken in when the ranks up to it,
	// at the records' mean size so far, would fill at most twice the
	// window (some will have been yielded when the last come in): not a
	// record built only to be dropped again as those before it come in.
	return r < w.end || r == w.next || w.built == 0 || int64(r-w.next+1)*(w.builtBytes/w.built) <= 2*int64(oiWindowBytes)
}

// recordBytes estimates what a record holds in memory.
func recordBytes(r *ingest.Record) int {
	return 256 + len(r.Request) + len(r.Response) + len(r.ID) + len(r.Agent) + len(r.Session) + len(r.Model) + len(r.Skip)
}

// scanRow reads the next row's record.
func (pr *OIParquetReader) scanRow() bool {
	if pr.fast != nil {
		if ok, handled := pr.scanFast(); handled {
			return ok
		}
	}
	if pr.rows == nil || pr.err != nil {
		return false
	}
	// A row whose record is a skip decided by the light view is checked,
	// not decoded.
	i := int(pr.rows.N())
	decode := pr.wanted(i)
	if i < len(pr.plan.flags) {
		flags := pr.plan.flags[i]
		decode = decode && (flags&lightKindSet == 0 || flags&(lightCall|lightWrapped) == lightCall)
	}
	if !pr.rows.NextValues(decode) {
		pr.err = pr.rows.Err()
		if pr.err == nil && pr.read < len(pr.plan.flags) {
			pr.err = fmt.Errorf("%s: the file changed between its two readings (fewer rows)", pr.name)
		}
		pr.rows, pr.rec = nil, nil
		return false
	}
	n := pr.rows.N()
	pr.read = i + 1
	if i >= len(pr.plan.flags) {
		pr.err = fmt.Errorf("%s: the file changed between its two readings (more rows)", pr.name)
		return false
	}
	if !pr.wanted(i) {
		pr.rec = nil // a row of another window
		return true
	}
	pos := ingest.Pos{File: pr.name, Kind: ingest.PosRow, N: n}
	if err := pr.rows.RowErr(); err != nil {
		pr.rec = bad(pos, "%v", err)
		return true
	}
	if pr.rec = pr.planned(i, pos); pr.rec != nil {
		return true
	}
	return pr.build(i, pr.cols.span(pr.rows, pr.name, n))
}

// planned returns the record of row i (at pos) when the plan decides it
// alone, nil when it is built from the row's full view. The span_kind
// column decides the kind in both views (no other column flattens to
// "span_kind"): a span that is no call is a skip at its row, and so is
// a wrapper.
func (pr *OIParquetReader) planned(i int, pos ingest.Pos) *ingest.Record {
	if !pr.decides(i) {
		return nil
	}
	if flags := pr.plan.flags[i]; flags&lightCall == 0 {
		return pr.skip(pos, pr.plan.strs[pr.plan.skip[i]])
	}
	return pr.skip(pos, oiWrapper(nil))
}

// oiSkipSlab is how many skip records pr.skip allocates at a time.
const oiSkipSlab = 32

// skip returns a new skip record at pos, as skip does, carved from a
// slab of records: most rows of a span table are skips (agent, chain,
// tool and wrapper spans), and one allocation of oiSkipSlab records
// costs less than as many of one. A record is never handed out twice;
// a slab stays allocated while any of its records is held.
func (pr *OIParquetReader) skip(pos ingest.Pos, reason string) *ingest.Record {
	if len(pr.skips) == 0 {
		pr.skips = make([]ingest.Record, oiSkipSlab)
	}
	r := &pr.skips[0]
	pr.skips = pr.skips[1:]
	r.Pos, r.Skip = pos, reason
	return r
}

// decides reports whether the plan decides row i's record alone (see
// planned).
func (pr *OIParquetReader) decides(i int) bool {
	flags := pr.plan.flags[i]
	return flags&lightKindSet != 0 && flags&lightCall == 0 || flags&(lightKindSet|lightWrapped) == lightKindSet|lightWrapped
}

// build sets the record of row i from its full view; false when the
// file changed between the passes.
func (pr *OIParquetReader) build(i int, full *tspan) bool {
	flags := pr.plan.flags[i]
	if flags&lightWrapped != 0 {
		full.wrapped = oiWrapper(full)
	}
	if full.err == nil && full.startErr == nil && full.start.IsZero() {
		full.startErr = fmt.Errorf(`no "start_time"`)
	}
	if flags&lightErr != 0 && full.err == nil {
		// The light view of the row failed where its full view, a
		// superset of the same columns, does not.
		pr.err = fmt.Errorf("%s: the file changed between its two readings (row %d)", pr.name, full.pos.N)
		return false
	}
	// The record is built from the full row; its place in the tree comes
	// from the first pass (the same ids, so the same parents), whose plan
	// keeps only the names agents are looked up by.
	if pr.buildRec == nil {
		pr.buildRec = pr.bodies.build
	}
	pr.anc = planAncestors{pl: &pr.plan, i: i}
	pr.rec = spanRecord(full, &pr.anc, pr.opt, pr.buildRec)
	return true
}

// scanFast reads the next row's record through the column decoder, as
// scanRow does through the generic path; handled is false when the
// decoder stopped at this row (not at the end): the generic path, moved
// past the rows read, reads it then.
func (pr *OIParquetReader) scanFast() (ok, handled bool) {
	if pr.err != nil {
		return false, true
	}
	i := pr.read
	// A row whose record the plan decides is only checked.
	wanted := pr.wanted(i)
	decode := wanted && (i >= len(pr.plan.flags) || !pr.decides(i))
	full, more := pr.fast.nextRow(decode)
	if !more {
		err, weird := pr.fast.stopped()
		pr.fast.close()
		pr.fast = nil
		if err != nil || weird {
			pr.handOver(i)
			return false, false
		}
		if pr.read < len(pr.plan.flags) {
			pr.err = fmt.Errorf("%s: the file changed between its two readings (fewer rows)", pr.name)
		}
		pr.rec = nil
		return false, true
	}
	pr.read = i + 1
	if i >= len(pr.plan.flags) {
		pr.err = fmt.Errorf("%s: the file changed between its two readings (more rows)", pr.name)
		return false, true
	}
	pr.checkedRows = max(pr.checkedRows, pr.read)
	if !wanted {
		pr.rec = nil // a row of another window
		return true, true
	}
	if !decode {
		pr.rec = pr.planned(i, full.pos)
		return true, true
	}
	return pr.build(i, full), true
}

// handOver opens the generic path's full view and moves it past the
// first done rows, which the column decoder read.
func (pr *OIParquetReader) handOver(done int) {
	pr.handovers++
	rows, cols, err := oiOpenValues(pr.ra, pr.size, pr.name, keepFull)
	if err != nil {
		pr.err = err
		return
	}
	for range done {
		if !rows.NextValues(false) {
			break
		}
	}
	pr.rows, pr.cols = rows, cols
}

// Record returns the current record.
func (pr *OIParquetReader) Record() *ingest.Record { return pr.rec }

// Err returns the error that ended the stream: a corrupt file.
func (pr *OIParquetReader) Err() error { return pr.err }

// Close stops reading.
func (pr *OIParquetReader) Close() error {
	pr.closed = true
	pr.closeViews()
	return nil
}

// closeViews closes the full view's readers.
func (pr *OIParquetReader) closeViews() {
	if pr.fast != nil {
		pr.fast.close()
		pr.fast = nil
	}
	if pr.rows != nil {
		pr.rows.Close()
		pr.rows = nil
	}
}

// spanTime reads a span's time as a table holds it: a timestamp (written
// as RFC 3339 text), or a plain integer of Unix nanoseconds (a column that
// lost its timestamp annotation), seconds or milliseconds.
func spanTime(v any) (time.Time, error) {
	if t, ok := v.(time.Time); ok { // a TIMESTAMP column read as a time
		return t, nil
	}
	if n, ok := v.(json.Number); ok {
		if f, err := n.Float64(); err == nil && f >= 1e17 {
			return unixNano(v)
		}
	}
	return timeOf(v)
}
