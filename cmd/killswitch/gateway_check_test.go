package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/killswitch/killswitch/analyze"
)

// TestCheckGateway: the gateway fixtures' expectations (derived by hand in
// fixtures/gateway/README.md) hold; a copy with a wrong 429 count and one
// incident missing fails on exactly those lines, and --update rewrites it
// back to the hand-written file byte for byte.
func TestCheckGateway(t *testing.T) {
	stdout, stderr, code := runCLI(t, "", "check", "fixtures/gateway")
	if code != exitOK || !strings.Contains(stdout, "all 20 expectations hold (2 files)") {
		t.Fatalf("check fixtures/gateway: exit %d\n%s%s", code, stdout, stderr)
	}
	want, err := os.ReadFile("fixtures/gateway/incidents.expect.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	capture, err := os.ReadFile("fixtures/gateway/incidents.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	exp := filepath.Join(dir, "incidents.expect.json")
	bad := strings.Replace(string(want), `"429": 6`, `"429": 5`, 1)
	i := strings.LastIndex(bad, "    },\n    {")
	bad = bad[:i] + "    }\n  ],\n  \"settings\"" + bad[strings.Index(bad, "  ],\n  \"settings\"")+len("  ],\n  \"settings\""):]
	if err := os.WriteFile(exp, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "incidents.jsonl"), capture, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _, code = runCLI(t, "", "check", exp)
	for _, w := range []string{"http_status.429: 6 calls, expected 5", "incidents: 5 incidents, expected 4", "2 of 10 expectations failed"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("no %q in\n%s", w, stdout)
		}
	}
	if code != exitFound {
		t.Errorf("exit %d, want 1", code)
	}
	if _, stderr, code := runCLI(t, "", "check", "--update", exp); code != exitOK {
		t.Fatalf("--update: exit %d: %s", code, stderr)
	}
	if got, _ := os.ReadFile(exp); string(got) != string(want) {
		t.Errorf("--update wrote\n%s\nwant the fixture\n%s", got, want)
	}
}

// TestCheckGatewayProfileOverride: --profile on the command line overrides
// a gateway expectation's profile, as it does a loop one's. m22.expect.json
// states m22's answers and no incident; under spec the same capture opens 4
// incidents (fixtures/gateway/README.md: content policy, policy violation,
// one freeze incident per frozen entity). incidents.expect.json states
// spec's answers (6 × 200 …); under m22 the rpm rule never refuses, so 12
// calls get 200 (the README's table). A loop profile on a gateway file, or
// a variant on a loop file, makes that file unusable rather than being
// ignored; --profile m22 is no profile at all.
func TestCheckGatewayVariantOverride(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"--variant", "spec", "fixtures/gateway/m22.expect.json"}, exitFound,
			[]string{"incidents: 4 incidents, expected 0", "overrides: --variant spec"}},
		{[]string{"--variant", "m22", "fixtures/gateway/incidents.expect.json"}, exitFound,
			[]string{"http_status.200: 12 calls, expected 6", "overrides: --variant m22"}},
		{[]string{"--variant", "m22", "fixtures/gateway/m22.expect.json"}, exitOK,
			[]string{"all 9 expectations hold (1 file); overrides: --variant m22"}},
		{[]string{"--profile", "agentgazer", "fixtures/gateway/m22.expect.json"}, exitUsage,
			[]string{`m22.expect.json: --profile agentgazer is a loop detector setting: this file replays the gateway`}},
		{[]string{"--profile", "spec", "fixtures/gateway/m22.expect.json"}, exitUsage,
			[]string{`m22.expect.json: --profile spec is a loop detector setting: this file replays the gateway`}},
		{[]string{"--variant", "m22", "fixtures/library/short-cycle.expect.json"}, exitUsage,
			[]string{`short-cycle.expect.json: --variant m22 is not a variant of the loop, which this file replays`}},
	} {
		stdout, stderr, code := runCLI(t, "", append([]string{"check"}, c.args...)...)
		if code != c.code {
			t.Errorf("check %v: exit %d, want %d\n%s%s", c.args, code, c.code, stdout, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stdout+stderr, w) {
				t.Errorf("check %v: no %q in\n%s%s", c.args, w, stdout, stderr)
			}
		}
	}
	for _, c := range []struct{ args, want string }{
		{"--profile gazer", `unknown profile "gazer" (want ` + analyze.ProfileNames() + ` for the loop detector)`},
		{"--profile m22", `unknown profile "m22" (want ` + analyze.ProfileNames() + ` for the loop detector)`},
		{"--variant spek", `unknown variant "spek" (want m22 or spec for the gateway)`},
	} {
		args := append([]string{"check"}, strings.Fields(c.args)...)
		if _, stderr, code := runCLI(t, "", append(args, "fixtures/gateway")...); code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d: %s", c.args, code, stderr)
		}
	}
}

// TestCheckGatewayVariantUpdate: --update under --variant spec writes the
// variant into the file with the counts and incidents spec gives, so that
// check without the flag then holds.
func TestCheckGatewayVariantUpdate(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"m22.expect.json", "m22.jsonl"} {
		data, err := os.ReadFile(filepath.Join("fixtures/gateway", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exp := filepath.Join(dir, "m22.expect.json")
	stdout, stderr, code := runCLI(t, "", "check", "--update", "--variant", "spec", exp)
	if code != exitOK || !strings.Contains(stdout, "settings.variant: m22 → spec") {
		t.Fatalf("--update --variant spec: exit %d\n%s%s", code, stdout, stderr)
	}
	got, _ := os.ReadFile(exp)
	if !strings.Contains(string(got), `"variant": "spec"`) {
		t.Errorf("--update wrote\n%s", got)
	}
	if stdout, stderr, code := runCLI(t, "", "check", exp); code != exitOK {
		t.Errorf("check after --update: exit %d\n%s%s", code, stdout, stderr)
	}
}
