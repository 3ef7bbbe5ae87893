package logs

import (
	"cmp"
	"hash/maphash"
	"math/bits"
	"slices"
	"strings"
	"time"
	"unsafe"
)

// The first pass over a streamed span array (see docstream.go), over the
// OpenInference spans of an OTLP document (otelstream.go) or over the rows
// of an OpenInference span table (OIParquetReader) keeps the light view of
// every span in a lightTree: its ids, whether it is a call, its skip
// reason, its name and the values of the attributes the agent is looked up
// by (the span's agentKeys), as indexes into one table of distinct strings.
// Once the last span is read, plan resolves what the second pass needs
// into a spanPlan of a few bytes per span: which calls wrap others, and for
// each span that may be a call the values its nearest ancestors give each
// key and the name its trace's root gives; the tree is then dropped.

// lightTree flags (spanPlan rows keep them).
const (
	lightErr     uint8 = 1 << iota // the span is malformed
	lightCall                      // the span is a call, if no call below it
	lightWrapped                   // a call below it is the call
	lightKindSet                   // a span table's span_kind column decided the kind
	lightByName                    // a wrapper by its name (tspan.byName)
)

type lightSpan struct {
	spanID, parentID string
	name, skip       int32 // indexes into lightTree.strs
	trace            int32 // the trace id, an index into lightTree.strs (set for byName spans and calls)
	flags            uint8
}

// lightTree is the light view of a span array. keys are the attributes
// the agent is looked up by (every span's agentKeys, and session.id).
type lightTree struct {
	keys   []string
	spans  []lightSpan
	vals   []int32 // len(keys) per span: the span's own value of each key
	starts []time.Time
	byID   map[string]int32 // the first span with each id
	strs   interner
	// undecided: the light view may not tell a call (a span table's light
	// columns), so a span whose kind span_kind did not decide is resolved
	// as if it were one.
	undecided bool
	// reuse: plan's result is read before the next plan (a run's tree:
	// runPlanner), which then reuses its arrays and t's scratch.
	reuse bool
	// scan: byID is empty and ids are found by scanning spans (find): a
	// run planner's tree while it holds at most smallRun spans (a
	// trace's few spans cost less scanned than hashed, stored and
	// cleared).
	scan    bool
	last    spanPlan
	parents []int32
	inner   map[int32]bool
}

// keyAttrs returns the attributes of keys, for newLightTree.
func keyAttrs(keys []agentKey) []string {
	attrs := make([]string, len(keys))
	for i, k := range keys {
		attrs[i] = k.attr
	}
	return attrs
}

func newLightTree(keys []string) *lightTree {
	t := &lightTree{keys: keys, byID: map[string]int32{}}
	t.strs.add("")
	return t
}

// grow makes room for n more spans (a span table says how many rows it
// has).
func (t *lightTree) grow(n int) {
	if len(t.byID) == 0 {
		t.byID = make(map[string]int32, n) // no rehashing as it fills
	}
	t.spans = slices.Grow(t.spans, n)
	t.vals = slices.Grow(t.vals, n*len(t.keys))
	t.starts = slices.Grow(t.starts, n)
}

// add appends the light view of decoded span s.
func (t *lightTree) add(s *tspan) {
	var l lightSpan
	if s.err != nil {
		l.flags = lightErr
		for range t.keys {
			t.vals = append(t.vals, 0)
		}
	} else {
		l.spanID, l.parentID = s.spanID, s.parentID
		l.name, l.skip = t.strs.add(s.name), t.strs.add(s.skip)
		for _, key := range t.keys {
			t.vals = append(t.vals, t.strs.add(str(s.attrs[key])))
		}
		if s.call {
			l.flags |= lightCall
		}
		if s.kindSet {
			l.flags |= lightKindSet
		}
		if s.byName {
			l.flags |= lightByName
		}
		if s.call {
			l.trace = t.strs.add(s.traceID)
		}
		if t.scan && len(t.spans) >= smallRun {
			// The run outgrows a scan: its ids go into byID.
			t.scan = false
			for j := range t.spans {
				if id := t.spans[j].spanID; id != "" {
					if _, dup := t.byID[id]; !dup {
						t.byID[id] = int32(j)
					}
				}
			}
		}
		if _, dup := t.byID[s.spanID]; !t.scan && s.spanID != "" && !dup {
			t.byID[s.spanID] = int32(len(t.spans))
		}
	}
	t.spans = append(t.spans, l)
	t.starts = append(t.starts, s.start)
}

