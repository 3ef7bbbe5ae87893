package logs

import (
	"fmt"
	"slices"
	"time"

	"github.com/killswitch/killswitch/ingest"
)

// LangSmith runs in an input the source planned in units (planUnits: a
// file, or spooled, holding a top-level array of runs or several run
// documents) of flatStreamMin bytes or more are read in two passes, as
// flat spans are (see flatstream.go): the first decodes of each payload
// only what lsDecode and the agent lookup read (ids, parent, name, type,
// times, error, the metadata's agent keys), merges the payloads of a run
// by id as readAll does, and keeps per run the places of its payloads;
// the second re-reads one run's payloads at a time, merges them and
// builds its record, in readAll's order. An input holding a batch
// document ({"post": [...], "patch": [...]}), or one that is not planned,
// is read whole by readAll.

// lsEntry is the first pass's view of one record: a run (run >= 0) or a
// problem (a payload over the limit, not JSON, or not an object).
type lsEntry struct {
	ref  int32 // the payload's index in the refs (a run's first)
	run  int32 // index among the runs; -1 for a problem
	msg  string
	at   time.Time
	i    int
	long bool
}

// lsStream is both passes over a planned LangSmith input.
type lsStream struct {
	c       *langsmith
	refs    []unitRef
	entries []lsEntry
	payload [][]int32 // per run, its payloads' refs in input order
	plan    spanPlan
	order   []int32
	n       int
}

// lsKeys are the top-level run members the first pass keeps.
var lsKeys = [...]string{"id", "name", "trace_id", "parent_run_id", "run_type", "start_time", "end_time", "error", "session.id"}

// lsRun is the first pass's view of a run, its payloads merged: the value
// of each of lsKeys, then "extra" as an lsMeta (see lsLight); nil where no
// payload has the member, or has it null (lsDecode reads both alike).
type lsRun [len(lsKeys) + 1]any

// attrs is the run as the object lsDecode reads.
func (r *lsRun) attrs() obj {
	o := obj{}
	for j, v := range r {
		if v == nil {
			continue
		}
		if j == len(lsKeys) {
			meta := obj{}
			for i, val := range v.(lsMeta) {
				if val != "" {
					meta[lsAgentKeys[i].attr[len("metadata."):]] = val
				}
			}
			o["extra"] = obj{"metadata": meta}
		} else {
			o[lsKeys[j]] = v
		}
	}
	return o
}

// planLangSmith reads the first pass of c's input; nil when it is to be
// read whole (nothing is consumed then).
func planLangSmith(c *langsmith) *lsStream {
	s := c.src
	if s.mode == modeUndecided {
		s.decide()
	}
	if !s.planned || s.size < flatStreamMin || len(s.refs) == 0 {
		return nil
	}
	st := &lsStream{c: c, refs: s.refs}
	var runs []lsRun
	byID := map[string]int32{}
	for k, ref := range st.refs {
		e := lsEntry{ref: int32(k), run: -1, i: len(st.entries)}
		if ref.long > 0 {
			e.long = true
			st.entries = append(st.entries, e)
			continue
		}
		raw, err := s.readElem(elemRef{off: ref.off, n: ref.n})
		if err != nil {
			return nil
		}
		o, ok := lsLightDecode(raw)
		if !ok {
			v, derr := decodeTree(raw)
			switch _, isObj := v.(obj); {
			case derr != nil:
				e.msg = derr.Error()
			case !isObj:
				e.msg = "a LangSmith run is a JSON object, got " + kind(v)
			default:
				return nil // an object the light decoder does not take: read whole
			}
			st.entries = append(st.entries, e)
			continue
		}
		if o["run_type"] == nil && o["id"] == nil && (isList(o["post"]) || isList(o["patch"])) {
			return nil // a batch document: readAll takes it apart
		}
		light := lsLight(o)
		id := str(o["id"])
		if r, seen := byID[id]; id != "" && seen {
			for j, val := range light {
				if val != nil {
					runs[r][j] = val
				}
			}
			st.payload[r] = append(st.payload[r], int32(k))
			continue
		}
		e.run = int32(len(runs))
		if id != "" {
			byID[id] = e.run
		}
		runs = append(runs, light)
		st.payload = append(st.payload, []int32{int32(k)})
		st.entries = append(st.entries, e)
	}
	t := newLightTree(append(keyAttrs(lsAgentKeys), "session.id"))
	starts := make([]time.Time, len(runs))
	for j := range runs {
		r := &tspan{attrs: runs[j].attrs()}
		lsDecode(r)
		t.add(r)
		starts[j] = r.start
	}
	runs = nil
	st.plan = t.plan(false)
	for j := range st.entries {
		if e := &st.entries[j]; e.run >= 0 {
			e.at = starts[e.run]
		}
	}
	st.order = make([]int32, len(st.entries))
	for j := range st.order {
		st.order[j] = int32(j)
	}
	slices.SortStableFunc(st.order, func(a, b int32) int {
		x, y := &st.entries[a], &st.entries[b]
		if c := x.at.Compare(y.at); c != 0 {
			return c
		}
		return x.i - y.i
	})
	s.refs = nil
	return st
}

