package logs

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/ingest/pq"
	"github.com/killswitch/killswitch/internal/jsonsimd"
)

// The column decoder of the span tables Phoenix writes (see oiparquet.go):
// when every column a view reads is one it knows — a top-level text,
// timestamp, integer, double or NULL column, or a message or tool list in
// Phoenix's layout (a LIST of structs of text fields, tool calls a LIST
// of structs inside) — the rows are read through pq.Leaves, a page at a
// time, straight into the span oiColumns.span would make of the same row:
// no row object, no map or list per value, message texts not copied
// (they are written into the request and response before the pages are
// released). Whatever it is not sure to read as oiColumns.span does — a
// text that is not UTF-8, levels that do not agree, a page that does not
// decode — it does not read: the row is weird, and the reader hands the
// file over to the generic path at that row (which reads it, and every
// row after, as before; the rows before were read alike).

// oiFastKnown reports whether top is a top-level column the decoder
// reads as a scalar.
func oiFastKnown(top string) bool {
	switch top {
	case "name", "span_kind", "parent_id", "context.span_id", "context.trace_id", "span_id", "trace_id",
		"start_time", "end_time", "status_code":
		return true
	}
	a, ok := strings.CutPrefix(top, "attributes.")
	return ok && slices.Contains(oiRecordAttrs, a)
}

// oiFast reads the rows of a span table as spans through pq.Leaves.
type oiFast struct {
	ls    *pq.Leaves
	name  string
	scal  []oiFastScalar
	lists []*oiFastList
	all   []*pq.LeafCursor
	texts []string // the row's message contents, pointed to by its messages
	chunk []byte   // texts handed out (str), append only
	s     tspan
	num   []byte
	// trustedRows: the table's first rows, up to that number, were read
	// (checked) once by the decoder (OIParquetReader.checkedRows); in
	// such a row read with decode off (trusted), every column is put
	// off (LeafCursor.Defer), not checked again. decoding is the current
	// row's decode.
	trustedRows       int64
	trusted, decoding bool
	weird             bool
	err               error
}

// oiFastScalar is a top-level column holding one value a row.
type oiFastScalar struct {
	col    string
	cur    *pq.LeafCursor
	kind   pq.LeafKind
	unit   time.Duration
	asTime bool
	text   bool // a text member of oiText, read as a string
	// checked: every value of the column was read and checked by an
	// earlier reading of the file (the first pass's column decoder):
	// not checked again, nor read in a row that is not decoded.
	checked bool
	// seen are the last texts read (a kind, a name, a model, a trace id
	// recur), as strings and boxed: not copied again.
	seen  [oiFastSeen]string
	boxed [oiFastSeen]any
	keys  [oiFastSeen]uint64 // textKey of seen
	key   uint64             // the key of the text recent looked for last
	next  int                // the slot the next new text takes
}

// oiFastSeen is how many recent texts a column keeps.
const oiFastSeen = 8

// recent returns the slot of a recent text equal to b; -1 when none is.
// A text's key (textKey) is compared first: ids that share a length and
// a prefix are told apart without comparing their bytes.
func (sc *oiFastScalar) recent(b []byte) int {
	k := textKey(b)
	sc.key = k
	for i := range sc.seen {
		if sc.keys[i] == k && sc.seen[i] == string(b) && (len(b) > 0 || sc.boxed[i] != nil) {
			return i
		}
	}
	return -1
}

// keep remembers a new text t, boxed as v: the text recent did not find.
func (sc *oiFastScalar) keep(t string, v any) {
	sc.seen[sc.next], sc.boxed[sc.next], sc.keys[sc.next] = t, v, sc.key
	sc.next = (sc.next + 1) % oiFastSeen
}

// textKey is a summary of text b that texts equal to it share: its
// length and last 8 bytes.
func textKey(b []byte) uint64 {
	n := len(b)
	if n >= 8 {
		return binary.LittleEndian.Uint64(b[n-8:]) ^ uint64(n)
	}
	var k uint64
	for _, c := range b {
		k = k<<8 | uint64(c)
	}
	return k ^ uint64(n)<<56
}

