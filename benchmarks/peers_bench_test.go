package benchmarks

import (
	"testing"

	"github.com/killswitch/killswitch/analyze"
	_ "github.com/killswitch/killswitch/analyze/peers" // the peer profiles
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/internal/cputime"
	"github.com/killswitch/killswitch/internal/cputime/cputimetest"
)

// BenchmarkPeerReplay: the replay cost of each peer profile against
// spec's, on the same records, one goroutine: extraction and decision,
// record by record, as a one-worker replay does them. cpu-ns/op is the
// CPU time of a replay, which a shared machine disturbs less than wall time.
func BenchmarkPeerReplay(b *testing.B) {
	for _, in := range []struct {
		name string
		load func(*testing.B) ([]ingest.Record, int64)
	}{{"fixtures", fixtureRecords}, {"trajectories", trajectoryRecords}, {"chat", chatRecords}} {
		recs, size := in.load(b)
		for _, name := range []string{"spec", "gemini-cli", "openhands", "openhands-headless", "roo", "cline", "openclaw"} {
			p, err := analyze.ParseProfile(name)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(in.name+"/"+name, func(b *testing.B) {
				cfg := analyze.NewConfig()
				cfg.Profile, cfg.Default = p, p.Defaults
				b.SetBytes(size)
				b.ReportAllocs()
				cpu0, _ := cputime.Used()
				for b.Loop() {
					e, err := analyze.NewEngine(cfg)
					if err != nil {
						b.Fatal(err)
					}
					x := analyze.NewExtractor(p)
					for i := range recs {
						f := x.Extract(&recs[i])
						e.Step(&recs[i], &f)
					}
				}
				cputimetest.Report(b, cpu0, size)
				reportRecords(b, len(recs))
			})
		}
	}
}
