package har

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
)

// bigBody is an entry whose response body string is n bytes of 'x' (and
// an escaped quote, which the skip past it must honour), as a reader
// that makes it as it is read.
func bigBody(n int64) io.Reader {
	e := chat()
	e.respText = `"@@"`
	head, tail, _ := strings.Cut(e.String(), "@@")
	return io.MultiReader(strings.NewReader(head+`\"`), io.LimitReader(repeatX{}, n), strings.NewReader(`\"`+tail))
}

type repeatX struct{}

func (repeatX) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// records reads every record of r as "position: skip, error or model".
func records(t *testing.T, r *Reader) []string {
	t.Helper()
	defer r.Close()
	var out []string
	for r.Scan() {
		rec := r.Record()
		switch {
		case rec.Err != nil:
			out = append(out, rec.Err.Error())
		case rec.Skip != "":
			out = append(out, rec.Pos.String()+": skip "+rec.Skip)
		default:
			out = append(out, rec.Pos.String()+": "+rec.Model)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMaxValue: an entry over MaxValue is one malformed record at its
// position, read past without being kept, and the entries after it read
// as before, their syntax errors at the document's own byte offsets.
func TestMaxValue(t *testing.T) {
	prefix := doc(chat(), chat())
	prefix = prefix[:strings.LastIndex(prefix, `],"comment"`)] + ","
	bad := `{"startedDateTime" "x"}`
	suffix := "," + chat().String() + "," + bad + `],"comment":"end"}}`
	var big bytes.Buffer
	io.Copy(&big, bigBody(100_000))
	data := prefix + big.String() + suffix
	at := strings.LastIndex(data, bad) + len(`{"startedDateTime" `) + 1
	got := records(t, NewReader(strings.NewReader(data), "t.har", Options{MaxValue: 4096}))
	want := []string{
		"t.har:entries[0]: gpt-4o",
		"t.har:entries[1]: gpt-4o",
		"t.har:entries[2]: entry is larger than the 4096-byte limit (--max-line): read past, not kept",
		"t.har:entries[3]: gpt-4o",
		fmt.Sprintf("t.har:entries[4]: HAR is not valid JSON at byte %d: invalid character '\"' after object key", at),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Under the default limit the same entry is read.
	got = records(t, NewReader(strings.NewReader(strings.Replace(data, bad, chat().String(), 1)), "t.har", Options{}))
	if len(got) != 5 || got[2] != "t.har:entries[2]: gpt-4o" {
		t.Errorf("default limit: %q", got)
	}

	for _, tt := range []struct{ name, data, want string }{
		{"the last entry", prefix[:len(prefix)-1] + "," + big.String() + `]}}`,
			"t.har:entries[2]: entry is larger than the 4096-byte limit (--max-line): read past, not kept|"},
		{"truncated inside it", prefix + big.String()[:50_000],
			"t.har:entries[2]: entry is larger than the 4096-byte limit (--max-line): read past, not kept|t.har:log.entries: HAR is truncated inside entries[2]"},
		{"before log.entries", `{"log":{"creator":{"name":"` + strings.Repeat("n", 10_000) + `"},"entries":[]}}`,
			"t.har:log: HAR holds a value larger than the 4096-byte limit (--max-line) before log.entries: not read"},
		{"after log.entries", `{"log":{"entries":[],"comment":"` + strings.Repeat("n", 10_000) + `"}}`,
			"t.har:log: HAR holds a value larger than the 4096-byte limit (--max-line) after log.entries: not read"},
	} {
		got := records(t, NewReader(strings.NewReader(tt.data), "t.har", Options{MaxValue: 4096}))
		if len(got) > 2 {
			got = got[2:] // the two small entries
		}
		if s := strings.Join(got, "|"); s != tt.want && s+"|" != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, s, tt.want)
		}
	}
}

// TestMaxValueMemory reads a HAR whose second entry has a 64 MiB body
// string, made as it is read, under a 1 MiB limit: the entry is refused,
// the next one read, and what is allocated stays under 16 MiB.
func TestMaxValueMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 64 MiB")
	}
	pre := doc(chat())
	pre = pre[:strings.LastIndex(pre, `],"comment"`)] + ","
	in := io.MultiReader(strings.NewReader(pre), bigBody(64<<20), strings.NewReader(","+chat().String()+`]}}`))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got := records(t, NewReader(in, "t.har", Options{MaxValue: 1 << 20}))
	runtime.ReadMemStats(&after)
	want := "t.har:entries[0]: gpt-4o|t.har:entries[1]: entry is larger than the 1048576-byte limit (--max-line): read past, not kept|t.har:entries[2]: gpt-4o"
	if s := strings.Join(got, "|"); s != want {
		t.Errorf("got %q, want %q", s, want)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("allocated %d MiB reading a 64 MiB entry under a 1 MiB limit", alloc>>20)
	} else {
		t.Logf("allocated %.1f MiB", float64(alloc)/(1<<20))
	}
}
