package har

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/killswitch/killswitch/ingest"
)

// TestMalformedEntries: each bad entry is a Record with a *SyntaxError at
// its position and a message written here by hand; the good entry after it
// is still read.
func TestMalformedEntries(t *testing.T) {
	gz := gzipBytes(t, chatResp)
	badGz := bytes.Clone(gz)
	badGz[len(badGz)-8] ^= 0xff // the CRC-32 in the 8-byte trailer
	zs := zstdBytes(t, chatResp)
	br := brotliBytes(t, chatResp)
	zl := zlibBytes(t, chatResp)
	notUTF8Gz := gzipBytes(t, "{\"a\":\"\xc3\x28\"}")

	tests := []struct {
		name string
		e    func(e *ent)
		raw  string // raw JSON of the entry, instead of e
		want string
	}{
		{name: "broken base64 chunk",
			e: func(e *ent) {
				e.respEnc = "base64"
				e.respText = q(`["H4sIAAAA","YWJjZGVm","YWJj!ZGVm"]`)
				e.respHeaders = []string{"content-encoding", "gzip"}
			},
			want: "response body: base64 chunk 2: illegal base64 data at input byte 4"},
		{name: "broken base64 string",
			e:    func(e *ent) { e.respEnc = "base64"; e.respText = q("YW@j") },
			want: "response body: base64: illegal base64 data at input byte 2"},
		{name: "chunk list holding a number",
			e:    func(e *ent) { e.respEnc = "base64"; e.respText = q(`["YWJj", 5]`) },
			want: "response body: base64 chunk list is not a JSON array of strings: json: cannot unmarshal number into Go value of type string"},
		{name: "chunk list that is not JSON",
			e:    func(e *ent) { e.respEnc = "base64"; e.respText = q(`["YWJj"`) },
			want: "response body: base64 chunk list is not a JSON array of strings: unexpected end of JSON input at byte 7"},
		{name: "truncated gzip",
			e: func(e *ent) {
				e.respEnc = "base64"
				e.respText = q(pollyChunks(gz[:len(gz)-6], 10))
				e.respHeaders = []string{"content-encoding", "gzip"}
			},
			want: "response body: gzip stream is truncated"},
		{name: "corrupt gzip",
			e: func(e *ent) {
				e.respEnc = "base64"
				e.respText = q(b64(badGz))
				e.respHeaders = []string{"content-encoding", "gzip"}
			},
			want: "response body: gzip stream is corrupt: invalid checksum"},
		{name: "gzip header on bytes that are not gzip",
			e: func(e *ent) {
				e.respEnc = "base64"
				e.respText = q(b64(zs))
				e.respHeaders = []string{"content-encoding", "gzip"}
			},
			want: "response body: gzip stream is corrupt: invalid header"},
		{name: "truncated zstd",
			e: func(e *ent) {
				e.respEnc = "base64"
				e.respText = q(b64(zs[:len(zs)-3]))
				e.respHeaders = []string{"content-encoding", "zstd"}
			},
			want: "response body: zstd stream is truncated"},
		{name: "truncated brotli",
			e: func(e *ent) {
				e.respEnc = "base64"
				e.respText = q(b64(br[:len(br)-2]))
				e.respHeaders = []string{"content-encoding", "br"}
			},
			want: "response body: br stream is truncated"},
		{name: "truncated deflate",
			e: func(e *ent) {
				e.respEnc = "base64"
				e.respText = q(b64(zl[:len(zl)-5]))
				e.respHeaders = []string{"content-encoding", "deflate"}
			},
			want: "response body: deflate stream is truncated"},
		{name: "unsupported content-encoding",
			e: func(e *ent) {
				e.respEnc = "base64"
				e.respText = q(b64([]byte{0x1f, 0x9d, 0x90}))
				e.respHeaders = []string{"content-encoding", "compress"}
			},
			want: `response body: unsupported content-encoding "compress"`},
		{name: "unsupported content encoding member",
			e:    func(e *ent) { e.respEnc = "quoted-printable" },
			want: `response body: unsupported content encoding "quoted-printable"`},
		{name: "text is a number",
			e:    func(e *ent) { e.respText = "12" },
			want: "response body: text is a JSON number, want a string"},
		{name: "text is an array without base64",
			e:    func(e *ent) { e.respText = `["YQ=="]` },
			want: `response body: text is an array but encoding is "", want "base64"`},
		{name: "response not UTF-8",
			e:    func(e *ent) { e.respEnc = "base64"; e.respText = q(b64([]byte("ok \xff"))) },
			want: "response body: not UTF-8 text: invalid UTF-8 at byte 4"},
		{name: "response not UTF-8 after gzip",
			e: func(e *ent) {
				e.respEnc = "base64"
				e.respText = q(b64(notUTF8Gz))
				e.respHeaders = []string{"content-encoding", "gzip"}
			},
			want: "response body: not UTF-8 text: invalid UTF-8 at byte 7"},
		{name: "request body not JSON",
			e:    func(e *ent) { e.reqText = q("hello") },
			want: "request body is not JSON: invalid character 'h' looking for beginning of value at byte 1"},
		{name: "request body truncated JSON",
			e:    func(e *ent) { e.reqText = q(`{"messages":[`) },
			want: "request body is not JSON: unexpected end of JSON input at byte 13"},
		{name: "request body broken base64",
			e:    func(e *ent) { e.reqEnc = "base64"; e.reqText = q("!!!!") },
			want: "request body: base64: illegal base64 data at input byte 0"},
		{name: "request body missing",
			e:    func(e *ent) { e.noPostData = true },
			want: "request body is missing (POST https://api.openai.com/v1/chat/completions)"},
		{name: "request body empty",
			e:    func(e *ent) { e.reqText = q("") },
			want: "request body is empty (POST https://api.openai.com/v1/chat/completions)"},
		{name: "unparsable time",
			e:    func(e *ent) { e.started = q("yesterday") },
			want: `startedDateTime: unparsable timestamp: a string of 9 characters where a time was expected (want RFC 3339 or Unix seconds/milliseconds)`},
		{name: "impossible ISO time",
			e:    func(e *ent) { e.started = q("2025-13-45T00:00:00Z") },
			want: `startedDateTime: unparsable timestamp: a string of 20 characters where a time was expected (want RFC 3339)`},
		{name: "missing time",
			e:    func(e *ent) { e.started = "" },
			want: "startedDateTime is missing"},
		{name: "time of the wrong type",
			e:    func(e *ent) { e.started = "17" },
			want: "startedDateTime is a JSON number, want a string"},
		{name: "status of the wrong type",
			e:    func(e *ent) { e.status = `"200"` },
			want: "response.status is a JSON string, want a number"},
		{name: "headers of the wrong type",
			e:    func(e *ent) { e.respHeaders = nil },
			raw:  strings.Replace(chat().String(), `"headers":[]`, `"headers":{}`, 1),
			want: "request.headers is a JSON object, want an array"},
		{name: "missing method",
			e:    func(e *ent) { e.method = "" },
			want: "request.method is missing"},
		{name: "method that is not a token",
			e:    func(e *ent) { e.method = "GET /?key=SECRET" },
			want: "request.method is not an HTTP method"},
		{name: "missing url",
			e:    func(e *ent) { e.url = "" },
			want: "request.url is missing"},
		{name: "bad url",
			e:    func(e *ent) { e.url = "https://api.openai.com/v1/chat/completions\x7f" },
			want: "request.url is not a URL: net/url: invalid control character in URL"},
		{name: "entry is a number", raw: "42",
			want: "entry is a JSON number, want an object"},
		{name: "entry is null", raw: "null",
			want: "request.method is missing"},
		{name: "agent header with a lone surrogate",
			raw: func() string {
				e := chat()
				e.reqHeaders = []string{"X-Agent-Id", "AGENT"}
				return strings.Replace(e.String(), `"AGENT"`, `"bot\ud800"`, 1)
			}(),
			want: `request header X-Agent-Id: holds a lone UTF-16 surrogate (\ud800), which cannot name a key: it would read as U+FFFD, the same as any other`},
		{name: "non-UTF-8 bytes in the document",
			raw:  strings.Replace(chat().String(), "gpt-4o", "gpt-\xff4o", 1),
			want: "invalid UTF-8 at byte " + strconv.Itoa(strings.Index(chat().String(), "gpt-4o")+5) + " of the entry"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := tt.raw
			if raw == "" {
				e := chat()
				tt.e(&e)
				raw = e.String()
			}
			data := strings.Replace(doc(chat(), chat()), chat().String(), raw, 1)
			recs, err := readAll(t, []byte(data), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != 2 {
				t.Fatalf("got %d records, want 2", len(recs))
			}
			checkErr(t, recs[0], "t.har:entries[0]: "+tt.want)
			checkRecord(t, recs[1], want(func(r *ingest.Record) { r.Pos.N = 1 }))
		})
	}
}

