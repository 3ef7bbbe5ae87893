package har

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/killswitch/killswitch/ingest"
)

// want is the expected record of the default chat() entry, edited per case.
// Every value here is written by hand from the entry the case builds.
func want(edit func(r *ingest.Record)) *ingest.Record {
	r := &ingest.Record{
		Pos:        ingest.Pos{File: "t.har", Kind: ingest.PosEntry, N: 0},
		TS:         time.Date(2025, 1, 2, 3, 4, 5, 678e6, time.UTC),
		Agent:      "default",
		Request:    []byte(chatBody),
		Response:   []byte(chatResp),
		Status:     200,
		Provider:   "openai",
		Endpoint:   "/v1/chat/completions",
		Model:      "gpt-4o",
		LatencyMS:  1234,
		HasLatency: true,
	}
	if edit != nil {
		edit(r)
	}
	return r
}

func checkRecord(t *testing.T, got, want *ingest.Record) {
	t.Helper()
	if got.Err != nil {
		t.Fatalf("unexpected error: %v", got.Err)
	}
	if got.Skip != "" {
		t.Fatalf("unexpectedly skipped: %s", got.Skip)
	}
	check := func(field string, g, w any) {
		t.Helper()
		if g != w {
			t.Errorf("%s = %#v, want %#v", field, g, w)
		}
	}
	check("Pos", got.Pos, want.Pos)
	check("TS", got.TS, want.TS)
	check("Agent", got.Agent, want.Agent)
	check("Status", got.Status, want.Status)
	check("Provider", got.Provider, want.Provider)
	check("Endpoint", got.Endpoint, want.Endpoint)
	check("Model", got.Model, want.Model)
	check("LatencyMS", got.LatencyMS, want.LatencyMS)
	check("HasLatency", got.HasLatency, want.HasLatency)
	if !bytes.Equal(got.Request, want.Request) {
		t.Errorf("Request =\n%q\nwant\n%q", got.Request, want.Request)
	}
	if !bytes.Equal(got.Response, want.Response) || (got.Response == nil) != (want.Response == nil) {
		t.Errorf("Response =\n%q\nwant\n%q", got.Response, want.Response)
	}
}

const sse = "event: message_start\r\ndata: {\"type\":\"message_start\"}   \n\n" +
	"data: {\"type\":\"content_block_delta\",\"delta\":{\"text\":\"hi\"}}  \n\n" +
	"event: message_stop\ndata: [DONE]\n\n"