// parent returns the index of span i's parent; -1 when it has none in
// the array (as spanTree.parent).
func (t *lightTree) parent(i int32) int32 {
	s := &t.spans[i]
	if s.parentID == "" || s.parentID == s.spanID {
		return -1
	}
	if p, ok := t.find(s.parentID); ok {
		return p
	}
	return -1
}

// smallRun is the most spans a run planner's tree finds ids of by a scan.
const smallRun = 16

// find returns the first span whose id is id (not ""), and whether there
// is one: through byID, or by a scan of the spans while t.scan.
func (t *lightTree) find(id string) (int32, bool) {
	if t.scan {
		for j := range t.spans {
			if t.spans[j].spanID == id {
				return int32(j), true
			}
		}
		return -1, false
	}
	j, ok := t.byID[id]
	return j, ok
}

// spanPlan is what the second pass needs of the first: per span its
// flags, skip reason, the values its nearest ancestors give each key
// (len(keys) per span; 0 for none, and for spans that are no call), the
// name its trace's root gives ("" when that root has a parent id), and,
// when asked for, the order the records go in.
type spanPlan struct {
	keys  []string
	flags []uint8
	skip  []int32
	inh   []int32
	root  []int32
	strs  []string
	order []int32 // span indexes by start time, then input order; nil if not asked for
}

// plan marks the wrappers (as spanTree.markWrappers), resolves the
// ancestors of each span that may be a call, and, when order is set,
// orders the spans as sortItems orders records.
func (t *lightTree) plan(order bool) spanPlan {
	// Each span's parent, looked up once; the index by id is dropped
	// before the plan is made (kept for the next run's tree when reused).
	parents := t.parents[:0]
	for i := range t.spans {
		parents = append(parents, t.parent(int32(i)))
	}
	if t.reuse {
		t.parents = parents
	} else {
		t.byID = nil
	}
	parent := func(i int32) int32 { return parents[i] }
	var inner map[int32]bool // as in spanTree.markWrappers
	if t.reuse {
		clear(t.inner)
		inner = t.inner
	}
	for i := range t.spans {
		if t.spans[i].flags&(lightErr|lightCall) != lightCall {
			continue
		}
		if t.spans[i].flags&lightByName == 0 {
			if inner == nil {
				inner = map[int32]bool{}
				if t.reuse {
					t.inner = inner
				}
			}
			inner[t.spans[i].trace] = true
		}
		p := parent(int32(i))
		for depth := 0; p >= 0 && depth < maxDepth; depth++ {
			if t.spans[p].flags&(lightCall|lightWrapped) == lightCall && p != int32(i) {
				t.spans[p].flags |= lightWrapped
			}
			p = parent(p)
		}
	}
	for i := range t.spans {
		if s := &t.spans[i]; s.flags&(lightErr|lightCall|lightByName|lightWrapped) == lightCall|lightByName && inner[s.trace] {
			s.flags |= lightWrapped
		}
	}
	n, k := len(t.spans), len(t.keys)
	var pl spanPlan
	if t.reuse {
		pl = spanPlan{keys: t.keys, flags: zeroed(t.last.flags, n), skip: zeroed(t.last.skip, n), inh: zeroed(t.last.inh, n*k),
			root: zeroed(t.last.root, n)}
		t.last = pl
	} else {
		pl = spanPlan{keys: t.keys, flags: make([]uint8, n), skip: make([]int32, n), inh: make([]int32, n*k),
			root: make([]int32, n)}
	}
	for i := range t.spans {
		s := &t.spans[i]
		pl.flags[i], pl.skip[i] = s.flags, s.skip
		call := s.flags&(lightErr|lightCall|lightWrapped) == lightCall
		if !call && (!t.undecided || s.flags&(lightErr|lightKindSet) != 0) {
			continue // no call in the full view either: nothing to look up
		}
		inh := pl.inh[i*k : (i+1)*k]
		root := int32(i)
		p := parent(root)
		for depth := 1; p >= 0 && depth <= maxDepth; depth++ {
			for j, v := range t.vals[int(p)*k : (int(p)+1)*k] {
				if inh[j] == 0 {
					inh[j] = v
				}
			}
			root, p = p, parent(p)
		}
		if t.spans[root].parentID == "" {
			pl.root[i] = t.spans[root].name
		}
	}
	pl.strs = t.strs.strs
	if order {
		pl.order = startOrder(n, func(a, b int32) int { return t.starts[a].Compare(t.starts[b]) })
	}
	return pl
}

