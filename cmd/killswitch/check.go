package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/breaker"
	"github.com/killswitch/killswitch/analyze/expect"
	"github.com/killswitch/killswitch/analyze/gateway"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/report"
)

// Check report formats.
const (
	checkFormatText     = "text"
	checkFormatMarkdown = "markdown"
)

// expectSuffix names expectation files: NAME.expect.json beside NAME.jsonl.
const expectSuffix = ".expect.json"

// captureNames returns the capture names looked for beside
// NAME.expect.json, in order: NAME + a format's extension + an optional
// compression extension.
func captureNames(stem string) []string {
	var names []string
	for _, ext := range ingest.Extensions() {
		names = append(names, stem+ext)
		for _, comp := range ingest.CompressionExtensions {
			names = append(names, stem+ext+comp)
		}
	}
	return names
}

// checkTarget is one expectation file to check and the capture beside it.
type checkTarget struct {
	expect  string // NAME.expect.json
	capture string // the capture found beside it; "" when err is set
	err     error  // the capture could not be resolved
	create  bool   // --update for a capture that has no expectation file yet
}

func cmdCheck(e *env, args []string) int {
	fs := newFlags(e, "check", "[flags] PATH...",
		"Finds every NAME.expect.json under the paths (directories are searched recursively; a capture names\n"+
			"the expectation beside it), replays the capture beside each (NAME.jsonl, .har, .parquet or .json,\n"+
			"compressed or not) and checks what the kill switch did against it. Settings given here override every file's.\n"+
			"Exit status: 0 all expectations hold, 1 one failed, 2 bad usage or unusable input.")
	// Overrides apply only when given: no default is shown or used.
	profile := fs.String("profile", "", "override every file's profile: "+analyze.ProfileNames()+" (the loop detector), m22 or spec (the gateway)")
	window := fs.Int("window", 0, "override every file's window size N")
	threshold := fs.Float64("threshold", 0, "override every file's threshold")
	mode := fs.String("mode", "", "override every file's mode: deactivate or block")
	junit := fs.String("junit", "", "also write a JUnit XML report to this file (atomically)")
	format := fs.StringP("format", "f", checkFormatText, "report: text (one line per expectation) or markdown (a pull-request comment)")
	output := fs.StringP("output", "o", "", "write the report to this file (atomically) instead of standard output")
	markOutput(fs, "output", "junit")
	update := fs.Bool("update", false, "rewrite the expectation files from the current behaviour (create one for a capture named\n"+
		"on the command line that has none) and print what changed")
	workers := fs.Int("workers", 0, "parallel feature extraction (0: one per CPU); results are identical at any value")
	strict := fs.Bool("strict", false, "a capture with a malformed input item is unusable input")
	verbose := fs.BoolP("verbose", "v", false, "also report each skipped (non-LLM) input item on standard error")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return exitUsage
	}
	if *format != checkFormatText && *format != checkFormatMarkdown {
		return errorf(e, "check", "unknown --format %q (want text or markdown)", *format)
	}
	var over expect.Settings
	var overNames []string
	if fs.Changed("profile") {
		// A loop detector's profile, a gateway's, or both ("spec"): each
		// file takes the one its policy replays (checkOne).
		name := *profile
		if p, err := analyze.ParseProfile(name); err == nil {
			over.Profile, name = p, p.String()
		}
		if _, err := gateway.ProfileByName(*profile); err == nil {
			over.GatewayProfile = profile
		}
		if over.Profile == nil && over.GatewayProfile == nil {
			return errorf(e, "check", "unknown profile %q (want %s for the loop detector, m22 or spec for the gateway)", *profile, analyze.ProfileNames())
		}
		overNames = append(overNames, "--profile "+name)
	}
	if fs.Changed("mode") {
		m, err := analyze.ParseMode(*mode)
		if err != nil {
			return errorf(e, "check", "%v", err)
		}
		over.Mode = &m
		overNames = append(overNames, "--mode "+m.String())
	}
	if fs.Changed("window") {
		over.Window = window
		overNames = append(overNames, "--window "+strconv.Itoa(*window))
	}
	if fs.Changed("threshold") {
		over.Threshold = threshold
		overNames = append(overNames, "--threshold "+strconv.FormatFloat(*threshold, 'f', -1, 64))
	}
	if err := over.Apply(analyze.NewConfig()).Default.Validate(); err != nil {
		return errorf(e, "check", "%v", err)
	}
	targets, err := findTargets(fs.Args(), *update)
	if err != nil {
		return errorf(e, "check", "%v", err)
	}
	var reads []string
	for _, t := range targets {
		reads = append(reads, t.expect, t.capture)
	}
	if err := guardFiles(fs, reads...); err != nil {
		return errorf(e, "check", "%v", err)
	}
	if err := checkWorkers(*workers); err != nil {
		return errorf(e, "check", "%v", err)
	}
	rf := replayFlags{input: inputOptions{format: "auto", agentHeader: "X-Agent-Id"}, workers: *workers, strict: *strict, verbose: *verbose}
	c := &report.Check{Overrides: overNames, Update: *update}
	for _, t := range targets {
		c.Files = append(c.Files, checkOne(e, &rf, t, over, profile, *update))
	}
	err = writeOutput(e, *output, func(w io.Writer) error {
		if *format == checkFormatMarkdown {
			return report.CheckMarkdown(w, c)
		}
		return report.CheckText(w, c)
	})
	if err != nil {
		return errorf(e, "check", "%v", err)
	}
	if *junit != "" {
		if err := writeFileAtomic(*junit, func(w io.Writer) error { return report.JUnit(w, c) }); err != nil {
			return errorf(e, "check", "--junit: %v", err)
		}
	}
	if e.getenv != nil && e.getenv("GITHUB_ACTIONS") == "true" {
		// The Actions runner reads workflow commands from standard error
		// too, which keeps standard output for the report.
		if err := report.CheckAnnotations(e.stderr, c); err != nil {
			return errorf(e, "check", "%v", err)
		}
	}
	n := c.Counts()
	switch {
	case n.Unusable > 0:
		return exitUsage
	case n.Failed > 0:
		return exitFound
	}
	return exitOK
}

