package body

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/killswitch/killswitch/analyze/simhash"
)

// capturesDir is the shared captures folder, relative to this package.
const capturesDir = "../../../shared/captures"

func captureFiles(t *testing.T, pattern string) []string {
	t.Helper()
	dir := filepath.Join(capturesDir, filepath.Dir(pattern))
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("shared captures absent (%s): %v", dir, err)
	}
	files, err := filepath.Glob(filepath.Join(capturesDir, pattern))
	if err != nil || len(files) == 0 {
		t.Skipf("no capture matches %s", pattern)
	}
	return files
}

// harEntry is one request/response pair of a HAR capture, bodies decoded.
type harEntry struct {
	file     string
	index    int
	url      string
	request  []byte
	response []byte
}

// readHAR decodes the entries of a HAR file. Response bodies stored as
// base64 are a JSON array of base64 chunks of a gzip stream (Polly.JS), or
// one base64 string (see captures/README.md).
func readHAR(t testing.TB, path string) []harEntry {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var h struct {
		Log struct {
			Entries []struct {
				Request struct {
					URL      string `json:"url"`
					PostData struct {
						Text string `json:"text"`
					} `json:"postData"`
				} `json:"request"`
				Response struct {
					Content struct {
						Text     string `json:"text"`
						Encoding string `json:"encoding"`
					} `json:"content"`
				} `json:"response"`
			} `json:"entries"`
		} `json:"log"`
	}
	if err := json.Unmarshal(data, &h); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []harEntry
	for i, e := range h.Log.Entries {
		body := []byte(e.Response.Content.Text)
		if e.Response.Content.Encoding == "base64" {
			var chunks []string
			if err := json.Unmarshal(body, &chunks); err != nil {
				chunks = []string{string(body)}
			}
			var raw []byte
			for _, c := range chunks {
				b, err := base64.StdEncoding.DecodeString(c)
				if err != nil {
					t.Fatalf("%s entries[%d]: base64: %v", path, i, err)
				}
				raw = append(raw, b...)
			}
			if bytes.HasPrefix(raw, []byte{0x1f, 0x8b}) {
				zr, err := gzip.NewReader(bytes.NewReader(raw))
				if err != nil {
					t.Fatalf("%s entries[%d]: gzip: %v", path, i, err)
				}
				if raw, err = io.ReadAll(zr); err != nil {
					t.Fatalf("%s entries[%d]: gzip: %v", path, i, err)
				}
			}
			body = raw
		}
		out = append(out, harEntry{filepath.Base(path), i, e.Request.URL, []byte(e.Request.PostData.Text), body})
	}
	return out
}

// llmURL matches the provider endpoints whose bodies this package reads
// (the HAR files also hold Wikipedia lookups and image generations).
var llmURL = regexp.MustCompile(`/v1/(chat/)?completions|/v1/responses|/v1/messages|bedrock-runtime.*/invoke|:generateContent`)

