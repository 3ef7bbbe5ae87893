package body

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// archive is a txtar-style fixture: a comment saying what the fixture
// captures and what is expected, then files introduced by "-- name --" lines.
type archive struct {
	comment string
	files   map[string][]byte
}

func readArchive(t testing.TB, path string) archive {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a := archive{files: map[string][]byte{}}
	name := ""
	var cur []byte
	flush := func() {
		if name == "" {
			a.comment = string(cur)
		} else {
			a.files[name] = cur
		}
	}
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		l := bytes.TrimRight(line, "\n")
		if bytes.HasPrefix(l, []byte("-- ")) && bytes.HasSuffix(l, []byte(" --")) && len(l) > 6 {
			flush()
			name, cur = string(l[3:len(l)-3]), nil
			continue
		}
		cur = append(cur, line...)
	}
	flush()
	return a
}

// file returns the named file of the archive, failing the test when absent.
func (a archive) file(t testing.TB, name string) []byte {
	t.Helper()
	f, ok := a.files[name]
	if !ok {
		t.Fatalf("fixture has no -- %s -- section", name)
	}
	return f
}

// expectations parses "key: value" lines; a value starting with a double
// quote is a Go string literal.
func expectations(t *testing.T, b []byte) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("expect line %q has no colon", line)
		}
		v = strings.TrimSpace(v)
		if strings.HasPrefix(v, `"`) {
			u, err := strconv.Unquote(v)
			if err != nil {
				t.Fatalf("expect line %q: %v", line, err)
			}
			v = u
		}
		m[strings.TrimSpace(k)] = v
	}
	return m
}

func fixtures(t *testing.T, dir string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", dir, "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures in testdata/%s: %v", dir, err)
	}
	return paths
}

// requestSummary renders the fields of a Request the way fixtures state them.
func requestSummary(r Request) map[string]string {
	prompt := "none"
	if r.HasPrompt {
		prompt = string(r.Prompt)
	}
	return map[string]string{
		"api":      r.API.String(),
		"model":    r.Model,
		"stream":   strconv.FormatBool(r.Stream),
		"prompt":   prompt,
		"tool_sig": r.ToolSig,
	}
}

// responseSummary renders the fields of a Response the way fixtures state them.
func responseSummary(r Response) map[string]string {
	u := "none"
	if r.HasUsage {
		u = fmt.Sprintf("%d/%d", r.TokensIn, r.TokensOut)
	}
	return map[string]string{
		"api":   r.API.String(),
		"model": r.Model,
		"usage": u,
		"text":  string(r.Text),
	}
}

func compare(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			t.Errorf("%s: fixture expects unknown field %q", what, k)
			continue
		}
		if g != w {
			t.Errorf("%s %s:\n got  %q\n want %q", what, k, g, w)
		}
	}
}

// TestRequestFixtures checks every testdata/request fixture: the expected
// values were written by hand from the request (see each fixture's comment).
func TestRequestFixtures(t *testing.T) {
	var p Parser
	for _, path := range fixtures(t, "request") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			a := readArchive(t, path)
			want := expectations(t, a.file(t, "expect"))
			r, err := p.ParseRequest(a.file(t, "request"))
			if err != nil {
				t.Fatal(err)
			}
			compare(t, "request", requestSummary(r), want)
			if r.HasPrompt != (len(r.Prompt) > 0) {
				t.Errorf("HasPrompt %v with prompt %q", r.HasPrompt, r.Prompt)
			}
		})
	}
}

// TestResponseFixtures checks every testdata/response fixture (bodies with no
// streamed counterpart).
func TestResponseFixtures(t *testing.T) {
	var p Parser
	for _, path := range fixtures(t, "response") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			a := readArchive(t, path)
			want := expectations(t, a.file(t, "expect"))
			r, err := p.ParseResponse(a.file(t, "response"))
			if err != nil {
				t.Fatal(err)
			}
			got := responseSummary(r)
			got["streamed"] = strconv.FormatBool(r.Streamed)
			compare(t, "response", got, want)
		})
	}
}