// oiFastList is a message list (or, with tools set, llm.tools) in
// Phoenix's layout: its levels, its fields by name, and the tool calls'
// list below.
type oiFastList struct {
	prefix string // "llm.input_messages."
	tools  bool
	// The definition levels from which the list has elements (below: null
	// or empty) and an element is present (below: null); c1 and c2 the
	// same of an element's tool calls.
	d1, d2 uint8
	c1, c2 uint8
	fields []oiFastField
	calls  []oiFastField // message.tool_calls.…, one cursor each
	msgs   []message     // the row's messages, reused by the next row
}

// each calls fn with each cursor of l (its fields', then its tool
// calls'); false when fn returns false.
func (l *oiFastList) each(fn func(*pq.LeafCursor) bool) bool {
	for _, fd := range l.fields {
		if !fn(fd.cur) {
			return false
		}
	}
	for _, fd := range l.calls {
		if !fn(fd.cur) {
			return false
		}
	}
	return true
}

type oiFastField struct {
	name string // the field's name ("message.role", "tool_call.id")
	elem string // the name of the element group above it (tool calls)
	cur  *pq.LeafCursor
}

// openOIFast opens the columns keep accepts for the decoder; nil when a
// column is not one it reads (or the file does not open: the generic path
// says why).
func openOIFast(r io.ReaderAt, size int64, name string, keep func(string) bool) *oiFast {
	if !fastJSON {
		return nil // tests compare the paths
	}
	ls, err := pq.OpenLeaves(r, size, name)
	if err != nil {
		return nil
	}
	f := &oiFast{ls: ls, name: name}
	byTop := map[string][]pq.LeafInfo{}
	var tops []string
	for _, l := range ls.Schema() {
		top := l.Path[0]
		if !keep(top) {
			continue
		}
		if byTop[top] == nil {
			tops = append(tops, top)
		}
		byTop[top] = append(byTop[top], l)
	}
	seen := map[string]bool{}
	for _, top := range tops {
		if seen[top] {
			ls.Close()
			return nil
		}
		seen[top] = true
		if !f.plan(top, byTop[top]) {
			ls.Close()
			return nil
		}
	}
	return f
}

// plan adds the top-level column top (its leaves ls) to what f reads;
// false when the decoder does not read such a column.
func (f *oiFast) plan(top string, ls []pq.LeafInfo) bool {
	if oiFastKnown(top) {
		l := ls[0]
		if len(ls) != 1 || len(l.Path) != 1 || l.Repeated[0] || l.Kind == pq.LeafOther {
			return false
		}
		sc := oiFastScalar{col: top, kind: l.Kind, unit: l.Unit, asTime: top == "start_time" || top == "end_time"}
		if !strings.HasPrefix(top, "attributes.") && top != "start_time" && top != "end_time" && top != "status_code" {
			// A span's name, kind, ids: text (or null), read as strings.
			if l.Kind != pq.LeafText && l.Kind != pq.LeafNull {
				return false
			}
			sc.text = true
		}
		sc.cur = f.use(l)
		f.scal = append(f.scal, sc)
		return true
	}
	a, _ := strings.CutPrefix(top, "attributes.")
	tools := a == "llm.tools"
	if !tools && a != "llm.input_messages" && a != "llm.output_messages" {
		return false
	}
	fl := &oiFastList{prefix: a + ".", tools: tools}
	elem := ""
	for _, l := range ls {
		// top (LIST) > repeated group (one field) > element (a group) > field …
		if len(l.Path) < 4 || !l.List[0] || l.Repeated[0] || !l.Repeated[1] || l.Repeated[2] ||
			l.Annotated[1] || l.Annotated[2] || l.Path[1] == "array" || l.Path[1] == top+"_tuple" {
			return false
		}
		if elem == "" {
			elem = l.Path[2]
		} else if l.Path[2] != elem {
			return false // the repeated group has several fields: it is the element
		}
		fl.d1, fl.d2 = uint8(l.Defs[1]), uint8(l.Defs[2])
		field := l.Path[3]
		switch {
		case len(l.Path) == 4 && l.Kind == pq.LeafText && !l.Repeated[3]:
			switch {
			case tools && field == "tool.json_schema",
				!tools && (field == "message.role" || field == "message.content" || field == "message.tool_call_id" || field == "message.name"):
			default:
				return false
			}
			fl.fields = append(fl.fields, oiFastField{name: field, cur: f.use(l)})
		case !tools && field == "message.tool_calls" && len(l.Path) == 7 && l.Kind == pq.LeafText:
			// tool_calls (LIST) > repeated group > element > field
			if !l.List[3] || l.Repeated[3] || !l.Repeated[4] || l.Repeated[5] || l.Repeated[6] ||
				l.Annotated[4] || l.Annotated[5] || l.Path[4] == "array" || l.Path[4] == field+"_tuple" {
				return false
			}
			if len(fl.calls) > 0 && l.Path[5] != fl.calls[0].elem {
				return false
			}
			switch l.Path[6] {
			case "tool_call.id", "tool_call.function.name", "tool_call.function.arguments":
			default:
				return false
			}
			fl.c1, fl.c2 = uint8(l.Defs[4]), uint8(l.Defs[5])
			fl.calls = append(fl.calls, oiFastField{name: l.Path[6], elem: l.Path[5], cur: f.use(l)})
		default:
			return false
		}
	}
	if len(fl.fields) == 0 {
		return false // the element's first leaf decides its presence: keep it simple
	}
	f.lists = append(f.lists, fl)
	return true
}

