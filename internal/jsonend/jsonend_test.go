package jsonend

import "testing"

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
