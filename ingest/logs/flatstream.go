package logs

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/killswitch/killswitch/ingest"
)

// Flat spans (otel-console, phoenix) in an input the source planned in
// units (planUnits: a file, or spooled, of several documents or a
// top-level array) of flatStreamMin bytes or more are read in two passes, as OTLP documents are (see
// otelstream.go): the first decodes each unit and keeps only its light
// view (its order among the records, the OpenInference tree's entry, the
// GenAI agent keys its ancestors give, a duplicate's first position), and
// the second re-reads and maps one unit at a time, in the order readAll
// yields them. A Phoenix page ({"data": [...]}) that is the whole input
// is read so too, a unit per span (scanPage); an input with a page among
// other units, or one that is not planned, is read whole by readAll. A
// page larger than the limit (--max-line) is read a span at a time
// whatever its size, so that the limit bounds one span, not the page.

// flatStreamMin is the size from which a planned flat span input is read
// in two passes: each span is decoded twice, which pays (in memory, and in
// the collector's time: see docs/formats.md) once the decoded spans would
// be large; a smaller input is read whole. Tests lower it.
var flatStreamMin int64 = 16 << 20

// flatKind is what the first pass found a unit to be.
type flatKind uint8

const (
	flatBad    flatKind = iota // over the limit, or not JSON: a malformed record
	flatDup                    // a span printed again
	flatIsSpan                 // a span (well-formed or not: flatSpan says)
)

// flatItem is the first pass's view of one unit.
type flatItem struct {
	ref  int32 // index in the source's refs
	kind flatKind
	// span: index among the spans; flatDup: the item of the first print.
	n    int32
	oi   int32 // index in the OpenInference tree; -1 for a GenAI span
	at   time.Time
	i    int // the tie-break of readAll's order
	span bool
}

// flatStream is both passes over a planned flat span input.
type flatStream struct {
	c     *otel
	refs  []unitRef
	page  bool // the refs are the spans of a Phoenix page, data[i]
	items []flatItem
	oi    spanPlan
	up    inherited
	order []int32
	n     int
}

// planFlat reads the first pass of r's input; nil when it is to be read
// whole (nothing is consumed then).
func planFlat(r *flatReader) *flatStream {
	s := r.src
	st := &flatStream{c: &otel{src: s, opt: r.opt}, up: newInherited()}
	if s.mode == modeUndecided && (s.size >= flatStreamMin || s.size > int64(s.max)) {
		st.refs, st.page = s.scanPage()
	}
	if !st.page {
		if s.mode == modeUndecided {
			s.decide()
		}
		if !s.planned || s.size < flatStreamMin {
			return nil
		}
		st.refs = s.refs
	}
	if len(st.refs) == 0 {
		return nil
	}
	oiTree := newLightTree(keyAttrs(oiAgentKeys))
	seen := map[string]int32{}
	nspans, nprob := 0, 0
	for k, ref := range st.refs {
		it := flatItem{ref: int32(k), oi: -1, i: len(st.items)}
		if ref.long > 0 {
			st.items = append(st.items, it)
			nprob++
			continue
		}
		v, err := st.decode(ref)
		if err != nil {
			return nil
		}
		if v == nil {
			st.items = append(st.items, it) // not JSON
			nprob++
			continue
		}
		if page, ok := v.(obj); ok && !st.page && page["context"] == nil && isList(page["data"]) {
			return nil // readAll takes a page's spans apart; a page's spans it does not
		}
		sp := flatSpan(ingest.Pos{}, v)
		if id := str(sp.o["spanId"]); sp.err == nil && id != "" {
			key := str(sp.o["traceId"]) + "/" + id
			if first, dup := seen[key]; dup {
				it.kind, it.n = flatDup, first
				st.items = append(st.items, it)
				nprob++
				continue
			}
			seen[key] = int32(len(st.items))
		}
		it.kind, it.n, it.span = flatIsSpan, int32(nspans), true
		st.up.add(int32(nspans), sp)
		switch {
		case sp.err != nil:
		case sp.attrs[oiKindAttr] != nil:
			t := oiLightSpan(sp)
			it.oi, it.at = int32(len(oiTree.spans)), t.start
			oiTree.add(t)
		default:
			start, serr := unixNano(sp.o["startTimeUnixNano"])
			if sp.notCall() != "" || serr == nil {
				it.at = start
			}
		}
		st.items = append(st.items, it)
		nspans++
	}
	// readAll's order (otel.records): by time, then by i — a problem's
	// place among the items, a span's index among the spans after every
	// problem — then problems before spans, each in input order.
	spans := make([]int, 0, nspans)
	for j := range st.items {
		if st.items[j].span {
			st.items[j].i = nprob + int(st.items[j].n)
			spans = append(spans, j)
		}
	}
	st.oi = oiTree.plan(false)
	st.up.resolve(nspans, func(i int) bool { return st.items[spans[i]].oi < 0 })
	st.order = make([]int32, len(st.items))
	for j := range st.order {
		st.order[j] = int32(j)
	}
	if st.page {
		// The source is read: positions are those of one document.
		s.mode, s.done = modeDocs, true
	}
	slices.SortStableFunc(st.order, func(a, b int32) int {
		x, y := &st.items[a], &st.items[b]
		if c := x.at.Compare(y.at); c != 0 {
			return c
		}
		if x.i != y.i {
			return x.i - y.i
		}
		// readAll lists the problems before the spans.
		if x.span != y.span {
			if y.span {
				return -1
			}
			return 1
		}
		return 0
	})
	return st
}

