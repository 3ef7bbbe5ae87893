package jsontree

import (
	"strings"
	"testing"
)

func TestParsePositions(t *testing.T) {
	doc := "{\"a\": {\"b\": [1, true, null]},\n \"é\": \"x\", \"a\": 2}"
	d, root, err := Parse("f.json", []byte(doc), 8, "a test file")
	if err != nil {
		t.Fatal(err)
	}
	ms := d.Object(root, "", "a", "é")
	if len(ms) != 2 || ms[0].Key != "a" || ms[1].Key != "é" {
		t.Fatalf("members %+v", ms)
	}
	b := ms[0].Val.Members[0].Val
	if b.Kind != Array || len(b.Elems) != 3 || b.Elems[1].Kind != Bool || !b.Elems[1].Bool || b.Elems[2].Kind != Null {
		t.Errorf("b = %+v", b)
	}
	if l, c := d.Pos(ms[1].Val.Off); l != 2 || c != 7 { // columns count characters: é is one
		t.Errorf("\"x\" at %d:%d, want 2:7", l, c)
	}
	d.Number(ms[1].Val, "é")
	want := "f.json:2:7: é: want a number, got a JSON string\n" + // file order, whatever the order found
		`f.json:2:12: a: key given twice (first at 1:2)`
	if err := d.Err(); err == nil || err.Error() != want {
		t.Errorf("got\n%v\nwant\n%s", err, want)
	}
	for _, tc := range []struct{ doc, want string }{
		{"", "f.json:1:1: empty file: want a JSON object"},
		{"{\"a\": }", "f.json:1:7: not valid JSON: invalid character '}' looking for beginning of value"},
		{"[[[[[[[[[]]]]]]]]]", "f.json:1:9: nested more than 8 levels deep: not a test file"},
	} {
		if _, _, err := Parse("f.json", []byte(tc.doc), 8, "a test file"); err == nil || err.Error() != tc.want {
			t.Errorf("%q: %v, want %s", tc.doc, err, tc.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"a": [1, {"b": null}]}`, "\uFEFF{}", `{"a": }`, `[[[[[[[[[[]]]]]]]]]]`, `"x"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, root, err := Parse("f", data, 8, "a fuzz file")
		if err != nil {
			if err.Line < 1 || err.Col < 1 || !strings.HasPrefix(err.Error(), "f:") {
				t.Fatalf("bad error %v", err)
			}
			return
		}
		if root == nil {
			t.Fatal("no root and no error")
		}
		d.Object(root, "", "a")
		if e := d.Err(); e != nil && !strings.HasPrefix(e.Error(), "f:") {
			t.Fatalf("bad error %v", e)
		}
	})
}
