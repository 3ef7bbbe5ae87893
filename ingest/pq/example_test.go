package pq_test

import (
	"bytes"
	"fmt"
	"time"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/ingest/pq"
)

// Records written in the canonical layout read back as the same records,
// positioned by row; a bad value is a record with Err, and reading goes on.
func Example() {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	recs := []ingest.Record{
		{TS: t0, Agent: "support-bot", Status: 200, Request: []byte(`{"messages":[{"role":"user","content":"refund order #1"}]}`)},
		{TS: t0.Add(time.Second), Agent: "support-bot", Status: 200, Request: []byte(`not json`)},
		{TS: t0.Add(2 * time.Second), Agent: "support-bot", Status: 200,
			Control: &ingest.Control{Event: ingest.ControlDeactivate, By: "manual"}},
	}
	var buf bytes.Buffer
	if err := pq.WriteRecords(&buf, recs); err != nil {
		fmt.Println(err)
		return
	}
	r, err := pq.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "day1.parquet", pq.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for r.Scan() {
		rec := r.Record()
		switch {
		case rec.Err != nil:
			fmt.Println("bad:", rec.Err)
		case rec.Control != nil:
			fmt.Println(rec.Pos, ingest.FormatTime(rec.TS), rec.Agent, rec.Control.Event)
		default:
			fmt.Println(rec.Pos, ingest.FormatTime(rec.TS), rec.Agent, string(rec.Request))
		}
	}
	if err := r.Err(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// day1.parquet:row 1 2026-01-02T03:04:05.000Z support-bot {"messages":[{"role":"user","content":"refund order #1"}]}
	// bad: day1.parquet:row 2: request: is not a JSON object (8 bytes)
	// day1.parquet:row 3 2026-01-02T03:04:07.000Z support-bot deactivate
}