func (f *oiFast) use(l pq.LeafInfo) *pq.LeafCursor {
	c := f.ls.Use(l)
	f.all = append(f.all, c)
	return c
}

func (f *oiFast) close() { f.ls.Close() }

// trust marks the scalar columns keep accepts as checked: an earlier
// reading of the file read all their values, through the decoder, alike.
func (f *oiFast) trust(keep func(string) bool) {
	for i := range f.scal {
		if keep(f.scal[i].col) {
			f.scal[i].checked = true
		}
	}
}

// oiPrefetchChunk is the smallest column chunk (decompressed) whose
// pages the full view reads ahead (oiFast.prefetch); tests set it to 0.
var oiPrefetchChunk int64 = 256 << 10

// oiLongText reports whether the column or list field named col holds
// long texts (messages' contents, tool calls' arguments, tools' schemas,
// a span's input and output): most of the bytes of a span table.
func oiLongText(col string) bool {
	switch col {
	case "message.content", "tool_call.function.arguments", "tool.json_schema",
		"attributes.input.value", "attributes.output.value":
		return true
	}
	return false
}

// prefetch has the cursors of the columns of long texts (oiLongText)
// read their large chunks' pages ahead (pq.LeafCursor.Prefetch): most of
// the second pass's reading is decompressing those texts, which another
// core can then do while this one builds the records. Other columns are
// read in place: their pages are a small part of the work, and each
// column read ahead holds a few more pages.
func (f *oiFast) prefetch() {
	for i := range f.scal {
		if oiLongText(f.scal[i].col) {
			f.scal[i].cur.Prefetch(oiPrefetchChunk)
		}
	}
	for _, l := range f.lists {
		for _, fd := range slices.Concat(l.fields, l.calls) {
			if oiLongText(fd.name) {
				fd.cur.Prefetch(oiPrefetchChunk)
			}
		}
	}
}

// next reads the next row into f's span (overwritten by the next call, as
// oiColumns.span's); false at the end, on an error (f.err) or at a row
// the decoder does not read (f.weird). The pages of the row before are
// released: the texts of its lists are no longer valid.
func (f *oiFast) next() (s *tspan, ok bool) { return f.nextRow(true) }

// nextRow is next; a row read with decode false is only checked (its
// values consumed and validated), and its span holds only its position.
func (f *oiFast) nextRow(decode bool) (s *tspan, ok bool) {
	if f.err != nil || f.weird {
		return nil, false
	}
	f.ls.Release()
	if !f.ls.Next() {
		f.err = f.ls.Err()
		return nil, false
	}
	defer func() {
		if p := recover(); p != nil {
			f.weird, s, ok = true, nil, false
		}
	}()
	if !f.row(decode) {
		f.weird = true
		return nil, false
	}
	return &f.s, true
}

