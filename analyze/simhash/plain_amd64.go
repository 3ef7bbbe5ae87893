//go:build amd64 && !purego

package simhash

import "golang.org/x/sys/cpu"

// plainWordsFast is plainWords in assembly (plain_amd64.s): it finds the
// words' lengths from masks of the word bytes and white space of 64-byte
// windows (built with SSE2, which every amd64 processor has, or AVX-512BW
// where useAVX512), reads each word's halves from the window lowercased
// once, and keeps its constants in registers; anything but a plain word it
// reads 16 bytes at a time. It returns and keeps exactly what plainWords
// does (TestPlainWordsFast, FuzzPlainWords).
//
//go:noescape
func plainWordsFast(src []byte, p int, xs []uint64, n int) (end, m int)

// settleFast is settle in assembly: with AVX-512 where the processor has
// it (settleAVX512), else settleScalar.
func settleFast(ws, gs []uint64, n int) {
	if useAVX512 {
		settleAVX512(ws, gs, n)
		return
	}
	settleScalar(ws, gs, n)
}

// useAVX512 reports whether the processor runs the AVX-512 instructions
// settleAVX512, tallyAVX512 and plainWordsFast use (AVX512F; DQ for
// VPMULLQ; BW for byte compares into mask registers; VL; POPCNT and BMI2's
// BZHI, which every processor with AVX-512 has); tests turn it off to
// check the other path.
var useAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512BW &&
	cpu.X86.HasAVX512VL && cpu.X86.HasPOPCNT && cpu.X86.HasBMI2

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

// tallyAVX512 adds up the bits of the features ws and gs (at most 4095 in
// all) into sums, twelve planes of 64 counts (see accumulator), and lists
// those of full buckets in hot as listHot(ws) and listHot(gs) do,
// returning how many, in assembly (plain_amd64.s) with AVX-512; the caller
// checks useAVX512. len(cnt) must be a multiple of 32 and mask len(cnt)-1;
// it needs cap(cnt) > len(cnt), as it may read each count with the next,
// and room in hot for 8 features past the last it lists.
//
//go:noescape
func tallyAVX512(ws, gs []uint64, sums *[12]uint64, cnt []uint16, mask uint64, hot []uint64) int

// A text kept whole (maxBuffered words) has at most 4095 features, which
// is what tallyAVX512's twelve planes hold: this fails to compile if not.
var _ [4095 - (2*maxBuffered - 1)]struct{}

// prefetch asks the processor for the first 256 bytes of src (plain_amd64.s).
//
//go:noescape
func prefetch(src []byte)

// settleScalar is settle in assembly (plain_amd64.s), one word at a time,
// for processors without AVX-512.
//
//go:noescape
func settleScalar(ws, gs []uint64, n int)