// TestHARCaptures reads every LLM call of the openllmetry HAR captures: each
// request must give a prompt and each response a text, without error. For
// some, the expected values were read off the capture by hand or computed by
// an independent reassembly written here with encoding/json.
func TestHARCaptures(t *testing.T) {
	var entries []harEntry
	for _, f := range captureFiles(t, "har-openllmetry-js/*.har") {
		entries = append(entries, readHAR(t, f)...)
	}
	find := func(fileSub string, index int) harEntry {
		t.Helper()
		for _, e := range entries {
			if strings.Contains(e.file, fileSub) && e.index == index {
				return e
			}
		}
		t.Fatalf("no HAR entry %s[%d]", fileSub, index)
		return harEntry{}
	}
	var p Parser
	n := 0
	for _, e := range entries {
		if !llmURL.MatchString(e.url) {
			continue
		}
		n++
		req, err := p.ParseRequest(e.request)
		if err != nil {
			t.Errorf("%s:entries[%d]: %v", e.file, e.index, err)
		} else if !req.HasPrompt {
			t.Errorf("%s:entries[%d]: no prompt", e.file, e.index)
		}
		resp, err := p.ParseResponse(e.response)
		if err != nil {
			t.Errorf("%s:entries[%d]: %v", e.file, e.index, err)
		} else if len(resp.Text) == 0 || resp.API == APIUnknown {
			t.Errorf("%s:entries[%d]: API %v, empty text", e.file, e.index, resp.API)
		}
	}
	if n < 40 {
		t.Errorf("only %d LLM entries found", n)
	}

	t.Run("anthropic stream", func(t *testing.T) {
		e := find("should-set-attributes-in-span-for-messages-streaming", 0)
		r, err := p.ParseResponse(e.response)
		if err != nil {
			t.Fatal(err)
		}
		want := reassembleSSE(t, e.response, func(m map[string]any) string {
			if d, ok := m["delta"].(map[string]any); ok && d["type"] == "text_delta" {
				return d["text"].(string)
			}
			return ""
		})
		if string(r.Text) != want || !strings.HasPrefix(want, "Sure, here's a joke") {
			t.Errorf("text %q\nwant %q", r.Text, want)
		}
		// Read off the capture: message_start input_tokens 17 (no cache),
		// message_delta output_tokens 158.
		if r.Model != "claude-3-opus-20240229" || r.TokensIn != 17 || r.TokensOut != 158 || !r.Streamed {
			t.Errorf("got %+v", r)
		}
	})
	t.Run("openai chat stream", func(t *testing.T) {
		e := find("OpenAI-instrumentation__should-set-attributes-in-span-for-streaming-chat", 0)
		r, err := p.ParseResponse(e.response)
		if err != nil {
			t.Fatal(err)
		}
		want := reassembleSSE(t, e.response, func(m map[string]any) string {
			var s string
			for _, c := range m["choices"].([]any) {
				if d, ok := c.(map[string]any)["delta"].(map[string]any); ok {
					s, _ = d["content"].(string)
				}
			}
			return s
		})
		if string(r.Text) != want || want == "" {
			t.Errorf("text %q\nwant %q", r.Text, want)
		}
	})
	t.Run("responses stream", func(t *testing.T) {
		e := find("should-use-agent-name-for-streamText", 0)
		r, err := p.ParseResponse(e.response)
		if err != nil {
			t.Fatal(err)
		}
		want := reassembleSSE(t, e.response, func(m map[string]any) string {
			if m["type"] == "response.output_text.done" {
				return m["text"].(string)
			}
			return ""
		})
		// Read off the capture: usage 13 in, 104 out.
		if string(r.Text) != want || want == "" || r.TokensIn != 13 || r.TokensOut != 104 {
			t.Errorf("got %q %d/%d\nwant %q", r.Text, r.TokensIn, r.TokensOut, want)
		}
	})
	// Parallel tool calls streamed by OpenAI and by Together: the calls read
	// off the capture by hand.
	for _, tc := range []struct{ file, want string }{
		{"OpenAI-instrumentation__should-set-function_call-attributes-in-span-for-stream",
			`get_current_weather({"location":"boston, ma"})` + "\n" + `get_tomorrow_weather({"location":"chicago, il"})`},
		{"Together-instrumentation__should-set-function_call-attributes-in-span-for-stream",
			`get_current_weather({"location":"boston, ma","unit":"fahrenheit"})` + "\n" + `get_tomorrow_weather({"location":"chicago, il","unit":"fahrenheit"})`},
	} {
		t.Run("parallel calls "+tc.file[:8], func(t *testing.T) {
			r, err := p.ParseResponse(find(tc.file, 0).response)
			if err != nil {
				t.Fatal(err)
			}
			if string(r.Text) != tc.want {
				t.Errorf("text %q\nwant %q", r.Text, tc.want)
			}
		})
	}
	t.Run("thinking is not response text", func(t *testing.T) {
		r, err := p.ParseResponse(find("beta-messages-with-thinking", 0).response)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(r.Text), "I'll work through this simple addition") ||
			strings.Contains(string(r.Text), "This is a very simple arithmetic question") {
			t.Errorf("text %q", r.Text)
		}
	})
	t.Run("gemini", func(t *testing.T) {
		r, err := p.ParseResponse(find("should-capture-Google-Gemini-provider-spans", 0).response)
		if err != nil {
			t.Fatal(err)
		}
		if string(r.Text) != "4\n" || r.Model != "gemini-1.5-flash" || r.TokensIn != 12 || r.TokensOut != 2 {
			t.Errorf("got %+v", r)
		}
	})
	t.Run("anthropic cache tokens summed", func(t *testing.T) {
		r, err := p.ParseResponse(find("should-capture-and-transform-Anthropic-cache-tokens", 0).response)
		if err != nil {
			t.Fatal(err)
		}
		// input_tokens 1231 + cache_creation_input_tokens 1200 + cache_read 0.
		if r.TokensIn != 2431 || r.TokensOut != 5 || string(r.Text) != "4" {
			t.Errorf("got %+v", r)
		}
	})
	t.Run("responses calls differing only in numbers", func(t *testing.T) {
		a, err := p.ParseResponse(find("should-preserve-original-AI-SDK-span-name", 0).response)
		if err != nil {
			t.Fatal(err)
		}
		want := `calculate({"a":<NUM>,"b":<NUM>,"operation":"add"})`
		if string(a.Text) != want {
			t.Errorf("text %q, want %q", a.Text, want)
		}
		b, err := p.ParseResponse(find("should-propagate-agent-name-to-tool-call-spans", 0).response)
		if err != nil {
			t.Fatal(err)
		}
		if string(b.Text) != want {
			t.Errorf("text %q, want %q", b.Text, want)
		}
	})
	t.Run("legacy completion", func(t *testing.T) {
		r, err := p.ParseRequest(find("OpenAI-instrumentation__should-set-attributes-in-span-for-completion", 0).request)
		if err != nil {
			t.Fatal(err)
		}
		if r.API != APILegacy || string(r.Prompt) != "Tell me a joke about OpenTelemetry" {
			t.Errorf("got %v %q", r.API, r.Prompt)
		}
	})
	t.Run("agent call then history", func(t *testing.T) {
		// The LangChain agent's first response asks for the calculator; the
		// second request holds that call in its history. Both must give the
		// same canonical call (different code paths: a streamed response and
		// a request's assistant message).
		first, second := find("should-set-attributes-in-span-for-agent-instrumentation", 0), find("should-set-attributes-in-span-for-agent-instrumentation", 1)
		r, err := p.ParseResponse(first.response)
		if err != nil {
			t.Fatal(err)
		}
		text := string(r.Text)
		q, err := p.ParseRequest(second.request)
		if err != nil {
			t.Fatal(err)
		}
		want := `calculator({"input":"` + string(simhash.Normalize(nil, []byte("5 * (10 + 2)"))) + `"})`
		if text != want || q.ToolSig != want {
			t.Errorf("response %q, request signature %q, want %q", text, q.ToolSig, want)
		}
		if string(q.Prompt) != "Solve `5 * (10 + 2)`" {
			t.Errorf("prompt %q", q.Prompt)
		}
	})
}

