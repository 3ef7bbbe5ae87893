// Package pq reads captures of LLM traffic stored as Apache Parquet files
// and writes the canonical Parquet capture layout.
//
// A Reader yields one ingest.Record per row, in file order, positioned as
// "file:row N" (N counted from 1 across the whole file). Only the columns of
// the capture record (SPEC §3) are read, row group by row group and page by
// page: unused columns are never decoded, and memory holds a few pages per
// column read, never the file. The pages of the request and response
// columns are decompressed ahead in a goroutine each.
//
// Columns carry the logical field names (ts, agent, request, response,
// status, …), nested in groups or flattened with dots ("kill_switch.threshold"
// as a group member or as a column literally so named), or other names
// given by Options.Map. A request or response may be JSON text in a string
// column, or a nested group that is serialized back to JSON (see
// assemble.go).
package pq

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/killswitch/killswitch/ingest"
	"github.com/parquet-go/parquet-go"
	"github.com/valyala/fastjson"
)

// Options configures a Reader. The zero value reads files whose columns
// carry the SPEC §3 names, such as those WriteRecords writes.
type Options struct {
	// Map renames logical fields to columns (the --map field=column flag):
	// {"agent": "metadata.user_id", "ts": "created_at"}. Keys are the
	// logical names: ts, agent, request, response, status, id, provider,
	// endpoint, model, tenant, api_key_id, workflow, session, latency_ms,
	// tokens_in, tokens_out, cost_usd, label, event, by, kill_switch and
	// kill_switch.enabled|window_size|threshold. Nested columns are named
	// with dots. A mapped column must exist.
	Map map[string]string
	// Agent, when set, is the agent id of every record and the agent column
	// is not read. When empty the file must have an agent column.
	Agent string
}

// Reader reads capture records from a Parquet file. It implements
// ingest.Reader. A Reader is not safe for concurrent use.
type Reader struct {
	name string
	ra   io.ReaderAt
	size int64
	file *parquet.File
	opt  Options

	scalars []*scalar          // leaf columns, one value per row
	byField [numFields]*scalar // the same, by field
	bodies  []*body            // request and response read from groups
	body    [numFields]*body   // request and response, text or group
	colName [numFields]string  // the column each field is read from
	cursors []*cursor          // every cursor, for row-group changes

	groups []parquet.RowGroup
	g      int   // next row group
	left   int64 // rows left in the current row group
	row    int64 // rows read so far
	rec    *ingest.Record
	err    error
	closed bool
}

// scalar is a field read from one leaf column, one value per row.
type scalar struct {
	typ   leafType
	cur   *cursor
	label string // how messages name it: `ts` or `ts (column "created_at")`

	v parquet.Value // this row's value; its bytes live until the next row

	lastB []byte // the last text converted, reused when repeated
	lastS string
}

// body is the request or the response: a text column (text) or a group
// serialized to JSON (tree).
type body struct {
	label string
	text  *scalar
	tree  *jnode
	asm   assembler
	null  bool // this row's group is null
}

// NewReader opens the Parquet file held by r (size bytes) and checks that it
// has the columns of a capture. name is the file name that positions and
// errors carry. Every error names the file; a missing required column (ts,
// request, and agent unless opt.Agent is set) is an error listing the
// columns present.
//
// The Reader calls r.ReadAt from more than one goroutine, as io.ReaderAt
// allows; the caller keeps r open until the Reader is done (read to the
// end, or closed).
func NewReader(r io.ReaderAt, size int64, name string, opt Options) (rd *Reader, err error) {
	defer func() {
		if p := recover(); p != nil {
			rd, err = nil, fmt.Errorf("%s: corrupt Parquet file (decoder panic: %v)", name, p)
		}
	}()
	if size < 12 {
		return nil, fmt.Errorf("%s: not a Parquet file: only %d bytes", name, size)
	}
	if err := checkTrailer(r, size); err != nil {
		return nil, fmt.Errorf("%s: not a readable Parquet file: %w", name, err)
	}
	f, err := parquet.OpenFile(r, size,
		parquet.SkipPageIndex(true),
		parquet.SkipBloomFilters(true),
		parquet.ReadBufferSize(64<<10),
	)
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable Parquet file: %w", name, err)
	}
	rd = &Reader{name: name, ra: r, size: size, file: f, opt: opt, groups: f.RowGroups()}
	if err := rd.resolve(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	// A Reader dropped before its end stops its page goroutines when
	// collected (the cursors do not refer back to the Reader).
	runtime.AddCleanup(rd, closeCursors, rd.cursors)
	return rd, nil
}

