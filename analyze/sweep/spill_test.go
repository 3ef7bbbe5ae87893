package sweep_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/sweep"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/report"
)

// memStore is a SpillStore in memory. failAfter > 0 makes an Append that
// would pass that many bytes fail (a full disk); corrupt flips the bytes
// read back after the first 20 bytes of each read (a segment's own header):
// the chain of segments holds, their contents do not.
type memStore struct {
	data      []byte
	appends   int
	failAfter int
	corrupt   bool
}

func (m *memStore) Append(p []byte) (int64, error) {
	if m.failAfter > 0 && len(m.data)+len(p) > m.failAfter {
		return 0, errors.New("no space left on device")
	}
	m.appends++
	off := int64(len(m.data))
	m.data = append(m.data, p...)
	return off, nil
}

func (m *memStore) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > int64(len(m.data)) {
		return 0, io.EOF
	}
	n := copy(p, m.data[off:])
	if m.corrupt {
		for i := min(n, 20); i < n; i++ {
			p[i] ^= 0xff
		}
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// sweepReports renders res in every sweep output format.
func sweepReports(t *testing.T, res *sweep.Result) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for name, fn := range map[string]func(io.Writer, *sweep.Result) error{
		"table": func(w io.Writer, r *sweep.Result) error {
			return report.SweepTableOpts(w, r, report.SweepTableOptions{All: true})
		},
		"json": report.SweepJSON, "csv": report.SweepCSV, "markdown": report.SweepMarkdown, "html": report.SweepHTML,
	} {
		var b bytes.Buffer
		if err := fn(&b, res); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = b.Bytes()
	}
	return out
}

func collectSweep(t *testing.T, data []byte, cfg sweep.Config, workers int, spill sweep.Spill) (*sweep.Result, error) {
	t.Helper()
	tr, err := sweep.Collect(ingest.NewJSONL(bytes.NewReader(data), "m.jsonl", ingest.JSONLOptions{}), cfg.Profile, workers, nil, spill)
	if err != nil {
		return nil, err
	}
	return tr.Sweep(cfg)
}

// TestSweepSpillIdentical: a sweep that spills its packed requests (a
// budget so small that every agent's requests lie in many segments) gives
// the result and every output format of one that keeps them in memory, at
// any number of workers, for every profile and mode, with control records
// (exact replays, simulations) and the HTML charts (read back again).
func TestSweepSpillIdentical(t *testing.T) {
	captures := map[string][]byte{
		"random":   randomCapture(11, 900, true),
		"labelled": readFixture(t, "labelled.jsonl"),
		"live":     readFixture(t, "live.jsonl"),
	}
	for _, tt := range []struct {
		profile    *analyze.Profile
		mode       analyze.Mode
		reactivate time.Duration
	}{
		{analyze.ProfileSpec, analyze.ModeDeactivate, 0},
		{analyze.ProfileSpec, analyze.ModeBlock, 0},
		{analyze.ProfileAgentGazer, analyze.ModeDeactivate, 90 * time.Second},
		{analyze.ProfileProgress, analyze.ModeDeactivate, 0},
	} {
		for name, data := range captures {
			t.Run(fmt.Sprintf("%s/%s/%s/%v", name, tt.profile, tt.mode, tt.reactivate), func(t *testing.T) {
				cfg := sweepConfig()
				cfg.Profile, cfg.Mode, cfg.ReactivateAfter, cfg.Series = tt.profile, tt.mode, tt.reactivate, true
				cfg.Windows = []int{2, 5, 10}
				want, err := collectSweep(t, data, cfg, 1, sweep.Spill{})
				if err != nil {
					t.Fatal(err)
				}
				wantOut := sweepReports(t, want)
				for _, budget := range []int64{0, 1, 300, 4096} {
					for _, workers := range []int{1, 3} {
						st := &memStore{}
						got, err := collectSweep(t, data, cfg, workers, sweep.Spill{Store: st, Budget: budget})
						if err != nil {
							t.Fatal(err)
						}
						// At a budget of a byte or none, every agent
						// spilled several segments; at 300, some did.
						if (budget <= 1 && st.appends < 3*want.Input.Agents) || (budget == 300 && st.appends == 0) {
							t.Errorf("budget %d: %d appends for %d agents: hardly spilled", budget, st.appends, want.Input.Agents)
						}
						if !reflect.DeepEqual(got, want) {
							t.Fatalf("budget %d, %d workers: the result differs from the unspilled one", budget, workers)
						}
						for format, b := range sweepReports(t, got) {
							if !bytes.Equal(b, wantOut[format]) {
								t.Errorf("budget %d, %d workers: -f %s differs from the unspilled output", budget, workers, format)
							}
						}
					}
				}
			})
		}
	}
}

// TestSweepSpillErrors: a store that fails to write stops the collection
// with its error; one that gives back other bytes than it was given, or
// fewer, stops the sweep with a message naming the agent.
func TestSweepSpillErrors(t *testing.T) {
	data := randomCapture(5, 400, true)
	cfg := sweepConfig()
	_, err := collectSweep(t, data, cfg, 2, sweep.Spill{Store: &memStore{failAfter: 2000}, Budget: 1})
	if err == nil || !strings.Contains(err.Error(), "spilling packed requests: no space left on device") {
		t.Errorf("full store: %v", err)
	}
	_, err = collectSweep(t, data, cfg, 1, sweep.Spill{Store: &memStore{corrupt: true}, Budget: 1})
	if err == nil || !strings.Contains(err.Error(), `reading back the spilled requests of agent "agent-0": the bytes read are not those written (checksum)`) {
		t.Errorf("corrupt store: %v", err)
	}
	st := &memStore{}
	tr, err := sweep.Collect(ingest.NewJSONL(bytes.NewReader(data), "m.jsonl", ingest.JSONLOptions{}), cfg.Profile, 1, nil, sweep.Spill{Store: st, Budget: 1})
	if err != nil {
		t.Fatal(err)
	}
	st.data = st.data[:len(st.data)/2] // the file was cut short
	if _, err := tr.Sweep(cfg); err == nil || !strings.Contains(err.Error(), "reading back the spilled requests of agent") || !strings.Contains(err.Error(), "EOF") {
		t.Errorf("short store: %v", err)
	}
}
