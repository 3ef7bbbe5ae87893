package policy

import (
	"fmt"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/expect"
)

// Checker is a policy's part of `check`: how an expectation file's
// settings and the command line's overrides become a replay, and what the
// policy compares besides the engine's per-agent outcomes.
type Checker interface {
	// Schema is the policy's part of an expectation file: its settings,
	// variants and sections.
	Schema() *expect.Schema
	// Prepare returns the replay of one expectation file. An error names
	// the file (and the line, where it has one).
	Prepare(f *CheckFile) (CheckRun, error)
}

// Profiler is the part of a Checker whose policy has profiles (check's
// --profile): the loop detector's.
type Profiler interface {
	// ProfileHelp names the policy's profiles for messages ("spec,
	// progress, … for the loop detector").
	ProfileHelp() string
	// Profile records name in over when it is one of the policy's
	// profiles, and returns the profile's own name.
	Profile(name string, over *expect.Settings) (canonical string, ok bool)
}

// CheckRun is one expectation file's replay as its policy sees it.
type CheckRun interface {
	// Config is the engine's configuration for the replay.
	Config() analyze.Config
	// Settings is the line that says which settings were replayed (""
	// for the loop detector's, which check derives from the summary).
	Settings() string
	// Describe words what the replay did to one agent, for check's
	// messages ("killed at request 6 (score 13.0 > 10)").
	Describe(a *analyze.AgentSummary, s *analyze.Summary) string
	// Update brings next's policy sections up to date with the replay
	// (check --update) and returns what changed, one line each.
	Update(next *expect.Expectation) []string
	// Compare checks exp's policy sections against the replay.
	Compare(exp *expect.Expectation) []expect.Result
}

// CheckFile is one expectation file as check hands it to its policy.
type CheckFile struct {
	Path string              // the expectation file
	Exp  *expect.Expectation // nil: a file --update creates
	// Eff are the file's settings with the command line's overrides; Over
	// the overrides alone, so that a setting the policy does not have is
	// refused rather than ignored; Profile the --profile given ("": none).
	Eff, Over expect.Settings
	Profile   string
	// ProfileOf names the policies --profile is a profile of.
	ProfileOf []string
}

// RefuseLoopSettings refuses check's loop detector overrides (--window,
// --threshold, --mode, and --profile when profile is set) for a file that
// replays the policy name: they would mean nothing to it, and a user who
// gives them expects them to count. check calls it for every policy whose
// Schema does not take LoopSettings.
func (f *CheckFile) RefuseLoopSettings(name string, profile bool) error {
	for _, o := range []struct {
		set  bool
		flag string
	}{{f.Over.Window != nil, "--window"}, {f.Over.Threshold != nil, "--threshold"}, {f.Over.Mode != nil, "--mode"}, {profile, "--profile " + f.Profile}} {
		if o.set {
			return fmt.Errorf("%s: %s is a loop detector setting: this file replays the %s", f.Path, o.flag, name)
		}
	}
	return nil
}

// Schemas are the registered policies' parts of an expectation file, the
// default policy's first: what expect.Parse reads a file with.
func Schemas() []*expect.Schema {
	var out []*expect.Schema
	if d := Default(); d != nil && d.Check != nil {
		out = append(out, d.Check.Schema())
	}
	for _, p := range All() {
		if p.Check != nil && p != Default() {
			out = append(out, p.Check.Schema())
		}
	}
	return out
}
