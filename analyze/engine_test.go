package analyze_test

import (
	"fmt"
	"github.com/killswitch/killswitch/analyze"
	. "github.com/killswitch/killswitch/analyze/analyzetest"
	"strings"
	"testing"
	"time"

	"github.com/killswitch/killswitch/ingest"
)

// These tests drive the Engine with hand-made features, so that the window,
// score and enforcement rules are checked independently of extraction and
// hashing. Expected kill points are derived by hand from SPEC §1.5 in the
// comments.

func cfgFor(p *analyze.Profile) analyze.Config {
	c := analyze.NewConfig()
	c.Profile = p
	return c
}

func TestScenarios(t *testing.T) {
	const sig = "lookup{path:/tmp}"
	tests := []struct {
		name    string
		profile *analyze.Profile
		build   func(b *Builder)
		want    int // agent request of the first kill; 0 = never
	}{
		// Spec: request k sees k−1 past entries: k−1 similar prompts and
		// k−2 similar responses → 3k−5 > 10 ⇒ k = 6.
		{"identical/spec", analyze.ProfileSpec, func(b *Builder) { b.Repeat(12, "a", 1, 2, "") }, 6},
		// AgentGazer: same counts (k ≤ 20), but ≥ ⇒ 3k−5 ≥ 10 ⇒ k = 5.
		{"identical/agentgazer", analyze.ProfileAgentGazer, func(b *Builder) { b.Repeat(12, "a", 1, 2, "") }, 5},
		// Prompt only: k−1 > 10 ⇒ k = 12; AgentGazer k−1 ≥ 10 ⇒ k = 11.
		{"prompt-only/spec", analyze.ProfileSpec, func(b *Builder) {
			for i := 0; i < 20; i++ {
				b.Req("a", 1, Distinct(i), "")
			}
		}, 12},
		{"prompt-only/agentgazer", analyze.ProfileAgentGazer, func(b *Builder) {
			for i := 0; i < 20; i++ {
				b.Req("a", 1, Distinct(i), "")
			}
		}, 11},
		// Tool calls only: 1.5(k−1) > 10 ⇒ k−1 ≥ 7 ⇒ k = 8 (and ≥ gives the same).
		{"tool-only/spec", analyze.ProfileSpec, func(b *Builder) {
			for i := 0; i < 20; i++ {
				b.Req("a", Distinct(i), Distinct(100+i), sig)
			}
		}, 8},
		{"tool-only/agentgazer", analyze.ProfileAgentGazer, func(b *Builder) {
			for i := 0; i < 20; i++ {
				b.Req("a", Distinct(i), Distinct(100+i), sig)
			}
		}, 8},
		// Responses only: k−2 similar responses ×2 > 10 ⇒ k−2 ≥ 6 ⇒ k = 8.
		{"response-only/spec", analyze.ProfileSpec, func(b *Builder) {
			for i := 0; i < 20; i++ {
				b.Req("a", Distinct(i), 7, "")
			}
		}, 8},
		// Hashes within distance 2 count as similar; 3 does not.
		{"near-prompts/spec", analyze.ProfileSpec, func(b *Builder) {
			for i := 0; i < 20; i++ {
				b.Req("a", 0xff00^uint64(i%4), Distinct(i), "") // distance ≤ 2 between any two
			}
		}, 12},
		{"far-prompts/spec", analyze.ProfileSpec, func(b *Builder) {
			for i := 0; i < 20; i++ {
				b.Req("a", []uint64{0, 7, 7 << 3, 7 << 6}[i%4], Distinct(i), "") // pairwise distance 3 or 6
			}
		}, 0},
		// Disabled: never fires.
		{"disabled/spec", analyze.ProfileSpec, func(b *Builder) {
			f := false
			b.Control("a", ingest.ControlConfig, ingest.KillSwitchPatch{Enabled: &f})
			b.Repeat(30, "a", 1, 2, "")
		}, 0},
		// Window 3 caps the score at 3 + 2×2 = 7.
		{"window-cap/spec", analyze.ProfileSpec, func(b *Builder) {
			w := 3
			b.Control("a", ingest.ControlConfig, ingest.KillSwitchPatch{WindowSize: &w})
			b.Repeat(30, "a", 1, 2, "")
		}, 0},
		// Threshold 6 with window 3: score at k=4 is 3+2×2 = 7 > 6.
		{"window-cap-low-threshold/spec", analyze.ProfileSpec, func(b *Builder) {
			w, th := 3, 6.0
			b.Control("a", ingest.ControlConfig, ingest.KillSwitchPatch{WindowSize: &w, Threshold: &th})
			b.Repeat(30, "a", 1, 2, "")
		}, 4},
		// Requests without a prompt never count as similar prompts.
		{"no-prompt/spec", analyze.ProfileSpec, func(b *Builder) {
			for i := 0; i < 30; i++ {
				b.Req("a", 0, Distinct(i), "")
				b.Steps[len(b.Steps)-1].Feat.HasPrompt = false
			}
		}, 0},
		// Agents are independent: interleaving two loops changes nothing.
		{"interleaved/spec", analyze.ProfileSpec, func(b *Builder) {
			for i := 0; i < 10; i++ {
				b.Req("a", 1, 2, "")
				b.Req("b", 3, 4, "")
			}
		}, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &Builder{}
			tt.build(b)
			ds, _, _ := Replay(t, cfgFor(tt.profile), b)
			if got := FirstKill(ds, "a"); got != tt.want {
				t.Errorf("first kill at request %d, want %d", got, tt.want)
				for _, d := range ds {
					t.Logf("%d %s score %.1f %+v", d.AgentN, d.Action, d.Score, d.Counts)
				}
			}
		})
	}
}

