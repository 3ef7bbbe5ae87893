package main

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/killswitch/killswitch/internal/bgzfw"
	"github.com/killswitch/killswitch/internal/golden"
	"github.com/killswitch/killswitch/report"
)

// The tests run from the repository root so that positions in the output
// read "fixtures/…:6", as a user running from a checkout sees them.
func TestMain(m *testing.M) {
	flag.Parse()
	if err := os.Chdir("../.."); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

const goldenDir = "cmd/killswitch/testdata/golden"

// runCLI runs the command in-process.
func runCLI(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errb, func(string) string { return "" })
	return out.String(), errb.String(), code
}

func scenarioFiles(t *testing.T) []string {
	files, err := filepath.Glob("fixtures/scenarios/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	return files
}

func TestReplayGolden(t *testing.T) {
	files := scenarioFiles(t)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"replay-table.stdout", []string{"replay"}},
		{"replay-markdown.stdout", []string{"replay", "-f", "markdown"}},
		{"replay-csv.stdout", []string{"replay", "--format=csv"}},
		{"replay-json.stdout", []string{"replay", "-f", "json"}},
		{"replay-jsonl.stdout", []string{"replay", "-f", "jsonl"}},
		{"replay-agentgazer.stdout", []string{"replay", "--profile", "agentgazer"}},
		{"replay-block.stdout", []string{"replay", "--mode", "block", "-f", "markdown"}},
		{"replay-threshold20.stdout", []string{"replay", "--threshold", "20", "--window", "30", "-f", "csv"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, "", append(tc.args, files...)...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			golden.Check(t, filepath.Join(goldenDir, tc.name), []byte(stdout))
		})
	}
}

// TestReplayDeterministic: the same input gives the same bytes at any
// parallelism.
func TestReplayDeterministic(t *testing.T) {
	files := scenarioFiles(t)
	base, _, _ := runCLI(t, "", append([]string{"replay", "-f", "jsonl", "--workers", "1"}, files...)...)
	for _, w := range []string{"2", "3", "8"} {
		got, _, _ := runCLI(t, "", append([]string{"replay", "-f", "jsonl", "--workers", w}, files...)...)
		if got != base {
			t.Errorf("--workers %s output differs from --workers 1", w)
		}
	}
}

func TestReplayBadInput(t *testing.T) {
	stdout, stderr, code := runCLI(t, "", "replay", "-f", "jsonl", "cmd/killswitch/testdata/input/bad.jsonl")
	if code != 0 {
		t.Errorf("exit %d, want 0 (bad lines are reported and counted, the run goes on)", code)
	}
	golden.Check(t, filepath.Join(goldenDir, "replay-bad.stdout"), []byte(stdout))
	golden.Check(t, filepath.Join(goldenDir, "replay-bad.stderr"), []byte(stderr))
	if strings.Contains(stdout+stderr, "SECRET") {
		t.Error("a secret from the capture reached the output")
	}
	// --strict stops at the first malformed line with exit 2.
	_, stderr, code = runCLI(t, "", "replay", "--strict", "cmd/killswitch/testdata/input/bad.jsonl")
	if code != 2 || !strings.Contains(stderr, "bad.jsonl:2: not a JSON object") || !strings.Contains(stderr, "--strict") {
		t.Errorf("--strict: exit %d, stderr:\n%s", code, stderr)
	}
}

func TestReplayStdinAndOutputFile(t *testing.T) {
	data, err := os.ReadFile("fixtures/scenarios/identical-loop.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "report.csv")
	_, stderr, code := runCLI(t, string(data), "replay", "-f", "csv", "-o", out, "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(got), "identical-bot,12,true,6,6,") {
		t.Errorf("output file: %v\n%s", err, got)
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 1 {
		t.Errorf("temporary files left beside the output: %v", entries)
	}
}

func TestExitCodes(t *testing.T) {
	loop := "fixtures/scenarios/identical-loop.jsonl"
	healthy := "fixtures/scenarios/healthy.jsonl"
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"replay", loop}, 0, ""},
		{[]string{"replay", "--fail-on-kill", loop}, 1, ""},
		{[]string{"replay", "--fail-on-kill", healthy}, 0, ""},
		{[]string{"replay"}, 2, "Usage: killswitch replay"},
		{[]string{"replay", "--format", "xml", loop}, 2, `unknown --format "xml"`},
		{[]string{"replay", "--profile", "fast", loop}, 2, `unknown profile "fast"`},
		{[]string{"replay", "--mode", "nuke", loop}, 2, `unknown mode "nuke"`},
		{[]string{"replay", "--window", "0", loop}, 2, "window size 0 out of range"},
		{[]string{"replay", "--bogus", loop}, 2, "unknown flag: --bogus"},
		{[]string{"replay", "no/such/file.jsonl"}, 2, "no such file"},
		{[]string{"replay", "--settings", "no/such.json", loop}, 2, "no such file"},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{}, 2, "Usage:"},
		{[]string{"--help"}, 0, ""},
		{[]string{"replay", "--help"}, 0, ""},
	} {
		_, stderr, code := runCLI(t, "", tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.err) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d containing %q", tc.args, code, stderr, tc.code, tc.err)
		}
	}
}

func TestSettingsFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	loop := "fixtures/scenarios/identical-loop.jsonl"
	// Disabled for the looping agent: no kill.
	off := write("off.json", `{"agents":{"identical-bot":{"enabled":false}}}`)
	out, _, code := runCLI(t, "", "replay", "-f", "csv", "--settings", off, loop)
	if code != 0 || !strings.Contains(out, "identical-bot,12,false,") {
		t.Errorf("disabled by settings: exit %d\n%s", code, out)
	}
	// A per-agent threshold of 16: 3k−5 > 16 first at k = 8.
	hi := write("hi.json", `{"default":{"threshold":5},"agents":{"identical-bot":{"threshold":16}}}`)
	out, _, _ = runCLI(t, "", "replay", "-f", "csv", "--settings", hi, loop)
	if !strings.Contains(out, "identical-bot,12,true,8,8,") {
		t.Errorf("per-agent threshold:\n%s", out)
	}
	// The file's default (5: 3k−5 > 5 at k = 4) loses to an explicit flag (10: k = 6).
	def := write("def.json", `{"default":{"threshold":5}}`)
	out, _, _ = runCLI(t, "", "replay", "-f", "csv", "--settings", def, loop)
	if !strings.Contains(out, "identical-bot,12,true,4,4,") {
		t.Errorf("file default:\n%s", out)
	}
	out, _, _ = runCLI(t, "", "replay", "-f", "csv", "--settings", def, "--threshold", "10", loop)
	if !strings.Contains(out, "identical-bot,12,true,6,6,") {
		t.Errorf("flag over file default:\n%s", out)
	}
	for _, bad := range []struct{ body, want string }{
		{`{"agents":{"x":{"treshold":3}}}`, `bad.json:1:17: agents.x.treshold: unknown key`},
		{`{"defaults":{}}`, `bad.json:1:2: defaults: unknown key`},
		{`{"agents":{"x":{"window_size":0}}}`, "bad.json:1:31: agents.x.window_size: want a whole number from 1"},
		{`[1]`, "bad.json:1:1: want a JSON object"},
		{`{`, "bad.json:1:1: not valid JSON: unexpected end of JSON input"},
	} {
		p := write("bad.json", bad.body)
		_, stderr, code := runCLI(t, "", "replay", "--settings", p, loop)
		if code != 2 || !strings.Contains(stderr, bad.want) || !strings.Contains(stderr, "bad.json") {
			t.Errorf("%s: exit %d, stderr %q, want %q", bad.body, code, stderr, bad.want)
		}
	}
}

func TestFingerprint(t *testing.T) {
	out, _, code := runCLI(t, "", "fingerprint", "Check order #12345 at 2026-01-02T03:04:05Z", "check ORDER #999   at 2025-12-31T00:00:00+01:00")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	golden.Check(t, filepath.Join(goldenDir, "fingerprint-two.stdout"), []byte(out))
	req := `{"model":"gpt-4o","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"Summarize ticket 42"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"get_ticket","arguments":"{\"id\": 42}"}}]},{"role":"tool","tool_call_id":"c1","content":"{...}"}],"tools":[{"type":"function","function":{"name":"get_ticket"}}]}`
	out, _, code = runCLI(t, req, "fingerprint", "-")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	golden.Check(t, filepath.Join(goldenDir, "fingerprint-request.stdout"), []byte(out))
	out, _, _ = runCLI(t, req, "fingerprint", "--profile", "agentgazer", "-")
	golden.Check(t, filepath.Join(goldenDir, "fingerprint-request-agentgazer.stdout"), []byte(out))
}

