package gateway

// split.go is the gateway's replay split into parts (policy.SplitReplayer,
// for cmd/killswitch-beam): a part is the tenants that hash to it (a
// tenant's freeze, rate window, budget and incidents are its own; its
// records carry the request bodies the guardrails read), each part is
// advanced to the whole replay's clock before each record (incidents
// resolve at any tenant's record) and finished at the capture's end, and
// the parts' results merge (gateway.Merge) into the decision records, the
// -f json report and the PostgreSQL state of one `killswitch replay
// --policy gateway`.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/gateway"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/policy"
	"github.com/killswitch/killswitch/store/postgres"
)

// Split implements policy.SplitReplayer.
func (f *replayFlags) Split(settings string, data []byte) (policy.Splitter, error) {
	prof, err := gateway.VariantByName(f.variant)
	if err != nil {
		return nil, fmt.Errorf("--policy gateway: --variant: %v", err)
	}
	cfg := gateway.DefaultConfig(prof)
	if settings != "" {
		if err := applySettingsData(&cfg, settings, data); err != nil {
			return nil, err
		}
	}
	if _, err := gateway.NewPolicy(cfg); err != nil {
		return nil, err
	}
	return splitter{cfg}, nil
}

type splitter struct{ cfg gateway.Config }

func (s splitter) Profile() *analyze.Profile     { return analyze.ProfileUsage }
func (s splitter) Key(rec *ingest.Record) string { return gateway.TenantOf(rec) }
func (s splitter) Ends(*ingest.Record) bool      { return true } // every record's time moves the gateway's clock
func (s splitter) StateExt() string              { return ".sql" }

// Trim keeps the request body (the guardrails, the call's row) and drops
// the response, which the gateway never reads.
func (s splitter) Trim(rec *ingest.Record) { rec.Response = nil }

func (s splitter) NewPart() (policy.Part, error) {
	pol, err := gateway.NewPolicy(s.cfg)
	if err != nil {
		return nil, err
	}
	return &part{pol: pol}, nil
}

// part is one part's gateway, and where the freezes and warnings it
// logged belong in the whole replay.
type part struct {
	pol                 *gateway.Policy
	at                  policy.Order // the record being replayed
	seen                bool
	freezeAt, warningAt []policy.Order
}

// partResult is a part's result as it crosses to the merge: the result
// (its sequence numbers the whole replay's), where its freezes and
// warnings were logged, and its logged calls (for their proxy_calls rows,
// in replay order). It is JSON, then a newline, then the calls' request
// bodies one after the other (BodyLens long each): bodies as they are,
// not in base64.
type partResult struct {
	Result              *gateway.Result
	FreezeAt, WarningAt []policy.Order
	Calls               []gateway.Decision // without their RequestJSON
	BodyLens            []int
}

func (p *part) Policies() []analyze.Policy { return []analyze.Policy{p.pol} }

// note places what the gateway logged since the last record at that
// record.
func (p *part) note() {
	f, w := p.pol.Logged()
	for len(p.freezeAt) < f {
		p.freezeAt = append(p.freezeAt, p.at)
	}
	for len(p.warningAt) < w {
		p.warningAt = append(p.warningAt, p.at)
	}
}

func (p *part) See(rec *ingest.Record, at policy.Order) {
	if p.seen {
		p.note()
	}
	p.at, p.seen = at, true
	p.pol.Advance(time.Unix(0, at.Clock).UTC())
}

func (p *part) Finish(w io.Writer, seq func(int64) (int64, error), end time.Time) ([]byte, error) {
	p.note()
	ds := p.pol.Decisions()
	if err := policy.Renumber(ds, func(d *gateway.Decision) *int64 { return &d.Seq }, seq); err != nil {
		return nil, err
	}
	if err := DecisionsJSONL(w, ds); err != nil {
		return nil, err
	}
	res := p.pol.ResultAt(end)
	for _, in := range res.Incidents {
		if err := policy.Renumber(in.Calls, func(c *gateway.IncidentCall) *int64 { return &c.Seq }, seq); err != nil {
			return nil, err
		}
	}
	if err := policy.Renumber(res.Rejected, func(r *gateway.Rejected) *int64 { return &r.Seq }, seq); err != nil {
		return nil, err
	}
	out := partResult{Result: res, FreezeAt: p.freezeAt, WarningAt: p.warningAt}
	var bodies []byte
	for i := range ds {
		if ds[i].Logged {
			d := ds[i]
			bodies = append(bodies, d.RequestJSON...)
			out.BodyLens = append(out.BodyLens, len(d.RequestJSON))
			d.RequestJSON = nil
			out.Calls = append(out.Calls, d)
		}
	}
	r := *res
	r.Config = gateway.Config{} // the merge has its own; a Variant does not cross
	out.Result = &r
	b, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	return append(append(b, '\n'), bodies...), nil
}