// valid reports whether text b is UTF-8; any text, in a row read with
// decode off while f.trusted (a row an earlier reading checked). A long
// text (a message's content) has its ASCII blocks checked 64 bytes at a
// time where the processor can (jsonsimd.ValidUTF8); a short one (an id,
// a role) a word at a time (jsonsimd.ASCII), utf8.Valid only when it is
// not ASCII.
func (f *oiFast) valid(b []byte) bool {
	if f.trusted && !f.decoding {
		return true
	}
	if len(b) >= 128 {
		return jsonsimd.ValidUTF8(b)
	}
	return jsonsimd.ASCII(b) || utf8.Valid(b)
}

// row decodes (or, decode false, checks) the current row; false when it
// is weird.
func (f *oiFast) row(decode bool) bool {
	f.decoding = decode
	n := f.ls.N()
	f.trusted = n <= f.trustedRows
	pos := ingest.Pos{File: f.name, Kind: ingest.PosRow, N: n}
	if !decode {
		// A row only checked sets nothing in f.s but its position (the
		// reads below return no values): the rest is left as it is,
		// not cleared, and a decoded row clears it.
		f.s.pos, f.s.order = pos, int(n-1)
	} else {
		attrs, lists := f.s.attrs, f.s.lists
		if attrs == nil {
			attrs = obj{}
		}
		if len(attrs) > 0 {
			clear(attrs)
		}
		if len(lists) > 0 {
			clear(lists)
		}
		f.s = tspan{pos: pos, order: int(n - 1), attrs: attrs, lists: lists}
		f.texts = f.texts[:0]
	}
	s := &f.s
	var fields oiFields
	var text oiText
	// start_time and end_time when read as times.
	var start, end time.Time
	var hasStart, hasEnd bool
	for i := range f.scal {
		sc := &f.scal[i]
		if !decode && (sc.checked || f.trusted) {
			// A value an earlier reading checked, in a row not decoded:
			// its slot is consumed when the column is next read. So
			// timeField, textField and scalar below see a checked column
			// only in a row decoded.
			sc.cur.Defer()
			continue
		}
		if sc.cur.CatchUp() != nil {
			return false
		}
		if sc.asTime && sc.kind == pq.LeafTimestamp {
			t, set, ok := f.timeField(sc, decode, &fields)
			if !ok {
				return false
			}
			if sc.col == "start_time" {
				start, hasStart = t, set
			} else {
				end, hasEnd = t, set
			}
			continue
		}
		if sc.text {
			t, ok := f.textField(sc, decode)
			if !ok {
				return false
			}
			text.set(sc.col, t)
			continue
		}
		v, ok := f.scalar(sc, decode)
		if !ok {
			return false
		}
		if v != nil {
			fields.put(s, sc.col, v)
		}
	}
	for _, l := range f.lists {
		if !decode && f.trusted {
			// A row an earlier reading checked, not decoded: its slots
			// are consumed when the list is next read.
			l.each(func(c *pq.LeafCursor) bool { c.Defer(); return true })
			continue
		}
		if !l.each(func(c *pq.LeafCursor) bool { return c.CatchUp() == nil }) {
			return false
		}
		v, ok := f.list(l, decode)
		if !ok {
			return false
		}
		if v != nil {
			if s.lists == nil {
				s.lists = obj{}
			}
			s.lists[l.prefix] = v
		}
	}
	for _, c := range f.all {
		if !c.NextStartsRow() && c.RowEnd() != nil {
			return false
		}
	}
	if decode {
		text.finish(s, fields.status, fields.start, fields.end)
		if hasStart {
			s.start = start
		}
		if hasEnd {
			s.end = end
		}
	}
	return true
}

