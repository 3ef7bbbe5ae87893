package sweep_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/sweep"
	"github.com/killswitch/killswitch/ingest"
)

// The metamorphic test: every setting of a sweep must equal a replay at
// that setting (analyze.Replay, the engine every command uses). The
// captures are random and deliberately hostile: loops of every kind,
// near-duplicate prompts, requests that cannot be scored, operator
// activations and deactivations, live kills, config records that change
// an agent's window, threshold or enabled flag mid-stream, in both
// profiles and both modes, with and without --reactivate-after.

var metaWords = strings.Fields(`alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima
mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu report invoice
refund export deploy ticket ledger shipment cluster pipeline`)

func metaText(rng *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = metaWords[rng.IntN(len(metaWords))]
	}
	return strings.Join(w, " ")
}

// randomCapture returns n JSONL lines of random traffic from 7 agents;
// agent j repeats itself with probability j/7.
func randomCapture(seed uint64, n int, controls bool) []byte {
	rng := rand.New(rand.NewPCG(seed, 99))
	t0 := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	const agents = 7
	fixedPrompts := make([][2]string, agents)
	fixedAnswers := make([][2]string, agents)
	for a := range agents {
		fixedPrompts[a] = [2]string{metaText(rng, 10), metaText(rng, 10)}
		fixedAnswers[a] = [2]string{metaText(rng, 8), metaText(rng, 8)}
	}
	var buf bytes.Buffer
	emit := func(m map[string]any) {
		b, _ := json.Marshal(m)
		buf.Write(b)
		buf.WriteByte('\n')
	}
	for i := 0; i < n; i++ {
		ts := t0.Add(time.Duration(i) * 7 * time.Second).Format(time.RFC3339)
		a := rng.IntN(agents)
		agent := fmt.Sprintf("agent-%d", a)
		r := rng.IntN(100)
		if controls {
			switch {
			case r < 2:
				emit(map[string]any{"ts": ts, "agent": agent, "event": "activate"})
				continue
			case r < 3:
				emit(map[string]any{"ts": ts, "agent": agent, "event": "deactivate"})
				continue
			case r < 4:
				emit(map[string]any{"ts": ts, "agent": agent, "event": "deactivate", "by": "kill_switch"})
				continue
			case r < 12 && a == 6: // only agent-6 changes settings
				ks := []map[string]any{{"window_size": 1 + rng.IntN(6)}, {"threshold": float64(rng.IntN(12)) / 2}, {"enabled": rng.IntN(2) == 0}}[rng.IntN(3)]
				emit(map[string]any{"ts": ts, "agent": agent, "event": "config", "kill_switch": ks})
				continue
			}
		}
		rec := map[string]any{"ts": ts, "agent": agent}
		if r >= 96 {
			rec["request"] = "not a JSON body"
			emit(rec)
			continue
		}
		prompt := metaText(rng, 10)
		switch p := rng.IntN(agents); {
		case p < a:
			prompt = fixedPrompts[a][rng.IntN(2)]
		case p == a:
			prompt = fmt.Sprintf("please refund order #%d for %s", rng.IntN(100000), fixedPrompts[a][0])
		}
		answer := metaText(rng, 8)
		if rng.IntN(agents) < a {
			answer = fixedAnswers[a][rng.IntN(2)]
		}
		msgs := []any{map[string]any{"role": "user", "content": prompt}}
		var tools []any
		if k := rng.IntN(4); k > 0 {
			id := fmt.Sprintf("c%d", i)
			msgs = append(msgs, map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": id, "type": "function",
				"function": map[string]any{"name": "lookup", "arguments": fmt.Sprintf(`{"q":"%s"}`, metaWords[k])}}}},
				map[string]any{"role": "tool", "tool_call_id": id, "content": "ok"})
			tools = []any{map[string]any{"type": "function", "function": map[string]any{"name": "lookup"}}}
		}
		req := map[string]any{"model": "m", "messages": msgs}
		if tools != nil && rng.IntN(2) == 0 {
			req["tools"] = tools
		}
		rec["request"] = req
		if rng.IntN(10) > 0 {
			rec["response"] = map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": answer}}},
				"usage": map[string]any{"prompt_tokens": 10 + rng.IntN(90), "completion_tokens": rng.IntN(50)}}
		}
		if rng.IntN(4) > 0 {
			rec["tokens_in"], rec["tokens_out"] = rng.IntN(1000), rng.IntN(300)
		}
		if rng.IntN(3) > 0 {
			rec["cost_usd"] = float64(rng.IntN(10000)) / 1e6
		}
		if a < 3 {
			rec["label"] = []string{"loop", "legit"}[rng.IntN(2)]
		}
		emit(rec)
	}
	return buf.Bytes()
}