// streamVariants returns the stream s rewritten in ways a capture may differ
// without changing its meaning: CRLF or CR line endings, trailing spaces
// after each data payload, comment lines, no blank line after the last
// event, a byte order mark.
func streamVariants(s []byte) map[string][]byte {
	v := map[string][]byte{"as-is": s}
	if bytes.HasPrefix(bytes.TrimSpace(s), []byte("[")) {
		return v // a JSON array of chunks, not an event-stream
	}
	v["crlf"] = bytes.ReplaceAll(s, []byte("\n"), []byte("\r\n"))
	v["cr"] = bytes.ReplaceAll(s, []byte("\n"), []byte("\r"))
	var spaced, commented []byte
	for _, line := range bytes.SplitAfter(s, []byte("\n")) {
		l := bytes.TrimSuffix(line, []byte("\n"))
		if bytes.HasPrefix(l, []byte("data:")) {
			spaced = append(spaced, l...)
			spaced = append(spaced, "   \n"...)
			commented = append(commented, ": keep-alive\n"...)
		} else {
			spaced = append(spaced, line...)
		}
		commented = append(commented, line...)
	}
	v["trailing-spaces"] = spaced
	v["comments"] = commented
	v["no-final-blank-line"] = bytes.TrimRight(s, "\n")
	v["bom"] = append([]byte("\xef\xbb\xbf\n"), s...)
	return v
}

// TestStreamEquivalence proves that a streamed body reassembles into exactly
// the Response of the equivalent non-streamed body, for every API. Both
// bodies of each testdata/stream fixture were written by hand, and so was the
// expected text: the test checks both against it, and each stream variant
// against the non-streamed result.
func TestStreamEquivalence(t *testing.T) {
	var p Parser
	for _, path := range fixtures(t, "stream") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			a := readArchive(t, path)
			want := expectations(t, a.file(t, "expect"))
			whole, err := p.ParseResponse(a.file(t, "json"))
			if err != nil {
				t.Fatalf("json: %v", err)
			}
			if whole.Streamed {
				t.Errorf("json: Streamed is true")
			}
			wholeSum := responseSummary(whole)
			compare(t, "json", wholeSum, want)
			for name, s := range streamVariants(a.file(t, "stream")) {
				r, err := p.ParseResponse(s)
				if err != nil {
					t.Errorf("stream %s: %v", name, err)
					continue
				}
				if !r.Streamed {
					t.Errorf("stream %s: Streamed is false", name)
				}
				compare(t, "stream "+name, responseSummary(r), wholeSum)
			}
		})
	}
}