// checkTrailer checks the file's last 8 bytes (footer length, magic)
// before parquet.OpenFile trusts the length enough to allocate it.
func checkTrailer(r io.ReaderAt, size int64) error {
	var tail [8]byte
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return fmt.Errorf("reading the footer: %w", err)
	}
	if string(tail[4:]) == "PARE" {
		return errors.New("encrypted Parquet files are not supported")
	}
	if string(tail[4:]) != "PAR1" {
		return fmt.Errorf("no Parquet magic at the end (%q): truncated, or not Parquet", tail[4:])
	}
	if n := int64(binary.LittleEndian.Uint32(tail[:4])); n > size-12 {
		return fmt.Errorf("footer of %d bytes does not fit in a file of %d: truncated or corrupt", n, size)
	}
	return nil
}

// NumRows returns the number of rows the file declares (for progress).
func (r *Reader) NumRows() int64 { return r.file.NumRows() }

// aliases are other column names a field is found under when it is not
// mapped and its own name is absent.
var aliases = map[field]string{fBy: "deactivated_by"}

// agent sets rec.Agent from the row's agent, or, as in a JSONL gateway
// log, from its tenant when the agent is missing (a gateway's calls are
// keyed by tenant and API key).
func (r *Reader) agent(rec *ingest.Record) *rowError {
	a := r.byField[fAgent]
	if a != nil && !a.v.IsNull() {
		s, e := r.text(fAgent)
		if e != nil {
			return e
		}
		if s != "" {
			rec.Agent = s
			return nil
		}
	}
	t := r.byField[fTenant]
	if t != nil && !t.v.IsNull() {
		s, e := r.text(fTenant)
		if e != nil {
			return e
		}
		if s != "" {
			rec.Agent = s
			return nil
		}
	}
	switch {
	case a == nil:
		return r.bad(t.label, fmt.Errorf("%w, and there is no agent column to name the agent (give --agent)", errNoTenant))
	case a.v.IsNull():
		return r.bad(a.label, fmt.Errorf("%w (give --agent to name the agent of every record; a row with a tenant and no agent is the tenant's)", errNull))
	}
	return r.bad(a.label, fmt.Errorf("%w (a row with a tenant and no agent is the tenant's)", errEmptyID))
}

// resolve finds and checks the column of every field and plans its reading.
func (r *Reader) resolve() error {
	for _, k := range sortedKeys(r.opt.Map) {
		if _, ok := fieldByName(k); !ok {
			return fmt.Errorf("--map %s=%s: unknown field %q (want one of %s)", k, r.opt.Map[k], k, strings.Join(fieldNames[:], ", "))
		}
		if r.opt.Map[k] == "" {
			return fmt.Errorf("--map %s=: empty column name", k)
		}
	}
	root := r.file.Root()
	present := func() string { return leafPaths(root, 40) }

	noAgent := false // no agent column: the tenant stands in, when there is one
	for f := field(0); f < numFields; f++ {
		if f == fAgent && r.opt.Agent != "" {
			continue
		}
		name, mapped := columnName(f, r.opt.Map)
		col := lookup(root, name)
		if col == nil && !mapped {
			if a, ok := aliases[f]; ok {
				name, col = a, lookup(root, a)
			}
		}
		label := f.String()
		if name != f.String() {
			label = fmt.Sprintf("%s (column %q)", f, name)
		}
		var flat []flatMember
		if col == nil && classOf(f) == clsBody {
			flat = lookupFlat(root, name)
		}
		if col == nil && flat == nil {
			switch {
			case mapped:
				return fmt.Errorf("no column %q (mapped to %s by --map); columns: %s", name, f, present())
			case f == fTS:
				return fmt.Errorf(`no "ts" column (the request time; name another with --map ts=COLUMN); columns: %s`, present())
			case f == fAgent:
				noAgent = true // checked once the tenant's column is known
			case f == fRequest:
				return fmt.Errorf(`no "request" column (the request body; name another with --map request=COLUMN); columns: %s`, present())
			}
			continue
		}
		r.colName[f] = name
		if err := r.plan(f, label, col, flat); err != nil {
			return err
		}
	}
	if noAgent && r.byField[fTenant] == nil {
		return fmt.Errorf(`no "agent" column (give --agent NAME, or --map agent=COLUMN; a gateway log's "tenant" column stands in for it); columns: %s`, present())
	}
	if r.byField[fKillSwitch] != nil {
		for _, f := range []field{fKSEnabled, fKSWindow, fKSThreshold} {
			if r.byField[f] != nil {
				return fmt.Errorf("both %q (JSON text) and %q hold kill_switch settings", r.colName[fKillSwitch], r.colName[f])
			}
		}
	}
	for _, s := range r.scalars {
		r.cursors = append(r.cursors, s.cur)
	}
	for _, b := range r.bodies {
		r.cursors = append(r.cursors, b.asm.cur...)
	}
	return nil
}

