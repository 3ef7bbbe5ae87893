package benchmarks

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

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
			cpu0 := cpuTime()
			benchDocumentMemory(b, path, "openinference (parquet)", n)
			if cpu := cpuTime() - cpu0; cpu > 0 {
				b.ReportMetric(float64(n)*float64(b.N)/cpu.Seconds(), "records/CPU-s")
			}
		})
	}
}
