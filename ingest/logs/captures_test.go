package logs

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/killswitch/killswitch/ingest"
)

// captures holds real logs nobody on this project wrote (see each folder's
// PROVENANCE.txt), relative to this package's directory.
const captures = "../../../shared/captures"

func capturePath(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(captures, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("no capture %s (a fresh clone without ../shared/captures): skipping", p)
	}
	return p
}

func openCapture(t testing.TB, rel string, f Format, opt Options) []*ingest.Record {
	t.Helper()
	p := capturePath(t, rel)
	fh, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	r, err := NewReader(fh, filepath.Base(p), f, opt)
	if err != nil {
		t.Fatal(err)
	}
	return readAll(t, r, filepath.Base(p))
}

// langfuseWant is what one Langfuse export yields.
type langfuseWant struct {
	file    string
	calls   []int // observation indexes of the calls, in replay order
	agent   string
	firstTS string
	skips   []skipCount
	// Sums over the calls of usageDetails input and output and of
	// costDetails total.
	tokensIn, tokensOut int64
	cost                float64
	// Per call, in order: the last user message (first 50 bytes; "" when
	// there is none) and the answer (see answer).
	prompts, answers []string
}

// langfuseWants was derived with Python's json module, independently of
// this package, by this script run in json-langfuse-trace-exports:
//
//	def empty(v): return v is None or v == '' or v == {} or v == []
//	def counts(o): return o['type'] == 'GENERATION' and not (empty(o.get('input')) and empty(o.get('output')))
//	for f in sorted(glob.glob('*.trace.json')):
//	    d = json.load(open(f)); t = d['trace']; obs = d['observations']
//	    byid = {o['id']: o for o in obs}; wrappers = set()
//	    for o in filter(counts, obs):            # every counted generation above another wraps it
//	        p = o.get('parentObservationId')
//	        while p in byid:
//	            if counts(byid[p]): wrappers.add(p)
//	            p = byid[p].get('parentObservationId')
//	    calls = []; skips = Counter(); tin = tout = 0; cost = 0.0
//	    for i, o in enumerate(obs):
//	        if o['type'] != 'GENERATION':
//	            skips['observation type %s is not an LLM call' % o['type']] += 1; continue
//	        if empty(o.get('input')) and empty(o.get('output')):
//	            skips['GENERATION observation without input or output'] += 1; continue
//	        if o['id'] in wrappers:
//	            skips['GENERATION observation wrapping another (…)'] += 1; continue
//	        calls.append((o['startTime'], i))   # ISO strings of one layout sort as times
//	        u = o.get('usageDetails') or {}; tin += u.get('input', 0); tout += u.get('output', 0)
//	        cost += (o.get('costDetails') or {}).get('total', 0)
//	    calls.sort()
//	    print(f, [i for _, i in calls], t.get('sessionId') or t.get('userId') or 'default',
//	          calls[0][0], sorted(skips.items()), tin, tout, cost)
//
// The prompts were read from each call's input by a second script that
// decodes the JSON held in strings and takes the last role-"user" message
// of the list (of "messages" / "contents"; "prompt" itself; agno's
// Python-repr strings by the regex role='(\w+)' content='([^']*)'; a
// transcript string by its last "user: " line), joining text parts; and
// the answers by reading each output by eye (koog writes its tool calls
// into the message text; agno's "None" and beeai's null are no answer).
var langfuseWants = []langfuseWant{
	{"agno-2025-06-11.trace.json", []int{4, 2}, "35cc6c90-b657-4819-b66c-c931c03ad569", "2025-06-11T14:01:32.606Z",
		[]skipCount{{"GENERATION observation wrapping another (the call counts once, at the inner one)", 2}, {"observation type SPAN is not an LLM call", 2}}, 826, 245, 0.000270899999,
		[]string{"What is currently trending on Twitter?", "What is currently trending on Twitter?"},
		// [4] logged "None"; its wrapper [5] the tool call it asked for.
		[]string{"tools:duckduckgo_search", "text:To find out what's currently t"}},
	{"beeai-2025-08-01.trace.json", []int{25, 7, 18}, "default", "2025-08-01T13:56:54.170Z",
		[]skipCount{{"GENERATION observation without input or output", 2}, {"observation type SPAN is not an LLM call", 24}}, 5542, 0, 0.0008313,
		[]string{"Message: I'm planning a trip to Barcelona, Spain. ", "Message: I'm planning a trip to Barcelona, Spain. ", "Message: I'm planning a trip to Barcelona, Spain. "},
		[]string{"", "", ""}},
	{"crewai-2025-07-11.trace.json", []int{0}, "default", "2025-07-11T07:45:13.644Z",
		[]skipCount{{"observation type SPAN is not an LLM call", 5}}, 190, 164, 0.0001269,
		[]string{"\nCurrent Task: Define the HTML for making a simple"},
		[]string{"text:I now can give a great answer "}},
	{"google-adk-2025-08-28.trace.json", []int{1, 0}, "demo-session", "2025-08-28T07:32:30.306Z",
		[]skipCount{{"observation type AGENT is not an LLM call", 1}, {"observation type CHAIN is not an LLM call", 1}, {"observation type TOOL is not an LLM call", 1}}, 67, 9, 1.03e-05,
		[]string{"hi", "hi"},
		[]string{"tools:say_hello", "text:Hello Langfuse 👋!\n"}},
	{"koog-2025-08-26.trace.json", []int{9, 3}, "default", "2025-08-26T19:40:59.176Z",
		[]skipCount{{"observation type AGENT is not an LLM call", 2}, {"observation type SPAN is not an LLM call", 7}}, 215, 125, 0.0017875,
		[]string{"Greet and say goodbye to the user in the same mess", "Greet and say goodbye to the user in the same mess"},
		[]string{`text:[{"function":{"name":"HelloToo`, "text:Hello my darling Bob! And, bye"}},
	{"langgraph-python-2025-08-22.trace.json", []int{1, 2}, "default", "2025-08-22T09:38:56.232Z",
		[]skipCount{{"observation type SPAN is not an LLM call", 7}}, 168, 66, 0.000234,
		[]string{"Search the web for 'example' and summarize.", "Search the web for 'example' and summarize."},
		[]string{"tools:Web-Search", `text:The search for "example" prima`}},
	{"microsoft-agent-2025-12-17.trace.json", []int{1, 2}, "default", "2025-12-17T09:37:37.260Z",
		[]skipCount{{"observation type AGENT is not an LLM call", 1}, {"observation type TOOL is not an LLM call", 1}}, 293, 106, 0.00028525,
		[]string{"What's the weather in Tokyo?", ""},
		[]string{"tools:get_weather", "text:Current conditions in Tokyo, J"}},
	{"pydantic-ai-2025-06-06.trace.json", []int{0}, "session_abc", "2025-06-06T14:40:28.562Z",
		[]skipCount{{"observation type SPAN is not an LLM call", 2}}, 31, 96, 0.0010375,
		[]string{"What is Langfuse?"},
		[]string{"text:Langfuse is a tool designed fo"}},
	{"pydantic-ai-tools-2025-12-04.trace.json", []int{7, 2, 5, 3}, "default", "2025-12-04T14:51:22.053Z",
		[]skipCount{{"observation type SPAN is not an LLM call", 5}, {"observation type TOOL is not an LLM call", 3}}, 1315, 209, 0.000322649999,
		[]string{"Select and call THREE of the available tools to ge", "Select and call THREE of the available tools to ge",
			"Now write a funny joke about 'programming' based o", "Rate this joke:\n\nWhy do programmers hate nature?  "},
		[]string{"tools:get_pun_suggestion,get_dad_joke_suggestion,get_one_liner_suggestion", "text:I gathered some great ideas fo",
			"text:Why do programmers hate nature", "tools:final_result"}},
	{"vercel-aisdk-2025-11-17.trace.json", []int{1}, "default", "2025-11-17T14:55:18.787Z",
		[]skipCount{{"GENERATION observation wrapping another (the call counts once, at the inner one)", 1}, {"observation type TOOL is not an LLM call", 1}}, 62, 85, 0.000927499999,
		[]string{"What is the weather like today in San Francisco?"},
		[]string{"tools:getWeather"}},
}

