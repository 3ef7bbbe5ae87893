// Package simhash implements the spec-profile text normalizer and 64-bit
// SimHash used by killswitch (SPEC §1.2, §4.1).
//
// Work in progress: the API is stable, the bodies are being optimized.
package simhash

import (
	"bytes"
	"hash/fnv"
	"math/bits"
)

// Hash returns the 64-bit SimHash of src's normalized form, computed in one pass
// without materializing the normalized text and without allocating. ok is false
// when the normalized text has no features (empty or whitespace-only): such a
// text has NO hash and never counts as similar (SPEC §4.1).
func Hash(src []byte) (h uint64, ok bool) {
	n := Normalize(nil, src)
	if len(n) == 0 {
		return 0, false
	}
	var v [64]int
	for _, w := range bytes.Split(n, []byte(" ")) {
		f := fnv.New64a()
		f.Write(w)
		x := f.Sum64()
		for i := range 64 {
			if x>>i&1 == 1 {
				v[i]++
			} else {
				v[i]--
			}
		}
	}
	for i := range 64 {
		if v[i] > 0 {
			h |= 1 << i
		}
	}
	return h, true
}

// Distance is the Hamming distance between two hashes.
func Distance(a, b uint64) int { return bits.OnesCount64(a ^ b) }
