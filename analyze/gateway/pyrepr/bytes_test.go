package pyrepr

import (
	"bytes"
	"fmt"
	"testing"
)

// bytesSeeds exercise what the byte form must get right: lone and paired
// surrogates (escaped; raw ones are invalid UTF-8), a surrogate beside
// U+D000–U+D7FF (which also start with 0xed), every escape, both quotes,
// controls and DEL, non-ASCII printable and not, invalid UTF-8, duplicate
// keys told apart only by a surrogate.
var bytesSeeds = []string{
	`[{"role": "user", "content": "hi", "name": null}]`,
	`"\ud800"`, `"\udfff\ud800x"`, `"\ud83d\ude00 \ud83d"`, `"퀀\ud800힣"`,
	`"it's \"quoted\" \\ \n \t \r \b \f \/ é \u2028 \u00ad \u0085 \u007f \u0000"`,
	`"'"`, `"\""`, `"'\""`, "\"caf\xc3\xa9 \xe2\x80\x8b \xf0\x9f\x98\x80\"", "\"\xff\"", "\"\xed\xa0\x80\"",
	`{"\ud800": 1, "\ud801": 2, "\ud800": 3}`, `{"a": [1, 2.5, true, null], "a": "x"}`, `[NaN, -Infinity, 1e400, -0.0, 12345678901234567890]`,
	`"unterminated`, `"bad \x escape"`, `"\u12"`,
}

// FuzzBytesAgainstRunes: the parser and repr over WTF-8 bytes give what
// the []rune ones did (ref_test.go) — the same errors, the same
// str(value) byte for byte, the same Text as string([]rune) — except that
// two keys differing only in lone surrogates are two keys now, as in
// Python (string([]rune) made both U+FFFD; the reference is fixed the
// same way).
func FuzzBytesAgainstRunes(f *testing.F) {
	for _, s := range bytesSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want, werr := refParseJSON(b)
		got, gerr := ParseJSON(b)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) {
			t.Fatalf("%q: error %v, want %v", b, gerr, werr)
		}
		if werr != nil {
			return
		}
		w, g := refAppendRepr(nil, &want), AppendRepr(nil, &got)
		if !bytes.Equal(w, g) {
			t.Fatalf("%q: repr\n got %q\nwant %q", b, g, w)
		}
		if want.Kind == Str && got.Text() != string(want.S) {
			t.Fatalf("%q: Text %q, want %q", b, got.Text(), string(want.S))
		}
	})
}

// TestBytesAgainstRunes runs the seeds (and fails on a broken byte form
// without the fuzzer).
func TestBytesAgainstRunes(t *testing.T) {
	for _, s := range bytesSeeds {
		want, werr := refParseJSON([]byte(s))
		got, gerr := ParseJSON([]byte(s))
		if fmt.Sprint(werr) != fmt.Sprint(gerr) {
			t.Errorf("%q: error %v, want %v", s, gerr, werr)
			continue
		}
		if werr == nil && !bytes.Equal(refAppendRepr(nil, &want), AppendRepr(nil, &got)) {
			t.Errorf("%q: repr %q, want %q", s, AppendRepr(nil, &got), refAppendRepr(nil, &want))
		}
	}
	v, err := ParseJSON([]byte(`{"\ud800": 1, "\ud801": 2, "\ud800": 3}`))
	if err != nil || len(v.Keys) != 2 || string(AppendRepr(nil, &v)) != `{'\ud800': 3, '\ud801': 2}` {
		t.Errorf("lone-surrogate keys: %s (%v)", AppendRepr(nil, &v), err)
	}
	if s := (&Value{Kind: Str, S: []byte("a\xed\xa0\x80\xed\x9f\xbfb")}).Text(); s != "a\uFFFD\uD7FFb" {
		t.Errorf("Text %q", s)
	}
}
