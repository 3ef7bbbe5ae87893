package simhash

import "math/bits"

// Counting features under the cap.
//
// A feature counts at most tfCap times, so whether an occurrence counts
// depends on how often the feature came before: looked up in a hash table as
// it comes, every feature costs a probe, which was half the time of Hash on
// prose. But most features of a text occur once. So the hasher keeps the
// text's word hashes and bigrams, and at the end counts how many features
// fall into each bucket (by the bits of the feature above its low countBits;
// four to eight buckets for each feature: with fewer, words repeated a few
// times, sharing a bucket with unrelated features, fill it past tfCap more
// often, and their features are counted exactly for nothing). Then a feature
// whose bucket holds at most tfCap features occurs at most tfCap times and
// counts every time, with no lookup. Every feature is added to the bit
// counts straight from the kept hashes; only the features of fuller buckets
// (repeated words and pairs, and the rare unrelated features that share a
// bucket) are counted through the exact table, and each of their occurrences
// past the tfCap-th is added to a second set of bit counts (excess) that is
// subtracted at the end. The result is the same as counting every feature
// through the table. A text of more words than the space keeps (maxBuffered,
// about 12 KB of prose) is counted through the table from then on, as it was
// before, as larger bucket arrays would cost more to clear and miss the
// cache.

// maxBuffered is the most word hashes Hash's pooled space keeps.
const maxBuffered = 2048

// space is the memory a hasher counts features in, reused from text to text:
// only the parts a text uses are written, and only cnt's are cleared.
type space struct {
	words []uint64 // the open hashes of the text's words, in order (see settle)
	grams []uint64 // grams[i]: the bigram ending at words[i], for i >= 1
	hot   []uint64 // the features of buckets with more than tfCap features
	cnt   []uint16 // features per bucket
	table []uint64 // backing array of the exact feature table
}

// newSpace returns a space that keeps up to words word hashes (at least 1):
// 2×words features, in up to 16×words buckets.
func newSpace(words int) *space {
	buckets, feats := 64, 2
	for buckets < 8*words {
		buckets *= 2
	}
	for feats < 2*words {
		feats *= 2
	}
	return &space{
		words: make([]uint64, words),
		grams: make([]uint64, words),
		// hot's length is a power of two, for listHot's mask; tallyAVX512
		// writes 8 features at a time, and reads each count with the next.
		hot:   make([]uint64, feats, feats+8),
		cnt:   make([]uint16, buckets, buckets+1),
		table: make([]uint64, minTable),
	}
}

// count keeps x, the open hash of the text's next word (see wordOpen), for
// finish, or, when the space is full, counts every kept word's features
// through the exact table.
func (h *hasher) count(x uint64) {
	h.ws[h.n] = x
	h.n++
	if h.n == len(h.ws) {
		h.countExact()
	}
}

// settle turns the open hashes of the n kept words, ws[:n], into their
// unigram features (mix64), and computes the bigram ending at each word
// but the first as gs[i]: all the words' final mixes at once, which do not
// depend on each other, rather than one word at a time. settleFast does
// the same, with AVX-512 where the processor has it.
func settle(ws, gs []uint64, n int) {
	ws, gs = ws[:n], gs[:n]
	for i, x := range ws {
		ws[i] = mix64(x)
	}
	for i := 1; i < len(ws); i++ {
		gs[i] = bigram(ws[i-1], ws[i])
	}
}

// bucket counts the features fs in their buckets of cnt, by their bits
// from countBits up, masked with mask (len(cnt)-1). bucketFast is the same
// in assembly on amd64.
func bucket(fs []uint64, cnt []uint16, mask uint64) {
	cnt = cnt[:mask+1]
	for _, f := range fs {
		cnt[f>>countBits&mask]++
	}
}

// countExact counts the features of the kept words through the exact table
// and empties the space. Once it has run (h.words > 0), every later word of
// the text is counted so.
func (h *hasher) countExact() {
	if h.words == 0 {
		h.set.start(&h.sp.table, h.size)
	}
	settleFast(h.ws, h.gs, h.n)
	for i, u := range h.ws[:h.n] {
		switch {
		case i > 0:
			h.exact(h.gs[i])
		case h.words > 0:
			h.exact(bigram(h.prev, u))
		}
		h.exact(u)
		h.prev = u
		h.words++
	}
	h.n = 0
}

// finish counts the kept words' features and returns the SimHash.
func (h *hasher) finish() (uint64, bool) {
	if h.words > 0 {
		h.countExact()
	} else if h.n > 0 {
		h.countBuckets()
	}
	if h.excess.n > 0 || h.excess.nb > 0 {
		h.excess.flush()
		h.acc.flush()
		h.acc.subtract(&h.excess)
	}
	return h.acc.sum()
}

// countBuckets counts the features of the n kept words, the whole text
// (see the top of this file): it counts them in their buckets, then adds
// them to the bit counts, counting those of full buckets exactly.
func (h *hasher) countBuckets() {
	sp, n := h.sp, h.n
	settleFast(h.ws, h.gs, n)
	h.sizeBuckets()
	bucketFast(h.ws[:n], h.cnt, h.mask)
	bucketFast(h.gs[1:n], h.cnt, h.mask)
	// Count every feature, and list those of full buckets (hot).
	var nh int
	if useAVX512 {
		var sums [12]uint64
		nh = tallyAVX512(h.ws[:n], h.gs[1:n], &sums, h.cnt, h.mask, sp.hot)
		h.acc.n += 2*n - 1
		h.acc.addPlanes(sums[:])
	} else {
		nh = h.tally(h.ws[:n], 0)
		nh = h.tally(h.gs[1:n], nh)
	}
	hot := sp.hot
	if nh == 0 {
		return
	}
	// Count the hot features exactly; each occurrence past the tfCap-th is
	// counted again in excess, to be taken off.
	h.set.startSlots(&sp.table, 4*nh)
	for _, f := range hot[:nh] {
		c := h.set.see(f)
		h.excess.push(f, uint(1-(c-tfCap)>>63)) // c >= tfCap
	}
}