// decodePart reads a part's result (partResult).
func decodePart(b []byte) (*partResult, error) {
	head, bodies, _ := bytes.Cut(b, []byte{'\n'})
	var p partResult
	if err := json.Unmarshal(head, &p); err != nil {
		return nil, err
	}
	if p.Result == nil || len(p.FreezeAt) != len(p.Result.Freezes) || len(p.WarningAt) != len(p.Result.Warnings) || len(p.BodyLens) != len(p.Calls) {
		return nil, fmt.Errorf("freezes, warnings or calls without their places or bodies")
	}
	for i, n := range p.BodyLens {
		if n < 0 || n > len(bodies) {
			return nil, fmt.Errorf("call %d: its body runs past the part", i)
		}
		p.Calls[i].RequestJSON, bodies = bodies[:n:n], bodies[n:]
	}
	if len(bodies) > 0 {
		return nil, fmt.Errorf("%d bytes after the calls' bodies", len(bodies))
	}
	return &p, nil
}

// Merge writes the merged report (-f json) and PostgreSQL state (--writes
// FILE.sql), with the replay's checks of the text that reaches PostgreSQL.
func (s splitter) Merge(parts [][]byte, _, report, state io.Writer) error {
	var results []*gateway.Result
	var freezes, warnings []place
	var calls []gateway.Decision
	var f0, w0 int
	for _, b := range parts {
		p, err := decodePart(b)
		if err != nil {
			return fmt.Errorf("gateway part: %v", err)
		}
		for i, at := range p.FreezeAt {
			freezes = append(freezes, place{at, f0 + i})
		}
		for i, at := range p.WarningAt {
			warnings = append(warnings, place{at, w0 + i})
		}
		f0, w0 = f0+len(p.FreezeAt), w0+len(p.WarningAt)
		results = append(results, p.Result)
		calls = append(calls, p.Calls...)
	}
	res, err := gateway.Merge(s.cfg, results)
	if err != nil {
		return fmt.Errorf("--policy gateway: %v", err)
	}
	// gateway.Merge lists freezes and warnings part after part, as the
	// places above count them: put them in replay order.
	res.Freezes = inOrder(res.Freezes, freezes)
	res.Warnings = inOrder(res.Warnings, warnings)
	slices.SortFunc(calls, func(a, b gateway.Decision) int { return cmp.Compare(a.Seq, b.Seq) })
	if err := JSON(report, res); err != nil {
		return err
	}
	if err := checkText(calls, res); err != nil {
		return fmt.Errorf("--policy gateway: PostgreSQL state: %v", err)
	}
	stmts := Statements(calls, res)
	if err := postgres.CheckStatements(stmts); err != nil {
		return fmt.Errorf("--policy gateway: PostgreSQL state: %v", err)
	}
	return postgres.WriteScript(state, stmts)
}

// place is where the i-th item of a merged list was logged.
type place struct {
	at policy.Order
	i  int
}

// inOrder returns xs (indexed by each place's i) in the order of their
// places; nil when there are none, as the single replay's result has.
func inOrder[T any](xs []T, at []place) []T {
	if len(xs) == 0 {
		return nil
	}
	slices.SortStableFunc(at, func(a, b place) int {
		switch {
		case a.at.Less(b.at):
			return -1
		case b.at.Less(a.at):
			return 1
		}
		return 0
	})
	out := make([]T, 0, len(xs))
	for _, p := range at {
		out = append(out, xs[p.i])
	}
	return out
}