func TestEntries(t *testing.T) {
	gz := gzipBytes(t, chatResp)
	tests := []struct {
		name string
		e    func(e *ent)
		opt  Options
		want *ingest.Record
	}{
		{"openai chat, plain text", nil, Options{}, want(nil)},
		{"legacy completions",
			func(e *ent) {
				e.url = "https://api.openai.com/v1/completions"
				e.reqText = q(`{"model":"gpt-3.5-turbo-instruct","prompt":"Say hi"}`)
			}, Options{},
			want(func(r *ingest.Record) {
				r.Endpoint = "/v1/completions"
				r.Model = "gpt-3.5-turbo-instruct"
				r.Request = []byte(`{"model":"gpt-3.5-turbo-instruct","prompt":"Say hi"}`)
			})},
		{"responses API",
			func(e *ent) {
				e.url = "https://api.openai.com/v1/responses"
				e.reqText = q(`{"model":"gpt-4o-mini","input":"hi"}`)
			}, Options{},
			want(func(r *ingest.Record) {
				r.Endpoint = "/v1/responses"
				r.Model = "gpt-4o-mini"
				r.Request = []byte(`{"model":"gpt-4o-mini","input":"hi"}`)
			})},
		{"anthropic messages",
			func(e *ent) {
				e.url = "https://api.anthropic.com/v1/messages?beta=true"
				e.reqText = q(`{"model":"claude-3-haiku","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`)
			}, Options{},
			want(func(r *ingest.Record) {
				r.Provider = "anthropic"
				r.Endpoint = "/v1/messages"
				r.Model = "claude-3-haiku"
				r.Request = []byte(`{"model":"claude-3-haiku","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`)
			})},
		{"gemini generateContent, model from path, key dropped",
			func(e *ent) {
				e.url = "https://generativelanguage.googleapis.com/v1beta/models/gemini-1.5-flash:generateContent?key=SECRET-gemini"
				e.reqText = q(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)
			}, Options{},
			want(func(r *ingest.Record) {
				r.Provider = "gemini"
				r.Endpoint = "/v1beta/models/gemini-1.5-flash:generateContent"
				r.Model = "gemini-1.5-flash"
				r.Request = []byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)
			})},
		{"gemini streamGenerateContent behind a proxy host, SSE kept verbatim",
			func(e *ent) {
				e.url = "http://127.0.0.1:8080/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse"
				e.reqText = q(`{"contents":[{"parts":[{"text":"hi"}]}]}`)
				e.respText = q(sse)
			}, Options{},
			want(func(r *ingest.Record) {
				r.Provider = "gemini"
				r.Endpoint = "/v1beta/models/gemini-2.0-flash:streamGenerateContent"
				r.Model = "gemini-2.0-flash"
				r.Request = []byte(`{"contents":[{"parts":[{"text":"hi"}]}]}`)
				r.Response = []byte(sse)
			})},
		{"together",
			func(e *ent) { e.url = "https://api.together.xyz/v1/chat/completions" }, Options{},
			want(func(r *ingest.Record) { r.Provider = "together" })},
		{"OpenAI-compatible local server: provider is the host",
			func(e *ent) { e.url = "http://localhost:11434/v1/chat/completions/" }, Options{},
			want(func(r *ingest.Record) {
				r.Provider = "localhost"
				r.Endpoint = "/v1/chat/completions/"
			})},
		{"Polly.JS: gzip as a string holding a JSON array of base64 chunks",
			func(e *ent) {
				e.respEnc = "base64"
				e.respText = q(pollyChunks(gz, 10, 7, 1))
				e.respHeaders = []string{"Content-Encoding", "gzip"}
			}, Options{}, want(nil)},
		{"base64 chunks as a real JSON array",
			func(e *ent) {
				e.respEnc = "base64"
				e.respText = pollyChunks(gz, 3)
				e.respHeaders = []string{"content-encoding", "gzip"}
			}, Options{}, want(nil)},
		{"gzip as one base64 string",
			func(e *ent) {
				e.respEnc = "base64"
				e.respText = q(b64(gz))
				e.respHeaders = []string{"content-encoding", "gzip"}
			}, Options{}, want(nil)},
		{"gzip without a content-encoding header, by magic bytes",
			func(e *ent) {
				e.respEnc = "base64"
				e.respText = q(pollyChunks(gz, 20))
				e.respHeaders = nil
			}, Options{}, want(nil)},
		{"brotli",
			func(e *ent) {
				e.respEnc = "base64"
				e.respText = q(pollyChunks(brotliBytes(t, chatResp), 5))
				e.respHeaders = []string{"content-encoding", "br"}
			}, Options{}, want(nil)},
		{"zstd",
			func(e *ent) {
				e.respEnc = "base64"
				e.respText = q(b64(zstdBytes(t, chatResp)))
				e.respHeaders = []string{"content-encoding", "zstd"}
			}, Options{}, want(nil)},
		{"deflate as zlib",
			func(e *ent) {
				e.respEnc = "base64"
				e.respText = q(b64(zlibBytes(t, chatResp)))
				e.respHeaders = []string{"content-encoding", "deflate"}
			}, Options{}, want(nil)},
		{"deflate raw",
			func(e *ent) {
				e.respEnc = "base64"
				e.respText = q(b64(flateBytes(t, chatResp)))
				e.respHeaders = []string{"content-encoding", "deflate"}
			}, Options{}, want(nil)},
		{"gzip then br, undone in reverse",
			func(e *ent) {
				e.respEnc = "base64"
				e.respText = q(b64(brotliBytes(t, string(gz))))
				e.respHeaders = []string{"content-encoding", "gzip, br"}
			}, Options{}, want(nil)},
		{"decoded text with a gzip header (DevTools, and Polly for text bodies)",
			func(e *ent) { e.respHeaders = []string{"content-encoding", "gzip"} }, Options{},
			want(nil)},
		{"decoded text as base64 with a br header",
			func(e *ent) {
				e.respEnc = "base64"
				e.respText = q(b64([]byte(chatResp)))
				e.respHeaders = []string{"content-encoding", "br"}
			}, Options{}, want(nil)},
		{"utf8 encoding member (Polly for text)",
			func(e *ent) { e.respEnc = "utf8" }, Options{}, want(nil)},
		{"request body in base64",
			func(e *ent) {
				e.reqEnc = "base64"
				e.reqText = q(b64([]byte(chatBody)))
			}, Options{}, want(nil)},
		{"RFC 1123 time",
			func(e *ent) { e.started = q("Thu, 02 Jan 2025 03:04:05 GMT") }, Options{},
			want(func(r *ingest.Record) { r.TS = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) })},
		{"ISO time with an offset is converted to UTC",
			func(e *ent) { e.started = q("2025-01-02T05:04:05.678+02:00") }, Options{},
			want(nil)},
		{"status, latency rounding",
			func(e *ent) { e.status = "429"; e.time = "0.5" }, Options{},
			want(func(r *ingest.Record) { r.Status = 429; r.LatencyMS = 1 })},
		{"no status: 200; time -1: no latency",
			func(e *ent) { e.status = ""; e.time = "-1" }, Options{},
			want(func(r *ingest.Record) { r.LatencyMS = 0; r.HasLatency = false })},
		{"no response text: nil response",
			func(e *ent) { e.respText = "" }, Options{},
			want(func(r *ingest.Record) { r.Response = nil })},
		{"no response at all",
			func(e *ent) { e.noResponse = true }, Options{},
			want(func(r *ingest.Record) { r.Response = nil })},
		{"model that is not a string is left out",
			func(e *ent) { e.reqText = q(`{"model":7,"messages":[]}`) }, Options{},
			want(func(r *ingest.Record) { r.Model = ""; r.Request = []byte(`{"model":7,"messages":[]}`) })},
		{"bedrock invoke: model from path",
			func(e *ent) {
				e.url = "https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-3-7-sonnet-20250219-v1%3A0/invoke"
				e.reqText = q(`{"anthropic_version":"bedrock-2023-05-31","messages":[]}`)
			}, Options{},
			want(func(r *ingest.Record) {
				r.Provider = "bedrock"
				r.Endpoint = "/model/us.anthropic.claude-3-7-sonnet-20250219-v1:0/invoke"
				r.Model = "us.anthropic.claude-3-7-sonnet-20250219-v1:0"
				r.Request = []byte(`{"anthropic_version":"bedrock-2023-05-31","messages":[]}`)
			})},

		// Agent id, SPEC §3 order: flag, route, header, "default".
		{"agent: AgentGazer route",
			func(e *ent) {
				e.url = "http://localhost:4000/agents/bot-7/openai/v1/chat/completions"
				e.reqHeaders = []string{"X-Agent-Id", "from-header"}
			}, Options{},
			want(func(r *ingest.Record) {
				r.Agent = "bot-7"
				r.Endpoint = "/agents/bot-7/openai/v1/chat/completions"
			})},
		{"agent: AgentGazer simplified route without an upstream path",
			func(e *ent) {
				e.url = "http://localhost:18900/agents/coder/anthropic"
				e.reqText = q(`{"model":"claude","messages":[]}`)
			}, Options{},
			want(func(r *ingest.Record) {
				r.Agent = "coder"
				r.Provider = "anthropic"
				r.Endpoint = "/agents/coder/anthropic"
				r.Model = "claude"
				r.Request = []byte(`{"model":"claude","messages":[]}`)
			})},
		{"agent: header, name matched case-insensitively",
			func(e *ent) { e.reqHeaders = []string{"x-agent-id", " planner "} }, Options{},
			want(func(r *ingest.Record) { r.Agent = "planner" })},
		{"agent: custom header",
			func(e *ent) { e.reqHeaders = []string{"X-Agent-Id", "no", "x-bot", "custom"} },
			Options{AgentHeader: "X-Bot"},
			want(func(r *ingest.Record) { r.Agent = "custom" })},
		{"agent: the flag wins over route and header",
			func(e *ent) {
				e.url = "http://localhost:4000/agents/bot-7/openai/v1/chat/completions"
				e.reqHeaders = []string{"X-Agent-Id", "from-header"}
			}, Options{Agent: "mapped"},
			want(func(r *ingest.Record) {
				r.Agent = "mapped"
				r.Endpoint = "/agents/bot-7/openai/v1/chat/completions"
			})},
		{"agent: empty header value falls back to default",
			func(e *ent) { e.reqHeaders = []string{"X-Agent-Id", ""} }, Options{},
			want(nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := chat()
			if tt.e != nil {
				tt.e(&e)
			}
			recs, err := readAll(t, []byte(doc(e)), tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != 1 {
				t.Fatalf("got %d records, want 1", len(recs))
			}
			checkRecord(t, recs[0], tt.want)
		})
	}
}

