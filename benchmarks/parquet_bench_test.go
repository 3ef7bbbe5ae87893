package benchmarks

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/ingest/pq"
	"github.com/parquet-go/parquet-go"
)

// The Parquet ingestion benchmarks read benchRecords generated chat
// records (a request of about 2 KB: a system prompt, three turns of history
// and a user message; a response of about 0.5 KB), laid out three ways:
//
//   - canonical: pq.WriteRecords (flat columns, request/response as text,
//     Snappy);
//   - nested: the request as a struct column with a repeated messages group,
//     which the reader serializes back to JSON;
//   - jsonl: the same records as SPEC §3 JSONL lines read by
//     ingest.NewJSONL, the baseline Parquet should match per record.
//
// Each reports MB/s of file bytes (b.SetBytes), records/s, and ns per KB of
// request+response payload, the unit the JSONL goal (~1 µs/KB) is stated in.

const benchRecords = 20000

var benchData struct {
	once      sync.Once
	recs      []ingest.Record
	payload   int64 // request + response bytes over all records
	canonical []byte
	nested    []byte
	jsonl     []byte
	err       error
}

func benchFiles(b *testing.B) {
	benchData.once.Do(func() {
		d := &benchData
		d.recs = benchChatRecords(benchRecords)
		for i := range d.recs {
			d.payload += int64(len(d.recs[i].Request) + len(d.recs[i].Response))
		}
		var buf bytes.Buffer
		if d.err = pq.WriteRecords(&buf, d.recs); d.err != nil {
			return
		}
		d.canonical = bytes.Clone(buf.Bytes())
		if d.nested, d.err = benchNested(benchRecords); d.err != nil {
			return
		}
		d.jsonl = benchJSONL(d.recs)
	})
	if benchData.err != nil {
		b.Fatal(benchData.err)
	}
}

// benchWords is the vocabulary of generated prompts.
var benchWords = strings.Fields(`the order customer refund shipping invoice account
please check status update ticket agent tool result search database query
summary report error retry payment address delivery warehouse product item
price discount subscription renewal cancel support escalate review approve`)

// benchText returns n words chosen by a linear congruential generator
// seeded with seed: deterministic, and different per record.
func benchText(seed uint64, n int) string {
	var sb strings.Builder
	x := seed*6364136223846793005 + 1442695040888963407
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(benchWords[(x>>33)%uint64(len(benchWords))])
		if (x>>20)%11 == 0 {
			sb.WriteString(" #")
			sb.WriteString(strconv.FormatUint((x>>40)%100000, 10))
		}
	}
	return sb.String()
}

type benchMsg struct {
	Role    string `parquet:"role"`
	Content string `parquet:"content"`
}

func benchMessages(i int) []benchMsg {
	s := uint64(i)
	return []benchMsg{
		{"system", "You are a support agent. " + benchText(1, 60)},
		{"user", benchText(s*7+1, 40)},
		{"assistant", benchText(s*7+2, 50)},
		{"user", benchText(s*7+3, 30)},
		{"assistant", benchText(s*7+4, 40)},
		{"user", benchText(s*7+5, 35)},
	}
}

func benchChatRecords(n int) []ingest.Record {
	recs := make([]ingest.Record, n)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range recs {
		var req strings.Builder
		req.WriteString(`{"model":"gpt-4o-mini","temperature":0.2,"messages":[`)
		for j, m := range benchMessages(i) {
			if j > 0 {
				req.WriteByte(',')
			}
			fmt.Fprintf(&req, `{"role":%q,"content":%q}`, m.Role, m.Content)
		}
		req.WriteString(`]}`)
		resp := fmt.Sprintf(`{"id":"chatcmpl-%d","object":"chat.completion","model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],"usage":{"prompt_tokens":512,"completion_tokens":80}}`,
			i, benchText(uint64(i)*7+6, 50))
		recs[i] = ingest.Record{
			TS:    t0.Add(time.Duration(i) * 250 * time.Millisecond),
			Agent: "agent-" + strconv.Itoa(i%50), Status: 200,
			Request: []byte(req.String()), Response: []byte(resp),
			ID: "req-" + strconv.Itoa(i), Provider: "openai", Endpoint: "/v1/chat/completions", Model: "gpt-4o-mini",
			HasTokens: true, TokensIn: 512, TokensOut: 80, HasLatency: true, LatencyMS: int64(300 + i%700),
		}
	}
	return recs
}

