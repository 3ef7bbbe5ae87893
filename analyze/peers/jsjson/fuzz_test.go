package jsjson

import (
	"encoding/json"
	"testing"
)

// FuzzStringify: any arguments text gives JSON.stringify's output or "does
// not parse", never a panic; what it gives is JSON, and what encoding/json
// accepts it accepts too (the two grammars agree on valid UTF-8).
func FuzzStringify(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[true,null,"x"]}`, `{"b":1,"a":2,"b":3}`, `{"10":1,"2":2,"x":3}`,
		`"\ud800"`, `1e400`, `-0`, `[01]`, `{"a":1,}`, ` { } `, `"\u00e9😀"`, `[[[[[[]]]]]]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := Stringify(s, PropertyOrder)
		if !ok {
			return
		}
		if !json.Valid([]byte(v.Out)) {
			t.Fatalf("%q: output %q is not JSON", s, v.Out)
		}
		for _, o := range []Order{SortedIndexFirst, Sorted} {
			if w, ok2 := Stringify(s, o); !ok2 || len(w.Out) != len(v.Out) {
				t.Fatalf("%q: order %d gives %q, property order %q", s, o, w.Out, v.Out)
			}
		}
		if w, ok2 := Stringify(v.Out, PropertyOrder); !ok2 || w.Out != v.Out {
			t.Fatalf("%q: not a fixed point: %q then %q", s, v.Out, w.Out)
		}
	})
}
