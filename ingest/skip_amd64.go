//go:build !purego

package ingest

import (
	"unicode/utf8"

	"golang.org/x/sys/cpu"
)

// useAVX512 says skipContainer may run: AVX-512BW for the byte compares,
// PCLMULQDQ for the prefix XOR that tells string bytes from the others,
// BMI1/2 and POPCNT for the bit work. Tests turn it off to run the scalar
// scanner.
var useAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasPCLMULQDQ &&
	cpu.X86.HasBMI1 && cpu.X86.HasBMI2 && cpu.X86.HasPOPCNT

// skipContainer returns the length of the JSON object or array b starts
// with ('{' or '['), found 64 bytes at a time (skip_amd64.s), or -1 when it
// cannot tell: the value does not end within b, or a backslash stands
// outside a string (malformed JSON, whose handling is the scalar
// scanner's). Where it returns a length, it is the one skipValue's scalar
// loop finds: brackets of either kind counted alike, strings ending at the
// first quote not escaped by an odd run of backslashes. The caller checks
// useAVX512.
//
//go:noescape
func skipContainer(b []byte) int

// asciiPrefix returns the length of b's longest prefix of whole 64-byte
// blocks holding only ASCII (skip_amd64.s). The caller checks useAVX512.
//
//go:noescape
func asciiPrefix(b []byte) int

// ValidUTF8 is utf8.Valid, its ASCII blocks checked 64 bytes at a time
// where the processor can.
func ValidUTF8(b []byte) bool {
	if useAVX512 {
		b = b[asciiPrefix(b):]
	}
	return utf8.Valid(b)
}