// timeField reads the row's value of start_time or end_time (a
// timestamp column) as scalar reads it, without boxing: set when it is
// a time spanTime takes as it is (years 0 to 9999); a time outside those
// years is put into fields as the text scalar gives.
func (f *oiFast) timeField(sc *oiFastScalar, decode bool, fields *oiFields) (tm time.Time, set, ok bool) {
	rep, _, null := sc.cur.NextNull() // inlined: the common null
	var has bool
	var err error
	if !null {
		rep, _, has, err = sc.cur.Next()
	}
	if err != nil || rep != 0 {
		return time.Time{}, false, false
	}
	if !has {
		return time.Time{}, false, true
	}
	x, ok := sc.cur.Int64()
	if !ok || !decode {
		return time.Time{}, false, ok
	}
	if tm = tickTime(x, sc.unit); tm.Year() >= 0 && tm.Year() <= 9999 {
		return tm, true, true
	}
	fields.put(&f.s, sc.col, tm.Format(time.RFC3339Nano))
	return time.Time{}, false, true
}

// tickTime is the time x ticks of unit after the Unix epoch, in UTC.
func tickTime(x int64, unit time.Duration) time.Time {
	switch unit {
	case time.Millisecond:
		return time.UnixMilli(x).UTC()
	case time.Microsecond:
		return time.UnixMicro(x).UTC()
	}
	return time.Unix(0, x).UTC()
}

// set sets the member named col.
func (t *oiText) set(col, v string) {
	switch col {
	case "name":
		t.name = v
	case "span_kind":
		t.kind = v
	case "parent_id":
		t.parentID = v
	case "context.span_id":
		t.ctxSpanID = v
	case "span_id":
		t.spanID = v
	case "context.trace_id":
		t.ctxTraceID = v
	case "trace_id":
		t.traceID = v
	}
}

// textField reads the row's value of a text column as a string ("" for
// null, as str reads a null member).
func (f *oiFast) textField(sc *oiFastScalar, decode bool) (string, bool) {
	rep, _, null := sc.cur.NextNull() // inlined: the common null
	var has bool
	var err error
	if !null {
		rep, _, has, err = sc.cur.Next()
	}
	if err != nil || rep != 0 {
		return "", false
	}
	if !has {
		return "", true
	}
	b, ok := sc.cur.Bytes()
	if !ok || !sc.checked && !f.valid(b) {
		return "", false
	}
	if !decode {
		return "", true
	}
	if i := sc.recent(b); i >= 0 {
		return sc.seen[i], true
	}
	t := f.str(b)
	sc.keep(t, nil)
	return t, true
}

// oiTextChunk is the size of the chunks oiFast.str carves texts from.
const oiTextChunk = 8 << 10

// str returns text b as a string carved from f's current chunk of texts,
// whose bytes are never written again: the ids and names of a row cost
// no allocation each (a chunk is freed once none of its texts is held).
func (f *oiFast) str(b []byte) string {
	if len(b) == 0 || len(b) > oiTextChunk/16 {
		return string(b)
	}
	if cap(f.chunk)-len(f.chunk) < len(b) {
		f.chunk = make([]byte, 0, oiTextChunk)
	}
	n := len(f.chunk)
	f.chunk = append(f.chunk, b...)
	return unsafe.String(&f.chunk[n], len(b))
}

// scalar reads the row's value of a top-level column as leafValue does.
func (f *oiFast) scalar(sc *oiFastScalar, decode bool) (any, bool) {
	rep, _, null := sc.cur.NextNull() // inlined: the common null
	var has bool
	var err error
	if !null {
		rep, _, has, err = sc.cur.Next()
	}
	if err != nil || rep != 0 {
		return nil, false
	}
	if !has {
		return nil, true
	}
	switch sc.kind {
	case pq.LeafText:
		b, ok := sc.cur.Bytes()
		if !ok || !sc.checked && !f.valid(b) {
			return nil, false
		}
		if !decode {
			return nil, true
		}
		if i := sc.recent(b); i >= 0 && sc.boxed[i] != nil {
			return sc.boxed[i], true
		}
		t := f.str(b)
		var v any = t
		sc.keep(t, v)
		return v, true
	case pq.LeafTimestamp:
		x, ok := sc.cur.Int64()
		if !ok || !decode {
			return nil, ok
		}
		// start_time and end_time are read by timeField.
		return tickTime(x, sc.unit).Format(time.RFC3339Nano), true
	case pq.LeafInt64:
		x, ok := sc.cur.Int64()
		if !ok || !decode {
			return nil, ok
		}
		return json.Number(strconv.FormatInt(x, 10)), true
	case pq.LeafDouble:
		x, ok := sc.cur.Double()
		if !ok || !decode {
			return nil, ok
		}
		f.num = pq.AppendJSONFloat(f.num[:0], x)
		if string(f.num) == "null" {
			return nil, true
		}
		return json.Number(f.num), true
	}
	return nil, true // the NULL type
}

