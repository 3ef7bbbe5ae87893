package pq

import (
	"bytes"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/killswitch/killswitch/ingest"
	"github.com/parquet-go/parquet-go"
)

// roundTripRecords covers every field of the record: requests with and
// without optional values, an empty (non-nil) and an SSE response,
// non-ASCII text, labels, and the three control events with full, partial
// and no kill_switch settings. The expected result of the round trip is
// the input itself.
func roundTripRecords() []ingest.Record {
	req := func(s string) []byte {
		return []byte(`{"model":"gpt-4o","messages":[{"role":"user","content":` + s + `}]}`)
	}
	return []ingest.Record{
		{
			TS: utc(2026, 1, 2, 3, 4, 5, 123456), Agent: "support-bot", Status: 200,
			Request: req(`"refund order #12345"`), Response: []byte(`{"choices":[{"message":{"content":"ok"}}]}`),
			ID: "req-1", Provider: "openai", Endpoint: "/v1/chat/completions", Model: "gpt-4o",
			Tenant: "acme", APIKeyID: "key-7", Workflow: "refunds", Session: "s-1",
			LatencyMS: 812, HasLatency: true, TokensIn: 120, TokensOut: 0, HasTokens: true,
			CostUSD: 0.00125, HasCost: true, Label: ingest.LabelLoop,
		},
		{
			TS: utc(2026, 1, 2, 3, 4, 6, 0), Agent: "support-bot", Status: 429,
			Request: req(`"naïve café — 日本語 \u2028 \"quoted\""`), Response: []byte{},
			Label: ingest.LabelLegit,
		},
		{
			TS: utc(2026, 1, 2, 3, 4, 7, 1), Agent: "other agent", Status: 200,
			Request:  []byte(`{"model":"claude","stream":true,"messages":[]}`),
			Response: []byte("event: message_start\ndata: {\"type\":\"message_start\"}\n\ndata: [DONE]\n\n"),
		},
		{
			TS: utc(2026, 1, 2, 3, 5, 0, 0), Agent: "support-bot", Status: 200,
			Control: &ingest.Control{Event: ingest.ControlConfig, By: "manual", KillSwitch: ingest.KillSwitchPatch{
				Enabled: ptr(true), WindowSize: ptr(30), Threshold: ptr(7.5),
			}},
		},
		{
			TS: utc(2026, 1, 2, 3, 5, 1, 0), Agent: "support-bot", Status: 200,
			Control: &ingest.Control{Event: ingest.ControlConfig, By: "manual", KillSwitch: ingest.KillSwitchPatch{Threshold: ptr(0.0)}},
		},
		{
			TS: utc(2026, 1, 2, 3, 6, 0, 0), Agent: "support-bot", Status: 200,
			Control: &ingest.Control{Event: ingest.ControlDeactivate, By: "kill_switch"},
		},
		{
			TS: utc(2026, 1, 2, 3, 7, 0, 0), Agent: "support-bot", Status: 200,
			Control: &ingest.Control{Event: ingest.ControlActivate, By: "manual"},
		},
		{
			TS: utc(1970, 1, 1, 0, 0, 0, 0), Agent: "epoch", Status: 500,
			Request: []byte(` {"prompt":"legacy"} `), HasLatency: true, HasCost: true,
		},
	}
}

func TestRoundTrip(t *testing.T) {
	want := roundTripRecords()
	layouts := []struct {
		name string
		opts []parquet.WriterOption
	}{
		{"canonical", nil},
		{"data page v1", []parquet.WriterOption{parquet.DataPageVersion(1)}},
		{"zstd", []parquet.WriterOption{parquet.Compression(&parquet.Zstd)}},
		{"uncompressed", []parquet.WriterOption{parquet.Compression(&parquet.Uncompressed)}},
		{"one row per row group", []parquet.WriterOption{parquet.MaxRowsPerRowGroup(1)}},
		{"tiny pages", []parquet.WriterOption{parquet.PageBufferSize(64)}},
	}
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := writeRecords(&buf, want, l.opts...); err != nil {
				t.Fatal(err)
			}
			got := mustRead(t, buf.Bytes(), Options{})
			if len(got) != len(want) {
				t.Fatalf("read %d records, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i].Pos != (ingest.Pos{File: "t.parquet", Kind: ingest.PosRow, N: int64(i + 1)}) {
					t.Errorf("record %d: Pos %v", i, got[i].Pos)
				}
				if d := diffRecord(got[i], &want[i]); d != "" {
					t.Errorf("record %d: %s", i, d)
				}
			}
		})
	}
}