// checkAgainstReplay: every setting of res equals a replay there; the
// outcomes' kills (every one when all, else the first) are the replay's.
func checkAgainstReplay(t *testing.T, data []byte, cfg sweep.Config, res *sweep.Result, all bool) {
	t.Helper()
	for si := range res.Settings {
		s := &res.Settings[si]
		rc := cfg.SettingConfig(s.Window, s.Threshold)
		sum, err := analyze.Replay(ingest.NewJSONL(bytes.NewReader(data), "m.jsonl", ingest.JSONLOptions{}), rc, 1, analyze.Hooks{})
		if err != nil {
			t.Fatal(err)
		}
		at := fmt.Sprintf("w%d t%v", s.Window, s.Threshold)
		if s.AgentsKilled != sum.Totals.AgentsKilled || s.Refused != sum.Totals.Saved {
			t.Errorf("%s: killed %d refused %+v; replay %d %+v", at, s.AgentsKilled, s.Refused, sum.Totals.AgentsKilled, sum.Totals.Saved)
		}
		for _, a := range sum.Agents {
			o := s.Outcome(a.Agent)
			if len(a.Kills()) == 0 && a.Saved().Requests == 0 {
				if o != nil {
					t.Errorf("%s %s: sweep %+v, replay left it alone", at, a.Agent, o)
				}
				continue
			}
			if o == nil {
				t.Errorf("%s %s: sweep left it alone, replay killed %d, refused %d", at, a.Agent, len(a.Kills()), a.Saved().Requests)
				continue
			}
			kept := min(len(a.Kills()), 1)
			if all {
				kept = len(a.Kills())
			}
			if o.Blocked != a.Blocked() || o.Blocks != a.Blocks() || o.Saved != a.Saved() || o.KillCount != len(a.Kills()) || len(o.Kills) != kept {
				t.Errorf("%s %s: blocked %d blocks %d saved %+v kills %d (%d kept); replay %d %d %+v %d", at, a.Agent,
					o.Blocked, o.Blocks, o.Saved, o.KillCount, len(o.Kills), a.Blocked(), a.Blocks(), a.Saved(), len(a.Kills()))
				continue
			}
			for i, k := range a.Kills()[:kept] {
				k.Alert = analyze.Alert{}
				g := o.Kills[i]
				if !g.TS.Equal(k.TS) {
					t.Errorf("%s %s kill %d: at %v, replay %v", at, a.Agent, i, g.TS, k.TS)
				}
				g.TS = k.TS
				if g != k {
					t.Errorf("%s %s kill %d:\n sweep  %+v\n replay %+v", at, a.Agent, i, g, k)
				}
			}
		}
	}
}

func TestSweepEqualsReplay(t *testing.T) {
	windows := []int{1, 2, 5, 12}
	thresholds := []float64{0, 1, 2.5, 4.5, 10}
	for _, tt := range []struct {
		profile    *analyze.Profile
		mode       analyze.Mode
		reactivate time.Duration
		controls   bool
	}{
		{analyze.ProfileSpec, analyze.ModeDeactivate, 0, false},
		{analyze.ProfileSpec, analyze.ModeDeactivate, 0, true},
		{analyze.ProfileAgentGazer, analyze.ModeDeactivate, 0, true},
		{analyze.ProfileSpec, analyze.ModeBlock, 0, true},
		{analyze.ProfileAgentGazer, analyze.ModeBlock, 0, false},
		{analyze.ProfileSpec, analyze.ModeDeactivate, 90 * time.Second, true},
		{analyze.ProfileAgentGazer, analyze.ModeDeactivate, 90 * time.Second, true},
	} {
		name := fmt.Sprintf("%s/%s/reactivate=%v/controls=%v", tt.profile, tt.mode, tt.reactivate, tt.controls)
		t.Run(name, func(t *testing.T) {
			data := randomCapture(uint64(len(name)), 400, tt.controls)
			cfg := sweep.Config{Profile: tt.profile, Mode: tt.mode, Windows: windows, Thresholds: thresholds,
				ReactivateAfter: tt.reactivate, RetryAfter: time.Minute, LateAfter: 10}
			res := sweepBytes(t, "m.jsonl", data, cfg)
			checkAgainstReplay(t, data, cfg, res, false)
			// Every kill, not only the first, is the replay's; and
			// keeping them changes nothing else.
			restore := sweep.KeepAllKills()
			all := sweepBytes(t, "m.jsonl", data, cfg)
			restore()
			checkAgainstReplay(t, data, cfg, all, true)
			for si := range all.Settings {
				for oi := range all.Settings[si].Agents {
					o := &all.Settings[si].Agents[oi]
					o.Kills = o.Kills[:min(len(o.Kills), 1)]
				}
			}
			if !reflect.DeepEqual(all, res) {
				t.Error("keeping every kill changes more than the outcomes' kill lists")
			}
			kills := 0
			for _, s := range res.Settings {
				kills += s.AgentsKilled
			}
			if kills == 0 {
				t.Fatal("no kill anywhere: the capture tests nothing")
			}
			t.Logf("%d kills over %d settings, %d (agent, setting) pairs replayed exactly", kills, len(res.Settings), res.Exact)
		})
	}
}

// TestSweepParallelCollect: collecting on several goroutines changes
// nothing.
func TestSweepParallelCollect(t *testing.T) {
	data := randomCapture(7, 600, true)
	cfg := sweep.Config{Windows: []int{3, 20}, Thresholds: []float64{2, 5, 10}, LateAfter: 10, Series: true}
	var results []*sweep.Result
	for _, workers := range []int{1, 3} {
		res, err := sweep.Run(ingest.NewJSONL(bytes.NewReader(data), "m.jsonl", ingest.JSONLOptions{}), cfg, workers, nil)
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, res)
	}
	if !reflect.DeepEqual(results[0], results[1]) {
		t.Error("results differ between 1 and 3 workers")
	}
	if len(results[0].Series) == 0 {
		t.Error("no series")
	}
}