// list reads the row's value of a list column as oiColumns.span turns it
// into s.lists: the messages oiDirectMessages makes, or the tools oiList
// makes; nil when it sets nothing.
func (f *oiFast) list(l *oiFastList, decode bool) (any, bool) {
	msgs := l.msgs[:0]
	found := false
	var tools []any
	first := true
	for {
		// One slot of every field: the element's levels, which all the
		// fields must agree on above the field itself.
		head := l.fields[0].cur
		rep, def, _, err := head.Peek()
		if err != nil {
			return nil, false
		}
		if first != (rep == 0) {
			return nil, false
		}
		first = false
		var role, content, id []byte
		var hasContent, hasID, present bool
		for _, fd := range l.fields {
			r, d, null := fd.cur.NextNull() // inlined: the common null
			var has bool
			var err error
			if !null {
				r, d, has, err = fd.cur.Next()
			}
			if err != nil || r != rep || min(d, l.d2) != min(def, l.d2) {
				return nil, false
			}
			if !has {
				continue
			}
			b, ok := fd.cur.Bytes()
			if !ok || !f.valid(b) {
				return nil, false
			}
			present = true
			switch fd.name {
			case "message.role":
				role = b
			case "message.content":
				content, hasContent = b, true
			case "message.tool_call_id":
				id, hasID = b, true
			case "tool.json_schema":
				if decode {
					tools = append(tools, obj{"tool": obj{"json_schema": string(b)}})
				}
			}
		}
		calls, callsPresent, ok := f.calls(l, rep, def, decode)
		if !ok {
			return nil, false
		}
		if def < l.d1 {
			// A null or empty list: one slot a field, nothing in it.
			if next, _, more, err := head.Peek(); err != nil || more && next != 0 {
				return nil, false
			}
			break
		}
		if decode && !l.tools && (present || callsPresent) {
			m := message{ToolCalls: calls}
			if hasContent {
				m.Content = f.text(unsafeText(content))
			}
			if hasID {
				m.ToolCallID = unsafeText(id)
			}
			if m.Role = normRole(unsafeText(role)); m.Role == "" {
				m.Role = "user"
			}
			msgs, found = append(msgs, m), true
		}
		next, _, more, err := head.Peek()
		if err != nil {
			return nil, false
		}
		if !more || next == 0 {
			break
		}
		if next != 1 {
			return nil, false
		}
	}
	if l.tools {
		if tools == nil {
			return nil, true
		}
		return tools, true
	}
	l.msgs = msgs
	if !found {
		return nil, true
	}
	return msgs, true
}

// text returns a pointer to a copy of the string header t (not of its
// bytes), valid until the next row.
func (f *oiFast) text(t string) *string {
	if len(f.texts) == cap(f.texts) {
		// A new array: the pointers into the old one stay valid.
		f.texts = make([]string, 0, max(16, 2*cap(f.texts)))
	}
	f.texts = append(f.texts, t)
	return &f.texts[len(f.texts)-1]
}

