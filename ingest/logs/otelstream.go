package logs

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/killswitch/killswitch/ingest"
)

// An OTLP document in a regular file is read in two passes (see
// docstream.go) when it is one object with one "resourceSpans" (or
// "resource_spans") list whose spans the fast walk (otelSpansFast) reads
// without a problem, and no member that walk reads appears twice. The
// first pass walks resourceSpans[].scopeSpans[].spans[] through the
// window, decodes each span as the fast walk does and keeps its place and
// light view: for an OpenInference span its entry in a lightTree (the
// OpenInference tree holds those spans only), for any other span its skip
// reason, or, for a call, the GenAI agent keys its ancestors give (over
// every span of the document, as otel.convert looks them up). The second
// pass re-reads each call and builds its record, in the document's record
// order (start time, then document order). Resource attributes are held
// per resource.

// otelLight is the first pass's view of one span.
type otelLight struct {
	ref        elemRef
	ri, si, pi int32 // resourceSpans, scopeSpans and spans index
	oi         int32 // index in the OpenInference tree; -1 for a GenAI span
	skip       int32 // a GenAI span's skip reason (0: a call)
	long       int64 // the span's length when it is over the limit (not read)
}

// otelStream is both passes over one OTLP document.
type otelStream struct {
	c     *otel
	line  int64
	rsKey string
	ssKey []string // per resource
	res   []obj    // per resource
	spans []otelLight
	oi    spanPlan
	// GenAI: what each call span's ancestors give its agent keys.
	up    inherited
	order []int32
	n     int
}

// inherited is, for the GenAI spans of a document read in two passes,
// what span.agent's lookup finds on each span's ancestors: while the first
// pass runs, per span its id, parent id and agent key values (add); then,
// per call span, the value each key has on its nearest ancestor (resolve).
type inherited struct {
	byID    map[string]int32
	parents []string
	vals    []int32 // len(agentKeys) per span
	inh     []int32 // len(agentKeys) per span
	strs    interner
}

func newInherited() inherited {
	in := inherited{byID: map[string]int32{}}
	in.strs.add("")
	return in
}

// add adds span i (the spans are added in order, from 0).
func (in *inherited) add(i int32, s *span) {
	if id := str(s.o["spanId"]); id != "" {
		if _, dup := in.byID[id]; !dup {
			in.byID[id] = i
		}
	}
	in.parents = append(in.parents, s.parent)
	for _, k := range agentKeys {
		in.vals = append(in.vals, in.strs.add(str(s.attrs[k])))
	}
}

// resolve sets, for each span call(i) says is a GenAI call, the value
// each agent key has on its nearest ancestor (as byIDLookup walks them:
// at most maxAncestors levels up), then drops the ids.
func (in *inherited) resolve(n int, call func(i int) bool) {
	k := len(agentKeys)
	in.inh = make([]int32, n*k)
	for i := range n {
		if !call(i) {
			continue
		}
		inh := in.inh[i*k : (i+1)*k]
		p, ok := in.byID[in.parents[i]]
		for depth := 1; ok && depth <= maxAncestors; depth++ {
			for j, v := range in.vals[int(p)*k : (int(p)+1)*k] {
				if inh[j] == 0 {
					inh[j] = v
				}
			}
			p, ok = in.byID[in.parents[p]]
		}
	}
	in.byID, in.parents, in.vals = nil, nil, nil
}

// lookup is span.agent's lookup for call span i: a key on the span
// itself, else what its ancestors give.
func (in *inherited) lookup(i int) func(t *span, key string) string {
	k := len(agentKeys)
	inh := in.inh[i*k : (i+1)*k]
	return func(t *span, key string) string {
		if v := str(t.attrs[key]); v != "" {
			return v
		}
		return in.strs.strs[inh[slices.Index(agentKeys[:], key)]]
	}
}

