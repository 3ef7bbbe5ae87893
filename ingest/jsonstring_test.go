package ingest

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestAppendJSONString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", `"plain"`},
		{`a"b\c`, `"a\"b\\c"`},
		{"l1\nl2\r\t", `"l1\nl2\r\t"`},
		{"\x00\x1f", `"\u0000\u001f"`},
		{"é 😀", `"é 😀"`},
		{"a\u2028b\u2029", `"a\u2028b\u2029"`},
		{"bad\xffbyte\xc3", `"bad\ufffdbyte\ufffd"`},
	} {
		got := string(AppendJSONString(nil, tc.in))
		if got != tc.want {
			t.Errorf("%q: got %s, want %s", tc.in, got, tc.want)
		}
		if b := string(AppendJSONString(nil, []byte(tc.in))); b != got {
			t.Errorf("%q: []byte gives %s, string %s", tc.in, b, got)
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	f.Add("a\"\\\n\u2028\xff")
	f.Fuzz(func(t *testing.T, s string) {
		out := AppendJSONString(nil, s)
		var back string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("%q -> %s: not JSON: %v", s, out, err)
		}
		if utf8.ValidString(s) && back != s {
			t.Fatalf("%q -> %s -> %q", s, out, back)
		}
	})
}
