// Package jsonsimd finds JSON structure 64 bytes at a time with AVX-512:
// the end of an object or array, the end of a string, the ASCII prefix
// of a line. Each function has a scalar twin in the package that uses it
// (ingest's skipValue, analyze/body's skipString), which stays the
// reference: callers check Enabled, and tests turn it off to compare.
package jsonsimd

import "unicode/utf8"

// ValidUTF8 is utf8.Valid, its ASCII blocks checked 64 bytes at a time
// where the processor can.
func ValidUTF8(b []byte) bool {
	if Enabled {
		b = b[ASCIIPrefix(b):]
	}
	return utf8.Valid(b)
}
