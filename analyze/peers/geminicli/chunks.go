package geminicli

// chunkTable is contentStats: for each distinct 50-unit chunk seen since
// the last reset, the positions it occurred at. Positions are absolute
// (counted from the last reset, truncated units included), so that
// truncation needs no rewriting: a position below the truncated count is
// gone, as the source's filter drops it. Each chunk's positions form a
// chain of nodes, newest first; the table maps the chunk's hash to its
// newest node. A reset is a new generation (no clearing).
//
// Every unit of a response looks its chunk up, and each agent has its own
// table: slots are 8 bytes and the table is kept at most about a quarter
// to three quarters full, so that it stays in cache (an agent's table was
// evicted by the others' between two of its responses, and each lookup
// was a cache miss).
type chunkTable struct {
	slots []slot
	used  int
	gen   uint16
	nodes []node
}

// slot is one chunk: live in the table's generation, its hash's top 16
// bits (the node holds the whole hash) and its newest node.
type slot struct {
	gen  uint16
	tag  uint16
	node int32
}

type node struct {
	hash uint64
	pos  int   // absolute position
	prev int32 // the same chunk's previous occurrence, -1 for none
}

func tagOf(h uint64) uint16 { return uint16(h >> 48) }

func (t *chunkTable) reset() {
	t.gen++
	if t.gen == 0 { // wrapped: old stamps could match again
		clear(t.slots)
		t.gen = 1
	}
	t.used = 0
	t.nodes = t.nodes[:0]
}

// find returns the slot of hash h: its own, or the empty one it would go
// in.
func (t *chunkTable) find(h uint64) *slot {
	if t.slots == nil {
		t.slots = make([]slot, 1024)
		t.gen = 1
	}
	mask := uint64(len(t.slots) - 1)
	tag := tagOf(h)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.gen != t.gen || (s.tag == tag && t.nodes[s.node].hash == h) {
			return s
		}
	}
}

// head returns the slot of hash h and its newest live node (pos ≥ off),
// or -1.
func (t *chunkTable) head(h uint64, off int) (*slot, int32) {
	s := t.find(h)
	if s.gen != t.gen || t.nodes[s.node].pos < off {
		return s, -1
	}
	return s, s.node
}

// push records an occurrence of hash h, whose slot head returned, at
// absolute position pos; prev is the chunk's newest live node, or -1 to
// start the chunk afresh.
func (t *chunkTable) push(s *slot, h uint64, pos int, prev int32, off int) {
	t.nodes = append(t.nodes, node{hash: h, pos: pos, prev: prev})
	if s.gen != t.gen {
		*s = slot{gen: t.gen, tag: tagOf(h)}
		t.used++
	}
	s.node = int32(len(t.nodes) - 1)
	if t.used*4 > 3*len(t.slots) || len(t.nodes) > 4*MaxHistoryLength+len(t.slots) {
		t.compact(off)
	}
}

// compact drops the dead: chunks with no live position and nodes below
// off, and sizes the table for what lives.
func (t *chunkTable) compact(off int) {
	old, oldNodes, g := t.slots, t.nodes, t.gen
	alive := func(s *slot) bool { return s.gen == g && oldNodes[s.node].pos >= off }
	live := 0
	for i := range old {
		if alive(&old[i]) {
			live++
		}
	}
	size := 1024
	for size < 2*live {
		size *= 2
	}
	t.slots = make([]slot, size)
	t.gen, t.used = 1, 0
	t.nodes = make([]node, 0, len(oldNodes)/2+16)
	var chain []int
	for i := range old {
		s := &old[i]
		if !alive(s) {
			continue
		}
		chain = chain[:0]
		for n := s.node; n >= 0 && oldNodes[n].pos >= off; n = oldNodes[n].prev {
			chain = append(chain, oldNodes[n].pos)
		}
		h := oldNodes[s.node].hash
		prev := int32(-1)
		for j := len(chain) - 1; j >= 0; j-- {
			t.nodes = append(t.nodes, node{hash: h, pos: chain[j], prev: prev})
			prev = int32(len(t.nodes) - 1)
		}
		*t.find(h) = slot{gen: t.gen, tag: tagOf(h), node: prev}
		t.used++
	}
}