func TestKillThenBlocked(t *testing.T) {
	b := (&Builder{}).Repeat(9, "a", 1, 2, "")
	ds, trans, sum := Replay(t, analyze.NewConfig(), b)
	want := []analyze.Action{analyze.ActionForward, analyze.ActionForward, analyze.ActionForward, analyze.ActionForward, analyze.ActionForward, analyze.ActionKill, analyze.ActionBlocked, analyze.ActionBlocked, analyze.ActionBlocked}
	for i, d := range ds {
		if d.Action != want[i] {
			t.Errorf("request %d: %s, want %s", i+1, d.Action, want[i])
		}
	}
	// Score at the kill: 5 similar prompts + 4 similar responses = 13.
	if k := ds[5]; k.Score != 13 || k.SimilarPrompts != 5 || k.SimilarResponses != 4 || k.HasResponse {
		t.Errorf("kill decision %+v", k)
	}
	if !strings.Contains(ds[7].Reason, "deactivated by kill_switch at seq 6") {
		t.Errorf("blocked reason %q", ds[7].Reason)
	}
	if len(trans) != 1 || trans[0].Kind != analyze.TransitionKill || trans[0].Seq != 6 {
		t.Errorf("transitions %+v", trans)
	}
	a := sum.Agents[0]
	if a.Blocked() != 3 || len(a.Kills()) != 1 || a.Saved().Requests != 4 || a.FinalState() != analyze.StateInactive || a.FinalDeactivatedBy() != "kill_switch" {
		t.Errorf("summary %+v", a)
	}
	wantMsg := "Kill switch triggered for agent \"a\"\nLoop score: 13.0 (threshold: 10)\nDetails: 5 similar prompts, 4 similar responses, 0 repeated tool calls\nWindow size: 20"
	if a.Kills()[0].Alert.Message != wantMsg {
		t.Errorf("alert message\n%s\nwant\n%s", a.Kills()[0].Alert.Message, wantMsg)
	}
}

func TestReactivationClearsWindow(t *testing.T) {
	b := (&Builder{}).Repeat(8, "a", 1, 2, "")
	b.Control("a", ingest.ControlActivate, ingest.KillSwitchPatch{})
	b.Repeat(8, "a", 1, 2, "")
	ds, trans, _ := Replay(t, analyze.NewConfig(), b)
	var kills []int
	for _, d := range ds {
		if d.Action == analyze.ActionKill {
			kills = append(kills, d.AgentN)
		}
	}
	// Killed at 6; 7–8 blocked; after activation the window is empty, so
	// the 6th request after it (agent request 14) is killed again.
	if len(kills) != 2 || kills[0] != 6 || kills[1] != 14 {
		t.Errorf("kills at %v, want [6 14]", kills)
	}
	if len(trans) != 3 || trans[1].Kind != analyze.TransitionActivate || trans[1].By != "operator" {
		t.Errorf("transitions %+v", trans)
	}
}

