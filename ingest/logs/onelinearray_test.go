package logs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/killswitch/killswitch/ingest"
)

// oneLineRecords are capture records as `jq -c` writes them, and two that
// are not compact: white space between members, and a record spread over
// lines.
var oneLineRecords = []string{
	`{"ts":"2026-01-02T03:04:05Z","agent":"a","request":{"messages":[{"role":"user","content":"say \"hi\" \\ then\tstop"}]},"response":"raw text"}`,
	`{"ts":"2026-01-02T03:04:06Z","agent":"b","request":{"messages":[{"role":"user","content":"ends in a backslash \\\\"}]},"response":{"choices":[{"message":{"role":"assistant","content":"ok"}}]}}`,
	`{"ts": "2026-01-02T03:04:07Z", "agent": "a", "request": {"messages": [{"role": "user", "content": "spaced"}]}}`,
	"{\n \"ts\": \"2026-01-02T03:04:08Z\",\n \"agent\": \"c\",\n \"request\": {\"messages\": [{\"role\": \"user\", \"content\": \"pretty\"}]}\n}",
	`{"ts":"2026-01-02T03:04:09Z","agent":"a","event":"deactivate"}`,
}

// TestOneLineArray: a capture written as one JSON array on one line (`jq
// -cs`) is read an item at a time, each item at its index, with the
// records JSONL gives for the same items; alike from a file read at
// offsets (whatever the read-ahead block) and from a stream read whole.
// It was refused as one malformed line.
func TestOneLineArray(t *testing.T) {
	defer func(b int) { unitBlock = b }(unitBlock)
	var jsonl bytes.Buffer
	for _, r := range oneLineRecords {
		var c bytes.Buffer
		if err := json.Compact(&c, []byte(r)); err != nil {
			t.Fatal(err)
		}
		jsonl.Write(c.Bytes())
		jsonl.WriteByte('\n')
	}
	want := readAll(t, open(t, jsonl.String(), "x", FormatCapture, Options{}), "x")
	if len(want) != len(oneLineRecords) {
		t.Fatalf("JSONL gave %d records", len(want))
	}
	array := "\xef\xbb\xbf [" + strings.Join(oneLineRecords, ",") + "]\n"
	if strings.Count(array, "\n") != 5 {
		t.Fatalf("array has %d line breaks", strings.Count(array, "\n"))
	}
	check := func(name string, r ingest.Reader) {
		t.Helper()
		got := readAll(t, r, "x")
		if len(got) != len(want) {
			t.Fatalf("%s: %d records, want %d", name, len(got), len(want))
		}
		for i := range got {
			if p := got[i].Pos.String(); p != fmt.Sprintf("x:[%d]", i) {
				t.Errorf("%s: record %d at %s", name, i, p)
			}
			g, w := *got[i], *want[i]
			g.Pos, w.Pos = ingest.Pos{}, ingest.Pos{}
			if !reflect.DeepEqual(g, w) {
				t.Errorf("%s: record %d\n got %+v\nwant %+v", name, i, g, w)
			}
		}
	}
	check("stream", open(t, array, "x", FormatCapture, Options{}))
	compactArray := "[" + strings.TrimSpace(jsonl.String()) + "]"
	compactArray = strings.ReplaceAll(compactArray, "\n", ",")
	for _, in := range []string{array, compactArray} {
		for _, block := range []int{1, 100, 300, 1 << 20} {
			unitBlock = block
			data := []byte(in)
			file := sizedReader{Reader: bytes.NewReader(data), size: int64(len(data)), ra: bytes.NewReader(data)}
			r, err := NewReader(file, "x", FormatCapture, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rd, ok := r.(*reader); !ok || !rd.src.planned {
				t.Fatalf("block %d: the array was not read at offsets", block)
			}
			check(fmt.Sprintf("offsets, block %d", block), r)
		}
	}
}

// TestOneLineArrayOverLimit: an item over --max-line in a one-line array
// is one malformed record at its index, the others are read; the line
// itself may be any length.
func TestOneLineArrayOverLimit(t *testing.T) {
	small := oneLineRecords[0]
	big := strings.Replace(small, "raw text", strings.Repeat("x", 4096), 1)
	data := []byte("[" + small + "," + big + "," + small + "]")
	file := sizedReader{Reader: bytes.NewReader(data), size: int64(len(data)), ra: bytes.NewReader(data)}
	r, err := NewReader(file, "x", FormatCapture, Options{MaxValue: 1024})
	if err != nil {
		t.Fatal(err)
	}
	got := errsOrPositions(r)
	want := []string{"x:[0]", fmt.Sprintf("x:[1]: item of %d bytes is larger than the 1024-byte limit (--max-line): skipped", len(big)), "x:[2]"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// FuzzCompact: what compact calls compact, json.Compact leaves as it is,
// on one line.
func FuzzCompact(f *testing.F) {
	for _, r := range oneLineRecords {
		f.Add([]byte(r))
	}
	f.Add([]byte(`["\\\"", "a"]`))
	f.Add([]byte(`{"a":"\\"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) || !compact(b) {
			return
		}
		var c bytes.Buffer
		if err := json.Compact(&c, b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(c.Bytes(), b) || bytes.IndexByte(b, '\n') >= 0 {
			t.Errorf("compact(%q), json.Compact gives %q", b, c.Bytes())
		}
	})
}