func checkErr(t *testing.T, rec *ingest.Record, want string) {
	t.Helper()
	if rec.Err == nil {
		t.Fatalf("no error, want %q (skip %q)", want, rec.Skip)
	}
	var se *ingest.SyntaxError
	if !errors.As(rec.Err, &se) {
		t.Fatalf("error %T is not a *ingest.SyntaxError", rec.Err)
	}
	if se.Pos != rec.Pos {
		t.Errorf("error at %s, record at %s", se.Pos, rec.Pos)
	}
	if got := rec.Err.Error(); got != want {
		t.Errorf("error\n %q\nwant\n %q", got, want)
	}
	if rec.Skip != "" || rec.Request != nil || rec.Response != nil || rec.Agent != "" {
		t.Errorf("a malformed record carries data: %+v", rec)
	}
}

// TestLoneSurrogateElsewhere: a lone surrogate escape outside the agent
// header (another header, a body) names no key: the entry reads as usual.
func TestLoneSurrogateElsewhere(t *testing.T) {
	e := chat()
	e.reqHeaders = []string{"X-Agent-Id", "bot-7", "X-Note", "NOTE"}
	raw := strings.Replace(e.String(), `"NOTE"`, `"a\udc00b"`, 1)
	data := strings.Replace(doc(chat()), chat().String(), raw, 1)
	recs, err := readAll(t, []byte(data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Err != nil || recs[0].Agent != "bot-7" {
		t.Fatalf("records %+v", recs)
	}
}

// TestMalformedDocument: a document that is not JSON, not a HAR, or
// truncated gives the records before the damage and one last record saying
// where the damage is; Err stays nil (the input was read).
func TestMalformedDocument(t *testing.T) {
	good := doc(chat(), chat())
	one := chat().String()
	first := strings.Index(good, one)
	second := first + len(one) + 1 // after the ','
	tests := []struct {
		name  string
		data  string
		goods int // records read before the damage
		want  string
	}{
		{"empty", "", 0, "t.har:log: HAR is empty"},
		{"white space", " \n", 0, "t.har:log: HAR is empty"},
		{"not JSON", "hello", 0, "t.har:log: HAR is not valid JSON at byte 1: invalid character 'h' looking for beginning of value"},
		{"top level array", `[{"log":{}}]`, 0, "t.har:log: not a HAR document: the top level is an array, want an object"},
		{"no log", `{"version":"1.2","x":{"entries":[]}}`, 0, `t.har:log: not a HAR document: the top level has no "log" member`},
		{"log not an object", `{"log":[]}`, 0, "t.har:log: not a HAR document: log is an array, want an object"},
		{"no entries", `{"log":{"version":"1.2","pages":[{"id":"p"}]}}`, 0, `t.har:log: not a HAR document: log has no "entries" member`},
		{"entries not an array", `{"log":{"entries":{}}}`, 0, "t.har:log.entries: not a HAR document: log.entries is an object, want an array"},
		// 't' of "tru" is at offset 18, the ',' that breaks it at 21.
		{"bad literal before entries", `{"log":{"creator":tru,"entries":[]}}`, 0,
			"t.har:log: HAR is not valid JSON at byte 22: invalid character ',' in literal true (expecting 'e')"},
		{"truncated before entries", good[:30], 0, "t.har:log: HAR is truncated before log.entries"},
		{"truncated at the start of entries", good[:first], 0, "t.har:log.entries: HAR is truncated after the start of log.entries"},
		{"truncated inside entries[0]", good[:first+40], 0, "t.har:entries[0]: HAR is truncated inside this entry"},
		{"truncated after entries[0]", good[:first+len(one)], 1, "t.har:log.entries: HAR is truncated after entries[0]"},
		{"truncated after entries[0] and its comma", good[:second] + "\n ", 1, "t.har:log.entries: HAR is truncated after entries[0]"},
		{"truncated inside entries[1]", good[:second+100], 1, "t.har:entries[1]: HAR is truncated inside this entry"},
		{"truncated after log.entries", good[:len(good)-18], 2, "t.har:log: HAR is truncated after log.entries"},
		{"truncated before the last brace", good[:len(good)-1], 2, "t.har:log: HAR is truncated after log.entries"},
		// entries[1] starts {"startedDateTime":…; its ':' is at offset 18.
		{"syntax error inside entries[1]", good[:second+18] + "!" + good[second+19:], 1,
			"t.har:entries[1]: HAR is not valid JSON at byte " + strconv.Itoa(second+19) + ": invalid character '!' after object key"},
		{"missing comma after entries[0]", good[:second-1] + " " + good[second:], 1,
			"t.har:entries[1]: HAR is not valid JSON at byte " + strconv.Itoa(second+1) + ": expected comma after array element"},
		{"object closed inside entries", good[:first+len(one)] + "}}", 1,
			"t.har:log.entries: after entries[0]: HAR is not valid JSON at byte " + strconv.Itoa(first+len(one)+1) + ": invalid character '}' after array element"},
		{"data after the document", good + ` {"log":{}}`, 2, "t.har:log: HAR has data after the end of the document"},
		{"garbage after the document", good + " x", 2, "t.har:log: after the end of the document: HAR is not valid JSON at byte " + strconv.Itoa(len(good)+2) + ": invalid character 'x' looking for beginning of value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, err := readAll(t, []byte(tt.data), Options{})
			if err != nil {
				t.Fatalf("Err() = %v, want nil", err)
			}
			wantN := tt.goods
			if tt.want != "" {
				wantN++
			}
			if len(recs) != wantN {
				for _, r := range recs {
					t.Log(describe(r))
				}
				t.Fatalf("got %d records, want %d", len(recs), wantN)
			}
			for i := range tt.goods {
				checkRecord(t, recs[i], want(func(r *ingest.Record) { r.Pos.N = int64(i) }))
			}
			if tt.want != "" {
				last := recs[len(recs)-1]
				if last.Err == nil {
					t.Fatalf("last record has no error: %s", describe(last))
				}
				if got := last.Err.Error(); got != tt.want {
					t.Errorf("error\n %q\nwant\n %q", got, tt.want)
				}
				if last.Err.(*ingest.SyntaxError).Pos != last.Pos {
					t.Errorf("error position %v differs from record position %v", last.Err.(*ingest.SyntaxError).Pos, last.Pos)
				}
			}
		})
	}
}

// TestMembersInAnyOrder: entries may come first in log, and log anywhere
// at the top level.
func TestMembersInAnyOrder(t *testing.T) {
	data := `{"comment":{"nested":[1,{"entries":[]}]},"log":{"entries":[` + chat().String() +
		`],"version":"1.2","pages":[{"id":"p","title":"[{"}]},"tail":true}`
	recs, err := readAll(t, []byte(data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 {
		t.Fatalf("got %d records, want 1", len(recs))
	}
	checkRecord(t, recs[0], want(nil))
}

// TestTruncatedContainer: a cut .har.gz (or .har.zst) is a read error
// naming the container, after the entries that were read whole.
func TestTruncatedContainer(t *testing.T) {
	entries := make([]ent, 50)
	for i := range entries {
		entries[i] = chat()
	}
	plain := doc(entries...)
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"gzip", gzipBytes(t, plain), "t.har: gzip stream is truncated after "},
		{"zstd", zstdBytes(t, plain), "t.har: zstd stream is truncated after "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs, err := readAll(t, tc.data[:len(tc.data)*3/4], Options{})
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) || !strings.HasSuffix(err.Error(), " bytes of content: unexpected EOF") {
				t.Fatalf("Err() = %v, want %q…", err, tc.want)
			}
			if len(recs) >= len(entries) {
				t.Fatalf("got %d records from a cut stream of %d entries", len(recs), len(entries))
			}
			for i, r := range recs {
				checkRecord(t, r, want(func(w *ingest.Record) { w.Pos.N = int64(i) }))
			}
		})
	}
}