func TestReactivateAfter(t *testing.T) {
	cfg := analyze.NewConfig()
	cfg.ReactivateAfter = 3 * time.Second // requests are 1 s apart
	b := (&Builder{}).Repeat(16, "a", 1, 2, "")
	ds, trans, _ := Replay(t, cfg, b)
	// Kill at request 6 (t=6s); blocked at 7, 8; at t=9s ≥ 6+3 it is
	// re-activated before request 9 is scored: 9..14 are requests 1..6 of
	// a fresh window, so request 14 is killed; 15, 16 blocked.
	got := ""
	for _, d := range ds {
		got += d.Action.String()[:1]
	}
	if want := "fffffkbbfffffkbb"; got != want {
		t.Errorf("actions %s, want %s", got, want)
	}
	if trans[1].Kind != analyze.TransitionActivate || !trans[1].TS.Equal(T0.Add(9*time.Second)) || trans[1].By != "reactivate-after" {
		t.Errorf("reactivation %+v", trans[1])
	}
}

func TestBlockMode(t *testing.T) {
	cfg := analyze.NewConfig()
	cfg.Mode = analyze.ModeBlock
	b := (&Builder{}).Repeat(30, "a", 1, 2, "")
	ds, trans, sum := Replay(t, cfg, b)
	// Request 6 is blocked (429) like the kill; the agent stays active, the
	// blocked requests enter the window without a response, so the prompt
	// count alone keeps every later request above 10 (k−1 ≥ 10 from k=11;
	// before that responses from requests 1–5 still count).
	for _, d := range ds[5:] {
		if d.Action != analyze.ActionBlock || d.Status != 429 {
			t.Fatalf("request %d: %s (%d), want block 429; score %.1f", d.AgentN, d.Action, d.Status, d.Score)
		}
	}
	if len(trans) != 0 {
		t.Errorf("block mode changed state: %+v", trans)
	}
	if a := sum.Agents[0]; a.FinalState() != analyze.StateActive || a.Blocks() != 25 {
		t.Errorf("summary %+v", a)
	}
	if !strings.Contains(ds[5].Reason, "retry after 60 s") {
		t.Errorf("reason %q", ds[5].Reason)
	}
}

func TestManualDeactivation(t *testing.T) {
	b := (&Builder{}).Req("a", 1, 2, "")
	b.Control("a", ingest.ControlDeactivate, ingest.KillSwitchPatch{})
	b.Req("a", Distinct(1), Distinct(2), "")
	ds, trans, sum := Replay(t, analyze.NewConfig(), b)
	if ds[1].Action != analyze.ActionBlocked || ds[1].Reason != "agent inactive: deactivated by manual" {
		t.Errorf("after manual deactivation: %s %q", ds[1].Action, ds[1].Reason)
	}
	if trans[0].Kind != analyze.TransitionDeactivate || trans[0].By != "manual" {
		t.Errorf("transition %+v", trans[0])
	}
	if a := sum.Agents[0]; len(a.Kills()) != 0 || a.FinalDeactivatedBy() != "manual" {
		t.Errorf("summary %+v", a)
	}
}

func TestOutOfOrderWarns(t *testing.T) {
	b := (&Builder{}).Repeat(3, "a", 1, 2, "")
	b.Steps[2].Rec.TS = T0 // before the first two
	_, _, sum := Replay(t, analyze.NewConfig(), b)
	if len(sum.Warnings) != 1 || !strings.Contains(sum.Warnings[0].String(), "t.jsonl:3: out of time order") {
		t.Errorf("warnings %v", sum.Warnings)
	}
}

func TestMalformedAndSkippedAreCounted(t *testing.T) {
	b := (&Builder{}).Req("a", 1, 2, "")
	bad := &ingest.Record{Pos: ingest.Pos{File: "t.jsonl", N: 9}, Err: ingest.Errorf(ingest.Pos{File: "t.jsonl", N: 9}, "broken")}
	skip := &ingest.Record{Pos: ingest.Pos{File: "t.har", Kind: ingest.PosEntry, N: 2}, Skip: "not an LLM call: GET /v1/models"}
	b.Steps = append(b.Steps, Step{Rec: bad}, Step{Rec: skip}, Step{Rec: skip})
	_, _, sum := Replay(t, analyze.NewConfig(), b)
	if sum.Malformed != 1 || len(sum.Skips) != 1 || sum.Skips[0].Count != 2 {
		t.Errorf("malformed %d, skips %+v", sum.Malformed, sum.Skips)
	}
}

