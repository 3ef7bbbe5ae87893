package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/killswitch/killswitch/policy"
	"github.com/spf13/pflag"
	"maps"
)

// The promises every command makes for every policy alike (README "What
// killswitch will not do to your files", "The table fits the terminal"),
// each tested once over every command and policy rather than per policy.
// "Equal on Beam" lives in the Beam pipeline's module, which this module
// does not build: cmd/killswitch-beam's TestPrismPoliciesEqualReplay and
// TestPrismPoliciesManyTenants run every registered policy whose replay
// can be split (policy.SplitReplayer) on the pipeline and compare its
// decision records, -f json report and state writes with its replay's
// (`make test-beam`; `make test` under CI=true or FULL=1).

// commandRuns are the commands that read captures and write reports, one
// entry per policy, with a capture each can read.
var commandRuns = policyRuns()

// policyRuns are replay (and sweep, where it has one) of every registered
// policy, and verify: the conformance tests run each, on the capture the
// policy's Conformance names.
func policyRuns() []commandRun {
	var out []commandRun
	for _, p := range policy.All() {
		capture := "fixtures/examples/day1.jsonl"
		if p.Conformance != nil {
			capture = p.Conformance.Capture
		}
		out = append(out, commandRun{p.Name, []string{"replay", "--policy", p.Name}, capture})
		if p.Sweep != nil {
			out = append(out, commandRun{p.Name, []string{"sweep", "--policy", p.Name}, capture})
		}
	}
	return append(out, commandRun{"gateway", []string{"verify"}, "fixtures/gateway/verify/proxy_calls.csv"})
}

// Every registered policy gives the suite its examples: one that does not
// is not held to the promises, and so does not ship.
func TestEveryPolicyConforms(t *testing.T) {
	names := map[string]bool{}
	for _, p := range policy.All() {
		names[p.Name] = true
		if p.Conformance == nil || p.Conformance.Capture == "" || len(p.Conformance.BadSettings) < 3 {
			t.Errorf("policy %s: no Conformance examples (a capture and three bad settings files)", p.Name)
		}
	}
	// The test-only policy (policy/policytest/quota) is registered by one
	// import line and runs through every test below like the others.
	for _, want := range []string{"loop", "breaker", "gateway", "quota"} {
		if !names[want] {
			t.Errorf("policy %s is not registered", want)
		}
	}
}

type commandRun struct {
	policy  string   // the policy it runs
	args    []string // command and policy flags
	capture string   // a capture (an export for verify) it reads
}

// flagSetOf is the flag set command builds (seen through flagSetMade
// while it prints its help).
func flagSetOf(t *testing.T, command string) *pflag.FlagSet {
	t.Helper()
	var fs *pflag.FlagSet
	flagSetMade = func(f *pflag.FlagSet) { fs = f }
	defer func() { flagSetMade = nil }()
	if _, stderr, code := runCLI(t, "", command, "--help"); code != exitOK || fs == nil {
		t.Fatalf("%s --help: exit %d, %s", command, code, stderr)
	}
	return fs
}

// fileFlags are the flags of fs marked with role, but those of policies
// other than name (which the command refuses with name).
func fileFlags(fs *pflag.FlagSet, role, name string) []*pflag.Flag {
	var out []*pflag.Flag
	fs.VisitAll(func(f *pflag.Flag) {
		if owner := policy.Owner(f); owner != "" && owner != name {
			return
		}
		if a := f.Annotations[policy.FileRole]; len(a) > 0 && a[0] == role {
			out = append(out, f)
		}
	})
	return out
}

// fileArg is the value that makes flag f name path.
func fileArg(f *pflag.Flag, path string) []string {
	if a := f.Annotations[policy.FileRole]; len(a) > 1 {
		path = a[1] + path
	}
	return []string{"--" + f.Name, path}
}

func copyFile(t *testing.T, from, to string) []byte {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return b
}

// refused checks that a run was refused with exit 2 before it wrote
// anything: the files in dir are exactly want, with their contents.
func refused(t *testing.T, args []string, stdout, stderr string, code int, msg string, dir string, want map[string][]byte) {
	t.Helper()
	if code != exitUsage || !strings.Contains(stderr, msg) || stdout != "" {
		t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and %q", args, code, stdout, stderr, msg)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != len(want) {
		t.Errorf("%q: %d files left in the directory, want %d", args, len(ents), len(want))
	}
	for name, b := range want {
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != string(b) {
			t.Errorf("%q: %s was changed (%v)", args, name, err)
		}
	}
}

