package benchmarks

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/killswitch/killswitch/internal/tracegen"
)

// BenchmarkDocumentMemory reads JSON document inputs of two sizes (calls
// of benchChatRecords, ~2.5 KB) through ingest.Open and reports, beside
// MB/s, records/s and records per CPU-second of the process, what reading
// costs in memory: the bytes allocated per record (alloc-B/record) and,
// in one more reading after the timed ones, the largest heap seen while
// reading, above the heap before Open, sampled every 64 calls (peak-heap-MB;
// garbage included, so up to about twice what is live), and the heap
// above it halfway through the calls after a collection (live-heap-MB:
// what the reader holds). Flat in the file's size means neither grows
// with the file. The inputs:
// Bedrock invocation logs as one pretty-printed JSON array (a CloudWatch
// export's shape: an item per element, converted one at a time);
// OpenTelemetry console output (documents one after another, a span
// each: read in two passes, span by span); Phoenix span JSON as a
// {"data": [...]} page (read in two passes, span by span); and LangSmith
// runs as one JSON array (a chain run, an llm run and its patch per call:
// read in two passes, a run at a time).
func BenchmarkDocumentMemory(b *testing.B) {
	dir := b.TempDir()
	for _, n := range []int{5000, 20000} {
		bedrock, phoenix, console, langsmith := documentFiles(b, dir, n)
		b.Run(fmt.Sprintf("bedrock-array/calls=%d", n), func(b *testing.B) {
			benchDocumentMemory(b, bedrock, "bedrock", n)
		})
		b.Run(fmt.Sprintf("console/calls=%d", n), func(b *testing.B) {
			benchDocumentMemory(b, console, "otel-console", n)
		})
		b.Run(fmt.Sprintf("phoenix-page/calls=%d", n), func(b *testing.B) {
			benchDocumentMemory(b, phoenix, "phoenix", n)
		})
		b.Run(fmt.Sprintf("langsmith-array/calls=%d", n), func(b *testing.B) {
			benchDocumentMemory(b, langsmith, "langsmith", n)
		})
	}
}

// documentFiles writes n calls as a Bedrock array, a Phoenix page and a
// LangSmith run array in dir, and the calls as OpenTelemetry console
// output (a chat span under an invoke_agent span, each a pretty-printed
// document), and returns their paths; nothing it made stays referenced.
func documentFiles(b testing.TB, dir string, n int) (bedrock, phoenix, console, langsmith string) {
	recs := benchChatRecords(n)
	calls := make([]tracegen.Span, n)
	var spans []tracegen.Span
	for i, rec := range recs {
		c := tracegen.Span{TraceID: fmt.Sprintf("%032x", i+1), SpanID: fmt.Sprintf("%016x", 2*i+1), Name: "ChatCompletion", Kind: "LLM",
			Start: rec.TS, End: rec.TS, Session: rec.Agent}
		if err := tracegen.FromChat(&c, rec.Request, rec.Response); err != nil {
			b.Fatal(err)
		}
		calls[i] = c
		root := tracegen.Span{TraceID: c.TraceID, SpanID: fmt.Sprintf("%016x", 2*i+2), Name: "agent.run", Kind: "AGENT", Start: rec.TS, End: rec.TS, Session: rec.Agent}
		c.ParentID = root.SpanID
		spans = append(spans, root, c)
	}
	bedrock = filepath.Join(dir, fmt.Sprintf("invocations-%d.json", n))
	phoenix = filepath.Join(dir, fmt.Sprintf("spans-%d.json", n))
	if err := os.WriteFile(bedrock, linesAsArray(tracegen.BedrockConverse(calls)), 0o644); err != nil {
		b.Fatal(err)
	}
	langsmith = filepath.Join(dir, fmt.Sprintf("runs-%d.json", n))
	if err := os.WriteFile(langsmith, linesAsArray(tracegen.LangSmithRuns(calls)), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(phoenix, tracegen.PhoenixSpans(spans), 0o644); err != nil {
		b.Fatal(err)
	}
	console = filepath.Join(dir, fmt.Sprintf("console-%d.json", n))
	if err := os.WriteFile(console, tracegen.ConsoleGenAI(calls, false), 0o644); err != nil {
		b.Fatal(err)
	}
	return bedrock, phoenix, console, langsmith
}

// linesAsArray is the lines of a JSONL input as a JSON array, an element
// a line.
func linesAsArray(jsonl []byte) []byte {
	lines := bytes.Split(bytes.TrimSpace(jsonl), []byte("\n"))
	return append(append([]byte("[\n"), bytes.Join(lines, []byte(",\n"))...), "\n]\n"...)
}

func benchDocumentMemory(b *testing.B, path, format string, calls int) {
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	// The timed readings only read: the heap is sampled in one more
	// reading after them, whose collections and heap reads (each stops
	// the world) would otherwise be charged to the reader.
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	total := ms.TotalAlloc
	cpu0 := cpuTime()
	for b.Loop() {
		if n := readCalls(b, path, format, nil); n != calls {
			b.Fatalf("read %d calls, want %d", n, calls)
		}
	}
	cpu := cpuTime() - cpu0
	runtime.ReadMemStats(&ms)
	alloc := ms.TotalAlloc - total
	peak, live := documentHeap(b, path, format, calls)
	b.SetBytes(st.Size())
	b.ReportMetric(float64(calls)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
	if cpu > 0 {
		b.ReportMetric(float64(calls)*float64(b.N)/cpu.Seconds(), "records/CPU-s")
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(live)/(1<<20), "live-heap-MB")
	b.ReportMetric(float64(alloc)/float64(b.N)/float64(calls), "alloc-B/record")
	b.ReportMetric(float64(st.Size())/(1<<20), "file-MB")
}

// documentHeap reads path once more, untimed, and returns the largest
// heap seen above the heap before Open (sampled every 64 calls) and the
// heap above it halfway through the calls, after a collection.
func documentHeap(b *testing.B, path, format string, calls int) (peak, live uint64) {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	sampled, halfway := 0, false
	n := readCalls(b, path, format, func(n int) {
		if n%64 == 0 && n != sampled { // once a 64 calls, not at each skip record between
			sampled = n
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc-min(base, ms.HeapAlloc))
		}
		if n == calls/2 && !halfway { // what the reader holds halfway, garbage collected
			halfway = true
			runtime.GC()
			runtime.ReadMemStats(&ms)
			live = max(live, ms.HeapAlloc-min(base, ms.HeapAlloc))
		}
	})
	if n != calls {
		b.Fatalf("read %d calls, want %d", n, calls)
	}
	return peak, live
}