// calls reads the tool calls of the element whose levels are rep and def
// (one slot a field when the element holds none), as oiDirectCalls reads
// them: the calls with a function name, and whether any call holds a value.
func (f *oiFast) calls(l *oiFastList, rep, def uint8, decode bool) (calls []toolCall, present, ok bool) {
	if len(l.calls) == 0 {
		return nil, false, true
	}
	head := l.calls[0].cur
	first := true
	for {
		r, d, _, err := head.Peek()
		if err != nil {
			return nil, false, false
		}
		if first {
			// The element's own levels, up to the tool_calls group.
			if r != rep || min(d, l.d2) != min(def, l.d2) {
				return nil, false, false
			}
		} else if r != 2 {
			break
		}
		var id, name, args []byte
		var hasID, hasName, hasArgs bool
		for _, fd := range l.calls {
			cr, cd, null := fd.cur.NextNull() // inlined: the common null
			var has bool
			var err error
			if !null {
				cr, cd, has, err = fd.cur.Next()
			}
			if err != nil || cr != r || min(cd, l.c2) != min(d, l.c2) {
				return nil, false, false
			}
			if !has {
				continue
			}
			b, ok := fd.cur.Bytes()
			if !ok || !f.valid(b) {
				return nil, false, false
			}
			present = true
			switch fd.name {
			case "tool_call.id":
				id, hasID = b, true
			case "tool_call.function.name":
				name, hasName = b, true
			case "tool_call.function.arguments":
				args, hasArgs = b, true
			}
		}
		if decode && hasName && len(name) > 0 {
			a := "{}"
			if hasArgs {
				a = unsafeText(args)
			}
			c := toolCall{Type: "function", Function: toolFunction{Name: unsafeText(name), Arguments: a}}
			if hasID {
				c.ID = unsafeText(id)
			}
			calls = append(calls, c)
		}
		first = false
		if d < l.c1 {
			// No calls (a null element, null or empty tool_calls): one slot.
			if r2, _, more, err := head.Peek(); err != nil || more && r2 == 2 {
				return nil, false, false
			}
			break
		}
		r2, _, more, err := head.Peek()
		if err != nil {
			return nil, false, false
		}
		if !more || r2 != 2 {
			break
		}
	}
	return calls, present, true
}

