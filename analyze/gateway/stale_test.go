package gateway

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestAutoResolveOracle checks incident auto-resolution against its rule,
// stated over the whole stream rather than computed the way resolveStale
// does (a heap of lower bounds): before each record, every open incident
// whose last call is at least AutoResolveSec before that record's time is
// resolved, ending at its last call + AutoResolveSec; Finish does the same
// at the latest time. Random streams of many tenants, rate-limited so
// that most calls file incidents, with a share of records earlier than
// the one before them (an out-of-order capture moves a last call back).
func TestAutoResolveOracle(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 7))
		cfg := DefaultConfig(Spec)
		cfg.RPM = 1 + rng.IntN(3)
		cfg.AutoResolveSec = 30 + rng.Int64N(600)
		cfg.MaxIncidentsPerHour = 2 + rng.IntN(20)
		g, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var times []int64 // each record's time, in stream order
		sec := int64(1_000_000)
		for i := range 1500 {
			sec += int64(rng.IntN(8))
			ts := sec
			if rng.IntN(10) == 0 {
				ts -= int64(rng.IntN(900)) // out of order
			}
			tenant := fmt.Sprintf("t%d", rng.IntN(4))
			r := chat(ts, tenant, "k", hi)
			r.Pos.N = int64(i + 1) // the record's place in the stream
			times = append(times, ts)
			g.Step(r)
		}
		res := g.Finish()
		last := times[0]
		for _, ts := range times {
			last = max(last, ts)
		}
		after := int64(cfg.AutoResolveSec)
		if len(res.Incidents) < 20 {
			t.Fatalf("seed %d: only %d incidents: the stream does not exercise resolution", seed, len(res.Incidents))
		}
		for _, in := range res.Incidents {
			// updated(j): the incident's last call before record j (its
			// calls are in stream order).
			for k, c := range in.Calls {
				// Between this call and the next (or the end), the
				// incident stays open while every record's time is less
				// than AutoResolveSec past this call.
				upd := c.TS.Unix()
				end := len(times)
				if k+1 < len(in.Calls) {
					end = int(in.Calls[k+1].Source.N) // the next call's record (1-based): its step resolves first
				}
				resolvedAt := -1
				for j := int(c.Source.N); j < end; j++ { // records after this call (0-based j = record j+1)
					if times[j]-upd >= after {
						resolvedAt = j
						break
					}
				}
				if k+1 < len(in.Calls) {
					if j := int(in.Calls[k+1].Source.N) - 1; resolvedAt < 0 && times[j]-upd >= after {
						resolvedAt = j
					}
					if resolvedAt >= 0 {
						t.Fatalf("seed %d: incident %s should have resolved at record %d, before its call at record %d", seed, in.ID, resolvedAt+1, in.Calls[k+1].Source.N)
					}
					continue
				}
				stale := resolvedAt >= 0 || last-upd >= after
				switch {
				case stale && (in.Status != "resolved" || in.EndedAt.Unix() != upd+after || !in.UpdatedAt.Equal(c.TS)):
					t.Fatalf("seed %d: incident %s (last call %d, resolve after %d s) is %s, ended %v", seed, in.ID, upd, after, in.Status, in.EndedAt)
				case !stale && in.Status != "open":
					t.Fatalf("seed %d: incident %s (last call %d) resolved though no record came %d s after it", seed, in.ID, upd, after)
				}
			}
		}
	}
}