// checkOne checks (and with update, rewrites) one expectation file.
// Problems that make the file unusable end up in the result's Err.
func checkOne(e *env, rf *replayFlags, t checkTarget, over expect.Settings, profile *string, update bool) report.CheckFile {
	f := report.CheckFile{Path: t.expect, Capture: t.capture}
	var exp *expect.Expectation
	if !t.create {
		data, err := os.ReadFile(t.expect)
		if err != nil {
			f.Err = err
			return f
		}
		if exp, err = expect.Parse(t.expect, data); err != nil {
			f.Err = err
			return f
		}
		f.About = exp.About
	}
	if t.err != nil {
		f.Err = fmt.Errorf("%s: %w", t.expect, t.err)
		return f
	}
	var settings expect.Settings
	if exp != nil {
		settings = exp.Settings
	}
	eff := settings.Override(over)
	if err := profileFits(eff.Policy, over, profile); err != nil {
		f.Err = fmt.Errorf("%s: %w", t.expect, err)
		return f
	}
	cfg := eff.Apply(analyze.NewConfig())
	var brk *breaker.Policy
	var gw *gateway.Policy
	if eff.Policy != nil && *eff.Policy == "breaker" {
		bcfg, err := eff.BreakerConfig()
		if err == nil {
			brk, err = breaker.NewPolicy(bcfg)
		}
		if err != nil {
			f.Err = fmt.Errorf("%s: %w", t.expect, err)
			return f
		}
		cfg.Profile, cfg.Policies = analyze.ProfileUsage, []analyze.Policy{brk}
	} else if eff.Policy != nil && *eff.Policy == "gateway" {
		gcfg, err := eff.GatewayConfig()
		if err == nil {
			gw, err = gateway.NewPolicy(gcfg)
		}
		if err != nil {
			f.Err = fmt.Errorf("%s: %w", t.expect, err)
			return f
		}
		cfg.Profile, cfg.Policies = analyze.ProfileUsage, []analyze.Policy{gw}
	} else if exp != nil && len(exp.Scopes) > 0 {
		f.Err = fmt.Errorf("%s:%d: \"scopes\" are the breaker's: they need \"settings\": {\"policy\": \"breaker\"}", t.expect, exp.Scopes[0].Line)
		return f
	}
	sum, err := rf.replayFiles(e, "check", []string{t.capture}, cfg, analyze.Hooks{})
	if err != nil {
		f.Err = fmt.Errorf("%s: replaying %s: %w", t.expect, t.capture, err)
		return f
	}
	for _, w := range sum.Warnings {
		fmt.Fprintf(e.stderr, "%s: warning: %s\n", w.Pos, w.Msg)
	}
	reportHiddenWarnings(e, "check", sum.WarningCounts)
	f.Summary = sum
	switch {
	case brk != nil:
		f.Settings = report.BreakerSettingsLine(brk.Result())
	case gw != nil:
		f.Settings = report.GatewaySettingsLine(gw.Result())
	}
	if update {
		var next *expect.Expectation
		var changes []string
		if t.create {
			next = expect.FromSummary(sum)
			for _, a := range sum.Agents {
				if a.Requests > 0 {
					changes = append(changes, a.Agent+": "+expect.Describe(a, sum))
				}
			}
			if len(changes) == 0 {
				changes = []string{"no requests in the capture: expects totals.requests 0"}
			}
			f.Created = true
		} else {
			next, changes = expect.Update(exp, sum)
			if brk != nil {
				changes = append(changes, expect.UpdateScopes(next, scopeOutcomes(brk))...)
			}
			if gw != nil {
				changes = append(changes, expect.UpdateGateway(next, gw.Result())...)
			}
		}
		if len(changes) > 0 {
			data, err := expect.Format(next)
			if err == nil {
				// Re-read what is written: the results then point at its lines.
				next, err = expect.Parse(t.expect, data)
			}
			if err == nil {
				err = writeFileAtomic(t.expect, func(w io.Writer) error { _, err := w.Write(data); return err })
			}
			if err != nil {
				f.Err = fmt.Errorf("%s: --update: %w", t.expect, err)
				return f
			}
			exp, f.Changes = next, changes
		}
	}
	f.Results = expect.Compare(exp, sum)
	if brk != nil && len(exp.Scopes) > 0 {
		f.Results = append(f.Results, expect.CompareScopes(exp, scopeOutcomes(brk))...)
	}
	if gw != nil {
		f.Results = append(f.Results, expect.CompareGateway(exp, gw.Result())...)
	}
	return f
}

