package analyze

import (
	"hash/maphash"
	"math/bits"
	"unsafe"

	"github.com/killswitch/killswitch/internal/prefetch"
)

// agentTable holds the engine's books, one per agent, found by the
// agent's id. The books live in chunks that never move (the summary points
// into them); the index is an open-addressing table of 8-byte slots (a
// book's number and part of its id's hash), so an agent costs the index
// ~12 bytes where a map[string]*agentBook costs ~40, and the books no
// allocation each.
type agentTable struct {
	chunks [][]agentBook // 16, 32, … 2048 books, then bookChunk each
	n, cap int           // books in use, and in the chunks
	slots  []uint64      // 0: empty; else hash>>32<<32 | book number+1
	shift  uint          // a hash's home slot is hash>>shift: its top bits, which the slot keeps
	seed   maphash.Seed
}

// The chunks grow from 1<<minChunkBits books (an engine replaying one
// agent stays small) to bookChunk, then stay there.
const (
	minChunkBits = 4
	bookChunk    = 1 << 12
	growChunks   = 12 - minChunkBits           // chunks of 16 … 2048 books
	grownBooks   = bookChunk - 1<<minChunkBits // the books they hold
)

// at returns book number i.
func (t *agentTable) at(i int) *agentBook {
	if i < grownBooks {
		j := i + 1<<minChunkBits
		k := bits.Len(uint(j)) - 1 - minChunkBits
		return &t.chunks[k][j-1<<(k+minChunkBits)]
	}
	i -= grownBooks
	return &t.chunks[growChunks+i/bookChunk][i%bookChunk]
}

// find returns the agent's book, or adds one (added true) holding only
// its id.
func (t *agentTable) find(name string) (b *agentBook, added bool) {
	if t.slots == nil {
		t.seed = maphash.MakeSeed()
		t.slots, t.shift = make([]uint64, 64), 64-6
	}
	h := maphash.String(t.seed, name)
	tag := h >> 32 << 32
	mask := uint64(len(t.slots) - 1)
	i := h >> t.shift
	for ; t.slots[i] != 0; i = (i + 1) & mask {
		if s := t.slots[i]; s>>32<<32 == tag {
			if b := t.at(int(uint32(s)) - 1); b.sum.Agent == name {
				return b, false
			}
		}
	}
	if t.n == t.cap {
		size := bookChunk
		if k := len(t.chunks); k < growChunks {
			size = 1 << (k + minChunkBits)
		}
		t.chunks = append(t.chunks, make([]agentBook, size))
		t.cap += size
	}
	t.n++
	t.slots[i] = tag | uint64(t.n)
	b = t.at(t.n - 1)
	b.sum.Agent = name
	if t.n*4 > len(t.slots)*3 {
		t.grow()
	}
	return b, true
}

// grow doubles the index; the books stay where they are. A slot's home
// in the new index is told by the top bits of the hash it keeps, so the
// agents' ids are neither read nor hashed again (the index holds at most
// 1<<32 slots: a book's number has 32 bits).
func (t *agentTable) grow() {
	old := t.slots
	t.slots, t.shift = make([]uint64, 2*len(old)), t.shift-1
	mask := uint64(len(t.slots) - 1)
	for _, s := range old {
		if s == 0 {
			continue
		}
		i := s >> t.shift
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}

// each calls fn with every book, in the order the agents came.
func (t *agentTable) each(fn func(*agentBook)) {
	for i := range t.n {
		fn(t.at(i))
	}
}

// ahead asks the processor for the state of the agents named, which the
// engine is about to step (at most aheadRecords of them): their index
// slots, then the books those point to, then each book's id and window.
// Each stage issues every name's fetch before the next stage reads what
// the previous one fetched, so the cache misses of a group of records
// overlap rather than stall the engine one after another (10,000 agents'
// books and windows are megabytes: a step used to wait for two or three
// misses). It changes nothing: an agent not in the table yet, or not in
// the first slots probed, is skipped.
func (t *agentTable) ahead(names []string) {
	if len(t.slots) == 0 || len(names) > aheadRecords {
		return
	}
	var hs [aheadRecords]uint64
	mask := uint64(len(t.slots) - 1)
	for i, name := range names {
		hs[i] = maphash.String(t.seed, name)
		prefetch.Bytes(unsafe.Pointer(&t.slots[hs[i]>>t.shift]), 8)
	}
	var books [aheadRecords]*agentBook
	for i, h := range hs[:len(names)] {
		tag := h >> 32 << 32
		for j, k := h>>t.shift, 0; k < 4 && t.slots[j] != 0; j, k = (j+1)&mask, k+1 {
			if s := t.slots[j]; s>>32<<32 == tag {
				books[i] = t.at(int(uint32(s)) - 1)
				prefetch.Bytes(unsafe.Pointer(books[i]), unsafe.Sizeof(agentBook{}))
				break
			}
		}
	}
	for _, b := range books[:len(names)] {
		if b == nil {
			continue
		}
		prefetch.Bytes(unsafe.Pointer(unsafe.StringData(b.sum.Agent)), uintptr(len(b.sum.Agent)))
		if w := b.loop.w.buf; len(w) > 0 {
			prefetch.Bytes(unsafe.Pointer(&w[0]), uintptr(len(w))*unsafe.Sizeof(w[0]))
		}
	}
}
