package agentgazer

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// simhashVectors were produced by testdata/oracle.js ("node
// testdata/oracle.js simhash"): JavaScript toLowerCase, /\s+/g, trim,
// slice-based 3-unit shingles, FNV-1a with BigInt over charCodeAt, per-bit
// majority. Inputs are WTF-8.
var simhashVectors = []struct {
	in   string
	want uint64
}{
	{"", 0xcbf29ce484222325},
	{"a", 0xaf63dc4c8601ec8c},
	{"ab", 0x089c4407b545986a},
	{"abc", 0xe71fa2190541574b},
	{"abcd", 0x001f221901010642},
	{"ABC", 0xe71fa2190541574b},
	{"  a  b  ", 0xe63f991904833892},
	{"a\u00a0b", 0xe63f991904833892},
	{"\U0001f600", 0xe5e45a0a241b88d8},
	{"a\U0001f600", 0x74ceb516f0f76d59},
	{"\U0001f600\U0001f600", 0x0a5540084a2a6512},
	{"\u0130", 0x08b61107b55a5679},
	{"\u0391\u03a3\ufeff\u0392", 0x050a19094440c844},
	{"\xed\xa0\x80", 0xb03bbd4c8770bfdf},
	{"x\xed\xa0\x80y", 0x2fafb11b9213e114},
	{"hello world", 0x125ab51929a9e33c},
	{"<num>", 0x6002db193403a71b},
	{"order #<num>", 0xc88a9719600bab00},
	{"the quick brown fox jumps over the lazy dog", 0xc2d1ac194dcbe02e},
	{"The quick brown fox jumps over the lazy dog 42 times", 0x4291a4194df97008},
	{"lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum ", 0x02e88e1959bff573},
	{"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz", 0x400eaa191445a610},
}

func TestSimHash(t *testing.T) {
	for _, tc := range simhashVectors {
		if got := SimHash(tc.in); got != tc.want {
			t.Errorf("SimHash(%.40q) = %#016x, want %#016x", tc.in, got, tc.want)
		}
	}
}

// TestSimHashByHand checks values computed without the code under test or
// Node (Python integers, mod 2^64; "a" is the published FNV-1a 64 test
// vector):
//
//	""     one feature "", no units hashed: the offset basis 0xcbf29ce484222325.
//	"a"    one feature: (0xcbf29ce484222325 ^ 0x61) * 0x100000001b3
//	       = 0xcbf29ce484222344 * 0x100000001b3 mod 2^64 = 0xaf63dc4c8601ec8c.
//	"ab"   one feature (shorter than 3): FNV over 0x61, 0x62 = 0x089c4407b545986a.
//	"😀"   U+1F600 is the two units 0xD83D 0xDE00, one feature:
//	       FNV over 0xD83D, 0xDE00 = 0xe5e45a0a241b88d8.
//	"abc"  one 3-unit feature: 0xe71fa2190541574b.
//	"abcd" features "abc" = 0xe71fa2190541574b and "bcd" = 0x003f3219133dae62;
//	       with two features a bit needs both (2 > 0): their AND, 0x001f221901010642.
//	"abcde" adds "cde"; a bit needs two of three: (abc&bcd)|(abc&cde)|(bcd&cde)
//	       = 0xe53fa219056dc663.
func TestSimHashByHand(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
	}{
		{"", 0xcbf29ce484222325},
		{"a", 0xaf63dc4c8601ec8c},
		{"ab", 0x089c4407b545986a},
		{"\U0001F600", 0xe5e45a0a241b88d8},
		{"abc", 0xe71fa2190541574b},
		{"abcd", 0xe71fa2190541574b & 0x003f3219133dae62},
		{"abcde", 0xe53fa219056dc663},
		{" \t ABcD\u00a0", 0xe71fa2190541574b & 0x003f3219133dae62}, // lower-cased and trimmed first
	}
	for _, tc := range tests {
		if got := SimHash(tc.in); got != tc.want {
			t.Errorf("SimHash(%q) = %#016x, want %#016x", tc.in, got, tc.want)
		}
	}
}

// hashTextVectors were produced by testdata/oracle.js ("node
// testdata/oracle.js hashtext"): simhash(normalize(Buffer.toString("utf-8"))).
// Inputs are raw bytes.
var hashTextVectors = []struct {
	name, raw string
	want      uint64
}{
	{"empty", "", 0xcbf29ce484222325},
	{"openai", "{\"id\":\"chatcmpl-abc123\",\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"Order 12345 shipped at 2024-01-15T10:30:00Z\"}}]}", 0xc645b61945c4e49a},
	{"sse", "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DONE]\n\n", 0xc64de4194544ec86},
	{"truncated sequence", "a\xe2\x82ba", 0x00008306804b6ec1},
	{"encoded surrogate", "a\xed\xa0\x80b", 0x00ef62a8e2da7976},
	{"bom", "\ufeff{}", 0x08f44b07b5901a25},
}

