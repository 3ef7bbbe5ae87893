package har

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/killswitch/killswitch/ingest"
	"github.com/klauspost/compress/zstd"
)

// ent builds one HAR entry. String fields holding JSON are raw JSON values
// (already quoted); an empty raw field is left out of the entry.
type ent struct {
	method, url string
	reqHeaders  []string // name, value, name, value…
	reqText     string   // raw JSON value of postData.text
	reqEnc      string   // postData.encoding
	noPostData  bool
	started     string // raw JSON value of startedDateTime
	time        string // raw JSON value of time
	status      string // raw JSON value of response.status
	respHeaders []string
	respText    string // raw JSON value of content.text
	respEnc     string // content.encoding
	noResponse  bool
}

const (
	chatBody = `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}`
	chatResp = `{"id":"c1","object":"chat.completion","choices":[{"message":{"role":"assistant","content":"hello"}}]}`
)

// chat is an OpenAI chat completion entry with a plain response.
func chat() ent {
	return ent{
		method:   "POST",
		url:      "https://api.openai.com/v1/chat/completions",
		reqText:  q(chatBody),
		started:  q("2025-01-02T03:04:05.678Z"),
		time:     "1234.4",
		status:   "200",
		respText: q(chatResp),
		respHeaders: []string{
			"content-type", "application/json",
		},
	}
}

func (e ent) String() string {
	var b strings.Builder
	b.WriteString(`{`)
	if e.started != "" {
		b.WriteString(`"startedDateTime":` + e.started + `,`)
	}
	if e.time != "" {
		b.WriteString(`"time":` + e.time + `,`)
	}
	b.WriteString(`"request":{"method":` + q(e.method) + `,"url":` + q(e.url) + `,"httpVersion":"HTTP/1.1",`)
	b.WriteString(`"cookies":[{"name":"session","value":"SECRET-cookie-array"}],`)
	b.WriteString(`"headers":` + headers(e.reqHeaders))
	if !e.noPostData {
		b.WriteString(`,"postData":{"mimeType":"application/json"`)
		if e.reqEnc != "" {
			b.WriteString(`,"encoding":` + q(e.reqEnc))
		}
		if e.reqText != "" {
			b.WriteString(`,"text":` + e.reqText)
		}
		b.WriteString(`}`)
	}
	b.WriteString(`}`)
	if !e.noResponse {
		b.WriteString(`,"response":{`)
		if e.status != "" {
			b.WriteString(`"status":` + e.status + `,`)
		}
		b.WriteString(`"statusText":"OK","headers":` + headers(e.respHeaders) + `,"content":{"mimeType":"application/json"`)
		if e.respEnc != "" {
			b.WriteString(`,"encoding":` + q(e.respEnc))
		}
		if e.respText != "" {
			b.WriteString(`,"text":` + e.respText)
		}
		b.WriteString(`}}`)
	}
	b.WriteString(`,"cache":{},"timings":{"send":0,"wait":1,"receive":0}}`)
	return b.String()
}

func headers(kv []string) string {
	var parts []string
	for i := 0; i+1 < len(kv); i += 2 {
		parts = append(parts, `{"name":`+q(kv[i])+`,"value":`+q(kv[i+1])+`}`)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// doc wraps entries in a HAR 1.2 document, with members before and after
// log.entries as real writers put them.
func doc(entries ...ent) string {
	parts := make([]string, len(entries))
	for i, e := range entries {
		parts[i] = e.String()
	}
	return `{"log":{"version":"1.2","creator":{"name":"test","version":"1"},"pages":[],` +
		`"entries":[` + strings.Join(parts, ",") + `],"comment":"end"}}`
}

// q quotes s as a JSON string.
func q(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func gzipBytes(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func brotliBytes(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := brotli.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func zstdBytes(t testing.TB, s string) []byte {
	t.Helper()
	w, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	return w.EncodeAll([]byte(s), nil)
}

func zlibBytes(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func flateBytes(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := flate.NewWriter(&b, flate.DefaultCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// pollyChunks splits b at the given sizes (the rest is the last chunk),
// base64-encodes each piece on its own and returns the JSON array as
// Polly.JS serializes it into content.text.
func pollyChunks(b []byte, sizes ...int) string {
	var chunks []string
	for _, n := range sizes {
		n = min(n, len(b))
		chunks = append(chunks, b64(b[:n]))
		b = b[n:]
	}
	chunks = append(chunks, b64(b))
	out, err := json.Marshal(chunks)
	if err != nil {
		panic(err)
	}
	return string(out)
}

// readAll reads every record of a document named "t.har".
func readAll(t testing.TB, data []byte, opt Options) ([]*ingest.Record, error) {
	t.Helper()
	r := NewReader(bytes.NewReader(data), "t.har", opt)
	defer r.Close()
	var recs []*ingest.Record
	for r.Scan() {
		recs = append(recs, r.Record())
		if len(recs) > 1e6 {
			t.Fatal("runaway reader")
		}
	}
	return recs, r.Err()
}

// describe renders every field of a record that a secret could reach.
func describe(rec *ingest.Record) string {
	s := fmt.Sprintf("%+v\nrequest=%s\nresponse=%s", *rec, rec.Request, rec.Response)
	if rec.Err != nil {
		s += "\nerr=" + rec.Err.Error()
	}
	return s
}
