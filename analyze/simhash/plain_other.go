//go:build !amd64 || purego

package simhash

// plainWordsFast is plainWords where there is no assembly version (other
// architectures, or the purego build tag).
func plainWordsFast(src []byte, p int, ws, gs []uint64, cnt []uint16, mask uint64, n int) (end, m int) {
	return plainWords(src, p, ws, gs, cnt, mask, n)
}

// listHotFast is listHot where there is no assembly version.
func listHotFast(fs []uint64, cnt []uint16, mask uint64, hot []uint64, nh int) int {
	return listHot(fs, cnt, mask, hot, nh)
}