// profileFits reports whether the command line's --profile (over) names
// a profile of the policy a file replays: a loop detector's for the loop
// policy, a gateway's for the gateway ("spec" is both); the breaker has
// none and ignores it.
func profileFits(policy *string, over expect.Settings, name *string) error {
	if policy != nil && (*policy == "breaker" || *policy == "gateway") {
		// The loop detector's settings mean nothing to these policies:
		// refuse them rather than list them as overrides and ignore them.
		for _, f := range []struct {
			set  bool
			flag string
		}{{over.Window != nil, "--window"}, {over.Threshold != nil, "--threshold"}, {over.Mode != nil, "--mode"},
			{*policy == "breaker" && (over.Profile != nil || over.GatewayProfile != nil), "--profile"}} {
			if f.set {
				return fmt.Errorf("%s is a loop detector setting: this file replays the %s", f.flag, *policy)
			}
		}
	}
	switch {
	case over.Profile == nil && over.GatewayProfile == nil:
	case policy != nil && *policy == "gateway" && over.GatewayProfile == nil:
		return fmt.Errorf("--profile %s is a loop detector profile: this file replays the gateway (want m22 or spec)", *name)
	case (policy == nil || *policy == "loop") && over.Profile == nil:
		return fmt.Errorf("--profile %s is a gateway profile: this file replays the loop detector (want %s)", *name, analyze.ProfileNames())
	}
	return nil
}

