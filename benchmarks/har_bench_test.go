package benchmarks

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/killswitch/killswitch/ingest/har"
)

// harDoc generates a HAR document of n OpenAI chat completion entries with
// a growing conversation (about 1–3 KB of request per entry). With polly,
// responses are stored as Polly.JS does: gzip, as a JSON array of base64
// chunks; otherwise as plain text.
func harDoc(tb testing.TB, n int, polly bool) []byte {
	tb.Helper()
	type msg struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	start := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	b.WriteString(`{"log":{"version":"1.2","creator":{"name":"bench","version":"1"},"entries":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		history := []msg{{"system", "You are a helpful coding agent. Use the tools when needed."}}
		for k := range i%8 + 1 {
			history = append(history,
				msg{"user", fmt.Sprintf("Step %d: run the tests for order #%d and report failures.", k, 1000+i)},
				msg{"assistant", strings.Repeat("The test suite ran; 3 failures in package billing. ", 3)})
		}
		req, err := json.Marshal(map[string]any{"model": "gpt-4o-mini", "messages": history, "temperature": 0})
		if err != nil {
			tb.Fatal(err)
		}
		resp := fmt.Sprintf(`{"id":"chatcmpl-%06d","object":"chat.completion","model":"gpt-4o-mini",`+
			`"choices":[{"index":0,"message":{"role":"assistant","content":"Run %d: all green except TestInvoice."},"finish_reason":"stop"}],`+
			`"usage":{"prompt_tokens":%d,"completion_tokens":12,"total_tokens":%d}}`, i, i, 100+i, 112+i)
		content := map[string]any{"mimeType": "application/json", "size": len(resp), "text": resp}
		respHeaders := []map[string]string{{"name": "content-type", "value": "application/json"}}
		if polly {
			var z bytes.Buffer
			w := gzip.NewWriter(&z)
			w.Write([]byte(resp))
			w.Close()
			zb := z.Bytes()
			chunks := []string{base64.StdEncoding.EncodeToString(zb[:10]), base64.StdEncoding.EncodeToString(zb[10:])}
			arr, _ := json.Marshal(chunks)
			content["encoding"] = "base64"
			content["text"] = string(arr)
			respHeaders = append(respHeaders, map[string]string{"name": "content-encoding", "value": "gzip"})
		}
		e := map[string]any{
			"startedDateTime": start.Add(time.Duration(i) * 1500 * time.Millisecond).Format(time.RFC3339Nano),
			"time":            850 + i%300,
			"request": map[string]any{
				"method": "POST", "url": "https://api.openai.com/v1/chat/completions", "httpVersion": "HTTP/1.1",
				"headers": []map[string]string{
					{"name": "content-type", "value": "application/json"},
					{"name": "x-agent-id", "value": fmt.Sprintf("agent-%d", i%4)},
				},
				"cookies":  []any{},
				"postData": map[string]any{"mimeType": "application/json", "text": string(req)},
			},
			"response": map[string]any{
				"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
				"headers": respHeaders, "cookies": []any{}, "content": content,
			},
			"cache":   map[string]any{},
			"timings": map[string]any{"send": 0, "wait": 850, "receive": 0},
		}
		eb, err := json.Marshal(e)
		if err != nil {
			tb.Fatal(err)
		}
		b.Write(eb)
	}
	b.WriteString(`]}}`)
	return b.Bytes()
}

// BenchmarkHAR reads a generated HAR of 1000 chat completion entries and
// reports MB/s of HAR text and records/s.
func BenchmarkHAR(b *testing.B) {
	const n = 1000
	for _, tc := range []struct {
		name  string
		polly bool
	}{{"plain", false}, {"polly-gzip", true}} {
		b.Run(tc.name, func(b *testing.B) {
			data := harDoc(b, n, tc.polly)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			records := 0
			for b.Loop() {
				r := har.NewReader(bytes.NewReader(data), "bench.har", har.Options{})
				got := 0
				for r.Scan() {
					if rec := r.Record(); rec.Err != nil || rec.Skip != "" {
						b.Fatalf("%v %s", rec.Err, rec.Skip)
					}
					got++
				}
				if err := r.Err(); err != nil {
					b.Fatal(err)
				}
				if got != n {
					b.Fatalf("read %d records, want %d", got, n)
				}
				records += got
			}
			b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
