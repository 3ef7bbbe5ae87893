package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/expect"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/internal/outfile"
	"github.com/killswitch/killswitch/policy"
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
	var profiles []string
	for _, p := range policy.All() {
		if pr, ok := p.Check.(policy.Profiler); ok {
			profiles = append(profiles, pr.ProfileHelp())
		}
	}
	profile := fs.String("profile", "", "override every file's profile: "+strings.Join(profiles, ", "))
	var variants, variantHelp []string // every policy's variants
	for _, sc := range policy.Schemas() {
		if len(sc.Variants) > 0 {
			variants = append(variants, sc.Variants...)
			variantHelp = append(variantHelp, strings.Join(sc.Variants, " or ")+" for the "+sc.Policy)
		}
	}
	variant := fs.String("variant", "", "override every file's variant: "+strings.Join(variantHelp, ", "))
	window := fs.Int("window", 0, "override every file's window size N")
	threshold := fs.Float64("threshold", 0, "override every file's threshold")
	mode := fs.String("mode", "", "override every file's mode: deactivate or block")
	junit := fs.String("junit", "", "also write a JUnit XML report to this file (atomically)")
	format := fs.StringP("format", "f", checkFormatText, "report: text (one line per expectation) or markdown (a pull-request comment)")
	output := fs.StringP("output", "o", "", "write the report to this file (atomically) instead of standard output")
	policy.MarkOutput(fs, "output", "junit")
	update := fs.Bool("update", false, "rewrite the expectation files from the current behaviour (create one for a capture named\n"+
		"on the command line that has none) and print what changed")
	workers := fs.Int("workers", 0, "parallel feature extraction (0: one per CPU while the input is long enough to share and they run in parallel; see docs/performance.md); results are identical at any value")
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
	var profileOf []string // the policies --profile is a profile of
	var overNames []string
	if fs.Changed("profile") {
		// A profile of one policy or of several ("spec" is the loop
		// detector's and the gateway's): each file takes the one its
		// policy replays (checkOne).
		name := *profile
		for _, p := range policy.All() {
			pr, ok := p.Check.(policy.Profiler)
			if !ok {
				continue
			}
			if canon, ok := pr.Profile(*profile, &over); ok {
				if len(profileOf) == 0 {
					name = canon
				}
				profileOf = append(profileOf, p.Name)
			}
		}
		if len(profileOf) == 0 {
			return errorf(e, "check", "unknown profile %q (want %s)", *profile, strings.Join(profiles, ", "))
		}
		overNames = append(overNames, "--profile "+name)
	}
	if fs.Changed("variant") {
		if !slices.Contains(variants, *variant) {
			return errorf(e, "check", "unknown variant %q (want %s)", *variant, strings.Join(variantHelp, ", "))
		}
		over.Variant = variant
		overNames = append(overNames, "--variant "+*variant)
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
	if err := policy.GuardFiles(fs, reads...); err != nil {
		return errorf(e, "check", "%v", err)
	}
	if err := checkWorkers(*workers); err != nil {
		return errorf(e, "check", "%v", err)
	}
	rf := readFlags{input: inputOptions{format: "auto", agentHeader: "X-Agent-Id"}, workers: *workers, strict: *strict, verbose: *verbose}
	c := &report.Check{Overrides: overNames, Update: *update}
	for _, t := range targets {
		given := ""
		if fs.Changed("profile") {
			given = *profile
		}
		c.Files = append(c.Files, checkOne(e, &rf, t, over, given, profileOf, *update))
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
		if err := outfile.Write(*junit, func(w io.Writer) error { return report.JUnit(w, c) }); err != nil {
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
func checkOne(e *env, rf *readFlags, t checkTarget, over expect.Settings, profile string, profileOf []string, update bool) report.CheckFile {
	f := report.CheckFile{Path: t.expect, Capture: t.capture}
	var exp *expect.Expectation
	if !t.create {
		data, err := os.ReadFile(t.expect)
		if err != nil {
			f.Err = err
			return f
		}
		if exp, err = expect.Parse(t.expect, data, policy.Schemas()...); err != nil {
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
	p := policy.Default()
	if eff.Policy != nil {
		p = policy.Lookup(*eff.Policy)
	}
	if p == nil || p.Check == nil {
		f.Err = fmt.Errorf("%s: the %s policy cannot be checked", t.expect, *eff.Policy)
		return f
	}
	cf := &policy.CheckFile{Path: t.expect, Exp: exp, Eff: eff, Over: over, Profile: profile, ProfileOf: profileOf}
	sc := p.Check.Schema()
	if over.Variant != nil && !slices.Contains(sc.Variants, *over.Variant) {
		f.Err = fmt.Errorf("%s: --variant %s is not a variant of the %s, which this file replays", t.expect, *over.Variant, p.Name)
		return f
	}
	if !sc.LoopSettings {
		// The loop detector's overrides mean nothing to this policy:
		// refused rather than listed as overrides and ignored.
		if err := cf.RefuseLoopSettings(p.Name, profile != ""); err != nil {
			f.Err = err
			return f
		}
	}
	run, err := p.Check.Prepare(cf)
	if err != nil {
		f.Err = err
		return f
	}
	cfg := run.Config()
	sum, err := rf.replayFiles(e, []string{t.capture}, cfg, analyze.Hooks{})
	if err != nil {
		f.Err = fmt.Errorf("%s: replaying %s: %w", t.expect, t.capture, err)
		return f
	}
	for _, w := range sum.Warnings {
		fmt.Fprintf(e.stderr, "%s: warning: %s\n", w.Pos, w.Msg)
	}
	reportHiddenWarnings(e, "check", sum.WarningCounts)
	f.Summary = sum
	f.Settings = run.Settings()
	if update {
		var next *expect.Expectation
		var changes []string
		if t.create {
			next = expect.FromSummary(sum)
			for _, a := range sum.Agents {
				if a.Requests > 0 {
					changes = append(changes, a.Agent+": "+run.Describe(a, sum))
				}
			}
			if len(changes) == 0 {
				changes = []string{"no requests in the capture: expects totals.requests 0"}
			}
			f.Created = true
		} else {
			next, changes = expect.Update(exp, sum, p.Check.Schema().LoopSettings)
			changes = append(changes, run.Update(next)...)
		}
		if len(changes) > 0 {
			data, err := expect.Format(next)
			if err == nil {
				// Re-read what is written: the results then point at its lines.
				next, err = expect.Parse(t.expect, data, policy.Schemas()...)
			}
			if err == nil {
				err = outfile.Write(t.expect, func(w io.Writer) error { _, err := w.Write(data); return err })
			}
			if err != nil {
				f.Err = fmt.Errorf("%s: --update: %w", t.expect, err)
				return f
			}
			exp, f.Changes = next, changes
		}
	}
	f.Results = append(expect.Compare(exp, sum, run.Describe), run.Compare(exp)...)
	return f
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
