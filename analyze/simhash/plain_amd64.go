//go:build amd64 && !purego

package simhash

import "golang.org/x/sys/cpu"

// plainWordsFast is plainWords in assembly (plain_amd64.s), with SSE2 only,
// which every amd64 processor has: it finds a word's length and lowercases
// it sixteen bytes at a time, and keeps its constants in registers. It
// returns and keeps exactly what plainWords does (FuzzPlainWords).
//
//go:noescape
func plainWordsFast(src []byte, p int, xs []uint64, n int) (end, m int)

// settleFast is settle, with AVX-512 where the processor has it
// (settleAVX512).
func settleFast(ws, gs []uint64, n int) {
	if useAVX512 {
		settleAVX512(ws, gs, n)
		return
	}
	settle(ws, gs, n)
}

// useAVX512 reports whether the processor runs the AVX-512 instructions
// settleAVX512 uses (AVX512F, AVX512DQ for VPMULLQ); tests turn it off to
// check the other path.
var useAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ

// settleAVX512 is settle in assembly (plain_amd64.s), eight words at a
// time in AVX-512 registers; the caller checks useAVX512.
//
//go:noescape
func settleAVX512(ws, gs []uint64, n int)

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

// bucketFast is bucket in assembly; it trusts its caller as bucket does
// not: mask must be len(cnt)-1, a power of two minus one.
//
//go:noescape
func bucketFast(fs []uint64, cnt []uint16, mask uint64)