// lsLightDecode decodes the run payload raw as decodeTree does, but only
// the members lsLight keeps ("extra" whole, "post" and "patch" as an
// empty list when they are lists); false when raw is not an object the
// strict scanner takes (decodeTree then decides).
func lsLightDecode(raw []byte) (obj, bool) {
	return objectMembers(raw, func(key string, val []byte) (any, bool) {
		switch {
		case key == "post" || key == "patch":
			if val[0] == '[' {
				return []any{}, true
			}
			return true, true
		case key == "extra" || slices.Contains(lsKeys[:], key):
			t, err := decodeTree(val)
			return t, err == nil
		}
		return true, true
	})
}

// lsLight is what the first pass keeps of a run payload: the members
// lsDecode and the agent lookup read, "extra" reduced to its metadata's
// agent keys (lsMeta) and "error" to whether it is empty (a payload's member
// replaces the run's whole, so the reduced members merge alike).
func lsLight(o obj) lsRun {
	var l lsRun
	for j, k := range lsKeys {
		l[j] = o[k]
	}
	if e := o["error"]; e != nil && !isEmpty(e) {
		l[slices.Index(lsKeys[:], "error")] = true
	}
	if x := o["extra"]; x != nil {
		var meta lsMeta
		if m, ok := get(x, "metadata").(obj); ok {
			for i, k := range lsAgentKeys {
				meta[i] = str(m[k.attr[len("metadata."):]])
			}
		}
		l[len(lsKeys)] = meta
	}
	return l
}

// lsMeta is a run's "extra" as the first pass keeps it: the text of each
// of lsAgentKeys in its metadata (lsDecode reads no other, and no other
// kind of value). Its length is len(lsAgentKeys), checked in init.
type lsMeta [5]string

func init() {
	if len(lsMeta{}) != len(lsAgentKeys) {
		panic("lsMeta: one string per lsAgentKeys entry")
	}
}

// next returns the next record of the second pass; nil at the end, with
// the read error that ended the input early, if any.
func (st *lsStream) next() (*ingest.Record, error) {
	if st.n >= len(st.order) {
		return nil, nil
	}
	e := st.entries[st.order[st.n]]
	st.n++
	src := st.c.src
	ref := st.refs[e.ref]
	pos := src.pos(unit{line: ref.line, index: ref.index}, "")
	switch {
	case e.long:
		return bad(pos, "item of %d bytes is larger than the %d-byte limit (--max-line): skipped", ref.long, src.max), nil
	case e.run < 0:
		return bad(pos, "%s", e.msg), nil
	}
	flags := st.plan.flags[e.run]
	switch {
	case flags&lightCall == 0:
		return skip(pos, st.plan.strs[st.plan.skip[e.run]]), nil
	case flags&lightWrapped != 0:
		return skip(pos, lsWrapper), nil
	}
	var run obj
	for _, k := range st.payload[e.run] {
		r := st.refs[k]
		raw, err := src.readElem(elemRef{off: r.off, n: r.n})
		if err != nil {
			st.n = len(st.order)
			return nil, fmt.Errorf("%s: %w", src.name, err)
		}
		v, derr := decodeTree(raw)
		o, ok := v.(obj)
		if derr != nil || !ok {
			return st.changed(pos)
		}
		if run == nil {
			run = o
			continue
		}
		for key, val := range o {
			if val != nil {
				run[key] = val
			}
		}
	}
	s := &tspan{pos: pos, attrs: run, order: e.i, agentKeys: lsAgentKeys}
	lsDecode(s)
	if !s.call {
		return st.changed(pos)
	}
	return spanRecords([]*tspan{s}, st.plan.ancestors(int(e.run)), st.c.opt, lsBuild)[0].rec, nil
}

// changed ends the stream: a payload reads otherwise than in the first
// pass.
func (st *lsStream) changed(pos ingest.Pos) (*ingest.Record, error) {
	st.n = len(st.order)
	return nil, fmt.Errorf("%s: the file changed between its two readings (%s)", st.c.src.name, pos)
}
