package main

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Tests of `killswitch check`. The captures are written by the tests: an
// identical loop ("bot": the same prompt and answer every time) beside a
// healthy agent ("calm": every prompt and answer different). The kill
// points are derived by hand from SPEC §1.5:
//
//   - spec profile, window 20: at bot's request k the window holds k−1
//     identical entries: P = k−1, R = k−2, score 3k−5 > 10 first at k = 6;
//     with threshold 13, 3k−5 > 13 first at k = 7;
//   - window 3: P ≤ 3, R ≤ 2, score ≤ 7: never killed;
//   - agentgazer: the request is pushed before scoring and the past holds
//     its k−1 predecessors: P = k−1, R = k−2, score 3k−5 ≥ 10 first at k = 5;
//   - block mode: request 6 is refused (score 13) but enters the window
//     without a response; at every later k, P = k−1 and the newest
//     response is request 5's, matched by requests 1–4: R = 4, score
//     k+7 > 10: requests 6–12 are all refused, 7 firings.
//
// calm's texts share no word with each other: score 0.

var checkCalmTexts = []string{
	"Summarize yesterday's sales figures for the northern region.",
	"Draft a polite reminder about the overdue invoice from March.",
	"Which warehouse shipped the blue ceramic vases last week?",
	"Translate the onboarding checklist into Spanish please.",
	"List three risks of migrating payroll to the cloud vendor.",
	"Explain why nightly backups occasionally exceed their window.",
	"Compose release notes covering login fixes and faster search.",
	"Recommend hiking trails near Boulder suitable for beginners.",
	"Estimate catering costs when ninety guests attend the gala.",
	"Rewrite this paragraph so children understand photosynthesis.",
	"Compare annual subscription tiers offered by both competitors.",
	"Outline agenda items ahead of Thursday's board meeting.",
}

var checkCalmAnswers = []string{
	"Northern revenue rose modestly, driven mostly by hardware accessories.",
	"Friendly nudge: invoice INV-March remains unpaid; kindly settle soon.",
	"Those vases left from Rotterdam aboard Tuesday's freight truck.",
	"Aquí está la lista traducida para nuevos empleados.",
	"Vendor lock-in, compliance gaps, and unexpected egress fees.",
	"Growing snapshots plus throttled disks stretch overnight jobs.",
	"Version notes: authentication bugs squashed; queries respond quicker.",
	"Try Mesa Trail, Royal Arch, or Chautauqua loops.",
	"Expect roughly forty dollars per plate including dessert.",
	"Plants eat sunshine, drink water, then breathe out fresh air.",
	"Premium bundles cost more yet include priority phone assistance.",
	"Budget review, hiring plan, quarterly goals, open questions.",
}

const (
	checkLoopPrompt = "Summarize the open incidents and tell me which one to fix first."
	checkLoopAnswer = "There are no open incidents right now."
)

// checkRecord is one capture line (SPEC §3) with an OpenAI chat body.
func checkRecord(sec int, agent, prompt, answer string) string {
	return fmt.Sprintf(`{"ts": %d, "agent": %q, "request": {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": %q}]}, `+
		`"response": {"choices": [{"index": 0, "message": {"role": "assistant", "content": %q}}]}, "tokens_in": 30, "tokens_out": 10}`,
		1767254400+sec, agent, prompt, answer)
}

// checkLoopCapture is 12 requests of bot interleaved with 12 of calm.
func checkLoopCapture() string {
	var b strings.Builder
	for i := 0; i < 12; i++ {
		b.WriteString(checkRecord(10*i, "bot", checkLoopPrompt, checkLoopAnswer) + "\n")
		b.WriteString(checkRecord(10*i+5, "calm", checkCalmTexts[i], checkCalmAnswers[i]) + "\n")
	}
	return b.String()
}

const checkLoopExpect = `{"about": "an identical loop beside a healthy agent",
 "agents": {"bot": {"killed": true, "at_request": 6},
            "calm": {"killed": false}},
 "totals": {"agents_killed": 1}}
`

func checkWriteFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkBuildBinary builds the killswitch binary into dir.
func checkBuildBinary(t *testing.T, dir string) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to build the binary")
	}
	bin := filepath.Join(dir, "killswitch")
	out, err := exec.Command(goTool, "build", "-o", bin, "github.com/killswitch/killswitch/cmd/killswitch").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

type checkResult struct {
	stdout, stderr string
	code           int
}

// checkRunBinary runs bin in dir with args and the given extra environment.
func checkRunBinary(t *testing.T, bin, dir string, env []string, args ...string) checkResult {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GITHUB_ACTIONS=")
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return checkResult{out.String(), errb.String(), code}
}

// TestCheckBinary runs the built binary: exit codes 0, 1 and 2, the
// report lines, the overrides, the JUnit file, the annotations, --update.
func TestCheckBinary(t *testing.T) {
	bin := checkBuildBinary(t, t.TempDir())
	newDir := func(files map[string]string) string {
		dir := t.TempDir()
		checkWriteFiles(t, dir, files)
		return dir
	}
	base := map[string]string{"loop.jsonl": checkLoopCapture(), "loop.expect.json": checkLoopExpect}

	t.Run("all hold", func(t *testing.T) {
		r := checkRunBinary(t, bin, newDir(base), nil, "check", ".")
		want := "ok    loop.expect.json:2: bot: killed at request 6 (score 13.0 > 10)\n" +
			"ok    loop.expect.json:3: calm: not killed (max score 0.0)\n" +
			"ok    loop.expect.json:4: totals.agents_killed: agents_killed 1\n" +
			"\ncheck: all 3 expectations hold (1 file)\n"
		if r.code != 0 || r.stdout != want || r.stderr != "" {
			t.Errorf("exit %d\nstdout:\n%s\nwant:\n%s\nstderr:\n%s", r.code, r.stdout, want, r.stderr)
		}
	})

	failing := strings.Replace(checkLoopExpect, `"at_request": 6`, `"at_request": {"min": 7, "max": 8}`, 1)
	t.Run("a failure exits 1", func(t *testing.T) {
		dir := newDir(map[string]string{"loop.jsonl": checkLoopCapture(), "loop.expect.json": failing})
		r := checkRunBinary(t, bin, dir, nil, "check", "loop.expect.json", "--junit", "report.xml")
		if r.code != 1 || !strings.Contains(r.stdout, "FAIL  loop.expect.json:2: bot: killed at request 6, expected 7–8\n") ||
			!strings.HasSuffix(r.stdout, "\ncheck: 1 of 3 expectations failed (1 file; 2 passed)\n") {
			t.Errorf("exit %d\n%s", r.code, r.stdout)
		}
		data, err := os.ReadFile(filepath.Join(dir, "report.xml"))
		if err != nil {
			t.Fatal(err)
		}
		var rep struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Suites   []struct {
				Cases []struct {
					Name    string `xml:"name,attr"`
					Failure *struct {
						Message string `xml:"message,attr"`
					} `xml:"failure"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal(data, &rep); err != nil {
			t.Fatalf("JUnit report: %v\n%s", err, data)
		}
		if rep.Tests != 3 || rep.Failures != 1 || len(rep.Suites) != 1 || len(rep.Suites[0].Cases) != 3 ||
			rep.Suites[0].Cases[0].Failure == nil || rep.Suites[0].Cases[0].Failure.Message != "bot: killed at request 6, expected 7–8" {
			t.Errorf("JUnit report %+v\n%s", rep, data)
		}
	})

	t.Run("annotations on GitHub Actions", func(t *testing.T) {
		dir := newDir(map[string]string{"loop.jsonl": checkLoopCapture(), "loop.expect.json": failing})
		r := checkRunBinary(t, bin, dir, []string{"GITHUB_ACTIONS=true"}, "check", "--format", "markdown", ".")
		want := "::error file=loop.expect.json,line=2,title=killswitch check%3A bot::bot: killed at request 6, expected 7–8\n"
		if r.code != 1 || r.stderr != want || !strings.HasPrefix(r.stdout, "### ❌ killswitch check: 1 of 3 expectations failed") ||
			strings.Contains(r.stdout, "::error") {
			t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
		if r := checkRunBinary(t, bin, dir, nil, "check", "."); strings.Contains(r.stderr, "::error") {
			t.Errorf("annotations outside GitHub Actions:\n%s", r.stderr)
		}
	})

	t.Run("overrides", func(t *testing.T) {
		dir := newDir(base)
		for _, tc := range []struct {
			args []string
			code int
			line string
		}{
			{[]string{"--threshold", "13"}, 1, "FAIL  loop.expect.json:2: bot: killed at request 7, expected 6\n"},
			{[]string{"--window", "3"}, 1, "FAIL  loop.expect.json:2: bot: not killed (max score 7.0), expected killed at request 6\n"},
			{[]string{"--profile", "agentgazer"}, 1, "FAIL  loop.expect.json:2: bot: killed at request 5, expected 6\n"},
			{[]string{"--mode", "block"}, 0, "ok    loop.expect.json:2: bot: blocked (429) at request 6 (score 13.0 > 10), 7 kills\n"},
			{[]string{"--threshold", "10", "--window", "20", "--profile", "spec", "--mode", "deactivate"}, 0,
				"ok    loop.expect.json:2: bot: killed at request 6 (score 13.0 > 10)\n"},
		} {
			r := checkRunBinary(t, bin, dir, nil, append([]string{"check"}, append(tc.args, ".")...)...)
			if r.code != tc.code || !strings.Contains(r.stdout, tc.line) {
				t.Errorf("%v: exit %d, want %d with %q\n%s", tc.args, r.code, tc.code, tc.line, r.stdout)
			}
		}
		// The file's own settings apply when no flag overrides them.
		checkWriteFiles(t, dir, map[string]string{"loop.expect.json": strings.Replace(checkLoopExpect, `"agents"`, `"settings": {"threshold": 13}, "agents"`, 1)})
		if r := checkRunBinary(t, bin, dir, nil, "check", "."); r.code != 1 || !strings.Contains(r.stdout, "killed at request 7, expected 6") {
			t.Errorf("file threshold 13: exit %d\n%s", r.code, r.stdout)
		}
		if r := checkRunBinary(t, bin, dir, nil, "check", "--threshold", "10", "."); r.code != 0 ||
			!strings.HasSuffix(r.stdout, "check: all 3 expectations hold (1 file); overrides: --threshold 10\n") {
			t.Errorf("--threshold 10 over the file's 13: exit %d\n%s", r.code, r.stdout)
		}
	})

	t.Run("unusable input exits 2", func(t *testing.T) {
		for _, tc := range []struct {
			name   string
			files  map[string]string
			args   []string
			output string // in stdout, or stderr for usage errors
		}{
			{"unknown key", map[string]string{"loop.jsonl": checkLoopCapture(), "loop.expect.json": strings.Replace(checkLoopExpect, "at_request", "at_requst", 1)},
				[]string{"."}, `ERROR loop.expect.json:2:37: agents.bot.at_requst: unknown key (want "killed", "at_request" or "kills")`},
			{"no capture", map[string]string{"loop.expect.json": checkLoopExpect}, []string{"."},
				"ERROR loop.expect.json: no capture beside it (looked for loop.jsonl, loop.har, loop.parquet and loop.json, compressed or not)"},
			{"two captures", map[string]string{"loop.jsonl": checkLoopCapture(), "loop.ndjson": checkLoopCapture(), "loop.expect.json": checkLoopExpect}, []string{"."},
				"ERROR loop.expect.json: several captures beside it (loop.jsonl, loop.ndjson): keep one"},
			{"unusable beats failed", map[string]string{"loop.jsonl": checkLoopCapture(), "loop.expect.json": failing, "sub/x.expect.json": "{"},
				[]string{"."}, "ERROR sub/x.expect.json:1:1: not valid JSON: unexpected end of JSON input"},
			{"strict and a malformed record", map[string]string{"loop.jsonl": "{not json\n" + checkLoopCapture(), "loop.expect.json": checkLoopExpect},
				[]string{"--strict", "."}, "ERROR loop.expect.json: replaying loop.jsonl: stopped at the first malformed input item (--strict)"},
			{"no arguments", base, nil, "Usage: killswitch check"},
			{"missing path", base, []string{"nowhere"}, "killswitch check: stat nowhere: no such file or directory"},
			{"no expectations", map[string]string{"loop.jsonl": checkLoopCapture()}, []string{"."}, "killswitch check: .: no *.expect.json file under it"},
			{"capture without expectation", map[string]string{"loop.jsonl": checkLoopCapture()}, []string{"loop.jsonl"},
				"killswitch check: loop.jsonl: no expectation file loop.expect.json beside it (--update writes one from the current behaviour)"},
			{"not a capture", map[string]string{"notes.txt": "x"}, []string{"notes.txt"}, "killswitch check: notes.txt: neither a directory"},
			{"bad format", base, []string{"-f", "html", "."}, `killswitch check: unknown --format "html" (want text or markdown)`},
			{"bad profile", base, []string{"--profile", "gazer", "."}, `killswitch check: unknown profile "gazer"`},
			{"bad threshold", base, []string{"--threshold", "-1", "."}, "killswitch check: threshold -1 is not a number ≥ 0"},
			{"bad window", base, []string{"--window", "0", "."}, "killswitch check: window size 0 out of range"},
		} {
			r := checkRunBinary(t, bin, newDir(tc.files), nil, append([]string{"check"}, tc.args...)...)
			if r.code != 2 || !strings.Contains(r.stdout+r.stderr, tc.output) {
				t.Errorf("%s: exit %d, want 2 with %q\nstdout:\n%s\nstderr:\n%s", tc.name, r.code, tc.output, r.stdout, r.stderr)
			}
		}
	})

	t.Run("malformed record is counted", func(t *testing.T) {
		exp := strings.Replace(checkLoopExpect, `"totals": {"agents_killed": 1}`, `"totals": {"agents_killed": 1, "malformed": 0}`, 1)
		dir := newDir(map[string]string{"loop.jsonl": "{not json\n" + checkLoopCapture(), "loop.expect.json": exp})
		r := checkRunBinary(t, bin, dir, nil, "check", ".")
		if r.code != 1 || !strings.Contains(r.stdout, "FAIL  loop.expect.json:4: totals.malformed: malformed 1, expected 0\n") ||
			!strings.Contains(r.stderr, "loop.jsonl:1:") {
			t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
	})

	t.Run("a capture named on the command line", func(t *testing.T) {
		// Two captures beside one expectation: ambiguous when found by a
		// search, fine when the capture is named.
		dir := newDir(map[string]string{"loop.jsonl": checkLoopCapture(), "loop.ndjson": "{not json\n", "loop.expect.json": checkLoopExpect})
		if r := checkRunBinary(t, bin, dir, nil, "check", "loop.jsonl"); r.code != 0 {
			t.Errorf("check loop.jsonl: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
	})

	t.Run("compressed capture and hidden directories", func(t *testing.T) {
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write([]byte(checkLoopCapture()))
		zw.Close()
		dir := newDir(map[string]string{"a/loop.jsonl.gz": gz.String(), "a/loop.expect.json": checkLoopExpect,
			".git/stale.expect.json": "{", "a/.cache/x.expect.json": "{"})
		r := checkRunBinary(t, bin, dir, nil, "check", ".", "a/loop.expect.json")
		if r.code != 0 || !strings.HasSuffix(r.stdout, "check: all 3 expectations hold (1 file)\n") {
			t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
	})

	t.Run("update", func(t *testing.T) {
		dir := newDir(map[string]string{"loop.jsonl": checkLoopCapture(), "loop.expect.json": failing,
			"new.jsonl": checkLoopCapture(), "ok/loop.jsonl": checkLoopCapture(), "ok/loop.expect.json": checkLoopExpect})
		r := checkRunBinary(t, bin, dir, nil, "check", "--update", ".", "new.jsonl")
		wantOut := "updated loop.expect.json:\n" +
			"  bot: killed at request 7–8 → killed at request 6–8\n" +
			"created new.expect.json:\n" +
			"  bot: killed at request 6 (score 13.0 > 10)\n" +
			"  calm: not killed (max score 0.0)\n" +
			"\ncheck: all 8 expectations hold (3 files); 2 files rewritten\n" // 3 + 3 in the loop files, 2 agents in the new one
		if r.code != 0 || r.stdout != wantOut {
			t.Errorf("exit %d\nstdout:\n%s\nwant:\n%s\nstderr:\n%s", r.code, r.stdout, wantOut, r.stderr)
		}
		// Written by hand: the canonical form (keys sorted, two spaces);
		// the failing bound moved to the observed request.
		wantLoop := `{
  "about": "an identical loop beside a healthy agent",
  "agents": {
    "bot": {
      "at_request": {
        "max": 8,
        "min": 6
      },
      "killed": true
    },
    "calm": {
      "killed": false
    }
  },
  "totals": {
    "agents_killed": 1
  }
}
`
		wantNew := `{
  "agents": {
    "bot": {
      "at_request": {
        "max": 6,
        "min": 6
      },
      "killed": true
    },
    "calm": {
      "killed": false
    }
  },
  "settings": {
    "mode": "deactivate",
    "profile": "spec",
    "threshold": 10,
    "window": 20
  }
}
`
		for name, want := range map[string]string{"loop.expect.json": wantLoop, "new.expect.json": wantNew, "ok/loop.expect.json": checkLoopExpect} {
			got, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil || string(got) != want {
				t.Errorf("%s (%v):\n%s\nwant:\n%s", name, err, got, want)
			}
		}
		// Nothing left to change; and a deliberate threshold change is recorded.
		if r := checkRunBinary(t, bin, dir, nil, "check", "--update", "."); r.code != 0 || strings.Contains(r.stdout, "updated") {
			t.Errorf("second update: exit %d\n%s", r.code, r.stdout)
		}
		r = checkRunBinary(t, bin, dir, nil, "check", "--update", "--threshold", "13", "new.expect.json")
		if r.code != 0 || !strings.Contains(r.stdout, "updated new.expect.json:\n  settings.threshold: 10 → 13\n  bot: killed at request 6 → killed at request 7\n") {
			t.Errorf("update with --threshold 13: exit %d\n%s", r.code, r.stdout)
		}
		if r := checkRunBinary(t, bin, dir, nil, "check", "new.expect.json"); r.code != 0 {
			t.Errorf("after the update the file's own settings hold: exit %d\n%s", r.code, r.stdout)
		}
	})
}

func TestCaptureStem(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a/loop.jsonl", "a/loop"},
		{"loop.jsonl.gz", "loop"},
		{"loop.har.zst", "loop"},
		{"loop.parquet", "loop"},
		{"loop.ndjson.zlib", "loop"},
		{"loop.expect.json", "loop.expect.json"},
		{"loop.json", "loop.json"},
		{"loop.gz", "loop.gz"},
		{".jsonl", ".jsonl"},
	}
	for _, tc := range tests {
		if got := captureStem(tc.in); got != tc.want {
			t.Errorf("captureStem(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestCheckFixtures checks the repository's own fixtures in process, as
// `make test` does with the binary: every expectation holds.
func TestCheckFixtures(t *testing.T) {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("repository root not found")
		}
		dir = parent
	}
	var out, errb bytes.Buffer
	code := run([]string{"check", filepath.Join(dir, "fixtures")}, strings.NewReader(""), &out, &errb, func(string) string { return "" })
	if code != 0 || !strings.Contains(out.String(), "\ncheck: all ") {
		t.Errorf("check fixtures/: exit %d\n%s\n%s", code, out.String(), errb.String())
	}
}
