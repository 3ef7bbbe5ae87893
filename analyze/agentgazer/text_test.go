package agentgazer

import (
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// TestAppendUnits checks the byte decoders. The strict column is what Node
// prints for Buffer.from(bytes).toString("utf-8") (one U+FFFD per maximal
// ill-formed subpart, where Go's decoder gives one per byte); the WTF-8
// column differs only for an encoded surrogate.
func TestAppendUnits(t *testing.T) {
	tests := []struct {
		in           string
		strict, wtf8 []uint16
	}{
		{"a\u00e9\U0001F600", []uint16{'a', 0xe9, 0xd83d, 0xde00}, nil},
		{"\xe2\x82A", []uint16{0xfffd, 'A'}, nil},
		{"\xf0\x9f\x98A", []uint16{0xfffd, 'A'}, nil},
		{"\xf0\x9f\x98", []uint16{0xfffd}, nil},
		{"\xe0\xa0", []uint16{0xfffd}, nil},
		{"\xc2", []uint16{0xfffd}, nil},
		{"\xc0\x80", []uint16{0xfffd, 0xfffd}, nil},
		{"\xe0\x80\x80", []uint16{0xfffd, 0xfffd, 0xfffd}, nil},
		{"\xf4\x90\x80\x80", []uint16{0xfffd, 0xfffd, 0xfffd, 0xfffd}, nil},
		{"\xf5\x80", []uint16{0xfffd, 0xfffd}, nil},
		{"\xef\xbb\xbfA", []uint16{0xfeff, 'A'}, nil}, // Buffer keeps a BOM
		{"\xed\xa0\x80", []uint16{0xfffd, 0xfffd, 0xfffd}, []uint16{0xd800}},
		{"\xed\xb0\x80\xed\xa0\xbd", []uint16{0xfffd, 0xfffd, 0xfffd, 0xfffd, 0xfffd, 0xfffd}, []uint16{0xdc00, 0xd83d}},
		{"\xed\xa0", []uint16{0xfffd, 0xfffd}, []uint16{0xfffd}},
		{"\xed\x9f\xbf", []uint16{0xd7ff}, nil},
	}
	for _, tc := range tests {
		if got := appendUnits(nil, tc.in, false); !slicesEqual(got, tc.strict) {
			t.Errorf("strict %q = %04X, want %04X", tc.in, got, tc.strict)
		}
		want := tc.wtf8
		if want == nil {
			want = tc.strict
		}
		if got := appendUnits(nil, tc.in, true); !slicesEqual(got, want) {
			t.Errorf("WTF-8 %q = %04X, want %04X", tc.in, got, want)
		}
	}
}

// FuzzWTF8 checks that WTF-8 encoding round-trips any unit sequence and
// agrees with UTF-8 when there are no lone surrogates.
func FuzzWTF8(f *testing.F) {
	f.Add([]byte{0x00, 0xd8, 0x41, 0x00})
	f.Add([]byte{0x3d, 0xd8, 0x00, 0xde})
	f.Fuzz(func(t *testing.T, b []byte) {
		u := make([]uint16, len(b)/2)
		for i := range u {
			u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
		}
		s := wtf8String(u)
		if back := appendUnits(nil, s, true); !slicesEqual(back, u) {
			t.Fatalf("%04X → %q → %04X", u, s, back)
		}
		if r := utf16.Decode(u); !containsLoneSurrogate(u) && s != string(r) {
			t.Fatalf("%04X: WTF-8 %q, UTF-8 %q", u, s, string(r))
		}
		if !containsLoneSurrogate(u) && !utf8.ValidString(s) {
			t.Fatalf("%04X: %q is not valid UTF-8", u, s)
		}
	})
}

func containsLoneSurrogate(u []uint16) bool {
	for i := 0; i < len(u); {
		r, n := runeAt(u, i)
		if r >= surrogateMin && r <= surrogateMax {
			return true
		}
		i += n
	}
	return false
}
