package geminicli

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
		v, ok := stringifyParsed(s)
		if !ok {
			return
		}
		if !json.Valid([]byte(v.out)) {
			t.Fatalf("%q: output %q is not JSON", s, v.out)
		}
		if w, ok2 := stringifyParsed(v.out); !ok2 || w.out != v.out {
			t.Fatalf("%q: not a fixed point: %q then %q", s, v.out, w.out)
		}
	})
}