// TestRoundTripManyRowGroups checks row numbering across row groups and
// pages: record i carries its number in its request, so position and
// content must agree.
func TestRoundTripManyRowGroups(t *testing.T) {
	const n = 20000 // > 2 row groups of rowGroupRows
	recs := make([]ingest.Record, n)
	for i := range recs {
		recs[i] = ingest.Record{
			TS: time.Unix(1767225600+int64(i), 0).UTC(), Agent: "a", Status: 200,
			Request: []byte(`{"prompt":"row ` + strings.Repeat("x", i%300) + `","n":` + strconv.Itoa(i+1) + `}`),
		}
	}
	var buf bytes.Buffer
	if err := WriteRecords(&buf, recs); err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "big.parquet", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(r.groups); got < 3 {
		t.Fatalf("%d row groups, want ≥ 3 for this test to mean anything", got)
	}
	i := 0
	for r.Scan() {
		rec := r.Record()
		if rec.Err != nil {
			t.Fatal(rec.Err)
		}
		if rec.Pos.N != int64(i+1) || !bytes.HasSuffix(rec.Request, []byte(`"n":`+strconv.Itoa(i+1)+`}`)) || !rec.TS.Equal(recs[i].TS) {
			t.Fatalf("record %d: %v %s %v", i, rec.Pos, rec.Request[max(0, len(rec.Request)-12):], rec.TS)
		}
		i++
	}
	if err := r.Err(); err != nil || i != n {
		t.Fatalf("read %d records, err %v", i, err)
	}
}

func TestWriteRecordsRefusesBadRecords(t *testing.T) {
	pos := ingest.Pos{File: "in.jsonl", Kind: ingest.PosLine, N: 3}
	for _, rec := range []ingest.Record{
		{Pos: pos, Err: ingest.Errorf(pos, "broken")},
		{Pos: pos, Skip: "not an LLM endpoint"},
	} {
		err := WriteRecords(&bytes.Buffer{}, []ingest.Record{rec})
		if err == nil || !strings.Contains(err.Error(), "in.jsonl:3") {
			t.Errorf("WriteRecords(%+v) = %v, want an error naming in.jsonl:3", rec, err)
		}
	}
}

// TestCanonicalSchema pins the layout other tools see.
func TestCanonicalSchema(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteRecords(&buf, roundTripRecords()[:1]); err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	s := f.Schema().String()
	for _, want := range []string{
		"required int64 ts (TIMESTAMP(isAdjustedToUTC=true,unit=MICROS));",
		"required binary agent (STRING);",
		"optional binary request (STRING);",
		"optional binary response (STRING);",
		"optional group kill_switch {",
		"optional double threshold;",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("schema lacks %q:\n%s", want, s)
		}
	}
}

// TestCloseStopsPrefetch checks that Close, and dropping a Reader half
// read, stop the goroutines reading pages ahead.
func TestCloseStopsPrefetch(t *testing.T) {
	recs := make([]ingest.Record, 30000)
	for i := range recs {
		recs[i] = ingest.Record{TS: time.Unix(int64(i), 0).UTC(), Agent: "a", Status: 200, Request: []byte(`{"prompt":"` + strings.Repeat("y", 200) + `"}`), Response: []byte("ok")}
	}
	var buf bytes.Buffer
	if err := writeRecords(&buf, recs, parquet.PageBufferSize(4096)); err != nil {
		t.Fatal(err)
	}
	base := runtime.NumGoroutine()
	open := func() *Reader {
		r, err := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "c.parquet", Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 10 && r.Scan(); i++ {
		}
		return r
	}
	r := open()
	if n := runtime.NumGoroutine(); n < base+2 {
		t.Fatalf("%d goroutines while reading, want ≥ %d (request and response prefetch)", n, base+2)
	}
	r.Close()
	if r.Scan() || r.Err() != nil {
		t.Errorf("after Close: Scan true or Err %v", r.Err())
	}
	waitGoroutines(t, base)

	open() // dropped half read: the cleanup must stop its goroutines
	for i := 0; i < 50 && runtime.NumGoroutine() > base; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	waitGoroutines(t, base)
}

func waitGoroutines(t *testing.T, want int) {
	t.Helper()
	for i := 0; i < 100 && runtime.NumGoroutine() > want; i++ {
		time.Sleep(5 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > want {
		t.Fatalf("%d goroutines left, want %d", n, want)
	}
}