func TestCapturesLangfuse(t *testing.T) {
	dir := filepath.Join(captures, "json-langfuse-trace-exports")
	files, _ := filepath.Glob(filepath.Join(dir, "*.trace.json"))
	if len(files) == 0 {
		t.Skipf("no captures at %s (a fresh clone without ../shared/captures): skipping", dir)
	}
	var names, wantNames []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	for _, w := range langfuseWants {
		wantNames = append(wantNames, w.file)
	}
	if !slices.Equal(names, wantNames) {
		t.Fatalf("capture files\n%q\ndiffer from the table\n%q", names, wantNames)
	}
	for _, w := range langfuseWants {
		t.Run(strings.TrimSuffix(w.file, ".trace.json"), func(t *testing.T) {
			head, _ := os.ReadFile(filepath.Join(dir, w.file))
			if f, ok := Detect(head[:min(len(head), 4096)]); f != FormatLangfuse || !ok {
				t.Errorf("Detect = %q, %v; want langfuse", f, ok)
			}
			recs := openCapture(t, filepath.Join("json-langfuse-trace-exports", w.file), FormatLangfuse, Options{})
			if e := errs(recs); len(e) > 0 {
				t.Fatalf("malformed: %q", e)
			}
			if got := skipCounts(recs); !slices.Equal(got, w.skips) {
				t.Errorf("skips %v, want %v", got, w.skips)
			}
			cs := calls(recs)
			var idx []int
			var in, out int64
			var cost float64
			for i, c := range cs {
				n, _ := strconvAtoiSuffix(c.Pos.Path, "observations[")
				idx = append(idx, n)
				// Every trace with an agent other than "default" has it
				// from sessionId (none has only a userId).
				if c.Agent != w.agent || c.Session != strings.TrimPrefix(w.agent, "default") {
					t.Errorf("%s: agent %q session %q, want agent %q", c.Pos, c.Agent, c.Session, w.agent)
				}
				in += c.TokensIn
				out += c.TokensOut
				cost += c.CostUSD
				if i < len(w.prompts) {
					p := lastUser(t, c.Request)
					if len(p) > 50 {
						p = p[:50]
					}
					if p != w.prompts[i] {
						t.Errorf("%s: prompt %q, want %q", c.Pos, p, w.prompts[i])
					}
					if a := answer(t, c.Response); a != w.answers[i] {
						t.Errorf("%s: answer %q, want %q", c.Pos, a, w.answers[i])
					}
				}
				if i > 0 && c.TS.Before(cs[i-1].TS) {
					t.Errorf("%s: out of time order", c.Pos)
				}
			}
			if !slices.Equal(idx, w.calls) {
				t.Errorf("calls at observations %v, want %v", idx, w.calls)
			}
			if len(cs) > 0 && ingest.FormatTime(cs[0].TS) != w.firstTS {
				t.Errorf("first ts %s, want %s", ingest.FormatTime(cs[0].TS), w.firstTS)
			}
			if in != w.tokensIn || out != w.tokensOut || math.Abs(cost-w.cost) > 1e-12 {
				t.Errorf("tokens %d/%d cost %.12g, want %d/%d %.12g", in, out, cost, w.tokensIn, w.tokensOut, w.cost)
			}
		})
	}
}

