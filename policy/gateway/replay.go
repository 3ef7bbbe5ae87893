package gateway

import (
	"context"
	"fmt"
	"github.com/spf13/pflag"
	"io"
	"os"
	"strings"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/gateway"
	"github.com/killswitch/killswitch/policy"
	"github.com/killswitch/killswitch/report"
	"github.com/killswitch/killswitch/store/postgres"
)

// replayFlags are the gateway's replay flags.
type replayFlags struct {
	variant string
}

// variantHelp is the --variant flag's help.
const variantHelp = "gateway: m22 (what AgenticVerz M22's code does) or spec (what its design promises: budgets, rpm, failure spikes, incidents)"

func newReplay(fs *pflag.FlagSet) policy.Replayer {
	f := &replayFlags{}
	fs.StringVar(&f.variant, "variant", "m22", variantHelp)
	return f
}

// Replay is `replay --policy gateway`: the captures through the gateway
// policy (tenant and key freezes, the default guardrail pack; variant m22
// by default, or spec), its decisions or its incident report, and its
// PostgreSQL state.
func (f *replayFlags) Replay(e *policy.Env, o *policy.ReplayOptions) (*policy.Outcome, error) {
	prof, err := gateway.VariantByName(f.variant)
	if err != nil {
		return nil, fmt.Errorf("--policy gateway: --variant: %v", err)
	}
	cfg := gateway.DefaultConfig(prof)
	if err := loadGatewaySettings(&cfg, o.Settings); err != nil {
		return nil, err
	}
	if o.Writes != "" && o.Writes != "-" && !strings.HasSuffix(o.Writes, ".sql") {
		return nil, fmt.Errorf("--policy gateway: --writes %s: want FILE.sql (the PostgreSQL state) or - (the same on standard output, for psql)", o.Writes)
	}
	if o.Apply != "" && !postgres.IsDSN(o.Apply) {
		return nil, fmt.Errorf("--policy gateway: --apply %s: want postgres://… or libpq's key=value form (host=… dbname=…)", postgres.RedactDSN(o.Apply))
	}
	pol, err := gateway.NewPolicy(cfg)
	if err != nil {
		return nil, err
	}
	// The table, Markdown and JSON reports need only the result; the
	// decision records, CSV, HTML and the state writes need every call.
	pol.NoDecisions = o.Writes == "" && o.Apply == "" &&
		(o.Format == report.FormatTable || o.Format == report.FormatMarkdown || o.Format == report.FormatJSON)
	acfg := analyze.NewConfig()
	acfg.Profile = analyze.ProfileUsage // no loop detector in the stack: only the usage is extracted
	acfg.Policies = []analyze.Policy{pol}
	var sum *analyze.Summary
	err = e.Output(func(w io.Writer) error {
		var err error
		if sum, err = e.Replay(acfg, analyze.Hooks{}); err != nil {
			return err
		}
		if !o.AllowEmpty {
			if err := policy.NoRequests(sum.Totals.Requests, sum.Malformed, sum.Skips); err != nil {
				return err
			}
		}
		res := pol.Result()
		switch o.Format {
		case report.FormatJSONL:
			return DecisionsJSONL(w, pol.Decisions())
		case report.FormatMarkdown:
			return Text(w, res, report.TextOptions{Markdown: true})
		case report.FormatJSON:
			return JSON(w, res)
		case report.FormatCSV:
			return CSV(w, pol.Decisions())
		case report.FormatHTML:
			return HTML(w, res, pol.Decisions())
		}
		return Text(w, res, report.TextOptions{Width: e.Width})
	})
	if err != nil {
		return nil, err
	}
	if o.Writes == "" && o.Apply == "" {
		return &policy.Outcome{Summary: sum, Found: sum.Totals.Blocks > 0 || sum.Totals.Blocked > 0}, nil
	}
	if err := checkText(pol.Decisions(), pol.Result()); err != nil {
		return nil, fmt.Errorf("--policy gateway: PostgreSQL state: %v", err)
	}
	stmts := Statements(pol.Decisions(), pol.Result())
	if err := postgres.CheckStatements(stmts); err != nil {
		return nil, fmt.Errorf("--policy gateway: PostgreSQL state: %v", err)
	}
	if o.Writes != "" {
		if err := e.WriteFile(o.Writes, func(w io.Writer) error { return postgres.WriteScript(w, stmts) }); err != nil {
			return nil, fmt.Errorf("--writes: %v", err)
		}
	}
	out := &policy.Outcome{Summary: sum, Found: sum.Totals.Blocks > 0 || sum.Totals.Blocked > 0}
	if o.Apply != "" {
		if err := postgres.Apply(context.Background(), o.Apply, stmts); err != nil {
			return nil, err
		}
		out.Notes = append(out.Notes, fmt.Sprintf("--apply: applied %s to %s (one transaction)",
			report.Plural(len(stmts), "statement"), postgres.RedactDSN(o.Apply)))
	}
	return out, nil
}

// loadGatewaySettings overlays the settings file at path ("": none) on cfg.
func loadGatewaySettings(cfg *gateway.Config, path string) error {
	if path == "" {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return applySettingsData(cfg, path, data)
}

// applySettingsData overlays the settings file's content on cfg, the
// other policies' parts left to them.
func applySettingsData(cfg *gateway.Config, path string, data []byte) error {
	others := policy.OtherSettings(name)
	return cfg.ApplySettingsParts(path, data, others.Top, others.Agent)
}