func TestSkips(t *testing.T) {
	tests := []struct {
		name string
		e    func(e *ent)
		want string
	}{
		{"GET models, query dropped",
			func(e *ent) {
				e.method = "GET"
				e.url = "https://api.openai.com/v1/models?key=SECRET-q"
				e.noPostData = true
			},
			"not an LLM call: GET https://api.openai.com/v1/models"},
		{"embeddings",
			func(e *ent) {
				e.url = "https://api.openai.com/v1/embeddings"
				e.reqText = q(`{"input":"x","model":"e"}`)
			},
			"not an LLM call: POST https://api.openai.com/v1/embeddings"},
		{"images",
			func(e *ent) { e.url = "https://api.openai.com/v1/images/generations" },
			"not an LLM call: POST https://api.openai.com/v1/images/generations"},
		{"escaped '?' in the path stays escaped",
			func(e *ent) { e.method = "GET"; e.url = "https://h.example/a%3Fkey=1/b?x=2" },
			"not an LLM call: GET https://h.example/a%3Fkey=1/b"},
		{"lower-case method, user info dropped",
			func(e *ent) {
				e.method = "options"
				e.url = "https://user:SECRET-pw@api.openai.com/v1/chat/completions"
			},
			"not an LLM call: OPTIONS https://api.openai.com/v1/chat/completions"},
		{"LLM path, body of another shape",
			func(e *ent) { e.url = "https://chat.example.com/rooms/1/messages"; e.reqText = q(`{"text":"hi"}`) },
			"not an LLM call: POST https://chat.example.com/rooms/1/messages (request body has no messages, prompt, input or contents)"},
		{"LLM path, body not an object",
			func(e *ent) { e.reqText = q(`[{"messages":[]}]`) },
			"not an LLM call: POST https://api.openai.com/v1/chat/completions (request body has no messages, prompt, input or contents)"},
		{"LLM path, messages null",
			func(e *ent) { e.reqText = q(`{"messages":null}`) },
			"not an LLM call: POST https://api.openai.com/v1/chat/completions (request body has no messages, prompt, input or contents)"},
		{"not-LLM entries are not checked further",
			func(e *ent) { e.method = "GET"; e.started = q("garbage"); e.respText = "12" },
			"not an LLM call: GET https://api.openai.com/v1/chat/completions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := chat()
			tt.e(&e)
			recs, err := readAll(t, []byte(doc(e)), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != 1 {
				t.Fatalf("got %d records, want 1", len(recs))
			}
			r := recs[0]
			if r.Err != nil || r.Skip != tt.want {
				t.Fatalf("got skip %q, err %v; want skip %q", r.Skip, r.Err, tt.want)
			}
			if r.Request != nil || r.Response != nil || r.Agent != "" || !r.TS.IsZero() {
				t.Errorf("a skipped record carries data: %+v", r)
			}
			if r.Pos.String() != "t.har:entries[0]" {
				t.Errorf("Pos = %s", r.Pos)
			}
		})
	}
}

