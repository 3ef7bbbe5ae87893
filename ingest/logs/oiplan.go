package logs

import "time"

// The first pass over an OpenInference span table (see OIParquetReader)
// reads the light view of every row into an oiLightTree: per span its ids,
// and its name, session.id, user.id and skip reason as indexes into one
// table of distinct strings. Once the last row is read, plan resolves
// what the records need from the tree — which call spans wrap others, and
// for each span that may be a call the session.id and user.id of its
// nearest ancestors that have them and the name its trace's root gives —
// into an oiPlan of a few bytes per row; the tree is then dropped.

// oiLight flags.
const (
	oiLightErr uint8 = 1 << iota // the row's light view could not be read
	oiKindSet                    // the span_kind column decides the kind
	oiCall                       // the span is an LLM span
	oiWrapped                    // an LLM span below it is the call
)

// oiLight is one span of the light view.
type oiLight struct {
	spanID, parentID          string
	name, session, user, skip int32 // indexes into oiLightTree.strs
	flags                     uint8
}

type oiLightTree struct {
	spans  []oiLight
	byID   map[string]int32 // the first span with each id
	strs   interner
	starts []time.Time // each row's start (zero when unknown)
}

// add appends the light view of the next row.
func (t *oiLightTree) add(s *tspan) {
	if t.byID == nil {
		t.byID = map[string]int32{}
	}
	var l oiLight
	if s.err != nil {
		l.flags = oiLightErr
	} else {
		l.spanID, l.parentID = s.spanID, s.parentID
		l.name = t.strs.add(s.name)
		l.session, l.user = t.strs.add(str(s.attrs["session.id"])), t.strs.add(str(s.attrs["user.id"]))
		l.skip = t.strs.add(s.skip)
		if s.call {
			l.flags |= oiCall
		}
		if s.kindSet {
			l.flags |= oiKindSet
		}
		if _, dup := t.byID[s.spanID]; s.spanID != "" && !dup {
			t.byID[s.spanID] = int32(len(t.spans))
		}
	}
	t.spans = append(t.spans, l)
	t.starts = append(t.starts, s.start)
}

// parent returns the index of span i's parent; -1 when it has none in
// the table (as spanTree.parent).
func (t *oiLightTree) parent(i int32) int32 {
	s := &t.spans[i]
	if s.parentID == "" || s.parentID == s.spanID {
		return -1
	}
	if p, ok := t.byID[s.parentID]; ok {
		return p
	}
	return -1
}

// oiPlan is what the second pass needs of the first: a row each, and
// the strings they index. starts is nil when the rows are in time order.
type oiPlan struct {
	rows   []oiRow
	strs   []string
	starts []time.Time
}

// oiRow is the plan of one row: its light view's flags and skip reason;
// for a span that may be a call (its kind not decided by span_kind, or an
// LLM span wrapping none) the session.id and user.id of its nearest
// ancestors that have one, within maxDepth, and the name of its trace's
// root ("" when the root found has a parent id or no name).
type oiRow struct {
	session, user, root, skip int32
	flags                     uint8
}

// plan marks the wrappers (as spanTree.markWrappers) and resolves every
// row; keepStarts keeps each row's start time for sorting.
func (t *oiLightTree) plan(keepStarts bool) oiPlan {
	for i := range t.spans {
		s := &t.spans[i]
		if s.flags&(oiLightErr|oiCall) != oiCall {
			continue
		}
		p := t.parent(int32(i))
		for depth := 0; p >= 0 && depth < maxDepth; depth++ {
			if t.spans[p].flags&(oiCall|oiWrapped) == oiCall && p != int32(i) {
				t.spans[p].flags |= oiWrapped
			}
			p = t.parent(p)
		}
	}
	rows := make([]oiRow, len(t.spans))
	for i := range t.spans {
		s := &t.spans[i]
		r := &rows[i]
		r.flags, r.skip = s.flags, s.skip
		if s.flags&oiLightErr != 0 || s.flags&oiKindSet != 0 && s.flags&(oiCall|oiWrapped) != oiCall {
			continue // no call in the full view either: nothing to look up
		}
		root := int32(i)
		p := t.parent(root)
		for depth := 1; p >= 0 && depth <= maxDepth; depth++ {
			if r.session == 0 {
				r.session = t.spans[p].session
			}
			if r.user == 0 {
				r.user = t.spans[p].user
			}
			root, p = p, t.parent(p)
		}
		if t.spans[root].parentID == "" {
			r.root = t.spans[root].name
		}
	}
	plan := oiPlan{rows: rows, strs: t.strs.strs}
	if keepStarts {
		plan.starts = t.starts
	}
	return plan
}

// oiAncestors answers a call span's lookups up its tree from a plan row:
// the span's own attributes first (its full view), then its ancestors'.
type oiAncestors struct{ session, user, root string }

func (a oiAncestors) inherited(s *tspan, attr string) string {
	if v := str(s.attrs[attr]); v != "" {
		return v
	}
	switch attr {
	case "session.id":
		return a.session
	case "user.id":
		return a.user
	}
	return ""
}

func (a oiAncestors) agent(s *tspan) (agent, from string) {
	return pickAgent(a, s, a.root)
}

// interner numbers distinct strings; index 0 is the first added.
type interner struct {
	idx  map[string]int32
	strs []string
}

func (in *interner) add(s string) int32 {
	if i, ok := in.idx[s]; ok {
		return i
	}
	if in.idx == nil {
		in.idx = map[string]int32{}
	}
	i := int32(len(in.strs))
	in.idx[s] = i
	in.strs = append(in.strs, s)
	return i
}
