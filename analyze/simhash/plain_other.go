//go:build !amd64 || purego

package simhash

// plainWordsFast is plainWords where there is no assembly version (other
// architectures, or the purego build tag).
func plainWordsFast(src []byte, p int, xs []uint64, n int) (end, m int) {
	return plainWords(src, p, xs, n)
}

// settleFast is settle where there is no assembly version.
func settleFast(ws, gs []uint64, n int) { settle(ws, gs, n) }

// tallyFast is groupsGo and listHot where there is no assembly version;
// odd stays zero.
func tallyFast(fs []uint64, planes *[64]uint64, odd *[4]uint64, cnt []uint16, mask uint64, hot []uint64, nh int) int {
	groupsGo(fs, planes)
	return listHot(fs, cnt, mask, hot, nh)
}

// bucketFast is bucket where there is no assembly version.
func bucketFast(fs []uint64, cnt []uint16, mask uint64) { bucket(fs, cnt, mask) }

// useAVX512 is false where there is no assembly version.
var useAVX512 = false

// tallyAVX512 is never called where there is no assembly version.
func tallyAVX512(ws, gs []uint64, sums *[12]uint64, cnt []uint16, mask uint64, hot []uint64) int {
	panic("simhash: no AVX-512 here")
}

// prefetch does nothing where there is no assembly version.
func prefetch(src []byte) {}
