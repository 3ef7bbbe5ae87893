package jsonend

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestFeed(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int // offset past the end in the whole input, -1: none
	}{
		{`{"a": [1, {"b": "}]"}]} tail`, 23},
		{`"x\"y\\" rest`, 8},
		{`[[[]]]`, 6},
		{`{"a": "\\\"}"`, -1},
		{`{"open": [`, -1},
	} {
		// Fed whole, and a byte at a time.
		for _, step := range []int{len(tt.in), 1} {
			var s Scanner
			got := -1
			for at := 0; at < len(tt.in) && got < 0; at += step {
				if end := s.Feed([]byte(tt.in[at:min(at+step, len(tt.in))])); end >= 0 {
					got = at + end
				}
			}
			if got != tt.want {
				t.Errorf("%q (step %d): end %d, want %d", tt.in, step, got, tt.want)
			}
		}
	}
}

// FuzzFeed: on valid JSON that opens with an object, array or string,
// Feed finds the end encoding/json finds, fed whole or in two pieces.
func FuzzFeed(f *testing.F) {
	for _, s := range []string{`{"a": [1, {"b": "}]"}]}`, `"x\"y\\"`, `[[[]]]`, `{"k": "\u00e9\\\""}`, `[]`, `{}`} {
		f.Add([]byte(s), 3)
	}
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		t0 := bytes.TrimLeft(data, " \t\r\n")
		if !json.Valid(t0) || len(t0) == 0 || !bytes.ContainsAny(t0[:1], `{["`) {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(t0))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			t.Fatal(err)
		}
		want := int(dec.InputOffset())
		cut = min(max(cut, 0), len(t0))
		var s Scanner
		got := s.Feed(t0[:cut])
		if got < 0 {
			if got = s.Feed(t0[cut:]); got >= 0 {
				got += cut
			}
		}
		if got != want {
			t.Fatalf("%q cut at %d: end %d, want %d", t0, cut, got, want)
		}
	})
}
