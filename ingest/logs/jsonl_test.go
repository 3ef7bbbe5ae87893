package logs

import (
	"strings"
	"testing"

	"github.com/killswitch/killswitch/ingest"
	"runtime"
)

// TestCaptureInputs: JSONL goes to ingest.NewJSONL as is; documents are
// compacted and keep their own positions.
func TestCaptureInputs(t *testing.T) {
	rec := `{"ts":"2026-01-02T03:04:05Z","agent":"a","request":{"messages":[{"role":"user","content":"hi  there"}]},"response":"raw text"}`
	pretty := "{\n  \"ts\": \"2026-01-02T03:04:05Z\",\n  \"agent\": \"a\",\n  \"request\": {\"messages\": [{\"role\": \"user\", \"content\": \"hi  there\"}]},\n  \"response\": \"raw text\"\n}"
	completion := "{\n  \"messages\": [{\"role\": \"user\", \"content\": \"q\"}],\n  \"response\": {\"choices\": []},\n  \"timestamp\": 1757015025.5,\n" +
		"  \"kwargs\": {\"extra_body\": {\"metadata\": {\"tags\": [\"agent:Bot\"]}}}\n}"
	for _, tt := range []struct {
		name, in string
		f        Format
		opt      Options
		want     []string // position agent request
	}{
		{"jsonl", "\xef\xbb\xbf" + rec + "\n\n" + rec + "\n", FormatCapture, Options{},
			[]string{`x:1 a {"messages":[{"role":"user","content":"hi  there"}]}`, `x:3 a {"messages":[{"role":"user","content":"hi  there"}]}`}},
		{"pretty-document", "\n" + pretty + "\n", FormatCapture, Options{},
			[]string{`x:2 a {"messages":[{"role":"user","content":"hi  there"}]}`}},
		{"array", "[\n" + rec + ",\n" + pretty + "\n]", FormatCapture, Options{Agent: "flag"},
			[]string{`x:[0] flag {"messages":[{"role":"user","content":"hi  there"}]}`, `x:[1] flag {"messages":[{"role":"user","content":"hi  there"}]}`}},
		{"completion-log-document", completion, FormatCompletionLog, Options{},
			[]string{`x:1 Bot {"messages":[{"role":"user","content":"q"}]}`}},
		{"control-document", "{\n\"ts\": 5, \"agent\": \"a\", \"event\": \"deactivate\"\n}", FormatCapture, Options{},
			[]string{`x:1 a `}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			recs := readAll(t, open(t, tt.in, "x", tt.f, tt.opt), "x")
			var got []string
			for _, r := range recs {
				if r.Err != nil {
					t.Fatal(r.Err)
				}
				got = append(got, r.Pos.String()+" "+r.Agent+" "+string(r.Request))
				if r.Control == nil && tt.f == FormatCapture && string(r.Response) != "raw text" {
					t.Errorf("response %q", r.Response)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
	// A JSONL capture is the ingest reader itself.
	r := open(t, rec+"\n", "x", FormatCapture, Options{})
	if _, ok := r.(*ingest.JSONLReader); !ok {
		t.Errorf("JSONL capture read by %T", r)
	}
}

// TestDocumentRecordsAllocateTheirSize: the records of a pretty-printed
// array are each parsed by a JSONL reader over that record alone, which
// sizes its buffer to it: it took a MiB a record (4,000 records of 1.3 KB,
// 5 s and 4 GB allocated; now 0.1 s).
func TestDocumentRecordsAllocateTheirSize(t *testing.T) {
	rec := `{"ts": "2026-01-02T03:04:05Z", "agent": "a", "request": {"messages": [{"role": "user", "content": "hi there"}]}}`
	in := "[\n" + strings.Repeat(rec+",\n", 199) + rec + "\n]\n"
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	recs := readAll(t, open(t, in, "x", FormatCapture, Options{}), "x")
	runtime.ReadMemStats(&after)
	if len(recs) != 200 {
		t.Fatalf("%d records", len(recs))
	}
	if a := after.TotalAlloc - before.TotalAlloc; a > 20<<20 {
		t.Errorf("200 records of %d bytes allocated %d MB", len(rec), a>>20)
	}
}