// strconvAtoiSuffix reads the number after prefix in s ("observations[3]").
func strconvAtoiSuffix(s, prefix string) (int, bool) {
	i := strings.LastIndex(s, prefix)
	if i < 0 {
		return -1, false
	}
	n := 0
	for _, c := range s[i+len(prefix):] {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// TestCapturesLiteLLM checks the two LiteLLM samples, read by eye (see the
// files): startTime "2025-01-24 09:20:46.847371" without a zone is UTC;
// endTime is 4.583 ms later; the payload has no agent_id, session or end
// user (end_user is ""; metadata's ids are null), so its agent is
// "default"; the SpendLogs row has agent_id null and session_id
// "1234567890", and stores messages and response as the string "{}".
func TestCapturesLiteLLM(t *testing.T) {
	for _, tt := range []struct {
		file, agent, id, session, prompt, answer string
	}{
		{"standard_logging_payload.json", "default", "chatcmpl-2299b6a2-82a3-465a-b47c-04e685a2227f", "", "Hello, world!", "text:hi"},
		{"spend_logs_payload.json", "1234567890", "chatcmpl-2283081b-dc89-41f6-93e6-d4f914774027", "1234567890", "", ""},
	} {
		t.Run(tt.file, func(t *testing.T) {
			rel := filepath.Join("json-litellm-logging-samples", tt.file)
			head, _ := os.ReadFile(capturePath(t, rel))
			if f, ok := Detect(head); f != FormatLiteLLM || !ok {
				t.Errorf("Detect = %q, %v; want litellm", f, ok)
			}
			recs := openCapture(t, rel, FormatLiteLLM, Options{})
			if len(recs) != 1 || recs[0].Err != nil || recs[0].Skip != "" {
				t.Fatalf("got %d records (%v), want one call", len(recs), errs(recs))
			}
			r := recs[0]
			if r.Pos.String() != tt.file+":1" {
				t.Errorf("pos %s", r.Pos)
			}
			if got := ingest.FormatTime(r.TS); got != "2025-01-24T09:20:46.847Z" || r.TS.Nanosecond() != 847371000 {
				t.Errorf("ts %s (%d ns)", got, r.TS.Nanosecond())
			}
			if r.Agent != tt.agent || r.ID != tt.id || r.Session != tt.session || r.Model != "gpt-4o" || r.Provider != "openai" {
				t.Errorf("agent %q id %q session %q model %q provider %q", r.Agent, r.ID, r.Session, r.Model, r.Provider)
			}
			if !r.HasTokens || r.TokensIn != 10 || r.TokensOut != 20 || !r.HasCost || r.CostUSD != 0.00022500000000000002 {
				t.Errorf("tokens %v %d/%d cost %v %v", r.HasTokens, r.TokensIn, r.TokensOut, r.HasCost, r.CostUSD)
			}
			if !r.HasLatency || r.LatencyMS != 5 || r.Status != 200 {
				t.Errorf("latency %v %d status %d", r.HasLatency, r.LatencyMS, r.Status)
			}
			if p := lastUser(t, r.Request); p != tt.prompt {
				t.Errorf("prompt %q, want %q (request %s)", p, tt.prompt, r.Request)
			}
			if a := answer(t, r.Response); a != tt.answer {
				t.Errorf("answer %q, want %q", a, tt.answer)
			}
		})
	}
}

// TestCapturesBatch checks the instructor batch files, read by eye: four
// Anthropic requests request-0…3 and one succeeded result for request-0
// (a tool_use extract_data, 463 + 50 tokens); one OpenAI request without
// output. No file has a time: the clock is synthetic, from the epoch.
func TestCapturesBatch(t *testing.T) {
	dir := "jsonl-batch-api-instructor"
	reqPath := capturePath(t, filepath.Join(dir, "anthropic_batch_requests.jsonl"))
	resPath := capturePath(t, filepath.Join(dir, "anthropic_batch_results.jsonl"))
	oaPath := capturePath(t, filepath.Join(dir, "openai_batch_request.jsonl"))
	for _, tt := range []struct {
		path string
		want Format
	}{{reqPath, FormatAnthropicBatch}, {resPath, FormatAnthropicBatch}, {oaPath, FormatOpenAIBatch}} {
		head, _ := os.ReadFile(tt.path)
		if f, ok := Detect(head); f != tt.want || !ok {
			t.Errorf("%s: Detect = %q, %v; want %s", tt.path, f, ok, tt.want)
		}
	}

	t.Run("joined", func(t *testing.T) {
		in, _ := os.Open(reqPath)
		defer in.Close()
		out, _ := os.Open(resPath)
		defer out.Close()
		r, _ := NewBatchReader(in, "req.jsonl", out, "res.jsonl", Options{})
		recs := readAll(t, r, "req.jsonl")
		if len(recs) != 4 {
			t.Fatalf("%d records, want 4", len(recs))
		}
		for i, rec := range recs {
			wantTS := "1970-01-01T00:00:00.00" + string(rune('0'+i)) + "Z"
			if rec.Err != nil || ingest.FormatTime(rec.TS) != wantTS || rec.ID != "request-"+string(rune('0'+i)) ||
				rec.Agent != "default" || rec.Model != "claude-3-5-sonnet-20241022" || rec.Endpoint != "/v1/messages" {
				t.Errorf("record %d: %+v", i, rec)
			}
			if (rec.Response != nil) != (i == 0) {
				t.Errorf("record %d: response %q", i, rec.Response)
			}
		}
		if !strings.Contains(string(recs[0].Response), `"name":"extract_data"`) || !strings.Contains(string(recs[0].Response), `"input_tokens":463`) {
			t.Errorf("response %s", recs[0].Response)
		}
		if p := lastUser(t, recs[1].Request); p != "Hello, I'm Bob, 35 years old, and I love hiking and photography." {
			t.Errorf("prompt %q", p)
		}
	})
	t.Run("results-alone", func(t *testing.T) {
		recs := openCapture(t, filepath.Join(dir, "anthropic_batch_results.jsonl"), FormatAnthropicBatch, Options{})
		want := []skipCount{{"batch result without its request (give the request file as input and this one as the batch output)", 1}}
		if got := skipCounts(recs); len(recs) != 1 || !slices.Equal(got, want) {
			t.Errorf("got %v", got)
		}
	})
	t.Run("openai", func(t *testing.T) {
		recs := openCapture(t, filepath.Join(dir, "openai_batch_request.jsonl"), FormatOpenAIBatch, Options{})
		if len(recs) != 1 || recs[0].Err != nil {
			t.Fatalf("got %d records %v", len(recs), errs(recs))
		}
		r := recs[0]
		if r.ID != "test-openai-1" || r.Endpoint != "/v1/chat/completions" || r.Model != "gpt-4o-mini" || r.Agent != "default" ||
			r.Response != nil || !r.TS.Equal(epoch) || r.Status != 200 {
			t.Errorf("%+v", r)
		}
		if p := lastUser(t, r.Request); p != "Hello, I'm Test User and I'm 30 years old." {
			t.Errorf("prompt %q", p)
		}
	})
}

// TestCapturesCompletionLogs checks the OpenHands logs, through the
// JSONL reader (its own tests check the mapping): the sessions have 6 and
// 4 lines, the raw/ files one single-line document each, and every call's
// agent is "Agent" (the tag agent:Agent). The message lists under raw/ are
// no calls and are not detected.
func TestCapturesCompletionLogs(t *testing.T) {
	dir := "jsonl-openhands-sdk-llm-logs"
	for _, tt := range []struct {
		file    string
		records int
		firstTS string // timestamp 1757015025.9723232 and 1757015054.0548532
	}{
		{"claude-sonnet-4_fncall_session.jsonl", 6, "2025-09-04T19:43:45.972Z"},
		{"deepseek-chat_nonfncall_session.jsonl", 4, "2025-09-04T19:44:14.054Z"},
		{"raw/llm-logs__litellm_proxy__anthropic__claude-sonnet-4-20250514-1757015025.972.json", 1, "2025-09-04T19:43:45.972Z"},
	} {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			head, _ := os.ReadFile(capturePath(t, filepath.Join(dir, tt.file)))
			if f, ok := Detect(head[:4096]); f != FormatCompletionLog || !ok {
				t.Errorf("Detect = %q, %v", f, ok)
			}
			recs := openCapture(t, filepath.Join(dir, tt.file), FormatCompletionLog, Options{})
			if len(calls(recs)) != tt.records || len(recs) != tt.records {
				t.Fatalf("%d records (%d calls), want %d: %v", len(recs), len(calls(recs)), tt.records, errs(recs))
			}
			if ingest.FormatTime(recs[0].TS) != tt.firstTS {
				t.Errorf("first ts %s", ingest.FormatTime(recs[0].TS))
			}
			for _, r := range recs {
				if r.Agent != "Agent" {
					t.Errorf("%s: agent %q", r.Pos, r.Agent)
				}
			}
		})
	}
	// Every raw per-call log is one call at the time its file name gives
	// (Unix seconds to milliseconds; the name and the timestamp member are
	// not rounded alike, so they agree within 1 ms).
	capturePath(t, filepath.Join(dir, "raw")) // skips without ../shared/captures
	raws, _ := filepath.Glob(filepath.Join(captures, dir, "raw", "*-llm-logs__*.json"))
	raws2, _ := filepath.Glob(filepath.Join(captures, dir, "raw", "llm-logs__*.json"))
	if n := len(raws) + len(raws2); n != 10 {
		t.Errorf("%d raw logs, want 10", n)
	}
	for _, p := range append(raws, raws2...) {
		recs := openCapture(t, filepath.Join(dir, "raw", filepath.Base(p)), FormatCompletionLog, Options{})
		stamp := strings.TrimSuffix(p[strings.LastIndexByte(p, '-')+1:], ".json")
		sec, err := strconv.ParseFloat(stamp, 64)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 1 || recs[0].Err != nil || recs[0].Agent != "Agent" ||
			math.Abs(float64(recs[0].TS.UnixMicro())/1e6-sec) >= 0.001 {
			t.Errorf("%s: %d records %v, ts %v", filepath.Base(p), len(recs), errs(recs), recs[0].TS)
		}
	}
	for _, f := range []string{"raw/fncall-llm-message.json", "raw/nonfncall-llm-message.json"} {
		head, _ := os.ReadFile(capturePath(t, filepath.Join(dir, f)))
		if got, ok := Detect(head); ok {
			t.Errorf("%s: a message list detected as %s", f, got)
		}
	}
}

// TestCapturesEveryFile reads every file under captures with every
// format: whatever the pairing, nothing panics, every malformed item is a
// *SyntaxError at a position in that file, and reading ends without an
// I/O error. The detected format of each file is checked by the tests
// above; HAR files detect as none of these formats.
func TestCapturesEveryFile(t *testing.T) {
	var files []string
	filepath.WalkDir(captures, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(p, ".txt") && !strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) == 0 {
		t.Skipf("no captures at %s (a fresh clone without ../shared/captures): skipping", captures)
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(p, ".har") {
			if f, ok := Detect(data); ok {
				t.Errorf("%s: HAR detected as %s", p, f)
			}
		}
		for _, f := range Formats {
			r, err := NewReader(strings.NewReader(string(data)), "in", f, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := collect(r, "in"); err != nil {
				t.Errorf("%s as %s: %v", p, f, err)
			}
			if err := r.Err(); err != nil {
				t.Errorf("%s as %s: I/O error %v", p, f, err)
			}
		}
	}
}