// TestStreamGoesOn checks that positions count every entry and that a bad
// entry does not stop the next ones.
func TestStreamGoesOn(t *testing.T) {
	bad := chat()
	bad.started = q("yesterday")
	get := chat()
	get.method = "GET"
	good := chat()
	good.reqHeaders = []string{"X-Agent-Id", "second"}
	recs, err := readAll(t, []byte(doc(chat(), bad, get, good)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 {
		t.Fatalf("got %d records, want 4", len(recs))
	}
	checkRecord(t, recs[0], want(nil))
	if recs[1].Err == nil || !strings.HasPrefix(recs[1].Err.Error(), "t.har:entries[1]: startedDateTime:") {
		t.Errorf("entries[1]: err = %v", recs[1].Err)
	}
	if recs[2].Skip == "" || recs[2].Pos.N != 2 {
		t.Errorf("entries[2]: %+v", recs[2])
	}
	checkRecord(t, recs[3], want(func(r *ingest.Record) {
		r.Pos.N = 3
		r.Agent = "second"
	}))
}

// TestCompressedDocument reads the same document as .har, .har.gz, .zhar
// (zlib, as mitmproxy writes it) and .har.zst.
func TestCompressedDocument(t *testing.T) {
	plain := doc(chat(), chat())
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"plain", []byte(plain)},
		{"gzip", gzipBytes(t, plain)},
		{"zlib", zlibBytes(t, plain)},
		{"zstd", zstdBytes(t, plain)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs, err := readAll(t, tc.data, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != 2 {
				t.Fatalf("got %d records, want 2", len(recs))
			}
			checkRecord(t, recs[1], want(func(r *ingest.Record) { r.Pos.N = 1 }))
		})
	}
}

