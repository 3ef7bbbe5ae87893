//go:build !amd64 || purego

package ingest

// useAVX512 is false where skip_amd64.s is not built.
var useAVX512 = false

// skipContainer is only called when useAVX512 is true.
func skipContainer(b []byte) int { panic("ingest: skipContainer without AVX-512") }
