package agentgazer

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// readUnicodeFile reads a testdata/unicode file written by
// "node testdata/oracle.js unicode": one entry per line, '#' comments.
func readUnicodeFile(t *testing.T, name string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "unicode", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := sc.Text(); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

func parseHex(t *testing.T, s string) rune {
	t.Helper()
	x, err := strconv.ParseUint(s, 16, 32)
	if err != nil {
		t.Fatal(err)
	}
	return rune(x)
}

// readRanges reads a file of "XXXX" and "XXXX..YYYY" lines into a set.
func readRanges(t *testing.T, name string) map[rune]bool {
	set := map[rune]bool{}
	for _, l := range readUnicodeFile(t, name) {
		lo, hi, _ := strings.Cut(l, "..")
		a := parseHex(t, lo)
		b := a
		if hi != "" {
			b = parseHex(t, hi)
		}
		for r := a; r <= b; r++ {
			set[r] = true
		}
	}
	return set
}

// TestLowerAllCodePoints compares, for every code point, appendLower and the
// Final_Sigma classification with what Node does (testdata/unicode, see
// oracle.js): this is what catches Go's Unicode 15.0 tables lagging behind
// Node's Unicode 17.0.
func TestLowerAllCodePoints(t *testing.T) {
	want := map[rune][]uint16{}
	for _, l := range readUnicodeFile(t, "lower.txt") {
		cp, mapping, ok := strings.Cut(l, ": ")
		if !ok {
			t.Fatalf("lower.txt: bad line %q", l)
		}
		var u []uint16
		for _, f := range strings.Fields(mapping) {
			u = appendRune(u, parseHex(t, f))
		}
		want[parseHex(t, cp)] = u
	}
	if len(want) < 1400 {
		t.Fatalf("lower.txt has only %d mappings", len(want))
	}
	cased := readRanges(t, "sigma_cased.txt")
	ignorable := readRanges(t, "sigma_ignorable.txt")
	bad := 0
	for r := rune(0); r <= 0x10FFFF && bad < 20; r++ {
		if r >= surrogateMin && r <= surrogateMax {
			continue
		}
		in := appendRune(nil, r)
		w, ok := want[r]
		if !ok {
			w = in
		}
		if got := appendLower(nil, in); !slicesEqual(got, w) {
			t.Errorf("lower(%U) = %04X, want %04X", r, got, w)
			bad++
		}
		ign, cas := sigmaContext(r)
		if ign != ignorable[r] || cas != cased[r] {
			t.Errorf("%U: case-ignorable %v cased %v, want %v %v", r, ign, cas, ignorable[r], cased[r])
			bad++
		}
	}
}

func slicesEqual(a, b []uint16) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestLowerSigma checks Final_Sigma in context; expected values are
// hand-derived from Unicode §3.13 as ICU applies it (case-ignorable
// characters are skipped even when cased) and agree with Node.
func TestLowerSigma(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Σ", "σ"},                       // not preceded by a cased letter
		{"ΑΣ", "ας"},                     // word-final
		{"ΑΣΑ", "ασα"},                   // followed by a cased letter
		{"ΑΣΣ", "ασς"},                   // the first is followed by Σ, the second is final
		{"Α\u0301Σ", "α\u0301ς"},         // combining mark skipped before
		{"ΑΣ\u0301Β", "ασ\u0301β"},       // and after
		{"ΑΣ\ufeffΒ", "ασ\ufeffβ"},       // U+FEFF is Cf, so case-ignorable
		{"ΑΣ Β", "ας β"},                 // a space is neither
		{"Α.Σ", "α.ς"},                   // '.' is MidNumLet: ignorable
		{"\u02b0Σ", "\u02b0σ"},           // ʰ is Lm and Other_Lowercase: ignorable wins, nothing before
		{"a\u02b0Σ", "a\u02b0ς"},         // ... and the scan goes on to a
		{"Α\U0001D400Σ", "α\U0001D400ς"}, // astral cased letter (mathematical bold A)
		{"ΑΣ\U0001D400", "ασ\U0001D400"},
		{"\u0130Σ", "i\u0307ς"}, // İ is cased
	}
	for _, tc := range tests {
		got := wtf8String(appendLower(nil, appendUnits(nil, tc.in, true)))
		if got != tc.want {
			t.Errorf("lower(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestIsSpace compares isSpace with JavaScript's /\s/ on every BMP code
// unit. The list was printed by Node: for (let c = 0; c < 0x10000; c++)
// if (/\s/.test(String.fromCharCode(c))) ...
func TestIsSpace(t *testing.T) {
	js := map[uint16]bool{}
	for _, c := range []uint16{0x9, 0xa, 0xb, 0xc, 0xd, 0x20, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002,
		0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f,
		0x205f, 0x3000, 0xfeff} {
		js[c] = true
	}
	for c := range 0x10000 {
		if isSpace(uint16(c)) != js[uint16(c)] {
			t.Errorf("isSpace(%U) = %v", c, !js[uint16(c)])
		}
	}
}
