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

// tallyFast adds the features of fs, a multiple of 32 of them, to planes
// and odd, and lists those of full buckets as listHot(fs, cnt, mask, hot,
// nh) does, returning the new nh, in assembly (plain_amd64.s). It runs
// groupsGo's adder tree on two lanes of SSE2 registers at once: the
// even-numbered features (counting from 0) in planes, the odd-numbered ones
// in odd, planes 0 to 3 of their own (which must be zero), whose carries
// out ripple into planes from 4 up. It trusts its caller as listHot
// requires.
//
//go:noescape
func tallyFast(fs []uint64, planes *[64]uint64, odd *[4]uint64, cnt []uint16, mask uint64, hot []uint64, nh int) int