// TestSharedCaptures replays the real captures nobody here wrote: every
// one must read without a malformed item, in every input format.
func TestSharedCaptures(t *testing.T) {
	har, _ := filepath.Glob("../shared/captures/har-openllmetry-js/*.har")
	oh, _ := filepath.Glob("../shared/captures/jsonl-openhands-sdk-llm-logs/*.jsonl")
	if len(har) == 0 || len(oh) == 0 {
		t.Skip("shared captures not present (../shared/captures); skipping")
	}
	// HAR: 46 LLM calls and 8 other entries (5 Wikipedia GETs, 3 image
	// generations), counted with a Python json walk over the files.
	out, stderr, code := runCLI(t, "", append([]string{"replay", "-f", "json"}, har...)...)
	if code != 0 || stderr != "" {
		t.Fatalf("HAR: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{`"requests": 46`, `"malformed": 0`, `"count": 5`, `"count": 3`} {
		if !strings.Contains(out, want) {
			t.Errorf("HAR report lacks %s", want)
		}
	}
	// Every other file replays on its own, auto-detected, without a
	// malformed item; the two OpenHands message lists (JSON arrays of chat
	// messages, not calls) are refused as a whole with exit 2.
	var all []string
	filepath.Walk("../shared/captures", func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && (strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".har")) {
			all = append(all, p)
		}
		return nil
	})
	if len(all) < 70 {
		t.Errorf("found %d capture files; the shared captures hold 74", len(all))
	}
	empty := 0
	for _, p := range all {
		out, stderr, code := runCLI(t, "", "replay", "-f", "json", p)
		if strings.HasSuffix(p, "llm-message.json") {
			if code != 2 || !strings.Contains(stderr, "not a capture format killswitch reads") {
				t.Errorf("%s: exit %d, stderr %q", p, code, stderr)
			}
			continue
		}
		if code == 2 && strings.Contains(stderr, "no LLM request in the input (0 malformed items") {
			// Only non-LLM entries (image generation, a Batch results
			// file without its input): well-formed, and refused unless
			// --allow-empty says an empty capture is fine.
			empty++
			out, stderr, code = runCLI(t, "", "replay", "--allow-empty", "-f", "json", p)
		}
		if code != 0 || !strings.Contains(out, `"malformed": 0`) {
			t.Errorf("%s: exit %d\n%s", p, code, stderr)
		}
	}
	if empty != 4 {
		t.Errorf("%d captures without an LLM request, want the 4 known ones", empty)
	}
	// OpenHands: both sessions tag their agent "Agent"; --agent-per-file
	// tells them apart. Under spec neither is killed (the claude session's
	// unchanged user message scores 1 per past request: at most 5.0).
	out, _, code = runCLI(t, "", append([]string{"replay", "-f", "csv", "--agent-per-file"}, oh...)...)
	if code != 0 || !strings.Contains(out, "Agent@claude-sonnet-4_fncall_session,6,false,") ||
		!strings.Contains(out, "Agent@deepseek-chat_nonfncall_session,4,false,") {
		t.Errorf("openhands spec:\n%s", out)
	}
}

func TestInspect(t *testing.T) {
	out, stderr, code := runCLI(t, "", "inspect", "fixtures/scenarios/reactivation.jsonl", "cmd/killswitch/testdata/input/bad.jsonl")
	// bad.jsonl's request {"foo":"bar"} has no text: said in one line.
	if code != 0 || stderr != "killswitch inspect: cmd/killswitch/testdata/input/bad.jsonl: 1 of 4 requests have neither prompt nor response text to fingerprint (their bodies may be in a shape killswitch does not read; inspect shows their dialects)\n" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden.Check(t, filepath.Join(goldenDir, "inspect.stdout"), []byte(out))
	out, _, code = runCLI(t, "", "inspect", "-f", "json", "fixtures/scenarios/reactivation.jsonl")
	if code != 0 || !strings.Contains(out, `"requests": 18`) || !strings.Contains(out, `"control_records": 1`) {
		t.Errorf("inspect json: exit %d\n%s", code, out)
	}
}

// manyAgents is a capture of 70 agents: every tenth repeats one prompt and
// answer 8 times (killed at its 6th request, 2 refused after), the others
// send 1 to 3 different prompts.
func manyAgents() string {
	var b strings.Builder
	t0 := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	n := 0
	line := func(agent, prompt, answer string) {
		fmt.Fprintf(&b, `{"ts":%q,"agent":%q,"request":{"messages":[{"role":"user","content":%q}]},"response":{"choices":[{"message":{"content":%q}}]},"cost_usd":0.001}`+"\n",
			t0.Add(time.Duration(n)*time.Second).Format(time.RFC3339), agent, prompt, answer)
		n++
	}
	for a := range 70 {
		agent := fmt.Sprintf("agent-%02d", a)
		if a%10 == 0 {
			for range 8 {
				line(agent, "retry the deployment of service "+agent, "the deployment failed again")
			}
			continue
		}
		words := []string{"invoice", "refund", "ledger", "carrier", "payroll", "catalog"}
		for i := range 1 + a%3 {
			line(agent, fmt.Sprintf("summarize the %s report for %s", words[(a+i)%len(words)], agent),
				fmt.Sprintf("here is the %s summary number %d", words[(a*7+i)%len(words)], a*10+i))
		}
	}
	return b.String()
}

