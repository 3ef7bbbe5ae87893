package ingest

import (
	"bytes"
	"encoding/json"
	"testing"
)

// AppendJSONStringStd writes what encoding/json writes with HTML escaping
// off, for every ASCII byte, U+2028/U+2029, non-ASCII text and invalid
// UTF-8.
func TestAppendJSONStringStdMatchesEncodingJSON(t *testing.T) {
	var inputs []string
	for c := 0; c < 0x80; c++ {
		inputs = append(inputs, "a"+string(rune(c))+"z")
	}
	inputs = append(inputs, "line\u2028sep\u2029", "héllo wörld ✓", "bad \xff\xfe utf8", "\b\f\n\r\t\"\\", "<a&b>", "")
	for _, s := range inputs {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if got := AppendJSONStringStd(nil, s); !bytes.Equal(got, want) {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
	}
}