// scopeOutcomes are the breaker's scopes as check compares them.
func scopeOutcomes(p *breaker.Policy) []expect.ScopeOutcome {
	res := p.Result()
	var out []expect.ScopeOutcome
	for _, sc := range res.Scopes {
		o := expect.ScopeOutcome{Scope: sc.Scope.String(), Requests: sc.Requests, Threshold: res.RateOf(sc.Scope.Agent)}
		for _, tr := range sc.Trips {
			o.Trips = append(o.Trips, tr.ScopeN)
		}
		if len(sc.Trips) > 0 {
			o.Rate = sc.Trips[0].ErrorRate
		}
		out = append(out, o)
	}
	return out
}

// findTargets resolves the command line's paths: a directory is searched
// recursively for *.expect.json (hidden directories skipped), an
// expectation file is taken as is, and a capture names the expectation
// file beside it (which --update may create). The capture of every other
// expectation is looked up beside it; one that cannot be found, or is not
// alone, makes that file unusable, not the whole run. A path that does not exist, or holds no expectation, is an
// error.
func findTargets(paths []string, update bool) ([]checkTarget, error) {
	var out []checkTarget
	seen := map[string]bool{}
	add := func(t checkTarget) {
		key := filepath.Clean(t.expect)
		if seen[key] {
			return
		}
		seen[key] = true
		if t.capture == "" && t.err == nil {
			t.capture, t.err = findCapture(t.expect)
		}
		out = append(out, t)
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		switch {
		case st.IsDir():
			found := 0
			err := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if d.IsDir() {
					if path != p && strings.HasPrefix(d.Name(), ".") {
						return filepath.SkipDir
					}
					return nil
				}
				if strings.HasSuffix(d.Name(), expectSuffix) {
					found++
					add(checkTarget{expect: path})
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
			if found == 0 {
				return nil, fmt.Errorf("%s: no *%s file under it", p, expectSuffix)
			}
		case strings.HasSuffix(p, expectSuffix):
			add(checkTarget{expect: p})
		case isCaptureName(p):
			exp := captureStem(p) + expectSuffix
			if _, err := os.Stat(exp); err == nil {
				add(checkTarget{expect: exp, capture: p}) // the capture named, even if another sits beside it
				continue
			}
			if !update {
				return nil, fmt.Errorf("%s: no expectation file %s beside it (--update writes one from the current behaviour)", p, filepath.Base(exp))
			}
			add(checkTarget{expect: exp, capture: p, create: true})
		default:
			return nil, fmt.Errorf("%s: neither a directory, an expectation file (*%s) nor a capture (%s, compressed or not)",
				p, expectSuffix, strings.Join(ingest.Extensions(), ", "))
		}
	}
	return out, nil
}

// isCaptureName reports whether path ends in a capture extension,
// optionally followed by a compression extension.
func isCaptureName(path string) bool { return captureStem(path) != path }

// captureStem strips the capture (and compression) extensions from path;
// a path without them is returned unchanged.
func captureStem(path string) string {
	for _, name := range captureNames("") {
		if strings.HasSuffix(path, name) && len(path) > len(name) {
			return strings.TrimSuffix(path, name)
		}
	}
	return path
}

// findCapture returns the one capture beside the expectation file
// NAME.expect.json.
func findCapture(expectPath string) (string, error) {
	stem := strings.TrimSuffix(expectPath, expectSuffix)
	var found []string
	// Also NAME.json: JSON documents of any format are named so (trace
	// exports, Langfuse traces).
	names := append(captureNames(stem), stem+".json")
	for _, comp := range ingest.CompressionExtensions {
		names = append(names, stem+".json"+comp)
	}
	for _, p := range names {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			found = append(found, p)
		}
	}
	switch len(found) {
	case 0:
		base := filepath.Base(stem)
		return "", errors.New("no capture beside it (looked for " + base + ".jsonl, " + base + ".har, " + base +
			".parquet and " + base + ".json, compressed or not)")
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("several captures beside it (%s): keep one", strings.Join(found, ", "))
}
