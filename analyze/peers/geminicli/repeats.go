package geminicli

import (
	"math/bits"
	"unicode/utf8"
)

// Content chanting needs one 50-unit chunk at 10 positions. A response
// text in which no chunk can occur 10 times needs no chunk table: fed to
// an empty content history it cannot detect, and the history it leaves is
// built only if a later event reads it (Service.AddText). CannotChant
// answers that cheaply, once a record, while the record is extracted.
//
// Why it suffices: a detection in a history made of the lines of one text
// needs one chunk at 10 distinct positions (the chunk table pushes a
// position once, and only after comparing its units with the chunk's
// newest). Dropping a low surrogate at the chunk's start and a high
// surrogate at its end (a pair cut in two) leaves at least 48 units of
// whole code points: in a valid UTF-8 text, 10 equal substrings of at
// least 48 bytes at 10 distinct byte offsets. Two of 10 offsets are equal
// modulo 9 (ContentLoopThreshold-1), so the blocks at the first multiple
// of 9 in each of their windows, 40 bytes long (48-8), are equal and at
// two distinct multiples of 9. A valid UTF-8 text whose 40-byte blocks at
// the multiples of 9 are all different has no chunk at 10 positions. (An
// invalid byte becomes U+FFFD, so different bytes can give equal units:
// such a text is never certified.)
const (
	anchorStride = ContentLoopThreshold - 1 // 9
	anchorLen    = 48 - (anchorStride - 1)  // 40
)

// repeatFinder is CannotChant's scratch table, reused from record to
// record (one per extractor).
type repeatFinder struct {
	slots []uint64 // an anchor's hash (never 0), 0 for an empty slot
	pos   []int32  // the anchor's offset
}

// CannotChant reports whether text is valid UTF-8 and its 40-byte blocks
// at offsets 0, 9, 18, … are all different: then no 50-unit chunk of any
// content history made of its lines occurs 10 times, and content chanting
// cannot detect in it.
func (f *repeatFinder) CannotChant(text string) bool {
	if !utf8.ValidString(text) {
		return false
	}
	if len(text) < anchorLen+anchorStride {
		return true // one block at most
	}
	n := (len(text)-anchorLen)/anchorStride + 1
	size := 16
	for size < 4*n {
		size *= 2
	}
	if len(f.slots) < size {
		f.slots, f.pos = make([]uint64, size), make([]int32, size)
	}
	slots, pos := f.slots[:size], f.pos[:size]
	clear(slots)
	shift := uint(64-bits.TrailingZeros(uint(size))) & 63
	mask := uint64(size - 1)
	for a := 0; a+anchorLen <= len(text); a += anchorStride {
		w := text[a : a+anchorLen]
		h := (load64(w[0:8]) ^ bits.RotateLeft64(load64(w[8:16]), 13) ^ bits.RotateLeft64(load64(w[16:24]), 26) ^
			bits.RotateLeft64(load64(w[24:32]), 39) ^ bits.RotateLeft64(load64(w[32:40]), 52)) * 0x9e3779b97f4a7c15
		h |= 1
		i := h >> shift
		for ; slots[i] != 0; i = (i + 1) & mask {
			if slots[i] == h && text[pos[i]:int(pos[i])+anchorLen] == w {
				return false
			}
		}
		slots[i], pos[i] = h, int32(a)
	}
	return true
}

func load64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}