// No output may be an input, for any command and policy: every flag marked
// as an output, given the path of the capture or of a file any flag marked
// as an input reads (the same file by another name: a hard link), is
// refused with exit status 2 before anything is read or written. Two
// outputs given the same path are refused too.
func TestNoOutputIsAnInput(t *testing.T) {
	tried := 0
	for _, cr := range commandRuns {
		fs := flagSetOf(t, cr.args[0])
		outs, ins := fileFlags(fs, policy.RoleOutput, cr.policy), fileFlags(fs, policy.RoleInput, cr.policy)
		if len(outs) == 0 {
			t.Fatalf("%s: no output flags marked", cr.args[0])
		}
		for _, o := range outs {
			// The capture itself, under another name.
			dir := t.TempDir()
			capture := filepath.Join(dir, "capture"+filepath.Ext(cr.capture))
			b := copyFile(t, cr.capture, capture)
			alias := filepath.Join(dir, "alias")
			if err := os.Link(capture, alias); err != nil {
				t.Skip("no hard links here:", err)
			}
			args := slices.Concat(cr.args, fileArg(o, alias), []string{capture})
			stdout, stderr, code := runCLI(t, "", args...)
			refused(t, args, stdout, stderr, code, "refusing to overwrite", dir, map[string][]byte{filepath.Base(capture): b, "alias": b})
			tried++
			// A file an input flag reads.
			for _, in := range ins {
				dir := t.TempDir()
				capture := filepath.Join(dir, "capture"+filepath.Ext(cr.capture))
				b := copyFile(t, cr.capture, capture)
				read := filepath.Join(dir, "read.json")
				rb := []byte("{}\n")
				os.WriteFile(read, rb, 0o644)
				args := slices.Concat(cr.args, fileArg(in, read), fileArg(o, read), []string{capture})
				stdout, stderr, code := runCLI(t, "", args...)
				refused(t, args, stdout, stderr, code, "refusing to overwrite", dir, map[string][]byte{filepath.Base(capture): b, "read.json": rb})
				tried++
			}
			// Another output.
			for _, o2 := range outs {
				if o2 == o {
					continue
				}
				dir := t.TempDir()
				capture := filepath.Join(dir, "capture"+filepath.Ext(cr.capture))
				b := copyFile(t, cr.capture, capture)
				out := filepath.Join(dir, "out.sql")
				args := slices.Concat(cr.args, fileArg(o, out), fileArg(o2, out), []string{capture})
				stdout, stderr, code := runCLI(t, "", args...)
				refused(t, args, stdout, stderr, code, "give each its own file", dir, map[string][]byte{filepath.Base(capture): b})
				tried++
			}
		}
	}
	// check reads the expectation files and the captures its paths name.
	fs := flagSetOf(t, "check")
	for _, o := range fileFlags(fs, policy.RoleOutput, "") {
		for _, read := range []string{"m22.jsonl", "m22.expect.json"} {
			dir := t.TempDir()
			want := map[string][]byte{
				"m22.jsonl":       copyFile(t, "fixtures/gateway/m22.jsonl", filepath.Join(dir, "m22.jsonl")),
				"m22.expect.json": copyFile(t, "fixtures/gateway/m22.expect.json", filepath.Join(dir, "m22.expect.json")),
			}
			args := slices.Concat([]string{"check"}, fileArg(o, filepath.Join(dir, read)), []string{dir})
			stdout, stderr, code := runCLI(t, "", args...)
			refused(t, args, stdout, stderr, code, "refusing to overwrite", dir, want)
			tried++
		}
	}
	t.Logf("%d combinations refused", tried)
}