// plan checks the column (or flattened columns) of field f and sets up its
// reading.
func (r *Reader) plan(f field, label string, col *parquet.Column, flat []flatMember) error {
	cls := classOf(f)
	if col != nil && col.Leaf() {
		if underRepeated(col) {
			return fmt.Errorf("column %q repeats (holds a list); %s needs one value per row", pathOf(col), f)
		}
		typ := leafTypeOf(col)
		if f == fKillSwitch {
			cls = clsText // JSON text, parsed per row
		}
		if !typ.accepts(cls) {
			want := cls.want()
			if f == fKillSwitch {
				want = "a string holding the settings as a JSON object, or a group"
			}
			return fmt.Errorf("column %q has type %s; %s needs %s", pathOf(col), typ, f, want)
		}
		s := &scalar{typ: typ, cur: newCursor(col), label: label}
		r.scalars = append(r.scalars, s)
		r.byField[f] = s
		if cls == clsBody {
			r.body[f] = &body{label: label, text: s}
			s.cur.prefetch = true
		}
		return nil
	}
	// A group, or an object flattened into dotted columns.
	switch f {
	case fKillSwitch:
		// Its members are read as kill_switch.enabled, … ; anything else in
		// the group is a misspelling that must not pass silently.
		for _, k := range col.Columns() {
			switch k.Name() {
			case "enabled", "window_size", "threshold":
			default:
				return fmt.Errorf("group %q has a member %q (want enabled, window_size, threshold)", pathOf(col), k.Name())
			}
		}
		return nil
	case fRequest, fResponse:
	default:
		return fmt.Errorf("column %q is a group; %s needs %s", pathOf(col), f, cls.want())
	}
	var p planner
	var tree *jnode
	var err error
	if col != nil {
		if col.MaxRepetitionLevel() > 1 || col.MaxRepetitionLevel() == 1 && !col.Repeated() {
			return fmt.Errorf("column %q is inside a list; %s needs one value per row", pathOf(col), f)
		}
		tree, err = p.value(col)
	} else {
		tree, err = p.flat(r.colName[f], flat)
	}
	if err != nil {
		return err
	}
	if f == fRequest && tree.kind != jObject && tree.kind != jMap {
		return fmt.Errorf("column %q is a list; request needs a JSON object (a string column or a struct)", tree.path)
	}
	b := &body{label: label, tree: tree}
	for _, c := range p.leaves {
		b.asm.cur = append(b.asm.cur, newCursor(c))
	}
	r.bodies = append(r.bodies, b)
	r.body[f] = b
	return nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Scan advances to the next row. It returns false at the end of the file
// or when the file turns out to be corrupt (see Err).
func (r *Reader) Scan() (ok bool) {
	if r.err != nil || r.closed {
		return false
	}
	defer func() {
		if p := recover(); p != nil {
			r.fail(max(r.row, 1), fmt.Errorf("decoder panic: %v", p))
			ok = false
		}
	}()
	for r.left <= 0 {
		if r.g >= len(r.groups) {
			r.closeCursors()
			r.rec = nil
			return false
		}
		rg := r.groups[r.g]
		r.g++
		r.left = rg.NumRows()
		if r.left <= 0 {
			continue
		}
		meta := r.file.Metadata().RowGroups[r.g-1].Columns
		for _, c := range r.cursors {
			err := checkChunk(r.ra, r.size, &meta[c.col.Index()], c.path)
			if err == nil {
				err = c.open(rg)
			}
			if err != nil {
				r.fail(r.row+1, fmt.Errorf("row group %d: %w", r.g, err))
				return false
			}
		}
	}
	r.left--
	r.row++
	if err := r.readRow(); err != nil {
		r.fail(r.row, err)
		return false
	}
	r.rec = r.convert()
	return true
}

// fail ends the stream with an error naming the file and the row being
// read.
func (r *Reader) fail(row int64, err error) {
	r.closeCursors()
	r.rec = nil
	pos := ingest.Pos{File: r.name, Kind: ingest.PosRow, N: row}
	r.err = fmt.Errorf("%s: corrupt Parquet file: %w", pos, err)
}

func (r *Reader) closeCursors() { closeCursors(r.cursors) }

func closeCursors(cs []*cursor) {
	for _, c := range cs {
		c.close()
	}
}

// Close stops reading: it releases the pages held and stops the goroutines
// reading pages ahead. A Reader read to its end needs no Close; after
// Close, Scan returns false.
func (r *Reader) Close() error {
	r.closeCursors()
	r.closed, r.rec = true, nil
	return nil
}

// Record returns the current record; each Scan makes a new one.
func (r *Reader) Record() *ingest.Record { return r.rec }

// Err returns the error that ended the stream: a corrupt or truncated file.
// Bad values in a row are not errors here but records with Err set.
func (r *Reader) Err() error { return r.err }

// readRow advances every column by one row.
func (r *Reader) readRow() error {
	for _, s := range r.scalars {
		v, err := s.cur.next()
		if err != nil {
			return err
		}
		if v.RepetitionLevel() != 0 {
			return fmt.Errorf("column %q: %w", s.cur.path, errStructure)
		}
		s.v = v
	}
	for _, b := range r.bodies {
		null, err := b.asm.row(b.tree)
		if err != nil {
			return err
		}
		b.null = null
	}
	return nil
}

// rowError is a bad value in the current row.
type rowError struct {
	label string
	err   error
}

func (e *rowError) Error() string { return e.label + ": " + e.err.Error() }
func (e *rowError) Unwrap() error { return e.err }

func (r *Reader) bad(label string, err error) *rowError { return &rowError{label, err} }

// convert builds the record of the current row.
func (r *Reader) convert() *ingest.Record {
	pos := ingest.Pos{File: r.name, Kind: ingest.PosRow, N: r.row}
	rec := &ingest.Record{Pos: pos, Status: 200}
	if err := r.fill(rec); err != nil {
		return &ingest.Record{Pos: pos, Err: &ingest.SyntaxError{Pos: pos, Msg: err.Error(), Err: err.err}}
	}
	return rec
}

var (
	errNull      = errors.New("is null")
	errEmptyID   = errors.New("is empty")
	errNoTenant  = errors.New("is null or empty")
	errNoRequest = errors.New("is null (a row is a request, or a control record with event)")
)

// text converts field f of this row; "" when absent or null.
func (r *Reader) text(f field) (string, *rowError) {
	s := r.byField[f]
	if s == nil || s.v.IsNull() {
		return "", nil
	}
	if s.typ.isBytes() && s.typ.logical != lUUID {
		b := s.v.ByteArray()
		if s.lastB != nil && bytes.Equal(b, s.lastB) {
			return s.lastS, nil
		}
		if !utf8.Valid(b) {
			return "", r.bad(s.label, errNotUTF8)
		}
		s.lastB = append(s.lastB[:0], b...)
		s.lastS = string(b)
		return s.lastS, nil
	}
	t, err := s.typ.text(s.v)
	if err != nil {
		return "", r.bad(s.label, err)
	}
	return t, nil
}

// number converts field f of this row; ok is false when absent or null.
func (r *Reader) number(f field) (x float64, ok bool, e *rowError) {
	s := r.byField[f]
	if s == nil || s.v.IsNull() {
		return 0, false, nil
	}
	x, err := s.typ.number(s.v)
	if err != nil {
		return 0, false, r.bad(s.label, err)
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, false, r.bad(s.label, fmt.Errorf("%v is not a finite number", x))
	}
	return x, true, nil
}

// count converts an integer field that must be ≥ 0.
func (r *Reader) count(f field, what string) (int64, bool, *rowError) {
	x, ok, e := r.number(f)
	if e != nil || !ok {
		return 0, ok, e
	}
	if x < 0 || x != math.Trunc(x) || x > 1<<53 {
		return 0, false, r.bad(r.byField[f].label, fmt.Errorf("%v is not %s", x, what))
	}
	return int64(x), true, nil
}

// fill sets rec from the current row, or returns the first bad value, in a
// fixed order: ts, agent, control, request, response, status, strings,
// numbers, label.
func (r *Reader) fill(rec *ingest.Record) *rowError {
	ts := r.byField[fTS]
	if ts.v.IsNull() {
		return r.bad(ts.label, errNull)
	}
	t, err := ts.typ.time(ts.v)
	if err != nil {
		return r.bad(ts.label, err)
	}
	rec.TS = t

	if r.opt.Agent != "" {
		rec.Agent = r.opt.Agent
	} else if e := r.agent(rec); e != nil {
		return e
	}

	if ev, e := r.text(fEvent); e != nil {
		return e
	} else if ev != "" {
		c, e := r.control(ev)
		if e != nil {
			return e
		}
		rec.Control = c
		return nil
	}

	req := r.body[fRequest]
	b, e := r.bodyBytes(req)
	if e != nil {
		return e
	}
	if b == nil {
		return r.bad(req.label, errNoRequest)
	}
	if req.text != nil {
		if b, err = requestText(b); err != nil {
			return r.bad(req.label, err)
		}
	}
	rec.Request = b

	if resp := r.body[fResponse]; resp != nil {
		if rec.Response, e = r.bodyBytes(resp); e != nil {
			return e
		}
	}

	if x, ok, e := r.number(fStatus); e != nil {
		return e
	} else if ok {
		if x != math.Trunc(x) || x < 0 || x > 999 {
			return r.bad(r.byField[fStatus].label, fmt.Errorf("%v is not an HTTP status", x))
		}
		rec.Status = int(x)
	} else {
		rec.NoStatus = true
	}

	for _, s := range []struct {
		f   field
		dst *string
	}{
		{fID, &rec.ID}, {fProvider, &rec.Provider}, {fEndpoint, &rec.Endpoint}, {fModel, &rec.Model},
		{fTenant, &rec.Tenant}, {fAPIKeyID, &rec.APIKeyID}, {fWorkflow, &rec.Workflow}, {fSession, &rec.Session},
	} {
		if *s.dst, e = r.text(s.f); e != nil {
			return e
		}
	}

	if x, ok, e := r.number(fLatency); e != nil {
		return e
	} else if ok {
		if x < 0 || x >= 1<<62 {
			return r.bad(r.byField[fLatency].label, fmt.Errorf("%v is not a duration in milliseconds", x))
		}
		rec.LatencyMS, rec.HasLatency = int64(x), true
	}
	for _, t := range []struct {
		f   field
		dst *int64
	}{{fTokensIn, &rec.TokensIn}, {fTokensOut, &rec.TokensOut}} {
		n, ok, e := r.count(t.f, "a token count")
		if e != nil {
			return e
		}
		if ok {
			*t.dst, rec.HasTokens = n, true
		}
	}
	if x, ok, e := r.number(fCost); e != nil {
		return e
	} else if ok {
		if x < 0 {
			return r.bad(r.byField[fCost].label, fmt.Errorf("%v is not a cost", x))
		}
		rec.CostUSD, rec.HasCost = x, true
	}

	if l, e := r.text(fLabel); e != nil {
		return e
	} else if rec.Label, err = ingest.ParseLabel(l); err != nil {
		return r.bad(r.byField[fLabel].label, err)
	}
	return nil
}

// bodyBytes returns a copy of this row's request or response bytes: the
// text of a string column, or the JSON of a group. nil when null.
func (r *Reader) bodyBytes(b *body) ([]byte, *rowError) {
	if b.text != nil {
		if b.text.v.IsNull() {
			return nil, nil
		}
		v := b.text.v.ByteArray()
		if !utf8.Valid(v) {
			return nil, r.bad(b.label, errNotUTF8)
		}
		return append(make([]byte, 0, len(v)), v...), nil
	}
	if b.asm.bad != nil {
		return nil, r.bad(b.label, b.asm.bad)
	}
	if b.null {
		return nil, nil
	}
	return append(make([]byte, 0, len(b.asm.out)), b.asm.out...), nil
}

// requestText checks that a request column holds a JSON object. A JSON
// string holding the object (a body encoded twice by an export) is
// unwrapped.
func requestText(b []byte) ([]byte, error) {
	t := bytes.TrimLeft(b, " \t\r\n")
	if len(t) == 0 {
		return nil, errors.New("is empty (want a JSON object)")
	}
	if t[0] == '"' {
		var p fastjson.Parser
		v, err := p.ParseBytes(t)
		if err != nil {
			return nil, errors.New("is not JSON: " + ingest.NotJSON(t))
		}
		inner := v.GetStringBytes()
		if u := bytes.TrimLeft(inner, " \t\r\n"); len(u) == 0 || u[0] != '{' {
			return nil, fmt.Errorf("is a JSON string of %d bytes, not a JSON object", len(inner))
		}
		if err := fastjson.ValidateBytes(inner); err != nil {
			return nil, errors.New("is not a JSON object: " + ingest.NotJSON(inner))
		}
		return append([]byte(nil), inner...), nil
	}
	if t[0] != '{' {
		return nil, fmt.Errorf("is not a JSON object (%d bytes)", len(t))
	}
	if err := fastjson.ValidateBytes(b); err != nil {
		return nil, errors.New("is not a JSON object: " + ingest.NotJSON(b))
	}
	return b, nil
}

// control builds the control record of event ev (SPEC §3).
func (r *Reader) control(ev string) (*ingest.Control, *rowError) {
	var err error
	c := &ingest.Control{By: "manual"}
	if ev == "kill_switch" {
		// A kill the live system made, as the JSONL reader reads it: a
		// deactivation by the kill switch (ground truth for sweeps).
		c.Event, c.By = ingest.ControlDeactivate, "kill_switch"
	} else if c.Event, err = ingest.ParseControlEvent(ev); err != nil {
		return nil, r.bad(r.byField[fEvent].label, err)
	}
	if by, e := r.text(fBy); e != nil {
		return nil, e
	} else if by != "" {
		c.By = by
	}
	ks := &c.KillSwitch
	if s := r.byField[fKillSwitch]; s != nil && !s.v.IsNull() {
		text, e := r.text(fKillSwitch)
		if e != nil {
			return nil, e
		}
		if *ks, err = ingest.ParseKillSwitch([]byte(text)); err != nil {
			return nil, r.bad(s.label, err)
		}
	}
	if s := r.byField[fKSEnabled]; s != nil && !s.v.IsNull() {
		b, err := s.typ.boolean(s.v)
		if err != nil {
			return nil, r.bad(s.label, err)
		}
		ks.Enabled = &b
	}
	if x, ok, e := r.number(fKSWindow); e != nil {
		return nil, e
	} else if ok {
		if x != math.Trunc(x) || x < 1 || x > 100000 {
			return nil, r.bad(r.byField[fKSWindow].label, fmt.Errorf("want an integer from 1 to 100000, got %v", x))
		}
		n := int(x)
		ks.WindowSize = &n
	}
	if x, ok, e := r.number(fKSThreshold); e != nil {
		return nil, e
	} else if ok {
		if x < 0 {
			return nil, r.bad(r.byField[fKSThreshold].label, fmt.Errorf("want a number ≥ 0, got %v", x))
		}
		ks.Threshold = &x
	}
	if c.Event == ingest.ControlConfig && ks.Enabled == nil && ks.WindowSize == nil && ks.Threshold == nil {
		return nil, r.bad(r.byField[fEvent].label, errors.New(`"config" without kill_switch settings`))
	}
	return c, nil
}
