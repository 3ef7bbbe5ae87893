package main

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

const oneRecord = `{"ts":"2026-01-02T03:04:05Z","agent":"a","request":{"messages":[{"role":"user","content":"hi"}]}}` + "\n"

// A FIFO given as -o is written to, not replaced by a regular file (its
// reader would hang, and as root /dev/null would become a file).
func TestOutputFIFOIsWrittenThrough(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(oneRecord), 0o644)
	fifo := filepath.Join(dir, "out.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	got := make(chan string)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	_, stderr, code := runCLI(t, "", "replay", "-f", "csv", "-o", fifo, in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if out := <-got; !strings.Contains(out, "a,") {
		t.Errorf("the FIFO's reader got %q", out)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("%s is no longer a FIFO: %v %v", fifo, fi.Mode(), err)
	}
}

// A symbolic link given as -o is followed: its target gets the report, the
// link stays a link.
func TestOutputSymlinkIsFollowed(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(oneRecord), 0o644)
	target := filepath.Join(dir, "real.csv")
	os.WriteFile(target, []byte("old"), 0o600)
	link := filepath.Join(dir, "link.csv")
	if err := os.Symlink("real.csv", link); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runCLI(t, "", "replay", "-f", "csv", "-o", link, in); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
	}
	b, _ := os.ReadFile(target)
	if !strings.Contains(string(b), "a,") {
		t.Errorf("target holds %q", b)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Errorf("target mode %v, want its own 0600 kept", fi.Mode().Perm())
	}
	matches, _ := filepath.Glob(filepath.Join(dir, ".*tmp-*"))
	if len(matches) > 0 {
		t.Errorf("temporary files left: %v", matches)
	}
}

// An output that is one of the inputs is refused before anything is read,
// whatever name it is given by.
func TestOutputOntoInputIsRefused(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "x.jsonl")
	os.WriteFile(in, []byte(oneRecord), 0o644)
	alias := filepath.Join(dir, "alias.jsonl")
	os.Link(in, alias)
	for _, args := range [][]string{
		{"replay", "-o", in, in},
		{"replay", "-o", alias, in},
		{"replay", "--writes", in, in},
		{"sweep", "-o", alias, in},
	} {
		_, stderr, code := runCLI(t, "", args...)
		if code != exitUsage || !strings.Contains(stderr, "refusing to overwrite") {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
		if b, _ := os.ReadFile(in); string(b) != oneRecord {
			t.Fatalf("%v: the input was changed", args)
		}
	}
}

// Messages about an output name the user's path, never a temporary file.
func TestOutputErrorNamesThePath(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(oneRecord), 0o644)
	out := filepath.Join(dir, "missing-dir", "out.csv")
	_, stderr, code := runCLI(t, "", "replay", "-f", "csv", "-o", out, in)
	if code != exitUsage || !strings.Contains(stderr, out) || strings.Contains(stderr, ".tmp-") {
		t.Errorf("exit %d, %q", code, stderr)
	}
}

