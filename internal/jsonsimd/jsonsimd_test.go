package jsonsimd

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

func needAVX512(t testing.TB) {
	if !Enabled {
		t.Skip("no AVX-512 here: callers run their scalar code only")
	}
}

// refStringEnd is StringEnd the slow way: byte by byte, a backslash
// escaping the byte after it.
func refStringEnd(b []byte) int {
	for j := 0; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return -1
}

// checkStringEnd checks StringEnd on b against refStringEnd, with
// AVX-512 where the processor has it and without.
func checkStringEnd(t *testing.T, b []byte) {
	t.Helper()
	want := refStringEnd(b)
	if got := stringEnd(b); got != want {
		t.Fatalf("stringEnd(%q) = %d; want %d", b, got, want)
	}
	if Enabled {
		if got := stringEndAVX512(b); got != want {
			t.Fatalf("stringEndAVX512(%q) = %d; want %d", b, got, want)
		}
	}
	if got := StringEnd(b); got != want {
		t.Fatalf("StringEnd(%q) = %d; want %d", b, got, want)
	}
}

// TestStringEnd runs StringEnd's two paths on strings of quotes,
// backslashes and other bytes, 0 to 300 long, so that runs of backslashes
// and quotes fall across the 64-byte blocks of one and the 8-byte words
// and IndexByte runs of the other.
func TestStringEnd(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 200000 {
		b := make([]byte, rng.IntN(300))
		p := 0.01 + 0.3*rng.Float64()
		for j := range b {
			switch r := rng.Float64(); {
			case r < p/4:
				b[j] = '"'
			case r < p:
				b[j] = '\\'
			default:
				b[j] = "ab\x00\xff"[rng.IntN(4)]
			}
		}
		checkStringEnd(t, b)
	}
}