// decode reads unit ref again and decodes what the first pass needs of
// it (lightSpanTree): nil, nil when it is not JSON; the error is a read
// error.
func (st *flatStream) decode(ref unitRef) (any, error) {
	raw, err := st.c.src.readElem(elemRef{off: ref.off, n: ref.n})
	if err != nil {
		return nil, err
	}
	if v, ok := lightSpanTree(raw); ok {
		return v, nil
	}
	v, derr := decodeTree(raw)
	if derr != nil {
		return nil, nil
	}
	return v, nil
}

// lightSpanTree decodes raw, an object, as decodeTree does, but for what
// the first pass does not read: the value of an attribute firstPassAttr
// does not name is true, and an event keeps its name only (its other
// members are true). false when raw is not an object the strict scanner
// takes (decodeTree then decides).
func lightSpanTree(raw []byte) (any, bool) {
	return objectMembers(raw, func(key string, val []byte) (any, bool) {
		switch {
		case key == "attributes" && val[0] == '{':
			return members(val, 0, func(k string, v []byte) (any, bool) {
				if !firstPassAttr(k) {
					return true, true
				}
				t, err := decodeTree(v)
				return t, err == nil
			})
		case key == "events" && val[0] == '[':
			var evs []any
			for _, e := range arrayElements(val) {
				if e[0] != '{' {
					evs = append(evs, true)
					continue
				}
				ev, ok := members(e, 0, func(k string, v []byte) (any, bool) {
					if k != "name" {
						return true, true
					}
					t, err := decodeTree(v)
					return t, err == nil
				})
				if !ok {
					return nil, false
				}
				evs = append(evs, ev)
			}
			if evs == nil {
				evs = []any{}
			}
			return evs, true
		}
		t, err := decodeTree(val)
		return t, err == nil
	})
}

// objectMembers decodes raw with members when it is an object the strict
// scanner takes; false when it is not.
func objectMembers(raw []byte, value func(key string, raw []byte) (any, bool)) (obj, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' || strictValue(raw, i, 0) < 0 {
		return nil, false
	}
	return members(raw, i, value)
}

