package agentgazer

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// capturesDir is the shared captures folder, relative to this package.
const capturesDir = "../../../shared/captures"

// captureVectors were produced by testdata/oracle.js ("node
// testdata/oracle.js captures") from the OpenHands LLM logs: each line holds
// the request's messages and tools at its top level and is used as the
// request body; lineHash is the hash of the whole line as a raw text.
//
// They show two AgentGazer quirks on a healthy agent: the Claude session's
// messages all have content-part arrays, so every prompt is "" and hashes
// alike, and both sessions send the same tools on every call.
var captureVectors = []struct {
	file       string
	line       int
	promptHash uint64
	signature  string
	lineHash   uint64
}{
	{"claude-sonnet-4_fncall_session.jsonl", 1, 0xcbf29ce484222325, "fn:execute_bash,fn:finish,fn:str_replace_editor", 0xc293a71945f3e5ba},
	{"claude-sonnet-4_fncall_session.jsonl", 2, 0xcbf29ce484222325, "fn:execute_bash,fn:finish,fn:str_replace_editor", 0xc293a61945f3e5ba},
	{"claude-sonnet-4_fncall_session.jsonl", 3, 0xcbf29ce484222325, "fn:execute_bash,fn:finish,fn:str_replace_editor", 0xc291a71945e3e5ba},
	{"claude-sonnet-4_fncall_session.jsonl", 4, 0xcbf29ce484222325, "fn:execute_bash,fn:finish,fn:str_replace_editor", 0xc291a71945e3e5ba},
	{"claude-sonnet-4_fncall_session.jsonl", 5, 0xcbf29ce484222325, "fn:execute_bash,fn:finish,fn:str_replace_editor", 0xc291a71945c3e5ba},
	{"claude-sonnet-4_fncall_session.jsonl", 6, 0xcbf29ce484222325, "fn:execute_bash,fn:finish,fn:str_replace_editor", 0xc291a71945c3e5ba},
	{"deepseek-chat_nonfncall_session.jsonl", 1, 0xc2d0871964d3a732, "fn:execute_bash,fn:finish,fn:str_replace_editor", 0xc293a61965f3e5ba},
	{"deepseek-chat_nonfncall_session.jsonl", 2, 0xc2809b197c43a7b3, "fn:execute_bash,fn:finish,fn:str_replace_editor", 0xc291871965f3e5b2},
	{"deepseek-chat_nonfncall_session.jsonl", 3, 0xc36c931964c3e12a, "fn:execute_bash,fn:finish,fn:str_replace_editor", 0xc291871965f3e5b2},
	{"deepseek-chat_nonfncall_session.jsonl", 4, 0xc2ec97196463c3b8, "fn:execute_bash,fn:finish,fn:str_replace_editor", 0xc291871965f3e5b2},
}

func TestOpenHandsCaptures(t *testing.T) {
	dir := filepath.Join(capturesDir, "jsonl-openhands-sdk-llm-logs")
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		t.Skipf("%s is absent (a fresh clone without the shared captures)", dir)
	}
	lines := map[string][]string{}
	for _, tc := range captureVectors {
		if _, ok := lines[tc.file]; ok {
			continue
		}
		f, err := os.Open(filepath.Join(dir, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			if len(sc.Bytes()) > 0 {
				lines[tc.file] = append(lines[tc.file], sc.Text())
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range captureVectors {
		if tc.line > len(lines[tc.file]) {
			t.Fatalf("%s has %d lines, want at least %d", tc.file, len(lines[tc.file]), tc.line)
		}
		raw := lines[tc.file][tc.line-1]
		v := parse(t, raw)
		if err := Check(v); err != nil {
			t.Errorf("%s:%d: Check = %v", tc.file, tc.line, err)
		}
		if got := PromptHash(v); got != tc.promptHash {
			t.Errorf("%s:%d: PromptHash = %#016x, want %#016x", tc.file, tc.line, got, tc.promptHash)
		}
		if got := ToolSignature(v); got != tc.signature {
			t.Errorf("%s:%d: ToolSignature = %q, want %q", tc.file, tc.line, got, tc.signature)
		}
		if got := HashText(raw); got != tc.lineHash {
			t.Errorf("%s:%d: HashText = %#016x, want %#016x", tc.file, tc.line, got, tc.lineHash)
		}
	}
}

// BenchmarkRequestCapture measures the per-request extraction (Check,
// PromptHash, ToolSignature) on the last, longest line of the DeepSeek
// session, parsing excluded; MB/s are of the request body.
func BenchmarkRequestCapture(b *testing.B) {
	f, err := os.Open(filepath.Join(capturesDir, "jsonl-openhands-sdk-llm-logs", "deepseek-chat_nonfncall_session.jsonl"))
	if err != nil {
		b.Skipf("shared captures absent: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	var last string
	for sc.Scan() {
		if len(sc.Bytes()) > 0 {
			last = sc.Text()
		}
	}
	v := parse(b, last)
	b.SetBytes(int64(len(last)))
	for b.Loop() {
		if Check(v) != nil {
			b.Fatal("skipped")
		}
		PromptHash(v)
		ToolSignature(v)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "requests/s")
}
