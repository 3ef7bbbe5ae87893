package har

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// capturesDir holds real Polly.JS recordings (see its PROVENANCE.txt),
// relative to this package's directory.
const capturesDir = "../../../shared/captures/har-openllmetry-js"

type skip struct {
	reason string
	n      int
}

// captureWant is what one capture file yields.
type captureWant struct {
	file    string
	records int
	skips   []skip // by reason, sorted
	// digest is the first 16 hex digits of the SHA-256 of, for each LLM
	// entry in order, request body, NUL, response body, NUL.
	digest string
}

// captureWants was derived independently of this package, with Python's
// json, base64 and gzip modules, by this script run in capturesDir.
// Inspecting every entry's method and URL shows that the only entries that
// are not LLM calls are Wikipedia GETs and image generations; so an entry
// is skipped when its method is not POST or its path has /images/. Bodies
// whose headers say gzip or br but whose text is not base64 are stored
// decoded and are hashed as stored.
//
//	import json, glob, base64, gzip, hashlib
//	from urllib.parse import urlsplit
//	for f in sorted(glob.glob('*.har')):
//	    recs, skips, h = 0, {}, hashlib.sha256()
//	    for e in json.load(open(f))['log']['entries']:
//	        rq, c = e['request'], e['response']['content']
//	        u = urlsplit(rq['url'])
//	        if rq['method'] != 'POST' or '/images/' in u.path:
//	            r = 'not an LLM call: %s %s://%s%s' % (rq['method'], u.scheme, u.netloc, u.path)
//	            skips[r] = skips.get(r, 0) + 1
//	            continue
//	        recs += 1
//	        t = c.get('text', '')
//	        if c.get('encoding') == 'base64':
//	            b = gzip.decompress(b''.join(base64.b64decode(x) for x in json.loads(t)))
//	        else:
//	            b = t.encode()
//	        for part in (rq['postData']['text'].encode(), b):
//	            h.update(part); h.update(b'\0')
//	    print(f, recs, sorted(skips.items()), h.hexdigest()[:16])
var captureWants = []captureWant{
	{"instrumentation-anthropic__Test-Anthropic-instrumentation__should-place-system-prompt-first-for-messages.har", 1, nil, "f8938835db6d9e8b"},
	{"instrumentation-anthropic__Test-Anthropic-instrumentation__should-set-attributes-in-span-for-beta-messages-with-thinking.har", 1, nil, "3e9e88a38538bfb9"},
	{"instrumentation-anthropic__Test-Anthropic-instrumentation__should-set-attributes-in-span-for-messages-streaming.har", 1, nil, "a33fb391217d1345"},
	{"instrumentation-anthropic__Test-Anthropic-instrumentation__should-set-attributes-in-span-for-messages.har", 1, nil, "18082e9a298d1888"},
	{"instrumentation-langchain__Test-Langchain-instrumentation__should-set-attributes-in-span-for-BedrockChat-with-tools.har", 1, nil, "d45a3dd716f6f646"},
	{"instrumentation-langchain__Test-Langchain-instrumentation__should-set-attributes-in-span-for-agent-instrumentation.har", 2, nil, "62855a2345cf4a47"},
	{"instrumentation-langchain__Test-Langchain-instrumentation__should-set-attributes-in-span-for-tools-instrumentation.har", 0, []skip{{"not an LLM call: GET https://en.wikipedia.org/w/api.php", 4}}, "e3b0c44298fc1c14"},
	{"instrumentation-langchain__Test-Langchain-instrumentation__should-set-correct-attributes-in-span-for-LCEL.har", 1, []skip{{"not an LLM call: GET https://en.wikipedia.org/w/api.php", 1}}, "b709c886b07a0dba"},
	{"instrumentation-openai__Test-OpenAI-instrumentation__should-calculate-correct-tokens-for-different-quality-levels.har", 0, []skip{{"not an LLM call: POST https://api.openai.com/v1/images/generations", 2}}, "e3b0c44298fc1c14"},
	{"instrumentation-openai__Test-OpenAI-instrumentation__should-emit-logprobs-span-event-for-chat-completion.har", 1, nil, "a509d401089d4912"},
	{"instrumentation-openai__Test-OpenAI-instrumentation__should-emit-logprobs-span-event-for-stream-chat-completion.har", 1, nil, "db78cb8f387d19c1"},
	{"instrumentation-openai__Test-OpenAI-instrumentation__should-set-attributes-in-span-for-chat.har", 1, nil, "aa4dcb7942a313f8"},
	{"instrumentation-openai__Test-OpenAI-instrumentation__should-set-attributes-in-span-for-completion.har", 1, nil, "b2c5d1631b39e1f0"},
	{"instrumentation-openai__Test-OpenAI-instrumentation__should-set-attributes-in-span-for-function-calling.har", 1, nil, "fff8dc21039a744b"},
	{"instrumentation-openai__Test-OpenAI-instrumentation__should-set-attributes-in-span-for-image-generation.har", 0, []skip{{"not an LLM call: POST https://api.openai.com/v1/images/generations", 1}}, "e3b0c44298fc1c14"},
	{"instrumentation-openai__Test-OpenAI-instrumentation__should-set-attributes-in-span-for-responses-non-streaming.har", 1, nil, "7149902e3a41e679"},
	{"instrumentation-openai__Test-OpenAI-instrumentation__should-set-attributes-in-span-for-streaming-chat.har", 1, nil, "c9bca7c053bd9991"},
	{"instrumentation-openai__Test-OpenAI-instrumentation__should-set-attributes-in-span-for-streaming-completion.har", 1, nil, "41baafc92e6c8a9f"},
	{"instrumentation-openai__Test-OpenAI-instrumentation__should-set-attributes-in-span-for-tool-calling.har", 1, nil, "8b9ccc10a19a58a0"},
	{"instrumentation-openai__Test-OpenAI-instrumentation__should-set-cache-read-input-tokens-in-span-for-responses-with-cached-tokens.har", 1, nil, "f303036d37fbfc35"},
	{"instrumentation-openai__Test-OpenAI-instrumentation__should-set-function_call-attributes-in-span-for-stream-completion-when-multiple-tools-cal.har", 1, nil, "7e097836c5f17c28"},
	{"instrumentation-together__Test-Together-instrumentation__should-set-attributes-in-span-for-chat.har", 1, nil, "99ef73e994441473"},
	{"instrumentation-together__Test-Together-instrumentation__should-set-attributes-in-span-for-completion.har", 1, nil, "952d334d12d34279"},
	{"instrumentation-together__Test-Together-instrumentation__should-set-attributes-in-span-for-function-calling.har", 1, nil, "77d7dc295b81ee23"},
	{"instrumentation-together__Test-Together-instrumentation__should-set-attributes-in-span-for-streaming-chat.har", 1, nil, "cb7789d6d90da76a"},
	{"instrumentation-together__Test-Together-instrumentation__should-set-attributes-in-span-for-streaming-completion.har", 1, nil, "c7ae94b1c7da0d94"},
	{"instrumentation-together__Test-Together-instrumentation__should-set-attributes-in-span-for-tool-calling.har", 1, nil, "888e1e11ab0871f5"},
	{"instrumentation-together__Test-Together-instrumentation__should-set-function_call-attributes-in-span-for-stream-completion-when-multiple-tools-cal.har", 1, nil, "34b4b81e0c8a20e1"},
	{"traceloop-sdk__Test-AI-SDK-Agent-Integration-with-Recording__should-preserve-original-AI-SDK-span-name-when-no-agent-metadata-is-provided.har", 1, nil, "14b4d34c384d79e3"},
	{"traceloop-sdk__Test-AI-SDK-Agent-Integration-with-Recording__should-propagate-agent-name-to-tool-call-spans.har", 1, nil, "44e4057283f483d1"},
	{"traceloop-sdk__Test-AI-SDK-Agent-Integration-with-Recording__should-properly-scope-agent-names-in-nested-agent-scenarios.har", 2, nil, "38689a2b59a8ff28"},
	{"traceloop-sdk__Test-AI-SDK-Agent-Integration-with-Recording__should-use-agent-name-for-generateObject-with-agent-metadata.har", 1, nil, "70844055dbd738b7"},
	{"traceloop-sdk__Test-AI-SDK-Agent-Integration-with-Recording__should-use-agent-name-for-streamText-with-agent-metadata.har", 1, nil, "eb4e19489e9b93bb"},
	{"traceloop-sdk__Test-AI-SDK-Integration-with-Recording__should-capture-Google-Gemini-provider-spans-correctly-with-recording.har", 1, nil, "5fb8b200f26e5770"},
	{"traceloop-sdk__Test-AI-SDK-Integration-with-Recording__should-capture-OpenAI-provider-spans-correctly-with-recording.har", 1, nil, "5bedf6f9aa748e23"},
	{"traceloop-sdk__Test-AI-SDK-Integration-with-Recording__should-capture-and-transform-Anthropic-cache-tokens-from-providerMetadata.har", 1, nil, "a0c409f9c4de5331"},
	{"traceloop-sdk__Test-AI-SDK-Integration-with-Recording__should-capture-and-transform-OpenAI-cache-tokens-from-providerMetadata.har", 1, nil, "eacf9ba66429d12b"},
	{"traceloop-sdk__Test-AI-SDK-Integration-with-Recording__should-set-LLM_INPUT_MESSAGES-and-LLM_OUTPUT_MESSAGES-attributes-for-chat-completions.har", 1, nil, "e8de68a8e86fb5fa"},
	{"traceloop-sdk__Test-AI-SDK-Integration-with-Recording__should-transform-Google-Gemini-provider-spans-correctly-with-recording.har", 1, nil, "75e5348a68e37601"},
	{"traceloop-sdk__Test-AI-SDK-Integration-with-Recording__should-transform-OpenAI-provider-spans-correctly-with-recording.har", 1, nil, "e6a3c1780d2fc7ab"},
	{"traceloop-sdk__Test-Agent-Decorator__should-create-spans-for-agents-using-decoration-syntax.har", 1, nil, "a428da94e760daed"},
	{"traceloop-sdk__Test-Agent-Decorator__should-create-spans-for-agents-using-withAgent-syntax.har", 1, nil, "a2c7dff355b3900b"},
	{"traceloop-sdk__Test-Agent-Decorator__should-propagate-agent-name-to-manual-LLM-instrumentation.har", 1, nil, "b25f3db7933fb30b"},
	{"traceloop-sdk__Test-SDK-Decorators__should-create-spans-for-workflows-using-decoration-syntax.har", 2, nil, "5221a9dd2a26f3ad"},
	{"traceloop-sdk__Test-SDK-Decorators__should-not-mix-association-properties-for-traces-that-run-in-parallel.har", 2, nil, "82cfdb8b907c2c03"},
}

