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

// canonicalSeeds are texts and whether Canonical vouches for them in
// property order, sorted-index-first order and sorted order, derived by
// hand from its rules (JSON.stringify's own output; integers of at most 15
// digits; no key like an array index; ASCII keys in order when sorted).
var canonicalSeeds = []struct {
	s    string
	want [3]bool
}{
	{`{"a":1,"b":[true,null,"x"]}`, [3]bool{true, true, true}},
	{`{"command":"ls -la","path":"/tmp/x y","n":-42,"nested":{"k":"v\n\"q\"\\"}}`, [3]bool{true, false, false}}, // path > n
	{`{}`, [3]bool{true, true, true}},
	{`{"a":[]}`, [3]bool{true, true, true}},
	{`{"é":"ü😀"}`, [3]bool{true, false, false}}, // a key that is not ASCII, when sorted
	{`{"b":1,"a":2}`, [3]bool{true, false, false}},
	{`{"a":{"b":{"c":[[{"d":false}]]}}}`, [3]bool{true, true, true}},
	{`{"a":123456789012345}`, [3]bool{true, true, true}},
	{`{"a":1,"a":2}`, [3]bool{}}, {`{"10":1,"x":2}`, [3]bool{}}, {`{"a":1.5}`, [3]bool{}}, {`{"a":1e3}`, [3]bool{}},
	{`{"a":-0}`, [3]bool{}}, {`{"a":01}`, [3]bool{}}, {`{"a":1234567890123456}`, [3]bool{}}, {`{"a":"\u0041"}`, [3]bool{}},
	{`{"a":"\/"}`, [3]bool{}}, {`{"a":"\u2028"}`, [3]bool{}}, {"{\"a\":\"\xff\"}", [3]bool{}}, {`{ "a":1}`, [3]bool{}},
	{`{"a":1} `, [3]bool{}}, {`{"a" :1}`, [3]bool{}}, {`[1]`, [3]bool{}}, {`"s"`, [3]bool{}}, {`null`, [3]bool{}},
	{`{"a":tru}`, [3]bool{}}, {`{"a":1,}`, [3]bool{}}, {`{"a":"x`, [3]bool{}},
}

// FuzzCanonical: a text Canonical vouches for is what Stringify writes.
func FuzzCanonical(f *testing.F) {
	for _, c := range canonicalSeeds {
		f.Add(c.s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, o := range []Order{PropertyOrder, SortedIndexFirst, Sorted} {
			if !Canonical(s, o) {
				continue
			}
			if v, ok := Stringify(s, o); !ok || v.Falsy || v.Out != s {
				t.Fatalf("%q, order %d: Canonical, but Stringify gives %q (ok %v, falsy %v)", s, o, v.Out, ok, v.Falsy)
			}
		}
	})
}

func TestCanonical(t *testing.T) {
	for _, c := range canonicalSeeds {
		for k, o := range []Order{PropertyOrder, SortedIndexFirst, Sorted} {
			if got := Canonical(c.s, o); got != c.want[k] {
				t.Errorf("%q, order %d: Canonical %v, want %v", c.s, o, got, c.want[k])
			}
			if v, ok := Stringify(c.s, o); c.want[k] && (!ok || v.Out != c.s) {
				t.Errorf("%q, order %d: vouched for, but Stringify writes %q", c.s, o, v.Out)
			}
		}
	}
}
