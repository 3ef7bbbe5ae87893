package ingest

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/killswitch/killswitch/internal/jsonsimd"
)

// refSkipContainer finds the end of the object or array b starts with the
// slow way, byte by byte: a backslash in a string escapes the byte after
// it, brackets of either kind count alike.
func refSkipContainer(b []byte) (end int, ok bool) {
	depth, in := 0, false
	for j := 0; j < len(b); j++ {
		switch c := b[j]; {
		case in && c == '\\':
			j++
		case in && c == '"':
			in = false
		case in:
		case c == '"':
			in = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
			if depth == 0 {
				return j + 1, true
			}
		}
	}
	return 0, false
}

// strayBackslash says whether b holds a backslash outside strings: not
// JSON, which SkipContainer leaves to the scalar loop.
func strayBackslash(b []byte) bool {
	in := false
	for j := 0; j < len(b); j++ {
		switch c := b[j]; {
		case in && c == '\\':
			j++
		case c == '"':
			in = !in
		case !in && c == '\\':
			return true
		}
	}
	return false
}

// checkSkipContainer checks jsonsimd.SkipContainer on b (b[0] is '{' or '[')
// against refSkipContainer, and skipValue's two paths against each other.
func checkSkipContainer(t *testing.T, b []byte) {
	t.Helper()
	want, ok := refSkipContainer(b)
	got := jsonsimd.SkipContainer(b)
	// Whole blocks are read: a stray backslash in the end's block, even
	// after the end, is a reason to hand over.
	block := len(b)
	if ok {
		block = min(block, (want+63)&^63)
	}
	switch {
	case got > 0 && (!ok || got != want):
		t.Fatalf("SkipContainer(%q) = %d; want %d (ends: %v)", b, got, want, ok)
	case got < 0 && ok && !strayBackslash(b[:block]):
		t.Fatalf("SkipContainer(%q) = %d; want %d", b, got, want)
	}
	fast, errFast := skipValue(b, 0)
	jsonsimd.Enabled = false
	slow, errSlow := skipValue(b, 0)
	jsonsimd.Enabled = true
	if fast != slow || (errFast == nil) != (errSlow == nil) ||
		(errFast != nil && errFast.Error() != errSlow.Error()) {
		t.Fatalf("skipValue(%q) = %d, %v with AVX-512; %d, %v without", b, fast, errFast, slow, errSlow)
	}
}

func needAVX512(t testing.TB) {
	if !jsonsimd.Enabled {
		t.Skip("no AVX-512 here: skipValue runs its scalar loop only")
	}
}

// TestSkipContainer runs jsonsimd.SkipContainer on strings of the bytes it looks
// for (and others), 0 to 300 bytes long, so that runs of backslashes,
// strings and depth changes fall across its 64-byte blocks.
func TestSkipContainer(t *testing.T) {
	needAVX512(t)
	rng := rand.New(rand.NewPCG(3, 64))
	const alphabet = `{}[]"\\ a,:` + `"\\{}`
	for range 200000 {
		b := make([]byte, 1+rng.IntN(300))
		b[0] = "{["[rng.IntN(2)]
		// Mostly plain bytes, so that values end now and then.
		p := 0.05 + 0.5*rng.Float64()
		for j := 1; j < len(b); j++ {
			if rng.Float64() < p {
				b[j] = alphabet[rng.IntN(len(alphabet))]
			} else {
				b[j] = 'x'
			}
		}
		checkSkipContainer(t, b)
	}
}

// TestSkipContainerJSON runs jsonsimd.SkipContainer on valid JSON: nested values
// whose strings hold quotes, backslashes and brackets, followed by more
// members as in a capture line.
func TestSkipContainerJSON(t *testing.T) {
	needAVX512(t)
	rng := rand.New(rand.NewPCG(5, 9))
	var value func(depth int) any
	value = func(depth int) any {
		switch k := rng.IntN(6); {
		case k == 0 || depth > 4:
			s := make([]byte, rng.IntN(90))
			for j := range s {
				s[j] = "ab \"\\{}[]\nx"[rng.IntN(11)]
			}
			return string(s)
		case k == 1:
			return rng.IntN(1000)
		case k < 4:
			a := make([]any, rng.IntN(6))
			for j := range a {
				a[j] = value(depth + 1)
			}
			return a
		default:
			m := map[string]any{}
			for range rng.IntN(6) {
				m[string(rune('a'+rng.IntN(26)))+`"\`] = value(depth + 1)
			}
			return m
		}
	}
	for range 20000 {
		v := value(0)
		if _, ok := v.(string); ok {
			v = []any{v}
		}
		if _, ok := v.(int); ok {
			v = map[string]any{"n": v}
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		n := len(b)
		b = append(b, `,"response":{"x":"\\\""}}`...)
		if got := jsonsimd.SkipContainer(b); got != n {
			t.Fatalf("SkipContainer(%q) = %d; want %d", b, got, n)
		}
		checkSkipContainer(t, b)
	}
}

// TestSkipContainerEdges: runs of backslashes ending at each offset of a
// block boundary, and values ending at and around one.
func TestSkipContainerEdges(t *testing.T) {
	needAVX512(t)
	for pad := 0; pad < 140; pad++ {
		for run := 0; run < 6; run++ {
			s := `{"` + string(bytes.Repeat([]byte("x"), pad)) + string(bytes.Repeat([]byte(`\`), run)) + `"`
			if run%2 == 1 {
				s += `"` // the quote was escaped: close the string
			}
			s += `}`
			checkSkipContainer(t, []byte(s))
			checkSkipContainer(t, []byte(s[:len(s)-1])) // not closed
			checkSkipContainer(t, []byte(s+` \ `))      // a stray backslash after the end
		}
	}
}

// FuzzSkipValue: skipValue gives the same end or the same error with
// jsonsimd.SkipContainer as with its scalar loop alone.
func FuzzSkipValue(f *testing.F) {
	for _, s := range []string{`{}`, `[{"a":"\\\""}]`, `{"a":[1,2,{"b":"}"}]}x`, `{\"}`, `{"a`, `["\\\\"]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		needAVX512(t)
		if len(b) == 0 || (b[0] != '{' && b[0] != '[') {
			return
		}
		checkSkipContainer(t, b)
	})
}

// TestJSONLStrayBackslash: a backslash outside the request's strings is
// not JSON, which SkipContainer leaves to skipValue's loop; the line still
// reads the same with AVX-512 and without (its body fails later, where
// it is parsed).
func TestJSONLStrayBackslash(t *testing.T) {
	line := `{"ts":1,"agent":"a","request":{\"a":1},"response":{}}` + "\n"
	for _, on := range []bool{true, false} {
		if on && !jsonsimd.Enabled {
			continue
		}
		saved := jsonsimd.Enabled
		jsonsimd.Enabled = on
		recs := readAll(t, jsonl(line))
		jsonsimd.Enabled = saved
		if len(recs) != 1 || recs[0].Err != nil || string(recs[0].Request) != `{\"a":1}` || string(recs[0].Response) != `{}` {
			t.Fatalf("AVX-512 %v: %+v", on, recs)
		}
	}
}