// members decodes the object at b[i] (valid: the strict scanner took it)
// with value for each member's value; the last of a repeated key wins, as
// in decodeTree.
func members(b []byte, i int, value func(key string, raw []byte) (any, bool)) (obj, bool) {
	o := obj{}
	for i = skipSpace(b, i+1); b[i] != '}'; {
		end := strictString(b, i)
		key := validString(b[i:end])
		i = skipSpace(b, skipSpace(b, end)+1) // past ':'
		vend := strictValue(b, i, 1)
		v, ok := value(key, b[i:vend])
		if !ok {
			return nil, false
		}
		o[key] = v
		if i = skipSpace(b, vend); b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return o, true
}

// firstPassAttr reports whether planFlat's first pass reads attribute k:
// the span kind, what says whether a GenAI span is a call, the agent
// keys, and what oiLightSpan flattens the OpenInference agent keys from
// (a key itself, one of its dotted prefixes, or "").
func firstPassAttr(k string) bool {
	if k == "" || k == oiKindAttr || k == "gen_ai.operation.name" || k == "llm.request.type" || slices.Contains(agentKeys[:], k) {
		return true
	}
	for _, ak := range oiAgentKeys {
		if k == ak.attr || strings.HasPrefix(ak.attr, k+".") {
			return true
		}
	}
	return false
}

// pos is the position of unit ref.
func (st *flatStream) pos(ref unitRef) ingest.Pos {
	if st.page {
		return st.c.src.pos(unit{line: ref.line, index: -1}, "data["+strconv.Itoa(ref.index)+"]")
	}
	return st.c.src.pos(unit{line: ref.line, index: ref.index}, "")
}

// scanPage plans the spans of a Phoenix page, an input that is one
// object with a "data" array and no "context" (readAll's test), each
// member once, valid JSON that the strict scanner takes: a unit per
// element of data (index: the element's), at the object's line. false,
// with nothing consumed, for anything else.
func (s *source) scanPage() (refs []unitRef, ok bool) {
	w, line := s.open()
	if w == nil || w.skip() != '{' {
		return nil, false
	}
	seen := map[string]bool{}
	ok = w.members(0, func(key string) bool {
		if seen[key] || key == "context" {
			return false
		}
		seen[key] = true
		if key != "data" {
			_, ok := w.take(1)
			return ok
		}
		if w.buf[w.i] != '[' {
			return false
		}
		return w.elems(1, func(n int) bool {
			ref, ok := w.unit(2, s.max)
			ref.line, ref.index = line, n
			refs = append(refs, ref)
			return ok
		})
	})
	if !ok || !seen["data"] || !w.atEnd() {
		return nil, false
	}
	return refs, true
}

// next returns the next record of the second pass; nil at the end, with
// the read error that ended the input early, if any.
func (st *flatStream) next() (*ingest.Record, error) {
	if st.n >= len(st.order) {
		return nil, nil
	}
	it := st.items[st.order[st.n]]
	st.n++
	ref := st.refs[it.ref]
	pos := st.pos(ref)
	switch it.kind {
	case flatDup:
		first := st.pos(st.refs[st.items[it.n].ref])
		return skip(pos, "span printed again (the same trace and span id as "+first.String()+"): counted once"), nil
	case flatBad:
		if ref.long > 0 {
			return bad(pos, "item of %d bytes is larger than the %d-byte limit (--max-line): skipped", ref.long, st.c.src.max), nil
		}
	}
	if it.oi >= 0 {
		flags := st.oi.flags[it.oi]
		switch {
		case flags&lightCall == 0:
			return skip(pos, st.oi.strs[st.oi.skip[it.oi]]), nil
		case flags&lightWrapped != 0:
			return skip(pos, oiWrapper(nil)), nil
		}
	}
	raw, err := st.c.src.readElem(elemRef{off: ref.off, n: ref.n})
	if err != nil {
		st.n = len(st.order)
		return nil, fmt.Errorf("%s: %w", st.c.src.name, err)
	}
	v, derr := decodeTree(raw)
	if it.kind == flatBad {
		if derr == nil {
			return st.changed(pos)
		}
		return bad(pos, "%v", derr), nil
	}
	if derr != nil {
		return st.changed(pos)
	}
	sp := flatSpan(pos, v)
	if (it.oi >= 0) != (sp.err == nil && sp.attrs[oiKindAttr] != nil) {
		return st.changed(pos)
	}
	if it.oi >= 0 {
		t := oiSpan(pos, sp, int(it.oi))
		return spanRecords([]*tspan{t}, st.oi.ancestors(int(it.oi)), st.c.opt, oiBuild)[0].rec, nil
	}
	return st.c.span(sp, pos, st.up.lookup(int(it.n))).rec, nil
}

// changed ends the stream: a unit reads otherwise than in the first pass.
func (st *flatStream) changed(pos ingest.Pos) (*ingest.Record, error) {
	st.n = len(st.order)
	return nil, fmt.Errorf("%s: the file changed between its two readings (%s)", st.c.src.name, pos)
}
