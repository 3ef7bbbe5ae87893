package analyze

import "math/bits"

// Entry is one request's fingerprint in an agent's window (SPEC §1.4).
type Entry struct {
	Prompt    uint64 // SimHash of the normalized prompt, when HasPrompt
	Response  uint64 // SimHash of the normalized response text, when HasResp
	ToolSig   string // tool-call signature; "" never repeats
	HasPrompt bool
	HasResp   bool
	TS        int64 // Unix nanoseconds
}

// Counts are the three repetition signals of SPEC §1.5.
type Counts struct {
	SimilarPrompts    int
	SimilarResponses  int
	RepeatedToolCalls int
}

// Weights of SPEC §1.5.
const (
	WeightPrompt   = 1.0
	WeightResponse = 2.0
	WeightTool     = 1.5
)

// Score is the weighted repetition score of SPEC §1.5.
func (c Counts) Score() float64 {
	return float64(c.SimilarPrompts)*WeightPrompt + float64(c.SimilarResponses)*WeightResponse +
		float64(c.RepeatedToolCalls)*WeightTool
}

// SimilarDistance is the largest Hamming distance that counts as similar
// ("distance < 3", SPEC §1.5).
const SimilarDistance = 2

// Distance is the Hamming distance between two 64-bit hashes.
func Distance(a, b uint64) int { return bits.OnesCount64(a ^ b) }

// Window is an agent's FIFO of the most recent fingerprints: a ring buffer
// holding at most Cap entries. Its storage grows on demand (most agents
// send few requests), so an idle agent's window costs a few words. The
// zero value is unusable; use NewWindow.
type Window struct {
	// buf holds the entries: in order while it has fewer than size (its
	// capacity grown by doubling), a ring from head once full.
	buf  []Entry
	size int32 // the most entries held (≤ MaxWindow)
	head int32 // index of the oldest entry once full, else 0
}

// NewWindow returns an empty window holding at most size entries.
func NewWindow(size int) *Window { return &Window{size: int32(size)} }

// Len is the number of entries held.
func (w *Window) Len() int { return len(w.buf) }

// Cap is the most entries the window holds.
func (w *Window) Cap() int { return int(w.size) }

// At returns the i-th entry, 0 being the oldest.
func (w *Window) At(i int) *Entry { return &w.buf[(int(w.head)+i)%len(w.buf)] }

// Newest returns the most recent entry, or nil when empty.
func (w *Window) Newest() *Entry {
	if len(w.buf) == 0 {
		return nil
	}
	return w.At(len(w.buf) - 1)
}

// Push appends e, evicting the oldest entry when full.
func (w *Window) Push(e Entry) { w.push(e, nil) }

// push is Push taking the storage of a grown window from slab (nil: from
// the heap) and handing the storage it outgrew back to it.
func (w *Window) push(e Entry, slab *windowSlab) {
	n := len(w.buf)
	if n < int(w.size) {
		if n == cap(w.buf) {
			nb := slab.get(min(int(w.size), max(1, 2*n)))[:n]
			copy(nb, w.buf)
			slab.put(w.buf)
			w.buf = nb
		}
		w.buf = append(w.buf, e)
		return
	}
	w.buf[w.head] = e
	w.head = int32((int(w.head) + 1) % n)
}

// windowSlab lends the engine's windows the storage they grow into while
// small (up to slabMax entries, in capacities of powers of two), carved
// out of chunks, and takes it back when they outgrow it, for the next
// window that grows to that size. A replay of many agents making a few
// requests each grows thousands of windows from 1 to 2 to 4 entries:
// from the heap, every step was an allocation and a copy into fresh
// memory, the storage outgrown left as garbage; 22 % of a replay's page
// faults on the short-record corpus (benchmarks/short_test.go). A nil
// slab allocates from the heap.
type windowSlab struct {
	chunk []Entry                    // the rest of the current chunk
	next  int                        // the next chunk's size in entries
	free  [slabClasses + 1][][]Entry // storage given back, by log2 of its capacity
}

const (
	slabClasses = 3 // capacities 1, 2, 4 and 8 (1<<slabClasses) come from the slab
	slabMax     = 1 << slabClasses
	// The chunks grow from slabFirst entries (an engine replaying a few
	// agents stays small) to slabChunk (48 KB), then stay there.
	slabFirst = 64
	slabChunk = 1024
)

// get returns empty storage for n entries (n ≥ 1), zeroed.
func (s *windowSlab) get(n int) []Entry {
	c := bits.Len(uint(n)) - 1
	if s == nil || n > slabMax || n != 1<<c {
		return make([]Entry, 0, n)
	}
	if f := s.free[c]; len(f) > 0 {
		b := f[len(f)-1]
		f[len(f)-1] = nil
		s.free[c] = f[:len(f)-1]
		return b
	}
	if len(s.chunk) < n {
		s.next = min(slabChunk, max(slabFirst, 2*s.next))
		s.chunk = make([]Entry, s.next)
	}
	b := s.chunk[:0:n]
	s.chunk = s.chunk[n:]
	return b
}

// put takes back b, storage a window has outgrown, when get hands out
// storage of its capacity; it is cleared, so that the tool signatures it
// held can be collected.
func (s *windowSlab) put(b []Entry) {
	n := cap(b)
	c := bits.Len(uint(n)) - 1
	if s == nil || n == 0 || n > slabMax || n != 1<<c {
		return
	}
	b = b[:0:n]
	clear(b[:n])
	s.free[c] = append(s.free[c], b)
}

// Clear empties the window.
func (w *Window) Clear() { w.buf, w.head = w.buf[:0], 0 }

// Resize changes the capacity, keeping the most recent entries.
func (w *Window) Resize(size int) {
	if size == int(w.size) {
		return
	}
	n := len(w.buf)
	keep := min(n, size)
	nb := make([]Entry, keep)
	for i := 0; i < keep; i++ {
		nb[i] = *w.At(n - keep + i)
	}
	w.buf, w.size, w.head = nb, int32(size), 0
}

// Count scores cur against the last k entries of the window (all of them
// when k ≥ Len): similar prompts are entries whose prompt hash is within
// SimilarDistance of cur's; similar responses are entries whose response
// hash is within SimilarDistance of the most recent response among those k
// (that one excluded); repeated tool calls are entries with cur's non-empty
// signature. Both profiles count this way; they differ in what the window
// holds when they call it.
func (w *Window) Count(cur *Entry, k int) Counts {
	var c Counts
	n := len(w.buf)
	if k > n {
		k = n
	}
	start := n - k
	newestResp := -1
	for i := n - 1; i >= start; i-- {
		e := w.At(i)
		if e.HasResp {
			newestResp = i
			break
		}
	}
	var ref uint64
	if newestResp >= 0 {
		ref = w.At(newestResp).Response
	}
	for i := start; i < n; i++ {
		e := w.At(i)
		if cur.HasPrompt && e.HasPrompt && Distance(e.Prompt, cur.Prompt) <= SimilarDistance {
			c.SimilarPrompts++
		}
		if e.HasResp && i != newestResp && Distance(e.Response, ref) <= SimilarDistance {
			c.SimilarResponses++
		}
		if cur.ToolSig != "" && e.ToolSig == cur.ToolSig {
			c.RepeatedToolCalls++
		}
	}
	return c
}
