package pq

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/killswitch/killswitch/ingest"
)

// capturesDir is the shared folder of real captures, relative to this
// package (the repository root's ../shared/captures).
const capturesDir = "../../../shared/captures"

// TestRealCapturesRoundTrip reads the real JSONL captures with the JSONL
// reader, writes their records as Parquet and reads them back: every
// record, bodies byte for byte, must come back as the JSONL reader made it.
// The expected records are the JSONL reader's, an implementation
// independent of this package.
func TestRealCapturesRoundTrip(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(capturesDir, "jsonl-openhands-sdk-llm-logs", "*.jsonl"))
	if len(files) == 0 {
		t.Skipf("no real captures under %s (a fresh clone without ../shared)", capturesDir)
	}
	for _, name := range files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			var want []ingest.Record
			jr := ingest.NewJSONL(bytes.NewReader(data), name, ingest.JSONLOptions{})
			for jr.Scan() {
				if rec := jr.Record(); rec.Err == nil && rec.Skip == "" {
					want = append(want, *rec)
				}
			}
			if err := jr.Err(); err != nil {
				t.Fatal(err)
			}
			if len(want) == 0 {
				t.Fatal("no records from the JSONL reader")
			}
			var buf bytes.Buffer
			if err := WriteRecords(&buf, want); err != nil {
				t.Fatal(err)
			}
			got := mustRead(t, buf.Bytes(), Options{})
			if len(got) != len(want) {
				t.Fatalf("%d records back, want %d", len(got), len(want))
			}
			for i := range want {
				w := want[i]
				w.TS = w.TS.Truncate(1000) // the canonical layout keeps microseconds
				if d := diffRecord(got[i], &w); d != "" {
					t.Errorf("record %d (%v): %s", i, want[i].Pos, d)
				}
			}
		})
	}
}
