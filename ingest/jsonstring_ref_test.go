package ingest

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/killswitch/killswitch/internal/jsonsimd"
)

// refEscaped is the escaper as it was before it read words (a byte at a
// time, no fast path): what appendEscaped must write, byte for byte, for
// every input.
func refEscaped(b []byte, s string, shortBF bool) []byte {
	const hex = "0123456789abcdef"
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case shortBF && c == '\b':
				b = append(b, '\\', 'b')
			case shortBF && c == '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(b, s[start:]...)
}

// checkEscaped compares every writer built on appendEscaped with the
// reference, for s as a string and as bytes.
func checkEscaped(t *testing.T, s string) {
	t.Helper()
	for _, shortBF := range []bool{false, true} {
		want := refEscaped([]byte("x"), s, shortBF)
		if got := appendEscaped([]byte("x"), s, shortBF); !bytes.Equal(got, want) {
			t.Fatalf("%q (shortBF %v): got %s, want %s", s, shortBF, got, want)
		}
		if got := appendEscaped([]byte("x"), []byte(s), shortBF); !bytes.Equal(got, want) {
			t.Fatalf("%q as bytes (shortBF %v): got %s, want %s", s, shortBF, got, want)
		}
	}
	if got, want := AppendJSONString(nil, s), append(refEscaped([]byte{'"'}, s, false), '"'); !bytes.Equal(got, want) {
		t.Fatalf("%q: AppendJSONString %s, want %s", s, got, want)
	}
	if got, want := AppendJSONStringStd(nil, s), append(refEscaped([]byte{'"'}, s, true), '"'); !bytes.Equal(got, want) {
		t.Fatalf("%q: AppendJSONStringStd %s, want %s", s, got, want)
	}
}

// Every byte, at every offset within and across the words the escaper
// reads (0 to 40 plain bytes before it, 0 to 20 after) and around the
// 64-byte blocks jsonsimd.EscapeEnd reads past the first sixteen bytes,
// writes what the byte-at-a-time escaper writes: with AVX-512 where the
// processor has it, and without.
func TestAppendEscapedMatchesReference(t *testing.T) {
	specials := []string{"\"", "\\", "\x00", "\x1f", "\x20", "\x7f", "\x80", "\xff", "\b", "\f", "\n", "\r", "\t",
		"é", "😀", "\u2028", "\u2029", "\xe2\x80", "\xc3", "!", "#", "[", "]", "a"}
	for c := range 0x100 {
		specials = append(specials, string([]byte{byte(c)}))
	}
	pres := []int{63, 64, 65, 79, 80, 81, 127, 128, 129, 143, 144, 145, 200}
	for pre := range 41 {
		pres = append(pres, pre)
	}
	run := func(t *testing.T) {
		for _, sp := range specials {
			for _, pre := range pres {
				for _, post := range []int{0, 1, 7, 8, 9, 15, 16, 17, 20, 47, 48, 49, 64, 100} {
					checkEscaped(t, strings.Repeat("p", pre)+sp+strings.Repeat("q", post))
				}
			}
		}
		// Runs of text that is not ASCII (read whole when valid) with a
		// special byte, a bad one, a cut rune or U+2028 at every place
		// among them, before and after a run that is valid.
		for _, sp := range specials {
			for pre := range 12 {
				for _, post := range []int{0, 1, 3, 11} {
					checkEscaped(t, strings.Repeat("狐", pre)+sp+strings.Repeat("é", post))
					checkEscaped(t, "a"+strings.Repeat("é", pre)+sp+strings.Repeat("狐", post)+"\xff"+strings.Repeat("ü", post))
				}
			}
		}
		checkEscaped(t, strings.Repeat("plain text of some length, ", 40)+"\"end\"\n")
		checkEscaped(t, strings.Repeat("texte accentué, ", 40)+"😀"+strings.Repeat("ü", 100))
	}
	t.Run("simd", run)
	if jsonsimd.Enabled {
		jsonsimd.Enabled = false
		defer func() { jsonsimd.Enabled = true }()
		t.Run("scalar", run)
	}
}

func FuzzAppendEscapedMatchesReference(f *testing.F) {
	f.Add("a\"\\\n\u2028\xff")
	f.Add("0123456789abcdef0123456789abcde\"")
	f.Add("0123456789abcdef\x7f0123456789abcdef\xe2\x80\xa8")
	f.Add(strings.Repeat("ok ", 30) + "\b\f\x01")
	f.Fuzz(func(t *testing.T, s string) { checkEscaped(t, s) })
}

// BenchmarkAppendJSONString escapes a message's text of 2 KB (prose
// with a quote and a line break every few hundred bytes) as the
// request writers do.
func BenchmarkAppendJSONString(b *testing.B) {
	benchEscape(b, strings.Repeat(strings.Repeat("The quick brown fox jumps over the lazy dog. ", 6)+"\"quoted\"\n", 7))
}

// BenchmarkAppendJSONStringUnicode escapes 2 KB of text that is mostly
// not ASCII (Chinese, a rune of three bytes, with ASCII punctuation and a
// line break now and then), where the escaper stops at every rune.
func BenchmarkAppendJSONStringUnicode(b *testing.B) {
	benchEscape(b, strings.Repeat(strings.Repeat("快速的棕色狐狸跳过了懒狗。", 4)+"\"引用\"\n", 4))
}

// BenchmarkAppendJSONStringBadUnicode is BenchmarkAppendJSONStringUnicode
// with a byte that is not UTF-8 at the end of each line: a run the escaper
// cannot take whole is read a rune at a time, once (it would read the run
// again at every rune, quadratic in the run's length, without its
// record of where the bad byte lies).
func BenchmarkAppendJSONStringBadUnicode(b *testing.B) {
	benchEscape(b, strings.Repeat(strings.Repeat("快速的棕色狐狸跳过了懒狗。", 4)+"\xff\n", 4))
}

// benchEscape escapes s as a JSON string, into the same buffer each time.
func benchEscape(b *testing.B, s string) {
	b.SetBytes(int64(len(s)))
	var out []byte
	for b.Loop() {
		out = AppendJSONString(out[:0], s)
	}
}
