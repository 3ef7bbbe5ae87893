// Package quota is a test-only policy: a per-agent request quota (at most
// N requests a minute; the rest refused with HTTP 429). No live system
// runs it. It exists to prove that a new policy is this one package plus
// one import line: cmd/killswitch's tests import it, and the conformance
// suite then holds it to every promise a policy makes (inputs never
// overwritten, tables that fit, every format it offers rendered, settings
// errors with positions, output identical at any --workers).
package quota

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/internal/jsontree"
	"github.com/killswitch/killswitch/policy"
	"github.com/killswitch/killswitch/report"
)

func init() {
	policy.Register(&policy.Policy{
		Name:          "quota",
		Order:         100,
		Help:          "a test-only per-agent request quota",
		Replay:        newReplay,
		ReplayFormats: []string{report.FormatTable, report.FormatMarkdown, report.FormatJSON, report.FormatJSONL, report.FormatCSV},
		Settings: &policy.SettingsPart{
			Keys:    []string{"quota"},
			Example: `{"quota": {"max_per_minute": 7}}`,
			Check: func(file string, data []byte) error {
				var max int
				return settingsData(file, data, &max)
			},
		},
		Conformance: &policy.Conformance{
			Capture: "fixtures/examples/day1.jsonl",
			BadSettings: []policy.BadSetting{
				{Doc: `{"quota": {"max_per_minute": "x"}}`, Key: "quota.max_per_minute"},
				{Doc: `{"quota": {"max": 5}}`, Key: "quota.max"},
				{Doc: `{"quota": {"max_per_minute": 0}}`, Key: "quota.max_per_minute"},
			},
		},
	})
}

// Policy is the quota's state machine: per agent, the requests of the
// current minute of capture time.
type Policy struct {
	max    int
	agents map[string]*agent
	refs   []Refusal
}

type agent struct {
	minute   time.Time
	n        int
	requests int
	refused  int
}

// Refusal is a request the quota refused.
type Refusal struct {
	Seq   int64  `json:"seq"`
	Agent string `json:"agent"`
	TS    string `json:"ts"`
	N     int    `json:"n"` // the request's number in its minute
}

// New returns a quota of max requests a minute per agent.
func New(max int) *Policy { return &Policy{max: max, agents: map[string]*agent{}} }

// Name implements analyze.Policy.
func (p *Policy) Name() string { return "quota" }

// Control implements analyze.Policy: operators' records change nothing.
func (p *Policy) Control(*ingest.Record, *analyze.Effects) {}

// Decide implements analyze.Policy.
func (p *Policy) Decide(rec *ingest.Record, _ *analyze.Features, d *analyze.Decision, _ *analyze.Effects) {
	a := p.agents[rec.Agent]
	if a == nil {
		a = &agent{}
		p.agents[rec.Agent] = a
	}
	a.requests++
	if m := rec.TS.Truncate(time.Minute); !m.Equal(a.minute) {
		a.minute, a.n = m, 0
	}
	a.n++
	if a.n <= p.max {
		return
	}
	a.refused++
	d.Action, d.Status = analyze.ActionBlock, 429
	d.Reason = fmt.Sprintf("quota: request %d of the minute, more than %d", a.n, p.max)
	p.refs = append(p.refs, Refusal{Seq: d.Seq, Agent: rec.Agent, TS: ingest.FormatTime(rec.TS), N: a.n})
}

// Row is one agent's line of the report.
type Row struct {
	Agent    string `json:"agent"`
	Requests int    `json:"requests"`
	Refused  int    `json:"refused"`
}

// Rows are the agents, by name.
func (p *Policy) Rows() []Row {
	var out []Row
	for name, a := range p.agents {
		out = append(out, Row{name, a.requests, a.refused})
	}
	slices.SortFunc(out, func(a, b Row) int { return strings.Compare(a.Agent, b.Agent) })
	return out
}

type replayFlags struct{ max int }

func newReplay(fs *pflag.FlagSet) policy.Replayer {
	f := &replayFlags{}
	fs.IntVar(&f.max, "max-per-minute", 5, "quota: requests an agent may make a minute")
	return f
}

// settings reads {"quota": {"max_per_minute": N}} from the file at path.
func settings(path string, max *int) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return settingsData(path, data, max)
}