// startOrder returns the indexes of n spans by start time (byStart
// compares two spans' starts), then index: the order records go in.
func startOrder(n int, byStart func(a, b int32) int) []int32 {
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := byStart(a, b); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return order
}

// extended returns s grown to n elements (n >= len(s)), the new ones
// zero.
func extended[T any](s []T, n int) []T {
	m := len(s)
	s = slices.Grow(s, n-m)[:n]
	clear(s[m:])
	return s
}

// zeroed returns s resized to n zero elements, reusing its array when it
// holds them.
func zeroed[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// ancestors answers span i's lookups up its tree (see ancestry): the
// span's own attributes first, then the values the plan holds.
func (pl *spanPlan) ancestors(i int) *planAncestors {
	return &planAncestors{pl: pl, i: i}
}

type planAncestors struct {
	pl *spanPlan
	i  int
}

func (a *planAncestors) inherited(s *tspan, attr string) string {
	if v := str(s.attrs[attr]); v != "" {
		return v
	}
	if j := slices.Index(a.pl.keys, attr); j >= 0 {
		return a.pl.strs[a.pl.inh[a.i*len(a.pl.keys)+j]]
	}
	return ""
}

func (a *planAncestors) agent(s *tspan) (agent, from string) {
	return pickAgent(a, s, a.pl.strs[a.pl.root[a.i]])
}

// interner numbers distinct strings; index 0 is the first added.
type interner struct {
	idx  map[string]int32
	strs []string
	last int32 // the index add returned last
	// same are the indexes of the strings added last, by the place of
	// their bytes (see add).
	same [internSame]int32
	// own: a new string is copied, so that a plan kept to the end does
	// not keep alive whatever the string's bytes lie in (the column
	// decoder's chunks of texts).
	own bool
}

// internSame is how many strings interner.add finds by the place of
// their bytes.
const internSame = 8

func (in *interner) add(s string) int32 {
	if len(in.strs) > 0 && in.strs[in.last] == s {
		return in.last // the string added last, again (a name, a kind, a session)
	}
	// A string whose bytes are those of a string added (a reader hands
	// out the same string for a value that recurs: a span kind, a name, a
	// session) is that string: no hashing. The strings are held by strs,
	// so their bytes are neither freed nor reused.
	h := (uintptr(unsafe.Pointer(unsafe.StringData(s))) >> 4) % internSame
	if j := in.same[h]; int(j) < len(in.strs) && unsafe.StringData(in.strs[j]) == unsafe.StringData(s) && len(in.strs[j]) == len(s) {
		in.last = j
		return j
	}
	i, ok := in.find(s)
	if !ok {
		i = int32(len(in.strs))
		if in.own {
			s = strings.Clone(s)
		}
		in.strs = append(in.strs, s)
		switch {
		case len(in.idx) > 0:
			in.idx[s] = i
		case len(in.strs) > internScan:
			// Too many strings for a scan: all of them go into idx.
			if in.idx == nil {
				in.idx = make(map[string]int32, 2*internScan)
			}
			for j, t := range in.strs {
				if _, dup := in.idx[t]; !dup {
					in.idx[t] = int32(j)
				}
			}
		}
	}
	in.same[h] = i
	in.last = i
	return i
}

// internScan is the most strings an interner finds by a scan, without
// its map: a run planner's tree interns a handful a run (names, kinds,
// skip reasons, agent attributes), and a scan of them costs less than
// hashing, and than clearing the map after every run.
const internScan = 16

// find returns the index of string s; ok is false when it was not added.
func (in *interner) find(s string) (int32, bool) {
	if len(in.idx) > 0 {
		i, ok := in.idx[s]
		return i, ok
	}
	for j, t := range in.strs {
		if t == s {
			return int32(j), true
		}
	}
	return 0, false
}

// reset forgets every string.
func (in *interner) reset() {
	if len(in.idx) > 0 {
		clear(in.idx)
	}
	in.strs, in.last, in.same = in.strs[:0], 0, [internSame]int32{}
}

// runPlanner makes the plan of a span table a run of rows at a time (a
// run: consecutive rows of one trace id; an export that writes a trace's
// spans together has a run per trace), holding the light view of the
// current run only: what stays per row is the plan's few bytes and, per
// span id, a 64-bit hash. A run's plan is the plan of the whole table's
// tree when no span's parent lies in another run: a parent id that no
// span of its run has must be no span's id (dangling), and a span id must
// not appear in two runs (the whole tree links a child to the first span
// of an id). finish checks both through the hashes; a hash that matches
// (two ids that differ may share one) counts as a link across runs, so
// the planner may refuse a table it could have planned, never the other
// way round. The caller then plans the whole tree (lightTree).
type runPlanner struct {
	run   *lightTree
	trace string       // the trace id of the run's spans
	plan  spanPlan     // the rows of the runs planned so far
	strs  interner     // plan.strs
	remap []int32      // per string of the run's plan: 1 + its index in strs, 0 when not yet added
	seed  maphash.Seed // for ids and dangling
	// ids are the hashes of the span ids of the runs planned (each run's
	// distinct ids once), dangling those of the parent ids no span of
	// their run has: finish sorts ids and looks for a hash twice or a
	// dangling one among them.
	ids      []uint64
	dangling []uint64
	ok       bool // no link across runs found
}

// newRunPlanner returns a planner for about rows rows (a hint: the plan's
// arrays and the id hashes are sized for them).
func newRunPlanner(keys []string, undecided bool, rows int) *runPlanner {
	rp := &runPlanner{run: newLightTree(keys), seed: maphash.MakeSeed(), ids: make([]uint64, 0, rows), ok: true}
	rp.run.reuse, rp.run.scan = true, true
	rp.strs.own = true
	rp.plan.flags = make([]uint8, 0, rows)
	rp.plan.skip = make([]int32, 0, rows)
	rp.plan.root = make([]int32, 0, rows)
	rp.plan.inh = make([]int32, 0, rows*len(keys))
	rp.run.undecided = undecided
	rp.plan.keys = keys
	rp.strs.add("")
	return rp
}

// add adds the light view of the next row (finish says whether the rows
// plan alike run by run).
func (rp *runPlanner) add(s *tspan) {
	if s.err == nil {
		if s.traceID != rp.trace && len(rp.run.spans) > 0 {
			rp.flush()
		}
		rp.trace = s.traceID
	}
	rp.run.add(s)
}

// flush plans the current run, appends its plan to the plan and starts
// the next run.
func (rp *runPlanner) flush() { rp.flushTree(rp.run, nil) }

// flushTree plans the spans of t as a run and empties t: their plan goes
// to rows (the row of each span, ascending), or after the plan's rows
// when rows is nil.
func (rp *runPlanner) flushTree(t *lightTree, rows []int32) {
	for i := range t.spans {
		s := &t.spans[i]
		if s.flags&lightErr != 0 {
			continue
		}
		if s.parentID != "" && s.parentID != s.spanID {
			if _, ok := t.find(s.parentID); !ok {
				rp.dangling = append(rp.dangling, maphash.String(rp.seed, s.parentID))
			}
		}
		if j, _ := t.find(s.spanID); s.spanID != "" && j == int32(i) { // the id's first span in the run
			rp.ids = append(rp.ids, maphash.String(rp.seed, s.spanID))
		}
	}
	pl := t.plan(false)
	rp.remap = slices.Grow(rp.remap[:0], len(pl.strs))[:len(pl.strs)]
	clear(rp.remap)
	str := func(i int32) int32 {
		if g := rp.remap[i]; g != 0 {
			return g - 1
		}
		g := rp.strs.add(pl.strs[i])
		rp.remap[i] = g + 1
		return g
	}
	if rows == nil {
		for i := range pl.flags {
			rp.plan.flags = append(rp.plan.flags, pl.flags[i])
			rp.plan.skip = append(rp.plan.skip, str(pl.skip[i]))
			rp.plan.root = append(rp.plan.root, str(pl.root[i]))
		}
		for _, v := range pl.inh {
			rp.plan.inh = append(rp.plan.inh, str(v))
		}
	} else {
		k := len(rp.plan.keys)
		if n := int(rows[len(rows)-1]) + 1; n > len(rp.plan.flags) {
			rp.plan.flags = extended(rp.plan.flags, n)
			rp.plan.skip = extended(rp.plan.skip, n)
			rp.plan.root = extended(rp.plan.root, n)
			rp.plan.inh = extended(rp.plan.inh, n*k)
		}
		for i, row := range rows {
			rp.plan.flags[row] = pl.flags[i]
			rp.plan.skip[row] = str(pl.skip[i])
			rp.plan.root[row] = str(pl.root[i])
			for j, v := range pl.inh[i*k : (i+1)*k] {
				rp.plan.inh[int(row)*k+j] = str(v)
			}
		}
	}
	clear(t.byID)
	t.scan = true
	t.spans, t.vals, t.starts = t.spans[:0], t.vals[:0], t.starts[:0]
	t.strs.reset()
	t.strs.add("")
}

// finish plans the last run and returns the plan; ok is false when a
// span's parent may lie in another run (see runPlanner): the plan is then
// not the whole tree's.
func (rp *runPlanner) finish() (pl spanPlan, ok bool) {
	if len(rp.run.spans) > 0 {
		rp.flush()
	}
	if sortHashes(rp.ids); repeats(rp.ids) {
		rp.ok = false // an id in two runs
	}
	for _, h := range rp.dangling {
		if _, found := slices.BinarySearch(rp.ids, h); found {
			rp.ok = false
		}
	}
	rp.plan.strs = rp.strs.strs
	return rp.plan, rp.ok
}

// repeats reports whether sorted h holds a value twice.
func repeats(h []uint64) bool {
	for i := 1; i < len(h); i++ {
		if h[i] == h[i-1] {
			return true
		}
	}
	return false
}

// sortHashes sorts h, 64-bit hashes spread evenly over their range (the
// runPlanner's maphash values), as slices.Sort does: a few thousand or
// more by their top bits into about one bucket each (a counting pass and
// a scattering pass through a copy), then each bucket sorted; fewer by
// slices.Sort. For a table's hundreds of thousands of span ids it takes
// a fraction of a comparison sort's time.
func sortHashes(h []uint64) {
	if len(h) < 1<<10 {
		slices.Sort(h)
		return
	}
	b := min(bits.Len(uint(len(h)))-1, 16)
	shift := 64 - b
	start := make([]int32, 1<<b+1)
	for _, x := range h {
		start[x>>shift+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	next := slices.Clone(start[:1<<b])
	out := make([]uint64, len(h))
	for _, x := range h {
		d := x >> shift
		out[next[d]] = x
		next[d]++
	}
	for d := range 1 << b {
		if bucket := out[start[d]:start[d+1]]; len(bucket) > 1 {
			slices.Sort(bucket)
		}
	}
	copy(h, out)
}

// groupPlanner makes the plan of a span table whose traces' rows are not
// together, or not in start-time order (Phoenix's tables hold spans in
// the order they ended: a child before its parent, a short trace before
// a longer one that started earlier), a trace at a time: the rows of each
// trace are held in a group until the group is among the least recently
// added to when the groups hold more than groupSpans spans, then planned
// as a run (runPlanner), whose checks it shares. A trace met again after
// its group was planned makes the plan not the whole tree's (finish says
// so, and the caller plans the whole tree). What stays per row is the
// plan's few bytes, a span id's hash and the span's start (12 bytes, for
// the order of the records); not a tree of every span (~140 bytes).
type groupPlanner struct {
	rp         *runPlanner
	open       map[string]*planGroup
	head, tail *planGroup // least recently added to first
	held       int        // spans in open groups
	free       []*lightTree
	traces     []uint64 // the hashes of the trace ids of the groups planned
	// secs and nsecs are each row's start (time.Time.Compare orders by
	// the two), for the order of the records.
	secs   []int64
	nsecs  []int32
	sorted bool
	last   int // the row of the last start checked for the order; -1: none
}

// groupSpans is the most spans the open groups of a groupPlanner hold
// before it plans the least recently added to (a variable: tests plan
// groups early).
var groupSpans = 1 << 16

// planGroup is a trace's rows held by a groupPlanner.
type planGroup struct {
	trace      string
	t          *lightTree
	rows       []int32
	prev, next *planGroup
}

// start compares the starts of rows a and b as time.Time.Compare does.
func (gp *groupPlanner) start(a, b int32) int {
	if c := cmp.Compare(gp.secs[a], gp.secs[b]); c != 0 {
		return c
	}
	return cmp.Compare(gp.nsecs[a], gp.nsecs[b])
}

func newGroupPlanner(keys []string, undecided bool, rows int) *groupPlanner {
	return &groupPlanner{rp: newRunPlanner(keys, undecided, rows), open: map[string]*planGroup{}, sorted: true,
		secs: make([]int64, 0, rows), nsecs: make([]int32, 0, rows), last: -1}
}

// add adds the light view of the next row.
func (gp *groupPlanner) add(s *tspan) {
	row := int32(len(gp.secs))
	gp.secs = append(gp.secs, s.start.Unix())
	gp.nsecs = append(gp.nsecs, int32(s.start.Nanosecond()))
	if s.err == nil && s.startErr == nil {
		if gp.last >= 0 && gp.start(row, int32(gp.last)) < 0 {
			gp.sorted = false
		}
		gp.last = int(row)
	}
	if s.err != nil {
		// A malformed row plans alone (no ids, no trace).
		t := gp.tree()
		t.add(s)
		gp.rp.flushTree(t, []int32{row})
		gp.free = append(gp.free, t)
		return
	}
	g := gp.tail // the group last added to: a trace's spans often end together
	if g == nil || g.trace != s.traceID {
		if g = gp.open[s.traceID]; g == nil {
			g = &planGroup{trace: s.traceID, t: gp.tree()}
			gp.open[s.traceID] = g
		} else {
			gp.unlink(g)
		}
		gp.link(g)
	}
	g.t.add(s)
	g.rows = append(g.rows, row)
	gp.held++
	for gp.held > groupSpans && gp.head != nil {
		gp.flush(gp.head)
	}
}

// tree returns an empty tree for a group.
func (gp *groupPlanner) tree() *lightTree {
	if n := len(gp.free); n > 0 {
		t := gp.free[n-1]
		gp.free = gp.free[:n-1]
		return t
	}
	t := newLightTree(gp.rp.plan.keys)
	t.reuse, t.scan, t.undecided = true, true, gp.rp.run.undecided
	return t
}

func (gp *groupPlanner) link(g *planGroup) {
	g.prev, g.next = gp.tail, nil
	if gp.tail != nil {
		gp.tail.next = g
	} else {
		gp.head = g
	}
	gp.tail = g
}

func (gp *groupPlanner) unlink(g *planGroup) {
	if g.prev != nil {
		g.prev.next = g.next
	} else {
		gp.head = g.next
	}
	if g.next != nil {
		g.next.prev = g.prev
	} else {
		gp.tail = g.prev
	}
	g.prev, g.next = nil, nil
}

// flush plans group g's rows and drops the group.
func (gp *groupPlanner) flush(g *planGroup) {
	gp.unlink(g)
	delete(gp.open, g.trace)
	gp.held -= len(g.rows)
	gp.traces = append(gp.traces, maphash.String(gp.rp.seed, g.trace))
	gp.rp.flushTree(g.t, g.rows)
	gp.free = append(gp.free, g.t)
}

// finish plans the groups still open and returns the plan, ordered when
// the rows are not in start-time order; ok is false when the plan may
// not be the whole tree's (a trace in two groups, a parent in another
// group).
func (gp *groupPlanner) finish() (pl spanPlan, sorted, ok bool) {
	for gp.head != nil {
		gp.flush(gp.head)
	}
	if sortHashes(gp.traces); repeats(gp.traces) {
		// A trace met again after its group was planned. A link between
		// its groups is caught by the runs' checks; this one keeps a
		// wrapper by name (which looks at every call of its trace) from
		// being planned on part of its trace.
		return spanPlan{}, false, false
	}
	pl, ok = gp.rp.finish()
	if !ok {
		return spanPlan{}, false, false
	}
	if !gp.sorted {
		pl.order = startOrder(len(gp.secs), gp.start)
	}
	gp.secs, gp.nsecs = nil, nil
	return pl, gp.sorted, true
}
