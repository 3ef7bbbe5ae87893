package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPeerProfilesLikeEveryProfile: the peer profiles only decide; the
// rest works through the registry as for every profile. On
// fixtures/peers (outcomes derived in its README): state writes for the
// kills, the 429 variant, the HTML report, the sweep, check, and the same
// decisions at any --workers.
func TestPeerProfilesLikeEveryProfile(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		profile, fixture string
		killed           []string // agents the profile kills, each at one request
	}{
		{"gemini-cli", "fixtures/peers/gemini-cli-loops.jsonl", []string{"chanter", "reader"}},
		{"openhands", "fixtures/peers/openhands-loops.jsonl", []string{"lister", "talker"}},
		{"openhands-headless", "fixtures/peers/openhands-loops.jsonl", []string{"lister", "talker"}},
		{"roo", "fixtures/peers/roo-loops.jsonl", []string{"reader", "talker"}},
		{"cline", "fixtures/peers/cline-loops.jsonl", []string{"reader", "shuffler"}},
		{"openclaw", "fixtures/peers/openclaw-loops.jsonl", []string{"pinger", "reader"}},
	} {
		t.Run(c.profile, func(t *testing.T) {
			sql := filepath.Join(dir, c.profile+".sql")
			if _, stderr, code := runCLI(t, "", "replay", "--profile", c.profile, "--writes", sql, c.fixture); code != 0 {
				t.Fatalf("replay --writes: exit %d: %s", code, stderr)
			}
			w, err := os.ReadFile(sql)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(w), "UPDATE agents SET active = 0, deactivated_by = 'kill_switch'"); n != len(c.killed) {
				t.Errorf("%d deactivations written, want %d", n, len(c.killed))
			}
			for _, a := range c.killed {
				if !strings.Contains(string(w), "WHERE agent_id = '"+a+"'") {
					t.Errorf("no deactivation of %s written", a)
				}
			}
			block, _, code := runCLI(t, "", "replay", "--profile", c.profile, "--mode", "block", "-f", "jsonl", c.fixture)
			if code != 0 || strings.Contains(block, `"action":"kill"`) || !strings.Contains(block, `"action":"block"`) {
				t.Errorf("block mode: exit %d, kills or no 429s:\n%s", code, block)
			}
			one, _, _ := runCLI(t, "", "replay", "--profile", c.profile, "-f", "jsonl", "--workers", "1", c.fixture)
			four, _, _ := runCLI(t, "", "replay", "--profile", c.profile, "-f", "jsonl", "--workers", "4", c.fixture)
			if one != four || strings.Count(one, `"action":"kill"`) != len(c.killed) {
				t.Errorf("--workers 1 and 4 differ, or not %d kills:\n%s", len(c.killed), one)
			}
			html := filepath.Join(dir, c.profile+".html")
			if _, stderr, code := runCLI(t, "", "replay", "--profile", c.profile, "-f", "html", "-o", html, c.fixture); code != 0 {
				t.Fatalf("-f html: exit %d: %s", code, stderr)
			}
			if b, _ := os.ReadFile(html); !strings.HasPrefix(string(b), "<!DOCTYPE html>") {
				t.Errorf("-f html wrote %.40q", b)
			}
			if out, stderr, code := runCLI(t, "", "sweep", "--profile", c.profile, "-f", "json", c.fixture); code != 0 || !strings.Contains(out, `"profile": "`+c.profile+`"`) {
				t.Errorf("sweep: exit %d: %s\n%.300s", code, stderr, out)
			}
		})
	}
	if out, stderr, code := runCLI(t, "", "check", "fixtures/peers"); code != 0 {
		t.Errorf("check fixtures/peers: exit %d\n%s%s", code, out, stderr)
	}
}