// An output that cannot be written is refused before the replay, for
// every output flag but a store's DSN (--apply; the store reports it,
// masking its password): nothing is printed (the text report to standard
// output was printed in full, then --writes failed) and no check file is
// left behind.
func TestUnwritableOutputFailsFirst(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(oneRecord), 0o644)
	missing := filepath.Join(dir, "missing-dir", "out")
	for _, args := range [][]string{
		{"replay", "--writes", missing + ".sql", in},
		{"replay", "--policy", "breaker", "--writes", missing + ".redis", in},
		{"sweep", "-o", missing + ".txt", in},
		{"check", "--junit", missing + ".xml", "fixtures/scenarios/healthy.jsonl"},
	} {
		stdout, stderr, code := runCLI(t, "", args...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, "cannot write "+missing) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestWorkersAreValidated(t *testing.T) {
	for _, w := range []string{"-1", "1000000000"} {
		_, stderr, code := runCLI(t, "", "replay", "--workers", w, "fixtures/scenarios/healthy.jsonl")
		if code != exitUsage || !strings.Contains(stderr, "--workers") {
			t.Errorf("--workers %s: exit %d, %q", w, code, stderr)
		}
	}
}

// Absurd numbers in a capture are dropped with a warning: saved tokens
// never go negative, and -f json never fails on +Inf (#15 item 7).
func TestAbsurdNumbersAreDropped(t *testing.T) {
	in := filepath.Join(t.TempDir(), "absurd.jsonl")
	os.WriteFile(in, []byte(
		`{"ts":"2026-01-02T03:04:05Z","agent":"a","request":{"messages":[{"role":"user","content":"hi"}]},"tokens_in":9223372036854775807,"tokens_out":1,"cost_usd":1.7e308}`+"\n"+
			`{"ts":"2026-01-02T03:04:06Z","agent":"a","request":{"messages":[{"role":"user","content":"hi"}]},"tokens_in":5,"tokens_out":1,"cost_usd":0.5}`+"\n"), 0o644)
	for _, f := range []string{"json", "table", "csv", "markdown"} {
		stdout, stderr, code := runCLI(t, "", "replay", "-f", f, in)
		if code != 0 || strings.Contains(stdout, "Inf") || strings.Contains(stdout, "-9223") {
			t.Errorf("-f %s: exit %d, %q %q", f, code, stdout, stderr)
		}
		if !strings.Contains(stderr, "token counts out of range") || !strings.Contains(stderr, "cost out of range") {
			t.Errorf("-f %s: warnings %q", f, stderr)
		}
	}
}

// Input that yields no LLM request exits 2 with one line saying why, so a
// corrupt nightly file cannot pass `replay --fail-on-kill` (#15 item 3).
func TestUnusableInputExits2(t *testing.T) {
	dir := t.TempDir()
	random := filepath.Join(dir, "random.jsonl")
	b := make([]byte, 4096)
	for i := range b {
		b[i] = byte(i*7919 + i/13)
	}
	os.WriteFile(random, b, 0o644)
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, nil, 0o644)
	har := filepath.Join(dir, "bad.har")
	os.WriteFile(har, []byte(`{"log":{"version":"1.2","entries":"not a list"}}`), 0o644)
	good := "fixtures/scenarios/healthy.jsonl"
	for _, args := range [][]string{
		{"replay", random},
		{"replay", empty},
		{"replay", "-"},
		{"replay", har},
		{"replay", "--input-format", "har", good},
		{"sweep", empty},
	} {
		_, stderr, code := runCLI(t, "", args...)
		why := strings.Contains(stderr, "no LLM request in the input") || strings.Contains(stderr, "not a capture format")
		if code != exitUsage || !why {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
	}
	if _, stderr, code := runCLI(t, "", "replay", "--allow-empty", empty); code != 0 {
		t.Errorf("--allow-empty: exit %d, %q", code, stderr)
	}
	if _, stderr, code := runCLI(t, "", "replay", good, "./"+good); code != exitUsage || !strings.Contains(stderr, "given twice") {
		t.Errorf("same file twice: exit %d, %q", code, stderr)
	}
}

func TestVersion(t *testing.T) {
	stdout, _, code := runCLI(t, "", "--version")
	if code != 0 || !strings.HasPrefix(stdout, "killswitch ") || !strings.Contains(stdout, "go1.") {
		t.Errorf("exit %d, %q", code, stdout)
	}
}

// fingerprint FILE reads the file; --text takes the argument as text.
func TestFingerprintFileArgument(t *testing.T) {
	body := filepath.Join(t.TempDir(), "request.json")
	os.WriteFile(body, []byte(`{"model":"m","messages":[{"role":"user","content":"Check order 12"}]}`), 0o644)
	stdout, stderr, code := runCLI(t, "", "fingerprint", body)
	if code != 0 || !strings.Contains(stdout, `prompt:     "Check order 12"`) {
		t.Errorf("exit %d: %s%s", code, stdout, stderr)
	}
	stdout, _, _ = runCLI(t, "", "fingerprint", "--text", body)
	if !strings.Contains(stdout, "source:     text") {
		t.Errorf("--text: %s", stdout)
	}
}

// A secret pasted into the wrong field never reaches a message or a
// report: messages name the field, the position and the kind of value
// (#15 item 6).
func TestSecretsInWrongFieldsAreNotEchoed(t *testing.T) {
	const secret = "sk-proj-SECRETSECRETSECRET0123456789"
	req := `"request":{"messages":[{"role":"user","content":"hi"}]}`
	lines := []string{
		`{"ts":"` + secret + `","agent":"a",` + req + `}`,
		`{"ts":"2026-01-02T03:04:05Z","agent":"a","event":"` + secret + `"}`,
		`{"ts":"2026-01-02T03:04:05Z","agent":"a",` + req + `,"label":"` + secret + `"}`,
		`{"ts":"2026-01-02T03:04:05Z","agent":"a",` + req + `,"tokens_in":"` + secret + `"}`,
		`{"ts":"2026-01-02T03:04:05Z","agent":"a",` + req + `,"cost_usd":"` + secret + `"}`,
		`{"ts":"2026-01-02T03:04:05Z","agent":"a",` + req + `,"status":"` + secret + `"}`,
		`{"ts":"2026-01-02T03:04:05Z","agent":"a",` + req + `,"latency_ms":"` + secret + `"}`,
		`{"ts":"2026-01-02T03:04:06Z","agent":"a",` + req + `,"response":"` + secret + `"}`,
		`{"ts":"2026-01-02T03:04:07Z","agent":"a","request":"` + secret + `"}`,
		secret + ` is not a line of JSON`,
		`{"ts":"2026-01-02T03:04:08Z","agent":"a",` + req + `}`,
	}
	in := filepath.Join(t.TempDir(), "secrets.jsonl")
	os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	for _, f := range []string{"json", "jsonl", "table"} {
		stdout, stderr, _ := runCLI(t, "", "replay", "-v", "-f", f, in)
		if strings.Contains(stdout+stderr, "SECRET") {
			t.Errorf("-f %s: the secret leaked:\n%s\n%s", f, stdout, stderr)
		}
	}
	for _, profile := range []string{"spec", "agentgazer"} {
		stdout, stderr, _ := runCLI(t, "", "replay", "--profile", profile, "-f", "jsonl", in)
		if strings.Contains(stdout+stderr, "SECRET") {
			t.Errorf("%s: the secret leaked:\n%s\n%s", profile, stdout, stderr)
		}
	}
}

// A line longer than --max-line is reported with its position and read
// past without being kept; the records after it are replayed (#15 item 4).
func TestMaxLine(t *testing.T) {
	in := filepath.Join(t.TempDir(), "long.jsonl")
	long := `{"ts":"2026-01-02T03:04:05Z","agent":"a","pad":"` + strings.Repeat(" ", 3<<20) + `"}`
	os.WriteFile(in, []byte(long+"\n"+oneRecord), 0o644)
	stdout, stderr, code := runCLI(t, "", "replay", "--max-line", "1MiB", "-f", "csv", in)
	if code != 0 || !strings.Contains(stderr, "long.jsonl:1: line of "+strconv.Itoa(len(long))+" bytes is longer than the 1048576-byte limit (--max-line): skipped") ||
		!strings.Contains(stdout, "a,1,") {
		t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, stderr, code := runCLI(t, "", "replay", "--max-line", "lots", in); code != exitUsage || !strings.Contains(stderr, "--max-line") {
		t.Errorf("bad --max-line: exit %d, %q", code, stderr)
	}
}

// The table fits 100 columns when the terminal's width is unknown, and
// --wide shows every column (#15 item 9).
func TestTableFitsTheWidth(t *testing.T) {
	files := scenarioFiles(t)
	stdout, _, _ := runCLI(t, "", append([]string{"replay"}, files...)...)
	for _, l := range strings.Split(stdout, "\n") {
		if n := len([]rune(l)); n > 100 {
			t.Errorf("a line of %d columns: %s", n, l)
		}
	}
	if !strings.Contains(stdout, "--wide shows every one") {
		t.Errorf("no note on the hidden columns:\n%s", stdout)
	}
	wide, _, _ := runCLI(t, "", append([]string{"replay", "--wide"}, files...)...)
	if !strings.Contains(wide, "SAVED TOKENS") || !strings.Contains(wide, "TOOL CALLS") {
		t.Errorf("--wide:\n%s", wide)
	}
}

// The sweep table leads with the recommendation and the settings around
// it and fits 100 columns; --all --wide shows the whole grid (#15 item 9).
func TestSweepTableFits(t *testing.T) {
	stdout, _, code := runCLI(t, "", "sweep", "fixtures/sweep/labelled.jsonl")
	if code != 0 || !strings.Contains(stdout, "9 of 75 settings") || !strings.Contains(stdout, "14.5 *") {
		t.Fatalf("exit %d:\n%s", code, stdout)
	}
	for _, l := range strings.Split(stdout, "\n") {
		if n := len([]rune(l)); n > 100 {
			t.Errorf("a line of %d columns: %s", n, l)
		}
	}
	all, _, _ := runCLI(t, "", "sweep", "--all", "--wide", "fixtures/sweep/labelled.jsonl")
	if rows := strings.Count(all, "\n| "); rows != 76 { // the header and 75 settings
		t.Errorf("--all: %d table rows, want 76", rows)
	}
}