// settingsData reads the quota's part of a settings file, the other
// policies' keys skipped; per-agent entries hold only theirs.
func settingsData(path string, data []byte, max *int) error {
	others := policy.OtherSettings("quota")
	d, root, perr := jsontree.Parse(path, data, 8, "a settings file")
	if perr != nil {
		return perr
	}
	for _, m := range d.Object(root, "", slices.Concat([]string{"quota", policy.AgentsKey}, others.Top)...) {
		if m.Key == policy.AgentsKey {
			for _, a := range d.Object(m.Val, m.Key) {
				d.Object(a.Val, m.Key+"."+a.Key, append([]string{}, others.Agent...)...)
			}
		}
		if m.Key != "quota" {
			continue
		}
		for _, k := range d.Object(m.Val, "quota", "max_per_minute") {
			kp := jsontree.Join("quota", k.Key)
			if v, ok := d.Number(k.Val, kp); ok {
				if v < 1 || v > 1e9 || v != float64(int(v)) {
					d.Errorf(k.Val.Off, kp, "want a whole number ≥ 1, got %v", v)
				} else {
					*max = int(v)
				}
			}
		}
	}
	return d.Err()
}

// Replay implements policy.Replayer.
func (f *replayFlags) Replay(e *policy.Env, o *policy.ReplayOptions) (*policy.Outcome, error) {
	max := f.max
	if o.Settings != "" {
		if err := settings(o.Settings, &max); err != nil {
			return nil, err
		}
	}
	if max < 1 {
		return nil, fmt.Errorf("--max-per-minute %d: want 1 or more", max)
	}
	if o.Writes != "" || o.Apply != "" {
		return nil, fmt.Errorf("--policy quota makes no state writes")
	}
	pol := New(max)
	cfg := analyze.NewConfig()
	cfg.Profile, cfg.Policies = analyze.ProfileUsage, []analyze.Policy{pol}
	var sum *analyze.Summary
	err := e.Output(func(w io.Writer) error {
		var err error
		if sum, err = e.Replay(cfg, analyze.Hooks{}); err != nil {
			return err
		}
		if !o.AllowEmpty {
			if err := policy.NoRequests(sum.Totals.Requests, sum.Malformed, sum.Skips); err != nil {
				return err
			}
		}
		rows := pol.Rows()
		switch o.Format {
		case report.FormatJSON:
			return writeJSON(w, max, rows)
		case report.FormatJSONL:
			enc := json.NewEncoder(w)
			for _, r := range pol.refs {
				if err := enc.Encode(r); err != nil {
					return err
				}
			}
			if len(pol.refs) == 0 {
				return writeNoRefusal(w)
			}
			return nil
		case report.FormatCSV:
			fmt.Fprintln(w, "agent,requests,refused")
			for _, r := range rows {
				fmt.Fprintf(w, "%s,%d,%d\n", csvField(r.Agent), r.Requests, r.Refused)
			}
			return nil
		case report.FormatMarkdown:
			fmt.Fprintf(w, "# Quota replay: at most %d requests a minute per agent\n\n| agent | requests | refused |\n|---|---:|---:|\n", max)
			for _, r := range rows {
				fmt.Fprintf(w, "| %s | %d | %d |\n", strings.ReplaceAll(short(r.Agent), "|", `\|`), r.Requests, r.Refused)
			}
			return nil
		}
		fmt.Fprintf(w, "Quota replay: at most %d requests a minute per agent\n\n%-60s %9s %8s\n", max, "agent", "requests", "refused")
		for _, r := range rows {
			fmt.Fprintf(w, "%-60s %9d %8d\n", short(r.Agent), r.Requests, r.Refused)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &policy.Outcome{Summary: sum, Found: len(pol.refs) > 0}, nil
}

// writeNoRefusal is -f jsonl when nothing was refused.
func writeNoRefusal(w io.Writer) error {
	return json.NewEncoder(w).Encode(map[string]any{"refused": 0})
}

// writeJSON writes the -f json report.
func writeJSON(w io.Writer, max int, rows []Row) error {
	b, err := json.MarshalIndent(map[string]any{"policy": "quota", "max_per_minute": max, "agents": rows}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// short cuts a name to 60 characters, so that a line fits 80 columns.
func short(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return s
}

func csvField(s string) string {
	if strings.ContainsAny(s, ",\"\n\r") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}
