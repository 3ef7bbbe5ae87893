package ingest

import (
	"strings"
	"testing"
)

// TestInputSize: a JSONL reader knows its input's size when told it, and
// a merge knows the sum only when every reader knows its own.
func TestInputSize(t *testing.T) {
	sized := func(n int64) Reader {
		return NewJSONL(strings.NewReader(""), "a.jsonl", JSONLOptions{Size: n})
	}
	for _, c := range []struct {
		src  Reader
		want int64
	}{
		{sized(100), 100},
		{sized(0), 0},
		{Merge(sized(100), sized(250)), 350},
		{Merge(sized(100), sized(0)), 0},
		{Merge(sized(100), Merge()), 0},
	} {
		s, ok := c.src.(Sized)
		if !ok {
			t.Fatalf("%T is not Sized", c.src)
		}
		if got := s.InputSize(); got != c.want {
			t.Errorf("%T: InputSize() = %d, want %d", c.src, got, c.want)
		}
	}
}
