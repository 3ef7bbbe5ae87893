//go:build amd64 && !purego

package simhash

// plainWordsFast is plainWords in assembly (plain_amd64.s), with SSE2 only,
// which every amd64 processor has: it finds a word's length and lowercases
// it sixteen bytes at a time, and keeps its constants in registers. It
// returns and keeps exactly what plainWords does (FuzzPlainWords), and
// trusts its caller as plainWords requires: len(gs) >= len(ws) and mask ==
// len(cnt)-1, a power of two minus one.
//
//go:noescape
func plainWordsFast(src []byte, p int, ws, gs []uint64, cnt []uint16, mask uint64, n int) (end, m int)

// listHotFast is listHot in assembly (plain_amd64.s), with the same
// requirements, which it trusts.
//
//go:noescape
func listHotFast(fs []uint64, cnt []uint16, mask uint64, hot []uint64, nh int) int
