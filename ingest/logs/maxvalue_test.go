package logs

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"
)

// genDoc is a JSON document generated on the fly, never held: head, n
// bytes of filler, then tail. It is an io.Reader and an io.ReaderAt.
type genDoc struct {
	head, tail string
	n          int64
	off        int64 // Read's offset
}

func (g *genDoc) size() int64 { return int64(len(g.head)) + g.n + int64(len(g.tail)) }

func (g *genDoc) ReadAt(p []byte, off int64) (int, error) {
	if off >= g.size() {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && off < g.size() {
		switch {
		case off < int64(len(g.head)):
			k := copy(p[n:], g.head[off:])
			n, off = n+k, off+int64(k)
		case off < int64(len(g.head))+g.n:
			k := int(min(int64(len(p)-n), int64(len(g.head))+g.n-off))
			for i := range k {
				p[n+i] = 'x'
			}
			n, off = n+k, off+int64(k)
		default:
			k := copy(p[n:], g.tail[off-int64(len(g.head))-g.n:])
			n, off = n+k, off+int64(k)
		}
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (g *genDoc) Read(p []byte) (int, error) {
	n, err := g.ReadAt(p, g.off)
	g.off += int64(n)
	return n, err
}

// TestDocumentOverLimitMemory: a 300 MB JSON document — one Langfuse
// trace, one OTLP document with one huge span — generated on the fly is
// refused at its position under a 1 MiB limit, whether it can be read at
// offsets (a file) or only forward (a pipe), without being held: the
// bytes allocated stay a few MiB.
func TestDocumentOverLimitMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 300 MB")
	}
	const size = 300 << 20
	langfuse := func() *genDoc {
		return &genDoc{head: "{\n  \"trace\": {\"id\": \"t1\"},\n  \"observations\": [{\"id\": \"o1\", \"type\": \"GENERATION\", \"input\": \"", n: size, tail: "\"}]\n}\n"}
	}
	span := `{"traceId": "t1", "spanId": "s%d", "name": "chat", "startTimeUnixNano": "1767225600000000000", "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}}]}`
	otlp := func() *genDoc {
		return &genDoc{
			head: "{\"resourceSpans\": [{\"scopeSpans\": [{\"spans\": [\n" + fmt.Sprintf(span, 1) + ",\n" + `{"traceId": "t1", "spanId": "s2", "name": "`,
			n:    size,
			tail: `"},` + "\n" + fmt.Sprintf(span, 3) + "\n]}]}]}\n",
		}
	}
	for _, tt := range []struct {
		name   string
		format Format
		in     func() *genDoc
		at     bool
		want   string
	}{
		{"langfuse, a file", FormatLangfuse, langfuse, true,
			fmt.Sprintf("big.json:1: document of %d bytes is larger than the 1048576-byte limit (--max-line): skipped", langfuse().size()-1)},
		{"langfuse, a pipe", FormatLangfuse, langfuse, false,
			fmt.Sprintf("big.json:1: JSON input of %d bytes is larger than the 1048576-byte limit (--max-line) for an input read whole: skipped", langfuse().size())},
		{"otlp, a file", FormatOTel, otlp, true,
			"big.json:resourceSpans[0].scopeSpans[0].spans[1]: item of " + fmt.Sprint(size+len(`{"traceId": "t1", "spanId": "s2", "name": ""}`)) +
				" bytes is larger than the 1048576-byte limit (--max-line): skipped|big.json:resourceSpans[0].scopeSpans[0].spans[0]|big.json:resourceSpans[0].scopeSpans[0].spans[2]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := tt.in()
			var in io.Reader = g
			if tt.at {
				in = sizedReader{Reader: g, size: g.size(), ra: g}
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			r, err := NewReader(in, "big.json", tt.format, Options{MaxValue: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			got := errsOrPositions(r)
			runtime.ReadMemStats(&after)
			if r.Err() != nil {
				t.Fatal(r.Err())
			}
			if s := strings.Join(got, "|"); s != tt.want {
				t.Errorf("got  %q\nwant %q", s, tt.want)
			}
			alloc := after.TotalAlloc - before.TotalAlloc
			if alloc > 8<<20 {
				t.Errorf("allocated %.1f MiB reading a %d MiB document under a 1 MiB limit", float64(alloc)/(1<<20), size>>20)
			}
			t.Logf("allocated %.1f MiB in %v", float64(alloc)/(1<<20), time.Since(start).Round(time.Millisecond))
		})
	}
}