// TestSecrets puts every kind of secret a capture carries into an LLM
// entry, a skipped entry and malformed entries, and checks none of them
// reaches any record field, skip reason or error message.
func TestSecrets(t *testing.T) {
	withSecrets := func(e *ent) {
		e.url = strings.Replace(e.url, "https://", "https://alice:SECRET-userinfo@", 1) +
			"?key=SECRET-query&api_key=SECRET-query2"
		e.reqHeaders = []string{
			"Authorization", "Bearer SECRET-bearer",
			"x-api-key", "SECRET-x-api-key",
			"api-key", "SECRET-api-key",
			"Cookie", "sid=SECRET-cookie",
			"Proxy-Authorization", "Basic SECRET-proxy",
		}
		e.respHeaders = append(e.respHeaders, "Set-Cookie", "sid=SECRET-set-cookie")
	}
	llm := chat()
	withSecrets(&llm)
	get := chat()
	get.method = "GET"
	withSecrets(&get)
	badB64 := chat()
	withSecrets(&badB64)
	badB64.respEnc = "base64"
	badB64.respText = q("@@@")
	badTime := chat()
	withSecrets(&badTime)
	badTime.started = q("not a time")
	badURL := chat()
	withSecrets(&badURL)
	badURL.url += "\x7f"
	badType := chat()
	withSecrets(&badType)
	badType.status = `"SECRET-status"`
	badCE := chat()
	withSecrets(&badCE)
	badCE.respEnc = "base64"
	badCE.respText = q(b64([]byte{0, 1, 2}))
	badCE.respHeaders = []string{"content-encoding", "gzip"}

	recs, err := readAll(t, []byte(doc(llm, get, badB64, badTime, badURL, badType, badCE)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 7 {
		t.Fatalf("got %d records, want 7", len(recs))
	}
	if recs[0].Err != nil || recs[0].Skip != "" {
		t.Fatalf("entries[0] should be a record: %s", describe(recs[0]))
	}
	if recs[1].Skip == "" {
		t.Fatalf("entries[1] should be skipped: %s", describe(recs[1]))
	}
	for i := 2; i < len(recs); i++ {
		if recs[i].Err == nil {
			t.Errorf("entries[%d] should be malformed: %s", i, describe(recs[i]))
		}
	}
	for i, rec := range recs {
		if s := describe(rec); strings.Contains(s, "SECRET") || strings.Contains(s, "alice") {
			t.Errorf("entries[%d] leaks a secret:\n%s", i, s)
		}
	}
}

// TestStreaming checks that an entry is returned as soon as it has been
// read, before the rest of the document exists: the reader does not hold
// the document.
func TestStreaming(t *testing.T) {
	data := doc(chat(), chat())
	cut := strings.Index(data, chat().String()) + len(chat().String()) + 1 // after entries[0] and ','
	pr, pw := io.Pipe()
	go func() {
		pw.Write([]byte(data[:cut]))
	}()
	r := NewReader(pr, "t.har", Options{})
	defer r.Close()
	if !r.Scan() {
		t.Fatalf("no first record: %v", r.Err())
	}
	checkRecord(t, r.Record(), want(nil))
	go func() {
		pw.Write([]byte(data[cut:]))
		pw.Close()
	}()
	if !r.Scan() {
		t.Fatalf("no second record: %v", r.Err())
	}
	checkRecord(t, r.Record(), want(func(w *ingest.Record) { w.Pos.N = 1 }))
	if r.Scan() {
		t.Fatalf("unexpected record: %s", describe(r.Record()))
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
}
