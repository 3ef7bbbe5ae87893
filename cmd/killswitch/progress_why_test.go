package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestKillsSayWhy: a profile that explains its score (progress, the peer
// profiles) has that explanation under each alert of the text report and
// as "why" of each kill in -f json, the same words as the decision
// record's reason ends with. churner-3 of fixtures/progress/loop-arg-churn
// (fixtures/progress/README.md) greps five times with different arguments
// and gets the same error: progress kills it at its 7th request by churn.
func TestKillsSayWhy(t *testing.T) {
	const file = "fixtures/progress/loop-arg-churn.jsonl"
	const why = "requests 3, 4, 5, 6 and 7 ran different actions (grep the last) and got the same error, which names none of them: the action changes nothing"
	out, errs, code := runCLI(t, "", "replay", "--profile", "progress", file)
	if code != exitOK || !strings.Contains(out, "Kill switch triggered for agent \"churner-3\"\n  Loop score: 4.0 (threshold: 4)\n  Details: 0 similar prompts, 0 similar responses, 4 repeated tool calls\n  Window size: 20\n  why: "+why+"\n") {
		t.Errorf("exit %d: text report lacks the why line:\n%s%s", code, out, errs)
	}
	out, errs, _ = runCLI(t, "", "replay", "--profile", "progress", "-f", "json", file)
	var doc struct {
		Agents []struct {
			Agent string
			Kills []struct{ Why string }
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	found := false
	for _, a := range doc.Agents {
		if a.Agent == "churner-3" {
			found = len(a.Kills) == 1 && a.Kills[0].Why == why
		}
	}
	if !found {
		t.Errorf("-f json: churner-3's kill has no why %q:\n%s", why, out)
	}
	out, _, _ = runCLI(t, "", "replay", "--profile", "progress", "-f", "jsonl", file)
	if !strings.Contains(out, `"agent":"churner-3"`) || !strings.Contains(out, "agent deactivated: "+why+`"}`) {
		t.Errorf("-f jsonl: no reason ending with the why")
	}
	// spec explains nothing beyond its counts: no why line.
	out, _, _ = runCLI(t, "", "replay", file)
	if strings.Contains(out, "  why: ") {
		t.Errorf("spec's alerts have a why line:\n%s", out)
	}
}