// tally counts the features fs in h.acc and lists those of full buckets
// in h.sp.hot from nh, as listHot does; it returns the new nh. Whole groups
// of 32 features go through tallyFast, the rest through addAll and listHot.
func (h *hasher) tally(fs []uint64, nh int) int {
	if whole := len(fs) &^ 31; whole > 0 {
		var odd [4]uint64
		nh = tallyFast(fs[:whole], &h.acc.planes, &odd, h.cnt, h.mask, h.sp.hot, nh)
		h.acc.n += whole
		h.acc.addPlanes(odd[:])
		fs = fs[whole:]
	}
	h.acc.addAll(fs)
	return listHot(fs, h.cnt, h.mask, h.sp.hot, nh)
}

// listHot lists in hot[nh:] the features of fs whose bucket in cnt (by
// their bits from countBits up, masked with mask: len(cnt)-1) holds more
// than tfCap features, and returns the new nh. hot must have room for all
// of fs after nh, and its length must be a power of two. It lists them
// without a branch: each feature is written to the list, which grows only
// by hot ones.
func listHot(fs []uint64, cnt []uint16, mask uint64, hot []uint64, nh int) int {
	for _, f := range fs {
		hot[nh&(len(hot)-1)] = f
		nh += int((tfCap - uint64(cnt[f>>countBits&mask])) >> 63) // count > tfCap
	}
	return nh
}

// exact counts feature f through the exact table: it counts while the table
// has seen it fewer than tfCap times.
func (h *hasher) exact(f uint64) {
	c := h.set.see(f)
	h.acc.push(f, uint((c-tfCap)>>63)) // c < tfCap
}

// see counts an occurrence of f and returns how many times the set saw it
// before, at most tfCap+1. The only data-dependent branch is taken on probe
// collisions, as whether a feature is new is unpredictable.
func (s *featureSet) see(f uint64) uint64 {
	slots := s.slots
	i, e := probe(slots, uint64(len(slots)-1), s.shift&63, f)
	c := e & countMask
	slots[i] = f&^countMask | (c + (c-(tfCap+1))>>63) // count+1, at most tfCap+1
	s.used += int(1 - nonzero(e))                     // one more if new
	if 2*s.used > len(slots) {
		s.grow()
	}
	return c
}

// probe returns the slot of f in slots: the one holding it, or the empty
// slot where it goes, and the slot's content.
func probe(slots []uint64, mask uint64, shift uint, f uint64) (uint64, uint64) {
	i := f >> shift & mask
	e := slots[i]
	// Probe on while the slot holds another feature (the slot is not empty
	// and its feature differs): one predictable branch.
	for min((e^f)&^countMask, e) != 0 {
		i = (i + 1) & mask
		e = slots[i]
	}
	return i, e
}

// featureSet counts the occurrences of distinct features, saturating above
// tfCap: an open-addressing table with linear probing, indexed by the top
// bits of the feature, that grows as soon as more than half its slots are
// used. A slot holds the feature with its low 3 bits replaced by its count
// (0: empty slot), so features are told apart by their top 61 bits.
type featureSet struct {
	slots   []uint64
	shift   uint // the home slot of f is f >> shift
	used    int  // distinct features in the table
	backing *[]uint64
}

// minTable is the smallest backing array of a featureSet table, and
// maxStartSlots the largest table a text starts with.
const (
	minTable      = 4096
	maxStartSlots = 4096
)

// start prepares an empty table in *backing, sized for a text of n bytes:
// the next power of two at or above 2n, from 64 to maxStartSlots slots (so
// most texts fill an eighth of it: each collision costs a mispredicted
// branch, which costs more than clearing the larger table). A text of n
// bytes has at most n+2 features, usually a third of that.
func (s *featureSet) start(backing *[]uint64, n int) {
	s.startSlots(backing, 2*n)
}

// startSlots prepares an empty table in *backing of at least min(n,
// maxStartSlots) slots, a power of two no smaller than 64.
func (s *featureSet) startSlots(backing *[]uint64, n int) {
	size := 64
	for size < n && size < maxStartSlots {
		size *= 2
	}
	s.backing = backing
	s.use(size)
}

// use makes the set an empty table of size slots in the backing array,
// growing the array when it is too small.
func (s *featureSet) use(size int) {
	if len(*s.backing) < size {
		*s.backing = make([]uint64, size)
	}
	s.slots = (*s.backing)[:size]
	clear(s.slots)
	s.shift = uint(64 - bits.TrailingZeros(uint(size)))
	s.used = 0
}

// countMask selects the count bits of a slot, and countBits is their
// number: a feature's bucket is taken from the bits above them, so that
// features the table cannot tell apart share a bucket.
const (
	countBits = 3
	countMask = 1<<countBits - 1
)

// nonzero returns 1 when x != 0, else 0, without a branch.
func nonzero(x uint64) uint64 { return (x | -x) >> 63 }

// grow moves the set into a new table four times as large, which becomes the
// backing array for later texts.
func (s *featureSet) grow() {
	old := s.slots
	*s.backing = make([]uint64, 4*len(old))
	s.use(len(*s.backing))
	mask := uint64(len(s.slots) - 1)
	for _, e := range old {
		if e != 0 {
			i := e >> s.shift & mask
			for s.slots[i] != 0 {
				i = (i + 1) & mask
			}
			s.slots[i] = e
			s.used++
		}
	}
}
