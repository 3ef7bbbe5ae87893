package body

import (
	"bytes"
	"strings"
	"testing"

	"github.com/valyala/fastjson"
)

// canonTexts are tool-call arguments at the edges of canonicalizer.text:
// those it reads must canonicalize exactly as value does on fastjson's tree,
// the others are left to fastjson.
var canonTexts = []string{
	`{}`, `[]`, `""`, `0`, `-1.5e+3`, `true`, `false`, `null`,
	`{"b":1,"a":2}`, `{"a":1,"a":"x","a":1}`, `{"a":{"d":[1,{"z":0,"y":null}],"c":"Text"},"b":[true,false]}`,
	`{"c":3,"a":1,"b":2}`, `[1,"B",[2,3,{}],null,{"y":[],"x":{}}]`,
	`{"query":"billing index margin","limit":20}`, ` {"id": 48213} `, "\t[1,\n2]\r\n",
	`{"k\u00e9y":"v\u00e9","\u0041":"\ud83d\ude00","\n":"\"\\\/"}`, `{"a\"b":1,"a\\":2}`,
	`{"s":"lone \ud83d, \ude00, \ud83d\u0041, \uZZZZ, \x, \u12"}`,
	"{\"raw\":\"tab\there \x00 \xff\"}", `"HTTPS://Example.COM/x"`,
	`{"a":1,}`, `[1,]`, `{"a"}`, `{"a":}`, `[1 2]`, `{"a":1]`, `[1}`, `01`, `1.`, `.5`, `+1`, `NaN`, `-Inf`, `nul`, `tru`,
	`{"a":1} x`, `{"a":1}}`, `"unterminated`, `{"a":"x\"}`, `not json`, `{'a':1}`,
	strings.Repeat("[", maxSkipDepth-1) + strings.Repeat("]", maxSkipDepth-1),
	strings.Repeat("[", maxSkipDepth+1) + strings.Repeat("]", maxSkipDepth+1),
	strings.Repeat(`{"a":`, 100) + `1` + strings.Repeat("}", 100),
}

// canonCheck fails t when canonicalizer.text reads b and gives other bytes
// than value on fastjson's tree of b; it reports whether text read b.
func canonCheck(t testing.TB, b []byte) bool {
	t.Helper()
	var c, ref canonicalizer
	var aux fastjson.Parser
	got, ok := c.text([]byte("prefix"), b)
	if len(c.spans) != 0 {
		t.Errorf("text %q left %d spans", b, len(c.spans))
	}
	if !ok {
		if string(got) != "prefix" {
			t.Errorf("text %q failed but changed dst to %q", b, got)
		}
		return false
	}
	v, err := aux.ParseBytes(b)
	if err != nil {
		t.Errorf("text read %q, which fastjson rejects: %v", b, err)
		return true
	}
	if want := ref.value([]byte("prefix"), v); !bytes.Equal(got, want) {
		t.Errorf("text %q:\n got  %q\n want %q", b, got, want)
	}
	return true
}

func TestCanonText(t *testing.T) {
	read := 0
	for _, s := range canonTexts {
		if canonCheck(t, []byte(s)) {
			read++
		}
	}
	if read < 20 {
		t.Errorf("text read only %d of %d texts", read, len(canonTexts))
	}
}

// FuzzCanonText checks canonicalizer.text against value on fastjson's tree
// for any bytes.
func FuzzCanonText(f *testing.F) {
	for _, s := range canonTexts {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		canonCheck(t, b)
	})
}
