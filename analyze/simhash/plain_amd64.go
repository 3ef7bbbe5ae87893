//go:build amd64 && !purego

package simhash

// plainWordsFast is plainWords in assembly (plain_amd64.s), with SSE2 only,
// which every amd64 processor has: it finds a word's length and lowercases
// it sixteen bytes at a time, and keeps its constants in registers. It
// returns exactly what plainWords returns (FuzzPlainWords).
//
//go:noescape
func plainWordsFast(src []byte, p int, ws []uint64, n int) (end, m int)
