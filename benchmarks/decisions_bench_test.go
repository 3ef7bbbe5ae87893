package benchmarks

import (
	"io"
	"testing"

	"bytes"
	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/report"
)

// BenchmarkWriteDecisions: formatting and writing the decision records
// (SPEC §5) of a replay of the short-record corpus, as `replay -f jsonl`
// does for every request; MB/s of output, records/s. The decisions are
// collected once, outside the timing.
func BenchmarkWriteDecisions(b *testing.B) {
	c := benchShort()
	var ds []analyze.Decision
	r := ingest.NewJSONL(bytes.NewReader(c.data), "short.jsonl", ingest.JSONLOptions{})
	if _, err := analyze.Replay(r, analyze.NewConfig(), 2, analyze.Hooks{Decision: func(d *analyze.Decision) error { ds = append(ds, *d); return nil }}); err != nil {
		b.Fatal(err)
	}
	var size countingWriter
	w := report.NewDecisionWriter(&size)
	for i := range ds {
		w.Write(&ds[i])
	}
	w.Flush()
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		w := report.NewDecisionWriter(io.Discard)
		for i := range ds {
			if err := w.Write(&ds[i]); err != nil {
				b.Fatal(err)
			}
		}
		w.Flush()
	}
	reportRecords(b, len(ds))
}

type countingWriter int64

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}
