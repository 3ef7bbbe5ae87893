package agentgazer

import "math/bits"

// FNV-1a, 64 bits, fed one UTF-16 code unit at a time (XOR the whole unit,
// then multiply), as AgentGazer does with charCodeAt and BigInt arithmetic.
const (
	fnvOffset = 0xcbf29ce484222325
	fnvPrime  = 0x100000001b3
)

// fnv returns the FNV-1a hash of the units u.
func fnv(u []uint16) uint64 {
	h := uint64(fnvOffset)
	for _, c := range u {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}

// shingle is the number of code units per SimHash feature.
const shingle = 3

// simhashUnits returns the SimHash of u, which must already be lower-cased,
// whitespace-collapsed and trimmed: features are the overlapping 3-unit
// substrings of u (u itself if shorter), each weighted 1, and bit i of the
// result is set iff strictly more than half of the features have it set.
func simhashUnits(u []uint16) uint64 {
	if len(u) < shingle {
		// One feature: every bit is 1 against 0 or 0 against 1.
		return fnv(u)
	}
	// Count set bits per position in byte lanes: lane k of acc[j] counts
	// bit 8k+j. A lane holds at most 255, so flush every 255 features.
	const lanes = 0x0101010101010101
	var acc [8]uint64
	var count [64]int
	flush := func() {
		for j, a := range acc {
			for k := range 8 {
				count[8*k+j] += int(a >> (8 * k) & 0xFF)
			}
		}
		acc = [8]uint64{}
	}
	features := len(u) - shingle + 1
	pending := 0
	for i := range features {
		h := (fnvOffset ^ uint64(u[i])) * fnvPrime
		h = (h ^ uint64(u[i+1])) * fnvPrime
		h = (h ^ uint64(u[i+2])) * fnvPrime
		acc[0] += h & lanes
		acc[1] += h >> 1 & lanes
		acc[2] += h >> 2 & lanes
		acc[3] += h >> 3 & lanes
		acc[4] += h >> 4 & lanes
		acc[5] += h >> 5 & lanes
		acc[6] += h >> 6 & lanes
		acc[7] += h >> 7 & lanes
		if pending++; pending == 255 {
			flush()
			pending = 0
		}
	}
	flush()
	var sum uint64
	for b, c := range count {
		if 2*c > features {
			sum |= 1 << b
		}
	}
	return sum
}

// SimHash returns AgentGazer's 64-bit SimHash of s: s is lower-cased
// (JavaScript toLowerCase), every whitespace run becomes one space and the
// ends are trimmed; the features are the overlapping 3-code-unit substrings
// of the resulting UTF-16 string (an astral character is two units, so a
// feature may hold half of one), or the whole string if it is shorter than 3
// units; each is hashed with FNV-1a 64 over its code units. Bit i (LSB = 0)
// is 1 iff strictly more features have it set than not. SimHash("") is the
// FNV offset basis 0xcbf29ce484222325. s is read as WTF-8 (see Normalize).
//
// SimHash does not normalize: AgentGazer hashes Normalize(text), see
// HashText and PromptHash.
func SimHash(s string) uint64 {
	u := appendUnits(make([]uint16, 0, len(s)), s, true)
	lower := appendLower(make([]uint16, 0, len(u)+8), u)
	return simhashUnits(trimSpace(appendCollapsed(u[:0], lower)))
}

// HashText returns AgentGazer's hash of a raw text, SimHash(Normalize(raw)),
// the way the proxy hashes an upstream response body: raw is decoded as
// Node's Buffer.toString("utf-8") does (ill-formed bytes, including encoded
// surrogates, read as U+FFFD), so any byte string is accepted.
func HashText(raw string) uint64 {
	// Normalize's output is already lower-case (toLowerCase is idempotent),
	// collapsed and trimmed, so SimHash's own preparation would not change it.
	return simhashUnits(normalizeUnits(appendUnits(make([]uint16, 0, len(raw)), raw, false)))
}

// Distance returns the Hamming distance between a and b: the number of bit
// positions in which they differ, 0 to 64.
func Distance(a, b uint64) int {
	return bits.OnesCount64(a ^ b)
}
