package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/gateway"
	"github.com/killswitch/killswitch/report"
)

// gatewayRun is `replay --policy gateway`: the captures through the
// gateway policy (tenant and key freezes, the default guardrail pack;
// profile m22 by default, or spec), its decisions or its incident report,
// and its PostgreSQL state.
type gatewayRun struct {
	rf                     *replayFlags
	profileGiven           bool
	format, output         string
	writes, apply          string
	failOnKill, allowEmpty bool
}

func (g *gatewayRun) run(e *env, paths []string) int {
	name := "m22"
	if g.profileGiven {
		name = g.rf.profile
	}
	prof, err := gateway.ProfileByName(name)
	if err != nil {
		return errorf(e, "replay", "--policy gateway: %v", err)
	}
	cfg := gateway.DefaultConfig(prof)
	if err := loadGatewaySettings(&cfg, g.rf.settings); err != nil {
		return errorf(e, "replay", "%v", err)
	}
	switch g.format {
	case report.FormatJSONL, report.FormatTable, report.FormatMarkdown, report.FormatJSON, report.FormatCSV, report.FormatHTML:
	default:
		return errorf(e, "replay", "--policy gateway: -f %s is not available (want table, markdown, json, csv, html or jsonl)", g.format)
	}
	if g.writes != "" && !strings.HasSuffix(g.writes, ".sql") {
		return errorf(e, "replay", "--policy gateway: --writes %s: want FILE.sql (the PostgreSQL state)", g.writes)
	}
	if g.apply != "" && !strings.HasPrefix(g.apply, "postgres://") && !strings.HasPrefix(g.apply, "postgresql://") {
		return errorf(e, "replay", "--policy gateway: --apply %s: want postgres://…", g.apply)
	}
	pol, err := gateway.NewPolicy(cfg)
	if err != nil {
		return errorf(e, "replay", "%v", err)
	}
	// The table, Markdown and JSON reports need only the result; the
	// decision records, CSV, HTML and the state writes need every call.
	pol.NoDecisions = g.writes == "" && g.apply == "" &&
		(g.format == report.FormatTable || g.format == report.FormatMarkdown || g.format == report.FormatJSON)
	acfg := analyze.NewConfig()
	acfg.Profile = analyze.ProfileUsage // no loop detector in the stack: only the usage is extracted
	acfg.Policies = []analyze.Policy{pol}
	var sum *analyze.Summary
	err = writeOutput(e, g.output, func(w io.Writer) error {
		var err error
		if sum, err = g.rf.replayFiles(e, "replay", paths, acfg, analyze.Hooks{}); err != nil {
			return err
		}
		if !g.allowEmpty {
			if err := noRequests(sum.Totals.Requests, sum.Malformed, sum.Skips); err != nil {
				return err
			}
		}
		res := pol.Result()
		switch g.format {
		case report.FormatJSONL:
			return report.GatewayDecisionsJSONL(w, pol.Decisions())
		case report.FormatMarkdown:
			return report.GatewayText(w, res, report.TextOptions{Markdown: true})
		case report.FormatJSON:
			return report.GatewayJSON(w, res)
		case report.FormatCSV:
			return report.GatewayCSV(w, pol.Decisions())
		case report.FormatHTML:
			return report.GatewayHTML(w, res, pol.Decisions())
		}
		return report.GatewayText(w, res, report.TextOptions{Width: termWidth(e, g.output)})
	})
	if err != nil {
		return errorf(e, "replay", "%v", err)
	}
	stmts := report.GatewayStatements(pol.Decisions(), pol.Result())
	if g.writes != "" {
		if err := writeFileAtomic(g.writes, func(w io.Writer) error { return report.WriteGatewaySQL(w, stmts) }); err != nil {
			return errorf(e, "replay", "--writes: %v", err)
		}
	}
	if g.apply != "" {
		if err := applyPostgres(context.Background(), g.apply, stmts); err != nil {
			return errorf(e, "replay", "%v", err)
		}
	}
	reportHiddenWarnings(e, "replay", sum.WarningCounts)
	if sum.Malformed > 0 {
		fmt.Fprintf(e.stderr, "killswitch replay: %d malformed input items skipped (reported above)\n", sum.Malformed)
	}
	if g.failOnKill && (sum.Totals.Blocks > 0 || sum.Totals.Blocked > 0) {
		return exitFound
	}
	return exitOK
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
	return cfg.ApplySettingsFile(path, data)
}