// TestReplayBounded: past report.MaxRows rows the table and the Markdown
// show the agents that matter most and say how many rows they left out;
// --all shows every one.
func TestReplayBounded(t *testing.T) {
	in := manyAgents()
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"replay-bounded.stdout", []string{"replay", "-"}},
		{"replay-bounded-markdown.stdout", []string{"replay", "-f", "markdown", "-"}},
		{"replay-bounded-all.stdout", []string{"replay", "--all", "-"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, in, tc.args...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			golden.Check(t, filepath.Join(goldenDir, tc.name), []byte(stdout))
			rows := strings.Count(stdout, "\n| agent-")
			switch {
			case strings.Contains(tc.name, "all") && rows != 70:
				t.Errorf("--all shows %d agents, want 70", rows)
			case !strings.Contains(tc.name, "all") && rows != report.MaxRows:
				t.Errorf("shows %d rows, want %d", rows, report.MaxRows)
			}
		})
	}
}

// TestReplayBoundedHTML: the replay page's table is bounded like the
// terminal's (the same rows, the same line saying how many were left out),
// --all shows every row, and the charts do not depend on it.
func TestReplayBoundedHTML(t *testing.T) {
	in := manyAgents()
	page := func(args ...string) string {
		stdout, stderr, code := runCLI(t, in, append([]string{"replay", "-f", "html"}, append(args, "-")...)...)
		if code != 0 || stderr != "" {
			t.Fatalf("exit %d, stderr:\n%s", code, stderr)
		}
		return stdout
	}
	bounded, all := page(), page("--all")
	text, _, _ := runCLI(t, in, "replay", "-")
	charts := regexp.MustCompile(`(?s)<h2>Score over time</h2>.*?</div>`)
	if c := charts.FindString(bounded); c == "" || c != charts.FindString(all) {
		t.Error("the charts differ with --all")
	}
	if n := strings.Count(charts.FindString(all), `<figure class="agent">`); n != 70 {
		t.Errorf("%d charts, want one per agent (70)", n)
	}
	rows := func(page string) int { return strings.Count(page, `<tr><td class="l">agent-`) }
	if rows(bounded) != report.MaxRows || rows(all) != 70 {
		t.Errorf("table rows: %d bounded, %d with --all; want %d and 70", rows(bounded), rows(all), report.MaxRows)
	}
	// From a file the series come from a second pass over the charted
	// agents' records; from standard input, from the first: the same page.
	path := filepath.Join(t.TempDir(), "many.jsonl")
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	fromFile, stderr, code := runCLI(t, "", "replay", "-f", "html", path)
	if code != 0 || strings.ReplaceAll(fromFile, path, "&lt;stdin&gt;") != bounded {
		t.Errorf("the page of a file (two passes) differs from the page of standard input: exit %d %s", code, stderr)
	}
	const omitted = "(50 of 70 rows: the agents killed first"
	if !strings.Contains(bounded, omitted) || strings.Contains(all, omitted) || !strings.Contains(text, omitted) {
		t.Errorf("the omitted-rows line should be on the bounded page (as in the table) only")
	}
}

// TestInspectBGZF: inspect says whether a gzip capture is inflated in
// parallel (BGZF) or on one core, and replay reads both the same.
func TestInspectBGZF(t *testing.T) {
	data, err := os.ReadFile("fixtures/scenarios/identical-loop.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	zw.Close()
	files := map[string][]byte{"plain.jsonl.gz": gz.Bytes(), "bgzf.jsonl.gz": bgzfw.Write(data, 200)}
	want := map[string]string{"plain.jsonl.gz": "gzip compressed (one gzip stream: inflated on one core",
		"bgzf.jsonl.gz": "gzip compressed (BGZF: its members are inflated in parallel)"}
	plain, _, _ := runCLI(t, "", "replay", "-f", "jsonl", "fixtures/scenarios/identical-loop.jsonl")
	for name, z := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, z, 0o644); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code := runCLI(t, "", "inspect", path)
		if code != 0 || !strings.Contains(stdout, want[name]) {
			t.Errorf("%s: exit %d, %s%s; want %q", name, code, stdout, stderr, want[name])
		}
		got, _, _ := runCLI(t, "", "replay", "-f", "jsonl", path)
		if got != strings.ReplaceAll(plain, "fixtures/scenarios/identical-loop.jsonl", path) {
			t.Errorf("%s: replay differs from the uncompressed file's", name)
		}
	}
}