// TestStringEndEdges: runs of 0-5 backslashes before a quote, ending at
// every offset around the first block and word boundaries.
func TestStringEndEdges(t *testing.T) {
	for pad := 0; pad < 200; pad++ {
		for run := 0; run < 6; run++ {
			s := bytes.Repeat([]byte("x"), pad)
			s = append(s, bytes.Repeat([]byte(`\`), run)...)
			checkStringEnd(t, append(s, '"'))
			checkStringEnd(t, append(s, `"x"`...))
			checkStringEnd(t, s)
		}
	}
}

// FuzzStringEnd: both of StringEnd's paths agree with the byte-by-byte
// reference.
func FuzzStringEnd(f *testing.F) {
	for _, s := range []string{``, `"`, `\"`, `\\"`, `abc\\\"def"`, string(bytes.Repeat([]byte(`\`), 63)) + `""`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkStringEnd(t, b)
	})
}

// checkASCIIPrefix checks ASCIIPrefix's contract on b, and ValidUTF8
// against utf8.Valid.
func checkASCIIPrefix(t *testing.T, b []byte) {
	t.Helper()
	n := ASCIIPrefix(b)
	if n%64 != 0 || n > len(b) {
		t.Fatalf("ASCIIPrefix(%d bytes) = %d", len(b), n)
	}
	for i, c := range b[:n] {
		if c >= 0x80 {
			t.Fatalf("ASCIIPrefix(%q) = %d, but byte %d is %#x", b, n, i, c)
		}
	}
	if n+64 <= len(b) && bytes.IndexFunc(b[n:n+64], func(r rune) bool { return r >= 0x80 }) < 0 {
		t.Fatalf("ASCIIPrefix(%q) = %d: the next block is ASCII too", b, n)
	}
	if got, want := ValidUTF8(b), utf8.Valid(b); got != want {
		t.Fatalf("ValidUTF8(%q) = %v; utf8.Valid says %v", b, got, want)
	}
}

// TestASCIIPrefix puts valid and broken UTF-8 at every offset around the
// blocks ASCIIPrefix reads.
func TestASCIIPrefix(t *testing.T) {
	needAVX512(t)
	for _, ins := range []string{"é", "€", "😀", "\xff", "\xe2\x82", "\x80", "\x7f"} {
		for size := 0; size < 300; size += 7 {
			for at := 0; at <= size; at++ {
				b := append(bytes.Repeat([]byte("a"), at), ins...)
				checkASCIIPrefix(t, append(b, bytes.Repeat([]byte("b"), size-at)...))
			}
		}
	}
}

// FuzzValidUTF8: ValidUTF8 agrees with utf8.Valid.
func FuzzValidUTF8(f *testing.F) {
	f.Add([]byte(`{"ts":"2026-03-01T00:00:00Z","agent":"é"}`))
	f.Add(bytes.Repeat([]byte("x"), 200))
	f.Fuzz(func(t *testing.T, b []byte) {
		needAVX512(t)
		checkASCIIPrefix(t, b)
	})
}

// refEscapeEnd is EscapeEnd the slow way, a byte at a time.
func refEscapeEnd(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return i
		}
	}
	return len(s)
}

func checkEscapeEnd(t *testing.T, s string) {
	t.Helper()
	if got, want := EscapeEnd(s), refEscapeEnd(s); got != want {
		t.Fatalf("EscapeEnd(%q) = %d; want %d", s, got, want)
	}
}

// TestEscapeEnd puts every byte value at every offset of strings 0 to
// 200 long: in the whole 64-byte blocks EscapeEnd reads and in the last,
// partial one (where the bytes past the string read as zero, a control
// byte, and must not be found).
func TestEscapeEnd(t *testing.T) {
	needAVX512(t)
	for size := 0; size <= 200; size++ {
		plain := bytes.Repeat([]byte("a"), size)
		checkEscapeEnd(t, string(plain))
		for c := range 0x100 {
			for _, at := range []int{0, size / 2, size - 1} {
				if at < 0 || at >= size {
					continue
				}
				b := bytes.Clone(plain)
				b[at] = byte(c)
				checkEscapeEnd(t, string(b))
			}
		}
	}
	// The bytes either side of every bound: 0x1f/0x20, 0x7f/0x80.
	for at := 0; at < 130; at++ {
		for _, c := range []byte{0x1f, 0x20, 0x21, 0x22, 0x5b, 0x5c, 0x5d, 0x7f, 0x80, 0xff} {
			b := bytes.Repeat([]byte(" "), 130)
			b[at] = c
			checkEscapeEnd(t, string(b))
			checkEscapeEnd(t, string(b[:at+1]))
		}
	}
}

// FuzzEscapeEnd: EscapeEnd agrees with the byte-at-a-time scan.
func FuzzEscapeEnd(f *testing.F) {
	f.Add(`plain text of a message, then "a quote"`)
	f.Add(string(bytes.Repeat([]byte("x"), 200)) + "\n")
	f.Add("é" + string(bytes.Repeat([]byte("y"), 70)))
	f.Fuzz(func(t *testing.T, s string) {
		needAVX512(t)
		checkEscapeEnd(t, s)
	})
}

// TestASCII puts a byte from 0x80 (and 0x7f, which is ASCII) at every
// offset of texts 0 to 80 long.
func TestASCII(t *testing.T) {
	for n := 0; n <= 80; n++ {
		b := bytes.Repeat([]byte("a"), n)
		if !ASCII(b) {
			t.Fatalf("ASCII(%q) = false", b)
		}
		for at := range n {
			for _, c := range []byte{0x7f, 0x80, 0xc3, 0xff} {
				b[at] = c
				if got, want := ASCII(b), c < 0x80; got != want {
					t.Fatalf("ASCII(%q) = %v; want %v", b, got, want)
				}
			}
			b[at] = 'a'
		}
	}
}

// BenchmarkSkipContainer: SkipContainer over chat requests of 4 KiB of
// prose, a quoted phrase escaped now and then, as a capture's request
// bodies are skipped. Its 64-byte loop must run at several GB/s; two
// legacy SSE instructions in it once made it 340 MB/s on a machine with
// AVX-512 (see internal/asmcheck).
func BenchmarkSkipContainer(b *testing.B) {
	needAVX512(b)
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"the", "agent", "calls", "a", "tool", "with", "its", "arguments", `\"quoted\"`, "again", "and", "order", "#3120"}
	var reqs [][]byte
	size := 0
	for range 64 {
		var p bytes.Buffer
		p.WriteString(`{"model":"m","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"`)
		for p.Len() < 4096 {
			p.WriteString(words[rng.IntN(len(words))])
			p.WriteByte(' ')
		}
		p.WriteString(`"}],"tools":[{"name":"f","parameters":{"type":"object"}}]}`)
		reqs = append(reqs, p.Bytes())
		size += p.Len()
	}
	for _, r := range reqs {
		if n := SkipContainer(r); n != len(r) {
			b.Fatalf("SkipContainer = %d, want %d", n, len(r))
		}
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, r := range reqs {
			SkipContainer(r)
		}
	}
}
