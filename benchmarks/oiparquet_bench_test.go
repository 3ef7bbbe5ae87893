package benchmarks

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/killswitch/killswitch/internal/tracegen"
)

// BenchmarkOpenInferenceParquet reads an OpenInference span table as
// Phoenix exports it (tracegen's layout: a row per span, message lists as
// lists of structs) through ingest.Open: calls of benchChatRecords (a
// request of about 2 KB, a response of about 0.5 KB), each an AGENT span
// over a framework LLM span over the client's LLM span, beside a TOOL
// span (4 rows, 1 record; oiTraceSpans). Beside MB/s and records/s (wall
// time) it reports records per CPU-second of the process (user + system,
// GC included: steadier than wall time on a shared machine). The sizes
// are 5,000 calls (BenchmarkTraceOpenInferenceParquet's file) and 20,000;
// peak-heap-MB is the largest heap seen while reading above the heap
// before (benchDocumentMemory), flat in the file's size when the reader
// holds no more than a plan of a few bytes a row.
func BenchmarkOpenInferenceParquet(b *testing.B) {
	dir := b.TempDir()
	for _, n := range []int{5000, 20000} {
		path := filepath.Join(dir, fmt.Sprintf("spans-%d.parquet", n))
		spans, err := oiTraceSpans(benchChatRecords(n))
		if err != nil {
			b.Fatal(err)
		}
		var buf bytes.Buffer
		if err := tracegen.OpenInferenceParquet(&buf, spans); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			benchDocumentMemory(b, path, "openinference (parquet)", n)
		})
	}
}

// BenchmarkOpenInferenceParquetOrder measures what the reader holds as
// the file grows, for rows in start-time order (order=time, as
// BenchmarkOpenInferenceParquet) and out of it: order=ended, the order
// the spans ended, as Phoenix's tables hold them (each trace lasting 1 to
// 30 s, traces overlapping, a child before its parent); order=mixed, the
// traces interleaved from both ends, so that the first row's trace is
// the last in time: 5,000, 20,000 and 80,000 calls (4 to 63 MB). peak-heap-MB is
// flat in the file's size when the reader holds a plan of a few bytes a
// row and, out of order, a bounded window of records. Set
// KILLSWITCH_BENCH_OIPARQUET=DIR to keep the tables in DIR
// (spans-ORDER-CALLS.parquet), e.g. to time `killswitch replay` on them
// from outside.
func BenchmarkOpenInferenceParquetOrder(b *testing.B) {
	dir := os.Getenv("KILLSWITCH_BENCH_OIPARQUET")
	if dir == "" {
		dir = b.TempDir()
	}
	for _, order := range []string{"time", "ended", "mixed"} {
		for _, n := range []int{5000, 20000, 80000} {
			spans, err := oiTraceSpans(benchChatRecords(n))
			if err != nil {
				b.Fatal(err)
			}
			switch order {
			case "ended":
				spans = endedOrder(spans, 4)
			case "mixed":
				spans = interleaveTraces(spans, 4)
			}
			var buf bytes.Buffer
			if err := tracegen.OpenInferenceParquet(&buf, spans); err != nil {
				b.Fatal(err)
			}
			path := filepath.Join(dir, fmt.Sprintf("spans-%s-%d.parquet", order, n))
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("order=%s/calls=%d", order, n), func(b *testing.B) {
				benchDocumentMemory(b, path, "openinference (parquet)", n)
			})
		}
	}
}

// endedOrder gives the traces of size spans each (a root first, the
// others its descendants, all starting at the root's start) times: trace i
// lasts 1 to 30 s, the root spanning it, the others nested in it
// a millisecond apart; then orders the spans by their end, as a table
// written as the spans end holds them.
func endedOrder(spans []tracegen.Span, size int) []tracegen.Span {
	out := slices.Clone(spans)
	for i := 0; i+size <= len(out); i += size {
		at := out[i].Start
		d := time.Duration(1+(i/size*7)%30) * time.Second
		out[i].End = at.Add(d)
		for k := 1; k < size; k++ {
			ms := time.Duration(k) * time.Millisecond
			out[i+k].Start, out[i+k].End = at.Add(ms), at.Add(d-ms)
		}
	}
	slices.SortStableFunc(out, func(a, b tracegen.Span) int { return a.End.Compare(b.End) })
	return out
}

// interleaveTraces orders traces of size spans each from both ends: the
// last, the first, the last but one, the second, …
func interleaveTraces(spans []tracegen.Span, size int) []tracegen.Span {
	out := make([]tracegen.Span, 0, len(spans))
	for i, j := 0, len(spans)/size-1; i <= j; i, j = i+1, j-1 {
		out = append(out, spans[size*j:size*j+size]...)
		if i != j {
			out = append(out, spans[size*i:size*i+size]...)
		}
	}
	return out
}