func TestHashText(t *testing.T) {
	for _, tc := range hashTextVectors {
		if got := HashText(tc.raw); got != tc.want {
			t.Errorf("%s: HashText(%q) = %#016x, want %#016x", tc.name, tc.raw, got, tc.want)
		}
	}
	// A raw body reads encoded surrogates as three U+FFFD; SimHash and
	// Normalize read them as the lone surrogate (WTF-8).
	if HashText("a\xed\xa0\x80b") == SimHash(Normalize("a\xed\xa0\x80b")) {
		t.Error("HashText and SimHash(Normalize) read an encoded surrogate the same way")
	}
}

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b uint64
		want int
	}{
		{0, 0, 0},
		{0, ^uint64(0), 64},
		{0b1011, 0b0110, 3},
		{1 << 63, 1, 2},
	}
	for _, tc := range tests {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%#x, %#x) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestSimilarity checks the two properties SPEC §1.3 asks of the hash, on
// AgentGazer's normalization: texts that differ only in numbers or
// timestamps are at distance < 3 (here 0: they normalize alike), and
// different texts are far apart.
func TestSimilarity(t *testing.T) {
	a := HashText("Retry order #12345 placed at 2024-01-15T10:30:00Z for user_42")
	b := HashText("Retry order #98765 placed at 2025-11-02T08:00:00Z for user_77")
	c := HashText("Summarize the quarterly revenue report and list the three largest risks")
	if d := Distance(a, b); d >= 3 {
		t.Errorf("distance between texts differing in numbers = %d, want < 3", d)
	}
	if d := Distance(a, c); d <= 5 {
		t.Errorf("distance between different texts = %d, want > 5", d)
	}
}

// naiveSimHash is a literal reference for the hashing part of SimHash: it
// builds the UTF-16 string with the standard library, lower-cases it with
// appendLower (checked code point by code point against Node in
// TestLowerAllCodePoints), collapses and trims whitespace unit by unit,
// cuts the features as separate slices, hashes each with a plain FNV loop
// and counts +1/-1 per bit in 64 counters, as AgentGazer does.
func naiveSimHash(s string) uint64 {
	units := appendLower(nil, utf16.Encode([]rune(s)))
	var c []uint16
	for i, u := range units {
		if isSpace(u) {
			if i == 0 || !isSpace(units[i-1]) {
				c = append(c, ' ')
			}
			continue
		}
		c = append(c, u)
	}
	for len(c) > 0 && c[0] == ' ' {
		c = c[1:]
	}
	for len(c) > 0 && c[len(c)-1] == ' ' {
		c = c[:len(c)-1]
	}
	var features [][]uint16
	if len(c) < 3 {
		features = append(features, c)
	} else {
		for i := 0; i+3 <= len(c); i++ {
			features = append(features, c[i:i+3])
		}
	}
	var vector [64]int
	for _, f := range features {
		h := uint64(0xcbf29ce484222325)
		for _, u := range f {
			h ^= uint64(u)
			h *= 0x100000001b3
		}
		for b := range 64 {
			if h>>b&1 == 1 {
				vector[b]++
			} else {
				vector[b]--
			}
		}
	}
	var r uint64
	for b := range 64 {
		if vector[b] > 0 {
			r |= 1 << b
		}
	}
	return r
}

func TestNaiveSimHashAgreesWithOracle(t *testing.T) {
	for _, tc := range simhashVectors {
		if !utf8.ValidString(tc.in) {
			continue // utf16.Encode would not keep the lone surrogates
		}
		if got := naiveSimHash(tc.in); got != tc.want {
			t.Errorf("naiveSimHash(%.40q) = %#016x, want %#016x", tc.in, got, tc.want)
		}
	}
}

// FuzzSimHash checks SimHash against naiveSimHash (for valid UTF-8 input:
// that is where utf16.Encode is exact), HashText against
// SimHash(Normalize(...)) of the same text, and that nothing panics.
func FuzzSimHash(f *testing.F) {
	for _, tc := range simhashVectors {
		f.Add(tc.in)
	}
	f.Add(strings.Repeat("ab", 300)) // more than 255 features: the lane flush
	f.Add("\xed\xa0\x80\xf0\x9f\x98")
	f.Fuzz(func(t *testing.T, s string) {
		got := SimHash(s)
		if utf8.ValidString(s) {
			if want := naiveSimHash(s); got != want {
				t.Errorf("SimHash(%q) = %#016x, naive %#016x", s, got, want)
			}
		}
		// HashText decodes strictly; feed SimHash(Normalize()) the same units.
		strict := wtf8String(appendUnits(nil, s, false))
		if h, w := HashText(s), SimHash(Normalize(strict)); h != w {
			t.Errorf("HashText(%q) = %#016x, SimHash(Normalize()) = %#016x", s, h, w)
		}
	})
}

// responseBody is a realistic 4 KB chat completion response.
var responseBody = func() string {
	var b strings.Builder
	b.WriteString(`{"id":"chatcmpl-9f86d081884c7d65","object":"chat.completion","created":1736937000,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"`)
	for i := 0; b.Len() < 4000; i++ {
		fmt.Fprintf(&b, "Step %d: checked order-%d for user_%d at 2024-01-15T10:%02d:00Z; the invoice total is %d.%02d EUR and nothing changed.\\n", i, 1000+i, i*7, i%60, 100+i, i%100)
	}
	b.WriteString(`"},"finish_reason":"stop"}],"usage":{"prompt_tokens":812,"completion_tokens":954,"total_tokens":1766}}`)
	return b.String()
}()

func BenchmarkHashText(b *testing.B) {
	b.SetBytes(int64(len(responseBody)))
	for b.Loop() {
		HashText(responseBody)
	}
}

func BenchmarkNormalize(b *testing.B) {
	b.SetBytes(int64(len(responseBody)))
	for b.Loop() {
		Normalize(responseBody)
	}
}

func BenchmarkSimHash(b *testing.B) {
	s := Normalize(responseBody)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		SimHash(s)
	}
}
