package jsjson

import (
	"fmt"
	"strings"
	"testing"
)

// TestOrders: the three key orders, derived by hand from ECMA-262 and
// safe-stable-stringify 2.5.0's sort. Property order puts array-index keys
// first, ascending, then the others as they came; Cline's sortKeys inserts
// the keys sorted, so index keys still come first (an object reorders
// them); safe-stable-stringify writes Object.keys(v).sort(), which
// compares "10" < "9" as strings. Strings compare by UTF-16 code units:
// U+1F600 (0xD83D 0xDE00) sorts before U+FFFF, and "B" before "a".
func TestOrders(t *testing.T) {
	cases := []struct{ in, property, sortedIndexFirst, sorted string }{
		{`{"b":1,"a":{"d":1,"c":2},"10":3,"9":4}`,
			`{"9":4,"10":3,"b":1,"a":{"d":1,"c":2}}`,
			`{"9":4,"10":3,"a":{"c":2,"d":1},"b":1}`,
			`{"10":3,"9":4,"a":{"c":2,"d":1},"b":1}`},
		{"{\"\uffff\":2,\"\U0001F600\":1,\"a\":0,\"B\":3}",
			"{\"\uffff\":2,\"\U0001F600\":1,\"a\":0,\"B\":3}",
			"{\"B\":3,\"a\":0,\"\U0001F600\":1,\"\uffff\":2}",
			"{\"B\":3,\"a\":0,\"\U0001F600\":1,\"\uffff\":2}"},
		{`[{"y":[{"b":1,"a":2}],"x":null}]`,
			`[{"y":[{"b":1,"a":2}],"x":null}]`,
			`[{"x":null,"y":[{"a":2,"b":1}]}]`,
			`[{"x":null,"y":[{"a":2,"b":1}]}]`},
		{`{"a":1,"b":2,"a":3}`, `{"a":3,"b":2}`, `{"a":3,"b":2}`, `{"a":3,"b":2}`},
	}
	for _, c := range cases {
		for _, o := range []struct {
			order Order
			want  string
		}{{PropertyOrder, c.property}, {SortedIndexFirst, c.sortedIndexFirst}, {Sorted, c.sorted}} {
			v, ok := Stringify(c.in, o.order)
			if !ok || v.Out != o.want {
				t.Errorf("%s order %d: got %s (%v), want %s", c.in, o.order, v.Out, ok, o.want)
			}
		}
	}
	// Past linearKeys members, repeated keys are found by a map: the
	// first position and the last value still hold.
	var in, want strings.Builder
	in.WriteString(`{`)
	want.WriteString(`{`)
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&in, `"k%02d":%d,`, i, i)
		v := i
		if i == 3 || i == 18 {
			v = 100 + i
		}
		if i > 0 {
			want.WriteString(",")
		}
		fmt.Fprintf(&want, `"k%02d":%d`, i, v)
	}
	in.WriteString(`"k03":103,"k18":118}`)
	want.WriteString(`}`)
	if v, ok := Stringify(in.String(), PropertyOrder); !ok || v.Out != want.String() {
		t.Errorf("repeated keys in a large object: got %s, want %s", v.Out, want.String())
	}
	v, _ := Stringify(`{"p":{"b":1,"a":2},"s":"x"}`, Sorted)
	if len(v.Members) != 2 || v.Members[0].Key != `"p"` || v.Members[0].Value.Out != `{"a":2,"b":1}` || v.Members[1].Value.Kind != '"' {
		t.Errorf("members: %+v", v.Members)
	}
}