type benchNestedRequest struct {
	Model       string     `parquet:"model"`
	Temperature float64    `parquet:"temperature"`
	Messages    []benchMsg `parquet:"messages"`
}

type benchNestedRow struct {
	TS       time.Time          `parquet:"ts,timestamp(millisecond)"`
	Agent    string             `parquet:"agent,dict"`
	Request  benchNestedRequest `parquet:"request"`
	Response string             `parquet:"response"`
}

func benchNested(n int) ([]byte, error) {
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[benchNestedRow](&buf, parquet.Compression(&parquet.Snappy), parquet.MaxRowsPerRowGroup(8192))
	recs := benchData.recs
	rows := make([]benchNestedRow, n)
	for i := range rows {
		rows[i] = benchNestedRow{
			TS: recs[i].TS, Agent: recs[i].Agent, Response: string(recs[i].Response),
			Request: benchNestedRequest{Model: "gpt-4o-mini", Temperature: 0.2, Messages: benchMessages(i)},
		}
	}
	if _, err := w.Write(rows); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func benchJSONL(recs []ingest.Record) []byte {
	var buf bytes.Buffer
	for i := range recs {
		r := &recs[i]
		fmt.Fprintf(&buf, `{"ts":%q,"agent":%q,"request":%s,"response":%q,"status":200,"id":%q,"provider":"openai","endpoint":"/v1/chat/completions","model":"gpt-4o-mini","tokens_in":512,"tokens_out":80,"latency_ms":%d}`+"\n",
			ingest.FormatTime(r.TS), r.Agent, r.Request, r.Response, r.ID, r.LatencyMS)
	}
	return buf.Bytes()
}

func benchReport(b *testing.B, fileBytes int64, records int) {
	b.SetBytes(fileBytes)
	b.ReportMetric(float64(records)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
	kb := float64(benchData.payload) / 1024
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/kb, "ns/payload-KB")
}

func benchParquet(b *testing.B, data []byte) {
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		r, err := pq.NewReader(bytes.NewReader(data), int64(len(data)), "bench.parquet", pq.Options{})
		if err != nil {
			b.Fatal(err)
		}
		n = 0
		for r.Scan() {
			if rec := r.Record(); rec.Err != nil {
				b.Fatal(rec.Err)
			}
			n++
		}
		if err := r.Err(); err != nil {
			b.Fatal(err)
		}
	}
	if n != benchRecords {
		b.Fatalf("read %d records, want %d", n, benchRecords)
	}
	benchReport(b, int64(len(data)), n)
}

func BenchmarkParquetCanonical(b *testing.B) {
	benchFiles(b)
	benchParquet(b, benchData.canonical)
}

func BenchmarkParquetNestedRequest(b *testing.B) {
	benchFiles(b)
	benchParquet(b, benchData.nested)
}

func BenchmarkParquetJSONLBaseline(b *testing.B) {
	benchFiles(b)
	data := benchData.jsonl
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		r := ingest.NewJSONL(bytes.NewReader(data), "bench.jsonl", ingest.JSONLOptions{})
		n = 0
		for r.Scan() {
			if rec := r.Record(); rec.Err != nil {
				b.Fatal(rec.Err)
			}
			n++
		}
		if err := r.Err(); err != nil {
			b.Fatal(err)
		}
	}
	if n != benchRecords {
		b.Fatalf("read %d records, want %d", n, benchRecords)
	}
	benchReport(b, int64(len(data)), n)
}