// A settings file's errors name file:line:column and the key, in words a
// user reads (no Go type, no decoder internals), for every command and
// policy that takes --settings: a value of the wrong type, an unknown key
// and a number out of range in the policy's own section, then an empty
// file and one that is not JSON.
func TestSettingsErrorsHavePositions(t *testing.T) {
	goWords := []string{" json: ", "Go struct", "of type", "unmarshal", "EOF", "fastjson", "float64", "RawMessage"}
	for _, cr := range commandRuns {
		fs := flagSetOf(t, cr.args[0])
		if fs.Lookup("settings") == nil {
			continue
		}
		p := policy.Lookup(cr.policy)
		var cases []struct{ doc, pos, key string }
		for _, b := range p.Conformance.BadSettings {
			cases = append(cases, struct{ doc, pos, key string }{b.Doc, ":1:", b.Key})
		}
		cases = append(cases, struct{ doc, pos, key string }{"", ":1:1: ", "empty file"},
			struct{ doc, pos, key string }{"{\n  \"x\": }", ":2:", "not valid JSON"})
		for _, c := range cases {
			if cr.args[0] == "sweep" && !p.SweepReadsSettings {
				// The loop and breaker sweeps take their settings from
				// flags: a settings file is refused, not ignored.
				args := slices.Concat(cr.args, []string{"--settings", cr.capture, cr.capture})
				if _, stderr, code := runCLI(t, "", args...); code != exitUsage || !strings.Contains(stderr, "--settings is read by --policy gateway only") {
					t.Errorf("%q: exit %d, %q", args, code, stderr)
				}
				continue
			}
			file := filepath.Join(t.TempDir(), "s.json")
			os.WriteFile(file, []byte(c.doc), 0o644)
			args := slices.Concat(cr.args, []string{"--settings", file, cr.capture})
			_, stderr, code := runCLI(t, "", args...)
			if code != exitUsage || !strings.Contains(stderr, file+c.pos) || !strings.Contains(stderr, c.key) {
				t.Errorf("%q with %q: exit %d, %q; want exit 2, %s%s… %s", args, c.doc, code, stderr, file, c.pos, c.key)
			}
			for _, w := range goWords {
				if strings.Contains(stderr, w) {
					t.Errorf("%q with %q: %q says %q", args, c.doc, stderr, w)
				}
			}
		}
	}
}

// check replays an expectation with the settings of its own policy, and
// says so in its reports: a breaker or gateway expectation's settings are
// its policy's (settings.breaker, settings.gateway), never the loop
// detector's "profile usage, mode deactivate, window 20, threshold 10".
func TestCheckShowsThePolicysOwnSettings(t *testing.T) {
	for _, tc := range []struct {
		capture, expect, want string
	}{
		// At a 90% error rate no breaker of the outage trips (50% at
		// the defaults): the expectation holds only if the rate is used.
		{"fixtures/breaker/outage.jsonl",
			`{"settings": {"policy": "breaker", "breaker": {"kill_on_error_rate": 0.9}}, "agents": {"crawler": {"killed": false}}}`,
			"policy breaker, error rate ≥ 90% over 10+ samples, counters refresh over 5m0s, open 30m0s"},
		{"fixtures/gateway/m22.jsonl",
			`{"settings": {"policy": "gateway", "variant": "spec", "gateway": {"max_tokens": 100000, "rpm": 7}}, "http_status": {"200": {"min": 0}}}`,
			"policy gateway, variant spec, max cost 100¢ a request, max tokens 100000, rpm 7, spike rate 0.5"},
	} {
		dir := t.TempDir()
		copyFile(t, tc.capture, filepath.Join(dir, "c.jsonl"))
		os.WriteFile(filepath.Join(dir, "c.expect.json"), []byte(tc.expect), 0o644)
		junit := filepath.Join(dir, "junit.xml")
		stdout, stderr, code := runCLI(t, "", "check", "-f", "markdown", "--junit", junit, dir)
		if code != exitOK || !strings.Contains(stdout, tc.want) || strings.Contains(stdout, "window 20") {
			t.Errorf("%s: exit %d, want %q in\n%s%s", tc.expect, code, tc.want, stdout, stderr)
		}
		if b, _ := os.ReadFile(junit); !strings.Contains(string(b), tc.want) {
			t.Errorf("%s: the JUnit report does not say %q:\n%s", tc.expect, tc.want, b)
		}
	}
}

// Every command's and policy's default report fits: 100 columns when
// standard output is not a terminal, the terminal's width (80 here) when
// it is one. A column or a word that cannot shrink (a long file name)
// stays whole, so the fixtures' names are short enough for this to hold.
func TestDefaultTablesFit(t *testing.T) {
	for _, width := range []int{0, 80} {
		want := width
		if width == 0 {
			want = 100
		}
		testTermWidth = width
		for _, cr := range commandRuns {
			for _, extra := range [][]string{nil, {"--variant", "spec"}} {
				if extra != nil && cr.policy != "gateway" {
					continue
				}
				args := slices.Concat(cr.args, extra, []string{cr.capture})
				stdout, stderr, code := runCLI(t, "", args...)
				if code != exitOK {
					t.Fatalf("%q: exit %d: %s", args, code, stderr)
				}
				for i, l := range strings.Split(stdout, "\n") {
					if n := utf8.RuneCountInString(l); n > want {
						t.Errorf("%q at width %d: line %d is %d columns: %s", args, want, i+1, n, l)
					}
				}
			}
		}
	}
	testTermWidth = 0
}

