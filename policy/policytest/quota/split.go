package quota

// split.go is the quota's replay split into parts (policy.SplitReplayer):
// what a new policy writes to run on the Beam pipeline too. A part is the
// agents that hash to it (an agent's quota is its own); the merge joins
// their rows. The decision records are the parts' refusals; a replay
// without any writes {"refused": 0}, which only the merge knows.

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/policy"
)

// Split implements policy.SplitReplayer.
func (f *replayFlags) Split(settings string, data []byte) (policy.Splitter, error) {
	max := f.max
	if settings != "" {
		if err := settingsData(settings, data, &max); err != nil {
			return nil, err
		}
	}
	if max < 1 {
		return nil, fmt.Errorf("--max-per-minute %d: want 1 or more", max)
	}
	return splitter{max}, nil
}

type splitter struct{ max int }

func (s splitter) Profile() *analyze.Profile     { return analyze.ProfileUsage }
func (s splitter) Key(rec *ingest.Record) string { return rec.Agent }
func (s splitter) Trim(rec *ingest.Record)       { rec.Request, rec.Response = nil, nil }
func (s splitter) Ends(*ingest.Record) bool      { return false }
func (s splitter) StateExt() string              { return "" }

func (s splitter) NewPart() (policy.Part, error) { return part{New(s.max)}, nil }

type part struct{ pol *Policy }

func (p part) Policies() []analyze.Policy       { return []analyze.Policy{p.pol} }
func (p part) See(*ingest.Record, policy.Order) {}

func (p part) Finish(w io.Writer, seq func(int64) (int64, error), _ time.Time) ([]byte, error) {
	enc := json.NewEncoder(w)
	for _, r := range p.pol.refs {
		var err error
		if r.Seq, err = seq(r.Seq); err != nil {
			return nil, err
		}
		if err := enc.Encode(r); err != nil {
			return nil, err
		}
	}
	return json.Marshal(partResult{p.pol.Rows(), len(p.pol.refs)})
}

// partResult is a part's rows and refusals.
type partResult struct {
	Rows    []Row
	Refused int
}

func (s splitter) Merge(parts [][]byte, decisions, report, _ io.Writer) error {
	var rows []Row
	refused := 0
	for _, b := range parts {
		var p partResult
		if err := json.Unmarshal(b, &p); err != nil {
			return fmt.Errorf("quota part: %v", err)
		}
		rows, refused = append(rows, p.Rows...), refused+p.Refused
	}
	if refused == 0 {
		if err := writeNoRefusal(decisions); err != nil {
			return err
		}
	}
	slices.SortFunc(rows, func(a, b Row) int { return strings.Compare(a.Agent, b.Agent) })
	return writeJSON(report, s.max, rows)
}
