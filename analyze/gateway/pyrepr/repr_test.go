package pyrepr

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestCorpus compares every line of testdata/repr_corpus.jsonl, written by
// CPython (testdata/gen_corpus.py), with this package: repr of what
// json.loads returns, its len() in code points, and its lower().
func TestCorpus(t *testing.T) {
	f, err := os.Open("testdata/repr_corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		n++
		var c struct {
			JSON  string `json:"json"`
			Repr  string `json:"repr"`
			Len   int    `json:"len"`
			Lower string `json:"lower"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		v, err := ParseJSON([]byte(c.JSON))
		if err != nil {
			t.Errorf("line %d: ParseJSON(%s): %v", n, c.JSON, err)
			continue
		}
		got := AppendRepr(nil, &v)
		if string(got) != c.Repr {
			t.Errorf("line %d: repr of %s\n got %s\nwant %s", n, c.JSON, got, c.Repr)
			continue
		}
		if l := Len(got); l != c.Len {
			t.Errorf("line %d: len %d, want %d", n, l, c.Len)
		}
		// Lower leaves out the final-sigma rule (see its doc): compare with ς read as σ.
		sigma := strings.NewReplacer("ς", "σ")
		if lo := sigma.Replace(string(Lower(got))); lo != sigma.Replace(c.Lower) {
			t.Errorf("line %d: lower\n got %q\nwant %q", n, lo, c.Lower)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 1000 {
		t.Fatalf("corpus has %d lines, want the generated ≥ 1000", n)
	}
}

// TestRefused lists JSON texts json.loads refuses (checked with CPython
// 3.11: each raises json.JSONDecodeError or ValueError).
func TestRefused(t *testing.T) {
	for _, s := range []string{
		``, `{`, `[1,]`, `{"a":1,}`, `01`, `1.`, `.5`, `+1`, `"\x"`, `"a`, "\"\x01\"",
		`"\u12"`, `{1: 2}`, `nan`, `inf`, `[1 2]`, `1e`, `-`, `tru`,
		`"` + strings.Repeat("7", 1) + `"x`, strings.Repeat("1", 4301),
	} {
		if v, err := ParseJSON([]byte(s)); err == nil {
			t.Errorf("ParseJSON(%q) = %s, want an error", s, AppendRepr(nil, &v))
		}
	}
	if _, err := ParseJSON([]byte(strings.Repeat("9", 4300))); err != nil {
		t.Errorf("4300 digits: %v (CPython reads it)", err)
	}
}

func TestFloat(t *testing.T) {
	// Each want is CPython's repr(float(x)).
	for _, c := range []struct {
		f    float64
		want string
	}{
		{0, "0.0"}, {1, "1.0"}, {0.1, "0.1"}, {1e16, "1e+16"}, {1e15, "1000000000000000.0"},
		{1e-4, "0.0001"}, {1e-5, "1e-05"}, {245.76, "245.76"}, {5e-324, "5e-324"},
		{1.5e300, "1.5e+300"}, {123456789012345.6, "123456789012345.6"}, {-2.5, "-2.5"},
	} {
		if got := string(AppendFloat(nil, c.f)); got != c.want {
			t.Errorf("AppendFloat(%v) = %s, want %s", c.f, got, c.want)
		}
	}
}

func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`[{"role": "user", "content": "hi", "name": null}]`, `"\ud800"`,
		`{"a": [1, 2.5, true, null], "a": "x"}`, `"it's \"quoted\" \\ \n é \u2028"`, `[NaN, -Infinity]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := ParseJSON(b)
		if err != nil {
			return
		}
		r := AppendRepr(nil, &v)
		if Len(r) > 0 && len(Lower(r)) < len(r)/2 {
			t.Fatalf("Lower shrank %q", r)
		}
		// A repr'd str must read back as the same code points through
		// the JSON of its runes.
		if v.Kind == Str {
			again := AppendQuote(nil, v.S)
			if string(again) != string(r) {
				t.Fatalf("AppendQuote not stable")
			}
		}
	})
}
