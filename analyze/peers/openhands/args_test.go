package openhands

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// stdArgs is how the profile read arguments before decodeArgs, with
// encoding/json: the reference decodeArgs is held to.
func stdArgs(s string) (map[string]any, bool) {
	var args map[string]any
	d := json.NewDecoder(strings.NewReader(s))
	if err := d.Decode(&args); err != nil || d.More() || args == nil {
		return nil, false
	}
	return args, true
}

// checkArgs: decodeArgs accepts what encoding/json accepts, into the same
// value, and appendCanon writes it as json.Marshal does.
func checkArgs(t *testing.T, s string) {
	t.Helper()
	got, ok := decodeArgs(s)
	want, wantOK := stdArgs(s)
	if ok != wantOK || !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: decodeArgs %v %#v, encoding/json %v %#v", s, ok, got, wantOK, want)
	}
	if !ok {
		return
	}
	b, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if c := appendCanon(nil, got); string(c) != string(b) {
		t.Fatalf("%q: appendCanon %s, json.Marshal %s", s, c, b)
	}
}

// argsSeeds are the cases where a hand-written decoder most easily
// departs from encoding/json; each is checked against it.
var argsSeeds = []string{
	`{"command":"ls -la","path":"/tmp"}`,
	`{"a":1,"b":[1,2.5,-0,1e3,1E-7,123456789012345678901234567890],"c":{"d":null,"e":true,"f":false}}`,
	`{"num":1e400}`, `{"num":-1e309}`, `{"num":1e-400}`, `{"n":0.000001}`, `{"n":1e21}`, `{"n":1e20}`, `{"n":-1.5e-7}`,
	`{"n":01}`, `{"n":1.}`, `{"n":.5}`, `{"n":-}`, `{"n":+1}`, `{"n":1e}`, `{"n":NaN}`, `{"n":Infinity}`,
	"{\"s\":\"\xff\xfe bad utf-8 \xed\xa0\x80 surrogate bytes\"}", "{\"bad\xffkey\":1}",
	`{"s":"\ud800"}`, `{"s":"\udc00 lone low"}`, `{"s":"\ud800\udc00 a pair"}`, `{"s":"\ud800\u0041 then A"}`, `{"s":"\ud800\ud800\udc00"}`,
	`{"s":"\ud83d\ude00"}`, `{"s":"\u00e9\u2028\u2029<>&\b\f\n\r\t\u0001\u001f\/\\\""}`, `{"s":"\x"}`, `{"s":"\'"}`, `{"s":"\u12"}`, `{"s":"\u12G4"}`,
	"{\"s\":\"raw\ttab\"}", "{\"s\":\"raw\nnewline\"}", "{\"s\":\"\u2028 raw separators \u2029\"}",
	`{"a":1,"a":2}`, `{}`, `{"a":[]}`, `{"a":{}}`, `[]`, `null`, `"str"`, `1`, `true`, ``, `   `, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{,}`,
	` {"a":1} `, `{"a":1}]`, `{"a":1}}`, `{"a":1} ] x`, `{"a":1}x`, `{"a":1}{}`, `{"a":1},`, "{\"a\":1}\x00", "\ufeff{}",
	`{"a":tru}`, `{"a":nul}`, `{"a":truex}`, `{"a" : [ 1 , 2 ] , "b" : { } }`,
	"{\"a\":" + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + "}",
	"{\"a\":" + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + "}",
}

func TestDecodeArgs(t *testing.T) {
	for _, s := range argsSeeds {
		checkArgs(t, s)
	}
}

// FuzzArgs holds decodeArgs and appendCanon to encoding/json on any input.
func FuzzArgs(f *testing.F) {
	for _, s := range argsSeeds {
		if len(s) < 1000 {
			f.Add(s)
		}
	}
	f.Fuzz(func(t *testing.T, s string) { checkArgs(t, s) })
}