func TestWindowMostRecentResponse(t *testing.T) {
	w := analyze.NewWindow(5)
	for _, r := range []uint64{0xA, 0xA, 0xF0F0F0} {
		w.Push(analyze.Entry{Response: r, HasResp: true})
	}
	// The newest response (0xF0F0F0) is the reference: no other is near it.
	if c := w.Count(&analyze.Entry{}, 5); c.SimilarResponses != 0 {
		t.Errorf("similar responses %d, want 0", c.SimilarResponses)
	}
	w.Push(analyze.Entry{Response: 0xA, HasResp: true})
	// Now 0xA is newest: the two older 0xA entries count, 0xF0F0F0 does not.
	if c := w.Count(&analyze.Entry{}, 5); c.SimilarResponses != 2 {
		t.Errorf("similar responses %d, want 2", c.SimilarResponses)
	}
	// Only the last 1 entry: the reference alone, nothing to compare.
	if c := w.Count(&analyze.Entry{}, 1); c.SimilarResponses != 0 {
		t.Errorf("k=1: similar responses %d, want 0", c.SimilarResponses)
	}
}

func TestWindowFIFOAndResize(t *testing.T) {
	w := analyze.NewWindow(3)
	for i := 1; i <= 5; i++ {
		w.Push(analyze.Entry{Prompt: uint64(i), HasPrompt: true})
	}
	if w.Len() != 3 || w.At(0).Prompt != 3 || w.Newest().Prompt != 5 {
		t.Fatalf("after 5 pushes: len %d, oldest %d, newest %d", w.Len(), w.At(0).Prompt, w.Newest().Prompt)
	}
	w.Resize(2)
	if w.Len() != 2 || w.At(0).Prompt != 4 || w.Newest().Prompt != 5 {
		t.Fatalf("after shrink: len %d, oldest %d", w.Len(), w.At(0).Prompt)
	}
	w.Resize(4)
	w.Push(analyze.Entry{Prompt: 6, HasPrompt: true})
	if w.Len() != 3 || w.At(0).Prompt != 4 || w.Newest().Prompt != 6 {
		t.Fatalf("after grow: len %d, oldest %d", w.Len(), w.At(0).Prompt)
	}
}

// A capture grouped by agent, each agent in time order, is in order: only
// an agent going back in time warns.
func TestOutOfOrderIsPerAgent(t *testing.T) {
	b := (&Builder{}).Repeat(3, "late", 1, 2, "")
	early := (&Builder{}).Repeat(3, "early", 3, 4, "")
	for i := range early.Steps {
		early.Steps[i].Rec.TS = T0.Add(-time.Hour + time.Duration(i)*time.Second)
		b.Steps = append(b.Steps, early.Steps[i])
	}
	_, _, sum := Replay(t, analyze.NewConfig(), b)
	if len(sum.Warnings) != 0 || sum.WarningTotal() != 0 {
		t.Errorf("warnings %v", sum.Warnings)
	}
}

// A reversed capture warns at every record but keeps (and reports) only
// the first KeptWarnings; the rest are counted.
func TestOutOfOrderWarningsAreBounded(t *testing.T) {
	const n = 100
	b := (&Builder{}).Repeat(n, "a", 1, 2, "")
	for i := range b.Steps {
		b.Steps[i].Rec.TS = T0.Add(time.Duration(n-i) * time.Second)
	}
	_, _, sum := Replay(t, analyze.NewConfig(), b)
	if len(sum.Warnings) != analyze.KeptWarnings {
		t.Errorf("kept %d warnings, want %d", len(sum.Warnings), analyze.KeptWarnings)
	}
	want := []analyze.WarningCount{{analyze.WarnOutOfOrder, n - 1}}
	if fmt.Sprint(sum.WarningCounts) != fmt.Sprint(want) {
		t.Errorf("counts %v, want %v", sum.WarningCounts, want)
	}
}

// TestToolAgentKills: spec kills a tool-using agent whose last user
// message (its task) never changes while its tool calls do: the summary
// counts that kill, so that the report can name --profile progress; a
// loop without tool calls is not counted, and the progress profile, which
// has no hint, counts nothing.
func TestToolAgentKills(t *testing.T) {
	b := &Builder{}
	for i := range 12 {
		// Prompt 1 every time, new answers, new tool calls: at request
		// k the score is k−1 similar prompts; > 10 at k = 12.
		b.Req("tools", 1, uint64(100+i), fmt.Sprintf("read_file(f%d)", i))
	}
	b.Repeat(6, "text", 2, 3, "") // 5 + 2×4 = 13 > 10 at request 6
	ds, _, sum := Replay(t, analyze.NewConfig(), b)
	kills := 0
	for _, d := range ds {
		if d.Action == analyze.ActionKill {
			kills++
		}
	}
	if kills != 2 || sum.ToolAgentKills != 1 {
		t.Errorf("%d kills, %d tool-agent kills; want 2 and 1", kills, sum.ToolAgentKills)
	}
	if h := analyze.ProfileProgress.ToolAgentProfile(); h != "" {
		t.Errorf("progress suggests %q", h)
	}
}