func TestCaptures(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(capturesDir, "*.har"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Skipf("no captures at %s (a fresh clone without ../shared/captures): skipping", capturesDir)
	}
	// Every file in the folder is in the table and the other way round.
	var names, wantNames []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	for _, w := range captureWants {
		wantNames = append(wantNames, w.file)
	}
	if !slices.Equal(names, wantNames) {
		t.Fatalf("capture files\n%q\ndiffer from the table\n%q", names, wantNames)
	}
	for _, w := range captureWants {
		t.Run(strings.TrimSuffix(w.file, ".har"), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(capturesDir, w.file))
			if err != nil {
				t.Fatal(err)
			}
			recs, err := readAll(t, data, Options{})
			if err != nil {
				t.Fatal(err)
			}
			h := sha256.New()
			records := 0
			var skips []skip
			for _, r := range recs {
				switch {
				case r.Err != nil:
					t.Errorf("unexpected error: %v", r.Err)
				case r.Skip != "":
					if n := len(skips); n > 0 && skips[n-1].reason == r.Skip {
						skips[n-1].n++
					} else {
						skips = append(skips, skip{r.Skip, 1})
					}
				default:
					records++
					checkCaptureRecord(t, r.Pos.String(), r.Agent, r.Request, r.Response, r.TS.IsZero(), r.Provider)
					h.Write(r.Request)
					h.Write([]byte{0})
					h.Write(r.Response)
					h.Write([]byte{0})
				}
			}
			if records != w.records {
				t.Errorf("records = %d, want %d", records, w.records)
			}
			if !slices.Equal(skips, w.skips) {
				t.Errorf("skips = %v, want %v", skips, w.skips)
			}
			if got := hex.EncodeToString(h.Sum(nil))[:16]; got != w.digest {
				t.Errorf("digest of bodies = %s, want %s", got, w.digest)
			}
		})
	}
}

// checkCaptureRecord checks what holds for every LLM call in the captures:
// no agent id anywhere (so "default"), a time, a JSON request, and a
// response that is a JSON document or an event stream.
func checkCaptureRecord(t *testing.T, pos, agent string, req, resp []byte, noTime bool, provider string) {
	t.Helper()
	if agent != "default" {
		t.Errorf("%s: agent = %q, want default", pos, agent)
	}
	if noTime {
		t.Errorf("%s: no time", pos)
	}
	if !json.Valid(req) {
		t.Errorf("%s: request is not JSON", pos)
	}
	isSSE := bytes.HasPrefix(resp, []byte("data:")) || bytes.HasPrefix(resp, []byte("event:"))
	if !isSSE && !json.Valid(resp) {
		t.Errorf("%s: response is neither JSON nor an event stream: %.40q", pos, resp)
	}
	switch provider {
	case "openai", "anthropic", "together", "gemini", "bedrock":
	default:
		t.Errorf("%s: provider = %q", pos, provider)
	}
}