// reassembleSSE is an independent, simple reassembly for the tests: it
// decodes each "data:" line with encoding/json and concatenates what pick
// returns.
func reassembleSSE(t *testing.T, body []byte, pick func(map[string]any) string) string {
	t.Helper()
	var sb strings.Builder
	for _, line := range strings.Split(strings.ReplaceAll(string(body), "\r\n", "\n"), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || strings.TrimSpace(data) == "[DONE]" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			t.Fatalf("test reassembly: %v", err)
		}
		sb.WriteString(pick(m))
	}
	return sb.String()
}

// TestOpenHandsCaptures replays the two OpenHands sessions (LiteLLM logs:
// the request's messages and the response on one line).
func TestOpenHandsCaptures(t *testing.T) {
	dir := "jsonl-openhands-sdk-llm-logs/"
	captureFiles(t, dir+"*.jsonl")
	type line struct {
		raw      []byte
		response json.RawMessage
	}
	read := func(name string) []line {
		t.Helper()
		f, err := os.Open(filepath.Join(capturesDir, dir, name))
		if err != nil {
			t.Skipf("capture absent: %v", err)
		}
		defer f.Close()
		var out []line
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var m struct {
				Response json.RawMessage `json:"response"`
			}
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Fatal(err)
			}
			out = append(out, line{bytes.Clone(sc.Bytes()), m.Response})
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	var p Parser

	t.Run("claude native tool calls", func(t *testing.T) {
		lines := read("claude-sonnet-4_fncall_session.jsonl")
		// Read off the capture with jq: the only user message, and the usage
		// of each response.
		const prompt = "Hello! Can you create a new Python file named hello.py that prints 'Hello, World!'?"
		usage := [][2]int64{{4812, 146}, {5002, 95}, {6123, 120}, {6277, 131}, {6485, 113}, {6729, 199}}
		if len(lines) != len(usage) {
			t.Fatalf("%d lines, want %d", len(lines), len(usage))
		}
		seen := map[string]bool{}
		var prevCalls string
		for i, l := range lines {
			q, err := p.ParseRequest(l.raw)
			if err != nil {
				t.Fatalf("line %d: %v", i+1, err)
			}
			// The trap: the prompt never changes while tool results pile up.
			if string(q.Prompt) != prompt || q.API != APIOpenAIChat {
				t.Errorf("line %d: %v prompt %q", i+1, q.API, q.Prompt)
			}
			// The signature of request i+1 is the call response i asked for.
			if q.ToolSig != prevCalls {
				t.Errorf("line %d: signature %q, previous response's calls %q", i+1, q.ToolSig, prevCalls)
			}
			if i > 0 && (q.ToolSig == "" || seen[q.ToolSig]) {
				t.Errorf("line %d: signature %q empty or repeated in a healthy run", i+1, q.ToolSig)
			}
			seen[q.ToolSig] = true

			r, err := p.ParseResponse(l.response)
			if err != nil {
				t.Fatalf("line %d response: %v", i+1, err)
			}
			if r.TokensIn != usage[i][0] || r.TokensOut != usage[i][1] {
				t.Errorf("line %d usage %d/%d, want %v", i+1, r.TokensIn, r.TokensOut, usage[i])
			}
			// The calls are the text's last line (each of these responses asks
			// for exactly one call).
			text := string(r.Text)
			prevCalls = text[strings.LastIndexByte(text, '\n')+1:]
			if !strings.Contains(prevCalls, "({") {
				t.Errorf("line %d: last line of response %q is not a call", i+1, prevCalls)
			}
		}
	})
	t.Run("deepseek prompt-based tools", func(t *testing.T) {
		// Tools are called in the text here: the history holds no tool_calls
		// (checked with jq), so no request has a signature; tool results come
		// back as user messages, so the prompt changes on every call.
		prompts := map[string]bool{}
		for i, l := range read("deepseek-chat_nonfncall_session.jsonl") {
			q, err := p.ParseRequest(l.raw)
			if err != nil {
				t.Fatalf("line %d: %v", i+1, err)
			}
			if q.ToolSig != "" || !q.HasPrompt || prompts[string(q.Prompt)] {
				t.Errorf("line %d: signature %q, prompt %q", i+1, q.ToolSig, q.Prompt)
			}
			prompts[string(q.Prompt)] = true
			if _, err := p.ParseResponse(l.response); err != nil {
				t.Errorf("line %d response: %v", i+1, err)
			}
		}
	})
}
