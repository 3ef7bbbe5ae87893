//go:build !amd64 || purego

package ingest

import "unicode/utf8"

// useAVX512 is false where skip_amd64.s is not built.
var useAVX512 = false

// skipContainer is only called when useAVX512 is true.
func skipContainer(b []byte) int { panic("ingest: skipContainer without AVX-512") }

// ValidUTF8 is utf8.Valid.
func ValidUTF8(b []byte) bool { return utf8.Valid(b) }

// asciiPrefix is only called when useAVX512 is true.
func asciiPrefix(b []byte) int { panic("ingest: asciiPrefix without AVX-512") }