// TestToolSigIgnoresNumbersAndOrder checks the properties the signature
// exists for: the same calls with different numbers, key order, whitespace,
// call order or provider shape have the same signature; a different argument
// or tool does not.
func TestToolSigIgnoresNumbersAndOrder(t *testing.T) {
	openai := func(calls ...string) string {
		var tc []string
		for i, c := range calls {
			name, args, _ := strings.Cut(c, " ")
			tc = append(tc, fmt.Sprintf(`{"id":"call_%d","type":"function","function":{"name":%q,"arguments":%q}}`, i, name, args))
		}
		return `{"model":"m","messages":[{"role":"user","content":"go"},{"role":"assistant","content":null,"tool_calls":[` +
			strings.Join(tc, ",") + `]}]}`
	}
	anthropic := func(name, input string) string {
		return `{"model":"m","system":"s","messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"` +
			name + `","input":` + input + `}]}]}`
	}
	base := openai(`fetch {"page":1,"url":"https://example.com/items"}`, `log {"msg":"start"}`)
	same := []string{
		openai(`fetch {"url":"https://example.com/items","page":2}`, `log {"msg":"start"}`),
		openai(`log {"msg":"start"}`, `fetch { "page" : 17 , "url" : "https://example.com/items" }`),
		openai(`fetch {"page":1.5,"url":"HTTPS://Example.com/items"}`, `log {"msg":"start"}`, `log {"msg":"start"}`),
	}
	different := []string{
		openai(`fetch {"page":1,"url":"https://example.com/other"}`, `log {"msg":"start"}`),
		openai(`fetch {"page":1,"url":"https://example.com/items"}`),
		openai(`fetch {"page":1,"uri":"https://example.com/items"}`, `log {"msg":"start"}`),
		openai(`fetch {"page":"1","url":"https://example.com/items"}`, `log {"msg":"start"}`),
	}
	var p Parser
	sig := func(body string) string {
		t.Helper()
		r, err := p.ParseRequest([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		return r.ToolSig
	}
	want := sig(base)
	if want == "" {
		t.Fatal("no signature")
	}
	for _, b := range same {
		if got := sig(b); got != want {
			t.Errorf("signature differs:\n got  %q\n want %q\n body %s", got, want, b)
		}
	}
	for _, b := range different {
		if got := sig(b); got == want {
			t.Errorf("signature equal for a different call: %q\n body %s", got, b)
		}
	}
	// The same call in Anthropic's shape (input object) and OpenAI's
	// (arguments string) has the same signature.
	if a, o := sig(anthropic("fetch", `{"url":"x","page":3}`)), sig(openai(`fetch {"page":3,"url":"x"}`)); a != o {
		t.Errorf("anthropic %q != openai %q", a, o)
	}
}

// TestErrors checks that bad bodies give errors that say precisely what is
// wrong (the fastjson detail after the colon is not pinned down).
func TestErrors(t *testing.T) {
	tests := []struct {
		name     string
		request  bool
		body     string
		wantText string // the error must start with this
	}{
		{"request not JSON", true, `{"messages":[`, "request body is not JSON: invalid at byte 13 of 13"},
		{"request empty", true, ``, "request body is not JSON: "},
		{"request array", true, `[1,2]`, "unknown request body shape: JSON array"},
		{"request unknown keys", true, `{"z":1,"a":2,"m":null}`, "unknown request body shape: object with keys [a m z]"},
		{"messages not array", true, `{"messages":"hi"}`, `request body field "messages" is a JSON string, want an array`},
		{"contents not array", true, `{"contents":{}}`, `request body field "contents" is a JSON object, want an array`},
		{"response not JSON", false, `{"choices":`, "response body is not JSON: invalid at byte 11 of 11"},
		{"response html", false, `<html>502</html>`, "response body is not JSON: "},
		{"response string", false, `"text"`, "unknown response body shape: JSON string"},
		{"response unknown keys", false, `{"created":1,"data":[]}`, "unknown response body shape: object with keys [created data]"},
		{"sse bad data", false, "data: {\"choices\":[]}\n\n: comment\ndata: {oops\n\n", "event-stream line 4: data is not JSON: invalid at byte 2 of 5"},
		{"sse bad data crlf", false, "event: a\r\ndata: {\"choices\":[]}\r\n\r\nevent: b\r\ndata: [1,\r\n\r\n", "event-stream line 5: data is not JSON: "},
		{"sse unknown chunk", false, "data: {\"choices\":[]}\n\ndata: {\"foo\":1,\"bar\":2}\n\n", "event-stream line 3: unknown chunk shape: object with keys [bar foo]"},
		{"sse scalar chunk", false, "data: 42\n\n", "event-stream line 1: unknown chunk shape: JSON number"},
		{"array unknown chunk", false, `[{"candidates":[]},{"x":1}]`, "response body array element [1]: unknown chunk shape: object with keys [x]"},
	}
	var p Parser
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.request {
				_, err = p.ParseRequest([]byte(tt.body))
			} else {
				_, err = p.ParseResponse([]byte(tt.body))
			}
			if err == nil {
				t.Fatalf("no error, want %q", tt.wantText)
			}
			if !strings.HasPrefix(err.Error(), tt.wantText) {
				t.Errorf("error %q\n want prefix %q", err, tt.wantText)
			}
		})
	}
}