// unsafeText views b as a string: for texts written into a record's
// bodies before their page is released, never kept.
func unsafeText(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// oiGeneric is the generic path as a span source: rows read as values.
type oiGeneric struct {
	rows *pq.Rows
	cols *oiColumns
	name string
}

// oiSource yields the spans of a table's rows, in row order.
type oiSource interface {
	next() (*tspan, bool)
	// stopped returns the error that ended the rows, and whether they
	// stopped at a row the source does not read (the fast decoder).
	stopped() (error, bool)
}

func (g *oiGeneric) next() (*tspan, bool) {
	if !g.rows.NextValues(true) {
		return nil, false
	}
	return g.cols.span(g.rows, g.name, g.rows.N()), true
}

func (g *oiGeneric) stopped() (error, bool) { return g.rows.Err(), false }

func (f *oiFast) stopped() (error, bool) { return f.err, f.weird }

// oiBodies writes a span's request and response bodies straight from its
// messages, byte for byte as oiRequest and outputBody write them, where
// it knows what they write: a request of messages (no tool definitions)
// with invocation parameters that are absent or a JSON object (decoded,
// scrubbed and written once per distinct text); a response of messages
// that are text (no tool calls). Elsewhere request and response return
// false and oiBuild writes the bodies.
type oiBodies struct {
	// buf and rbuf hold the request and the response written last; the
	// bodies returned are views of them (valid until the next record is
	// built, as ingest.Reader allows) unless own is set: copies then.
	buf, rbuf []byte
	own       bool
	// the invocation parameters last seen: their text, and their members
	// as the request writes them (keys sorted, values written), model
	// included, messages and tools left out; ok is false when they are no
	// JSON object request can write here (the generic path writes them).
	params    any
	members   []oiMember
	model     int // the index of the parameters' own "model" member; -1 when none
	paramsOK  bool
	paramsSet bool
}

type oiMember struct {
	key, value string // value: written JSON
	messages   bool   // the request's messages go here
}

// request returns the request body of model, msgs and params as
// oiRequest writes it with no tools; nil when it leaves it to oiRequest.
func (b *oiBodies) request(model string, msgs []message, params any) []byte {
	if _, ok := params.(string); !ok && params != nil {
		return nil // a value oiRequest may read otherwise
	}
	if !b.paramsSet || params != b.params {
		b.setParams(params)
	}
	if !b.paramsOK {
		return nil
	}
	w := append(b.buf[:0], '{')
	if b.members == nil {
		// requestBody: model (when set), then messages.
		if model != "" {
			w = append(appendJSONString(append(w, `"model":`...), model), ',')
		}
		w = b.messages(append(w, `"messages":`...), msgs)
	} else {
		// oiRequest's object: the parameters' members, the messages and
		// the model (when set, over the parameters' own), keys sorted.
		wrote := false
		writeModel := func() {
			if len(w) > 1 {
				w = append(w, ',')
			}
			w = appendJSONString(append(w, `"model":`...), model)
			wrote = true
		}
		for i, m := range b.members {
			if model != "" && (i == b.model || b.model < 0 && !wrote && m.key > "model") {
				writeModel()
				if i == b.model {
					continue
				}
			}
			if len(w) > 1 {
				w = append(w, ',')
			}
			if m.messages {
				w = b.messages(append(w, `"messages":`...), msgs)
				continue
			}
			w = append(append(appendJSONString(w, m.key), ':'), m.value...)
		}
		if model != "" && !wrote {
			writeModel()
		}
	}
	w = append(w, '}')
	b.buf = w
	return b.body(w)
}

// body returns the body written in w: w itself (no room to append), or
// a copy when b owns none.
func (b *oiBodies) body(w []byte) []byte {
	if b.own {
		return bytes.Clone(w)
	}
	return w[:len(w):len(w)]
}

// messages writes msgs as a JSON list ([] for none).
func (b *oiBodies) messages(w []byte, msgs []message) []byte {
	w = append(w, '[')
	for i, m := range msgs {
		if i > 0 {
			w = append(w, ',')
		}
		w = appendMessage(w, m)
	}
	return append(w, ']')
}

// setParams reads the invocation parameters params as oiRequest reads
// them.
func (b *oiBodies) setParams(params any) {
	b.params, b.paramsSet, b.paramsOK, b.members, b.model = params, true, false, nil, -1
	p, ok := maybeJSON(params).(obj)
	if !ok || len(p) == 0 {
		b.paramsOK = true // requestBody
		return
	}
	body := scrub(p, false).(obj)
	for _, k := range [...]string{"messages", "input", "prompt", "stream_options", "extra_headers", "extra_body", "metadata", "user", "tools"} {
		delete(body, k)
	}
	keys := make([]string, 0, len(body)+1)
	for k := range body {
		keys = append(keys, k)
	}
	keys = append(keys, "messages")
	slices.Sort(keys)
	for _, k := range keys {
		if k == "messages" {
			b.members = append(b.members, oiMember{key: k, messages: true})
			continue
		}
		v, ok := appendJSON(nil, body[k])
		if !ok {
			b.members = nil
			return
		}
		if k == "model" {
			b.model = len(b.members)
		}
		b.members = append(b.members, oiMember{key: k, value: string(v)})
	}
	b.paramsOK = true
}

// response writes rec's response of the output messages out as
// outputBody writes it when every message is text (or empty); false
// when one has tool calls (outputBody's own reading then).
func (b *oiBodies) response(rec *ingest.Record, out []message) bool {
	n := 0
	for _, m := range out {
		if len(m.ToolCalls) > 0 {
			return false
		}
		if m.Content != nil {
			n++
		}
	}
	if n == 0 {
		rec.Response = nil
		return true
	}
	w := append(b.rbuf[:0], `{"object":"chat.completion"`...)
	if rec.Model != "" {
		w = appendJSONString(append(w, `,"model":`...), rec.Model)
	}
	// outputBody's one assistant message: the texts joined by lines.
	text := ""
	for _, m := range out {
		if m.Content == nil {
			continue
		}
		if text == "" && n == 1 {
			text = *m.Content
			break
		}
		text += *m.Content + "\n"
	}
	if n > 1 {
		text = text[:len(text)-1]
	}
	w = append(w, `,"choices":[{"index":0,"message":{"role":"assistant","content":`...)
	w = append(appendJSONString(w, text), "}}]}"...)
	b.rbuf = w
	rec.Response = b.body(w)
	return true
}