// planOTel reads the first pass of the OTLP document in the file; nil
// when the input is to be read whole.
func planOTel(c *otel) *otelStream {
	w, line := c.src.open()
	if w == nil || w.skip() != '{' {
		return nil
	}
	st := &otelStream{c: c, line: line, up: newInherited()}
	oiTree := newLightTree(keyAttrs(oiAgentKeys))
	var starts []time.Time
	seen := map[string]bool{}
	ok := w.members(0, func(key string) bool {
		if key != "resourceSpans" && key != "resource_spans" {
			_, ok := w.take(1)
			return ok
		}
		if st.rsKey != "" || w.buf[w.i] != '[' {
			return false // a second list, or one the fast walk refuses
		}
		st.rsKey = key
		return w.elems(1, func(ri int) bool {
			if w.buf[w.i] != '{' {
				return false
			}
			st.res = append(st.res, obj{})
			st.ssKey = append(st.ssKey, "")
			clear(seen)
			return w.members(2, func(key string) bool {
				if seen[key] {
					return false
				}
				seen[key] = true
				switch key {
				case "resource":
					hasAttrs := false
					return w.buf[w.i] == '{' && w.members(3, func(key string) bool {
						raw, ok := w.take(4)
						if !ok || key != "attributes" {
							return ok
						}
						if hasAttrs {
							return false // a second attribute list
						}
						hasAttrs = true
						ow := otlpWalk{b: raw, ok: true}
						st.res[ri], _ = ow.attributes(0)
						return ow.ok
					})
				case "scopeSpans", "instrumentationLibrarySpans":
					if st.ssKey[ri] != "" || w.buf[w.i] != '[' {
						return false
					}
					st.ssKey[ri] = key
					return w.elems(3, func(si int) bool {
						if w.buf[w.i] != '{' {
							return false
						}
						hasSpans := false
						return w.members(4, func(key string) bool {
							if key != "spans" {
								_, ok := w.take(5)
								return ok
							}
							if hasSpans || w.buf[w.i] != '[' {
								return false
							}
							hasSpans = true
							return w.elems(5, func(pi int) bool {
								at := w.base + int64(w.i)
								if w.buf[w.i] != '{' {
									return false
								}
								ref, ok := w.unit(6, c.src.max)
								if !ok {
									return false
								}
								if ref.long > 0 {
									// Over the limit: read past, a malformed record
									// first in time order (it has no known start).
									st.up.add(int32(len(st.spans)), &span{o: obj{}, attrs: obj{}})
									st.spans = append(st.spans, otelLight{ri: int32(ri), si: int32(si), pi: int32(pi), oi: -1, long: ref.long})
									starts = append(starts, time.Time{})
									return true
								}
								raw := w.buf[w.i-ref.n : w.i]
								s, ok := decodeOTLPSpan(raw)
								if !ok {
									return false
								}
								l := otelLight{ref: elemRef{off: at, n: len(raw)}, ri: int32(ri), si: int32(si), pi: int32(pi), oi: -1}
								st.up.add(int32(len(st.spans)), s)
								if s.attrs[oiKindAttr] != nil {
									t := oiLightSpan(s)
									l.oi = int32(len(oiTree.spans))
									oiTree.add(t)
									starts = append(starts, t.start)
								} else {
									start, _ := unixNano(s.o["startTimeUnixNano"])
									l.skip = st.up.strs.add(s.notCall())
									starts = append(starts, start)
								}
								st.spans = append(st.spans, l)
								return true
							})
						})
					})
				}
				_, ok := w.take(3)
				return ok
			})
		})
	})
	if !ok || !w.atEnd() || len(st.spans) == 0 {
		return nil // an empty document is a record of its own: read it whole
	}
	st.oi = oiTree.plan(false)
	st.up.resolve(len(st.spans), func(i int) bool { return st.spans[i].oi < 0 && st.spans[i].skip == 0 && st.spans[i].long == 0 })
	st.order = make([]int32, len(st.spans))
	for i := range st.order {
		st.order[i] = int32(i)
	}
	slices.SortStableFunc(st.order, func(a, b int32) int {
		if c := starts[a].Compare(starts[b]); c != 0 {
			return c
		}
		return int(a - b)
	})
	return st
}

// decodeOTLPSpan decodes the span raw as the fast walk does; false for
// one it leaves to spansStd.
func decodeOTLPSpan(raw []byte) (*span, bool) {
	ow := otlpWalk{b: raw, ok: true}
	s, _ := ow.span(0)
	return s, ow.ok && s != nil
}

// next returns the next record of the second pass; nil at the end, with
// the read error that ended the input early, if any.
func (st *otelStream) next() (*ingest.Record, error) {
	if st.n >= len(st.order) {
		return nil, nil
	}
	i := int(st.order[st.n])
	st.n++
	l := st.spans[i]
	path := fmt.Sprintf("%s[%d].%s[%d].spans[%d]", st.rsKey, l.ri, st.ssKey[l.ri], l.si, l.pi)
	pos := st.c.src.pos(unit{line: st.line, index: -1}, path)
	if l.oi >= 0 {
		flags := st.oi.flags[l.oi]
		switch {
		case flags&lightCall == 0:
			return skip(pos, st.oi.strs[st.oi.skip[l.oi]]), nil
		case flags&lightWrapped != 0:
			return skip(pos, oiWrapper(nil)), nil
		}
	} else if l.long > 0 {
		return bad(pos, "item of %d bytes is larger than the %d-byte limit (--max-line): skipped", l.long, st.c.src.max), nil
	} else if l.skip != 0 {
		return skip(pos, st.up.strs.strs[l.skip]), nil
	}
	raw, err := st.c.src.readElem(l.ref)
	if err != nil {
		st.n = len(st.order)
		return nil, fmt.Errorf("%s: %w", st.c.src.name, err)
	}
	s, ok := decodeOTLPSpan(raw)
	if !ok || (l.oi >= 0) != (s.attrs[oiKindAttr] != nil) {
		st.n = len(st.order)
		return nil, fmt.Errorf("%s: the file changed between its two readings (%s)", st.c.src.name, pos)
	}
	s.res, s.path = st.res[l.ri], path
	if l.oi >= 0 {
		t := oiSpan(pos, s, i)
		return spanRecords([]*tspan{t}, st.oi.ancestors(int(l.oi)), st.c.opt, oiBuild)[0].rec, nil
	}
	return st.c.span(s, pos, st.up.lookup(i)).rec, nil
}

// oiLightSpan is what the light view needs of oiSpan(pos, s, …): ids,
// name, start, kind, and of the flattened attributes those the agent is
// looked up by, flattened from the attributes that can write them (a name
// itself, one of its dotted prefixes, or "", which adds no prefix) in the
// order flattenAttrs writes them.
func oiLightSpan(s *span) *tspan {
	t := &tspan{name: str(s.o["name"]), traceID: str(s.o["traceId"]), spanID: str(s.o["spanId"]), parentID: s.parent, attrs: obj{}}
	sub := obj{}
	for k, v := range s.attrs {
		for _, ak := range oiAgentKeys {
			if k == "" || k == ak.attr || strings.HasPrefix(ak.attr, k+".") {
				sub[k] = v
			}
		}
	}
	flattenAttrs(t.attrs, "", sub, 0)
	t.start, t.startErr = unixNano(s.o["startTimeUnixNano"])
	oiClassify(t, str(s.attrs[oiKindAttr]))
	return t
}
