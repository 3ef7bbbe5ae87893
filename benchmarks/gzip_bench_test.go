package benchmarks

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/internal/bgzfw"
	"github.com/killswitch/killswitch/internal/cputime"
	"github.com/killswitch/killswitch/internal/cputime/cputimetest"
)

var (
	compressedOnce sync.Once
	compressed     map[string][]byte
)

// compressedCaptures compresses data (the replay capture) once per
// container. Set KILLSWITCH_BENCH_COMPRESSED=DIR to write them out as
// DIR/capture.jsonl.{gz,bgzf.gz,zst} (to time a replay of each).
func compressedCaptures(data []byte) {
	compressedOnce.Do(func() {
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(data)
		zw.Close()
		zs, _ := zstd.NewWriter(nil)
		compressed = map[string][]byte{"gzip": gz.Bytes(), "bgzf": bgzfw.Write(data, bgzfw.Block), "zstd": zs.EncodeAll(data, nil)}
		if dir := os.Getenv("KILLSWITCH_BENCH_COMPRESSED"); dir != "" {
			for name, ext := range map[string]string{"gzip": ".gz", "bgzf": ".bgzf.gz", "zstd": ".zst"} {
				os.WriteFile(filepath.Join(dir, "capture.jsonl"+ext), compressed[name], 0o644)
			}
		}
	})
}

// BenchmarkInflate: decompression alone (no JSON), of one gzip member and
// of BGZF (in parallel), MB/s of the uncompressed capture; cpu-MB/s per
// CPU second, since on a shared machine wall time also counts other
// processes' turns.
func BenchmarkInflate(b *testing.B) {
	data, _ := benchCapture()
	compressedCaptures(data)
	for _, name := range []string{"gzip", "bgzf"} {
		b.Run(name, func(b *testing.B) {
			z := compressed[name]
			b.SetBytes(int64(len(data)))
			cpu0, _ := cputime.Used()
			for b.Loop() {
				dec, _, closeDec, err := ingest.Decompress(bytes.NewReader(z))
				if err != nil {
					b.Fatal(err)
				}
				k, err := io.Copy(io.Discard, dec)
				closeDec()
				if k != int64(len(data)) || err != nil {
					b.Fatalf("%d bytes, %v", k, err)
				}
			}
			cputimetest.Report(b, cpu0, int64(len(data)))
		})
	}
}

// BenchmarkReadCompressed: the JSONL reader over the replay capture
// compressed as one gzip member (inflated on one core), as BGZF (members
// inflated in parallel, one goroutine per CPU) and as zstd. MB/s are of
// the uncompressed capture.
func BenchmarkReadCompressed(b *testing.B) {
	data, n := benchCapture()
	compressedCaptures(data)
	for _, name := range []string{"gzip", "bgzf", "zstd"} {
		b.Run(name, func(b *testing.B) {
			z := compressed[name]
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				dec, _, closeDec, err := ingest.Decompress(bytes.NewReader(z))
				if err != nil {
					b.Fatal(err)
				}
				r := ingest.NewJSONL(dec, "bench.jsonl.gz", ingest.JSONLOptions{})
				k := 0
				for r.Scan() {
					k++
				}
				closeDec()
				if k != n || r.Err() != nil {
					b.Fatalf("%d records, %v", k, r.Err())
				}
			}
			reportRecords(b, n)
		})
	}
}
