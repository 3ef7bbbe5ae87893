//go:build !amd64 || purego

package jsonsimd

// Enabled is false where jsonsimd_amd64.s is not built: the functions
// below are never called, and StringEnd runs its scalar code.
var Enabled = false

func SkipContainer(b []byte) int { panic("jsonsimd: SkipContainer without AVX-512") }
func ASCIIPrefix(b []byte) int   { panic("jsonsimd: ASCIIPrefix without AVX-512") }
func EscapeEnd(s string) int     { panic("jsonsimd: EscapeEnd without AVX-512") }

func stringEndAVX512(b []byte) int { panic("jsonsimd: stringEndAVX512 without AVX-512") }
