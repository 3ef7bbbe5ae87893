// Command mkparquet converts a JSONL capture into a Parquet capture in the
// canonical layout (pq.WriteRecords), for scripts/compare-outputs.sh: no
// Parquet capture is checked in, and the comparison must read one.
//
//	go run ./scripts/mkparquet IN.jsonl OUT.parquet
package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/ingest/pq"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "mkparquet:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("usage: mkparquet IN.jsonl OUT.parquet")
	}
	in, err := os.Open(args[0])
	if err != nil {
		return err
	}
	defer in.Close()
	r := ingest.NewJSONL(in, args[0], ingest.JSONLOptions{})
	var recs []ingest.Record
	for r.Scan() {
		rec := r.Record()
		if rec.Err != nil || rec.Skip != "" {
			continue // the comparison reads the bad lines from the JSONL itself
		}
		c := *rec
		c.CopyInto(nil) // the reader reuses its buffers
		recs = append(recs, c)
	}
	if err := r.Err(); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := pq.WriteRecords(&b, recs); err != nil {
		return err
	}
	return os.WriteFile(args[1], b.Bytes(), 0o644)
}