// oneSpaced is s with every run of white space one space: a report's text
// whatever its lines' width.
func oneSpaced(s string) string { return strings.Join(strings.Fields(s), " ") }

// Every command and policy renders every format it offers as that format
// (JSON that parses, CSV with rows of one width, a whole HTML page), the
// same bytes at any --workers; a format it does not offer is refused with
// exit 2 and nothing on standard output, never rendered as another.
func TestEveryFormatRenders(t *testing.T) {
	for _, cr := range commandRuns {
		offered := 0
		workers := func(n string) []string { return []string{"--workers", n} }
		if flagSetOf(t, cr.args[0]).Lookup("workers") == nil {
			workers = func(string) []string { return nil } // verify decides in one pass
		}
		for _, format := range []string{"table", "markdown", "csv", "json", "jsonl", "html"} {
			args := slices.Concat(cr.args, []string{"-f", format, cr.capture})
			one, stderr, code := runCLI(t, "", slices.Concat(args, workers("1"))...)
			if code == exitUsage {
				if one != "" || !strings.Contains(stderr, format) {
					t.Errorf("%q refused: stdout %q, stderr %q", args, one, stderr)
				}
				continue
			}
			if code != exitOK || one == "" {
				t.Errorf("%q: exit %d, %d bytes: %s", args, code, len(one), stderr)
				continue
			}
			offered++
			if err := formatError(format, one); err != nil {
				t.Errorf("%q: not %s: %v", args, format, err)
			}
			if three, _, _ := runCLI(t, "", slices.Concat(args, workers("3"))...); three != one {
				t.Errorf("%q: the output differs at --workers 3", args)
			}
		}
		if offered < 3 {
			t.Errorf("%q offers %d formats", cr.args, offered)
		}
	}
}

// formatError says why out is not a document of format.
func formatError(format, out string) error {
	switch format {
	case "json":
		if !json.Valid([]byte(out)) {
			return errors.New("invalid JSON")
		}
	case "jsonl":
		for i, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if !json.Valid([]byte(l)) {
				return fmt.Errorf("line %d is not JSON", i+1)
			}
		}
	case "csv":
		r := csv.NewReader(strings.NewReader(out))
		if _, err := r.ReadAll(); err != nil { // rows of one width, or an error
			return err
		}
	case "html":
		if !strings.HasPrefix(out, "<!DOCTYPE html>") || !strings.HasSuffix(out, "</html>\n") {
			return errors.New("not a whole HTML page")
		}
	case "markdown":
		if !strings.HasPrefix(out, "#") {
			return errors.New("no Markdown heading first")
		}
	}
	return nil
}

// An expectation that gives another policy's settings is unusable (exit
// 2, its position and key), for every policy but the loop detector's own.
func TestCheckRefusesForeignSettings(t *testing.T) {
	for _, tc := range []struct{ capture, expect, want string }{
		{"fixtures/breaker/outage.jsonl", `{"settings": {"policy": "breaker", "threshold": 5}, "totals": {"kills": {"min": 0}}}`, "c.expect.json:1:36: settings.threshold: a loop detector setting"},
		{"fixtures/gateway/m22.jsonl", `{"settings": {"policy": "gateway", "mode": "block"}, "http_status": {"200": {"min": 0}}}`, "c.expect.json:1:36: settings.mode: a loop detector setting"},
		{"fixtures/gateway/m22.jsonl", `{"settings": {"policy": "gateway", "breaker": {"min_samples": 5}}, "http_status": {"200": {"min": 0}}}`, `c.expect.json:1:47: settings.breaker: breaker settings need "policy": "breaker"`},
		{"fixtures/examples/day1.jsonl", `{"settings": {"gateway": {"rpm": 5}}, "totals": {"kills": {"min": 0}}}`, `c.expect.json:1:26: settings.gateway: gateway settings need "policy": "gateway"`},
	} {
		dir := t.TempDir()
		copyFile(t, tc.capture, filepath.Join(dir, "c.jsonl"))
		os.WriteFile(filepath.Join(dir, "c.expect.json"), []byte(tc.expect), 0o644)
		stdout, stderr, code := runCLI(t, "", "check", dir)
		if code != exitUsage || !strings.Contains(stdout+stderr, tc.want) {
			t.Errorf("%s: exit %d, want 2 and %q:\n%s%s", tc.expect, code, tc.want, stdout, stderr)
		}
	}
}

