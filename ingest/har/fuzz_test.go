package har

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/killswitch/killswitch/ingest"
)

// fuzzSeeds are named regression seeds: each shape the reader handles and
// each way a document breaks.
func fuzzSeeds(t testing.TB) []struct {
	name string
	data []byte
} {
	gz := gzipBytes(t, chatResp)
	polly := chat()
	polly.respEnc = "base64"
	polly.respText = q(pollyChunks(gz, 10))
	polly.respHeaders = []string{"content-encoding", "gzip"}
	br := chat()
	br.respEnc = "base64"
	br.respText = q(b64(brotliBytes(t, chatResp)))
	br.respHeaders = []string{"content-encoding", "br"}
	zs := chat()
	zs.respEnc = "base64"
	zs.respText = q(b64(zstdBytes(t, chatResp)))
	zs.respHeaders = []string{"content-encoding", "zstd"}
	route := chat()
	route.url = "http://localhost:4000/agents/a/openai/v1/chat/completions?key=k"
	sseEnt := chat()
	sseEnt.respText = q(sse)
	get := chat()
	get.method = "GET"
	good := doc(chat(), chat())
	long := chat()
	long.respText = q(`{"choices":[{"message":{"content":"` + strings.Repeat("\\\"x", fuzzMaxValue) + `"}}]}`)
	return []struct {
		name string
		data []byte
	}{
		{"chat", []byte(doc(chat()))},
		{"polly-gzip-chunks", []byte(doc(polly))},
		{"brotli", []byte(doc(br))},
		{"zstd-body", []byte(doc(zs))},
		{"route-and-sse", []byte(doc(route, sseEnt, get))},
		{"gzip-document", gzipBytes(t, good)},
		{"zlib-document", zlibBytes(t, good)},
		{"truncated-inside-entry", []byte(good[:len(good)/2])},
		{"truncated-gzip-document", gzipBytes(t, good)[:100]},
		{"not-json", []byte("hello")},
		{"empty", nil},
		{"entry-not-object", []byte(`{"log":{"entries":[42,null,"x",[]]}}`)},
		{"non-utf8", []byte(strings.Replace(doc(chat()), "gpt-4o", "gpt-\xff", 1))},
		{"entry-over-fuzz-limit", []byte(doc(chat(), long, chat()))},
		{"truncated-in-entry-over-fuzz-limit", []byte(doc(chat(), long)[:len(doc(chat()))+fuzzMaxValue])},
		{"deep-nesting", []byte(`{"log":{"x":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `,"entries":[]}}`)},
	}
}

func FuzzHAR(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s.data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzHAR(t, data, Options{})
		fuzzHAR(t, data, Options{MaxValue: fuzzMaxValue})
	})
}

// fuzzMaxValue is the second limit FuzzHAR reads each input under, small
// enough that the seeds' entries reach it.
const fuzzMaxValue = 1024

// fuzzHAR reads data under opt and checks what every record promises.
func fuzzHAR(t *testing.T, data []byte, opt Options) {
	const name = "fuzz.har"
	r := NewReader(bytes.NewReader(data), name, opt)
	defer r.Close()
	var last int64 = -1
	for r.Scan() {
		rec := r.Record()
		if rec.Pos.File != name {
			t.Fatalf("record position %v does not name the file", rec.Pos)
		}
		switch {
		case rec.Err != nil:
			var se *ingest.SyntaxError
			if !errors.As(rec.Err, &se) {
				t.Fatalf("error %T is not a *ingest.SyntaxError: %v", rec.Err, rec.Err)
			}
			if !strings.HasPrefix(rec.Err.Error(), name+":") {
				t.Fatalf("error does not start with the file name: %v", rec.Err)
			}
		case rec.Skip != "":
			rest, ok := strings.CutPrefix(rec.Skip, "not an LLM call: ")
			_, where, _ := strings.Cut(rest, " ") // after the method
			where, _, _ = strings.Cut(where, " (")
			if !ok || strings.ContainsAny(where, "?#") {
				t.Fatalf("skip reason may carry a query or fragment: %q", rec.Skip)
			}
		default:
			if rec.Agent == "" || rec.TS.IsZero() || rec.TS.Location().String() != "UTC" {
				t.Fatalf("incomplete record: %+v", rec)
			}
			if !json.Valid(rec.Request) {
				t.Fatalf("request is not JSON: %q", rec.Request)
			}
			if !utf8.Valid(rec.Response) {
				t.Fatalf("response is not UTF-8")
			}
		}
		if rec.Pos.Kind == ingest.PosEntry {
			if rec.Pos.N <= last {
				t.Fatalf("entry positions do not increase: %d after %d", rec.Pos.N, last)
			}
			last = rec.Pos.N
		}
	}
	if err := r.Err(); err != nil && !strings.HasPrefix(err.Error(), name+": ") {
		t.Fatalf("Err does not start with the file name: %v", err)
	}
}
