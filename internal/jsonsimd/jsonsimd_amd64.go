//go:build !purego

package jsonsimd

import "golang.org/x/sys/cpu"

// Enabled says the functions below may run: AVX-512BW for the byte
// compares, PCLMULQDQ for the prefix XOR that tells string bytes from the
// others, BMI1/2 and POPCNT for the bit work. Tests turn it off to run
// the scalar code.
var Enabled = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL &&
	cpu.X86.HasPCLMULQDQ && cpu.X86.HasBMI1 && cpu.X86.HasBMI2 && cpu.X86.HasPOPCNT

// SkipContainer returns the length of the JSON object or array b starts
// with ('{' or '['), or -1 when it cannot tell: the value does not end
// within b, or a backslash stands outside a string (malformed JSON, whose
// handling is the scalar scanner's). Where it returns a length, it is the
// one a byte-by-byte scan finds: brackets of either kind counted alike,
// strings ending at the first quote not escaped by an odd run of
// backslashes. The caller checks Enabled.
//
//go:noescape
func SkipContainer(b []byte) int

// stringEndAVX512 is StringEnd 64 bytes at a time (jsonsimd_amd64.s).
//
//go:noescape
func stringEndAVX512(b []byte) int

// ASCIIPrefix returns the length of b's longest prefix of whole 64-byte
// blocks holding only ASCII. The caller checks Enabled.
//
//go:noescape
func ASCIIPrefix(b []byte) int

// EscapeEnd returns the index of the first byte of s a JSON string writer
// must look at — a control byte (below 0x20), a quote, a backslash or a
// byte from 0x80 — and len(s) when none is: 64 bytes at a time. The
// caller checks Enabled.
//
//go:noescape
func EscapeEnd(s string) int