// settingsRuns are the commandRuns that read --settings.
func settingsRuns(t *testing.T) []commandRun {
	var out []commandRun
	for _, cr := range commandRuns {
		fs := flagSetOf(t, cr.args[0])
		if fs.Lookup("settings") != nil && (cr.args[0] != "sweep" || policy.Lookup(cr.policy).SweepReadsSettings) {
			out = append(out, cr)
		}
	}
	return out
}

// mergeSettings joins settings documents into one: their top-level
// sections side by side, their per-agent entries merged by agent.
func mergeSettings(t *testing.T, docs ...string) []byte {
	t.Helper()
	all := map[string]json.RawMessage{}
	agents := map[string]map[string]json.RawMessage{}
	for _, d := range docs {
		var top map[string]json.RawMessage
		if err := json.Unmarshal([]byte(d), &top); err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		for k, v := range top {
			if k != policy.AgentsKey {
				all[k] = v
				continue
			}
			var as map[string]map[string]json.RawMessage
			if err := json.Unmarshal(v, &as); err != nil {
				t.Fatalf("%s: %v", d, err)
			}
			for a, entry := range as {
				if agents[a] == nil {
					agents[a] = map[string]json.RawMessage{}
				}
				maps.Copy(agents[a], entry)
			}
		}
	}
	if len(agents) > 0 {
		b, _ := json.Marshal(agents)
		all[policy.AgentsKey] = b
	}
	b, _ := json.MarshalIndent(all, "", " ")
	return b
}

// One settings file holds every registered policy's part (docs/settings.md):
// each command taking --settings accepts the file whole, whichever policy
// runs, and applies its own part; and a mistake in any policy's part
// (each policy's BadSettings, beside the others' examples) fails every
// replay, whichever policy runs, naming the key: no part is skipped
// unread because another policy runs.
func TestOneSettingsFileForEveryPolicy(t *testing.T) {
	var examples []string
	for _, p := range policy.All() {
		if p.Settings == nil || p.Settings.Example == "" {
			t.Errorf("policy %s: no settings part with an example", p.Name)
			continue
		}
		examples = append(examples, p.Settings.Example)
	}
	file := filepath.Join(t.TempDir(), "all.json")
	os.WriteFile(file, mergeSettings(t, examples...), 0o644)
	applied := map[string]string{"loop": "threshold 12", "breaker": "over 20+ samples"}
	for _, cr := range settingsRuns(t) {
		args := slices.Concat(cr.args, []string{"--settings", file, cr.capture})
		stdout, stderr, code := runCLI(t, "", args...)
		if code == exitUsage || strings.Contains(stderr, file) || !strings.Contains(stdout, applied[cr.policy]) {
			t.Errorf("%q: exit %d, %q; want the file accepted (and %q)", args, code, stderr, applied[cr.policy])
		}
	}
	for _, bad := range policy.All() {
		if bad.Conformance == nil {
			continue
		}
		for _, b := range bad.Conformance.BadSettings {
			var docs []string
			for _, q := range policy.All() {
				if q != bad && q.Settings != nil {
					docs = append(docs, q.Settings.Example)
				}
			}
			file := filepath.Join(t.TempDir(), "s.json")
			os.WriteFile(file, mergeSettings(t, append(docs, b.Doc)...), 0o644)
			for _, cr := range settingsRuns(t) {
				args := slices.Concat(cr.args, []string{"--settings", file, cr.capture})
				if _, stderr, code := runCLI(t, "", args...); code != exitUsage || !strings.Contains(stderr, file+":") || !strings.Contains(stderr, b.Key) {
					t.Errorf("%s's bad %s among the others' parts, %q: exit %d, %q; want exit 2 naming %s", bad.Name, b.Doc, args, code, stderr, b.Key)
				}
			}
		}
	}
}