// TestEventStreamFraming checks the SSE framing rules on small streams whose
// text is obvious: several data lines of one event joined with "\n", field
// values without a space after the colon, unknown fields and typed events
// ignored.
func TestEventStreamFraming(t *testing.T) {
	tests := []struct {
		name, stream, want string
	}{
		{"multi-line data", "data: {\"choices\":[{\"index\":0,\ndata: \"delta\":{\"content\":\"ab\"}}]}\n\n", "ab"},
		{"no space after colon", "data:{\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\ndata:[DONE]\n", "x"},
		{"id and retry fields", "id: 7\nretry: 10\ndata: {\"choices\":[{\"delta\":{\"content\":\"y\"}}]}\n\n", "y"},
		{"only done", "data: [DONE]\n\n", ""},
		{"only comments", ": hello\n\n", ""},
		{"ping only", "event: ping\ndata: {\"type\":\"ping\"}\n\n", ""},
		{"empty data", "data:\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"z\"}}]}\n", "z"},
	}
	var p Parser
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := p.ParseResponse([]byte(tt.stream))
			if err != nil {
				t.Fatal(err)
			}
			if string(r.Text) != tt.want || !r.Streamed {
				t.Errorf("Text %q Streamed %v, want %q true", r.Text, r.Streamed, tt.want)
			}
		})
	}
}

// TestParserReuse checks that results do not leak between calls of one
// Parser: a response after a larger one, a request after a stream.
func TestParserReuse(t *testing.T) {
	var p Parser
	big := `{"type":"message","role":"assistant","model":"claude","content":[{"type":"text","text":"a long answer with many words"},{"type":"tool_use","name":"t","input":{"k":"v"}}]}`
	small := `{"object":"chat.completion","model":"gpt","choices":[{"index":0,"message":{"role":"assistant","content":"hi"}}]}`
	stream := "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}}]}\n\n"
	for range 2 {
		if _, err := p.ParseResponse([]byte(big)); err != nil {
			t.Fatal(err)
		}
		r, err := p.ParseResponse([]byte(small))
		if err != nil || string(r.Text) != "hi" || r.Model != "gpt" || r.HasUsage {
			t.Fatalf("small after big: %+v %v", r, err)
		}
		r, err = p.ParseResponse([]byte(stream))
		if err != nil || string(r.Text) != "f({})" {
			t.Fatalf("stream after small: %q %v", r.Text, err)
		}
		q, err := p.ParseRequest([]byte(`{"messages":[{"role":"user","content":"q"}]}`))
		if err != nil || string(q.Prompt) != "q" || q.ToolSig != "" {
			t.Fatalf("request after stream: %+v %v", q, err)
		}
	}
}

func TestAPIString(t *testing.T) {
	want := map[API]string{
		APIUnknown: "unknown", APIOpenAIChat: "openai-chat", APIOpenAIResponses: "openai-responses",
		APIAnthropic: "anthropic", APILegacy: "legacy", APIGemini: "gemini", API(200): "unknown",
	}
	for a, w := range want {
		if a.String() != w {
			t.Errorf("API(%d).String() = %q, want %q", a, a.String(), w)
		}
	}
}

func ExampleParser_ParseRequest() {
	var p Parser
	r, err := p.ParseRequest([]byte(`{"model":"gpt-4o","messages":[
		{"role":"user","content":"Where is order 12345?"},
		{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function",
		  "function":{"name":"lookup_order","arguments":"{\"id\": 12345}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"shipped"}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s %s %q %q\n", r.API, r.Model, r.Prompt, r.ToolSig)
	// Output: openai-chat gpt-4o "Where is order 12345?" "lookup_order({\"id\":<NUM>})"
}

func ExampleParser_ParseResponse() {
	var p Parser
	stream := "event: message_start\n" +
		`data: {"type":"message_start","message":{"model":"claude-sonnet-4","usage":{"input_tokens":10,"output_tokens":1}}}` + "\n\n" +
		"event: content_block_delta\n" +
		`data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}` + "\n\n" +
		"event: message_delta\n" +
		`data: {"type":"message_delta","usage":{"output_tokens":2}}` + "\n\n"
	r, err := p.ParseResponse([]byte(stream))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s %s %q %d/%d streamed=%v\n", r.API, r.Model, r.Text, r.TokensIn, r.TokensOut, r.Streamed)
	// Output: anthropic claude-sonnet-4 "Hello" 10/2 streamed=true
}
