// Package policy is the registry of kill-switch policies. A policy (the
// loop detector, the error-rate breaker, the gateway) is one package that
// registers a Policy value in an init function, as an image format or a
// database/sql driver does; the commands look it up by the name given to
// --policy and never name one. Importing
// github.com/killswitch/killswitch/policy/all registers every built-in
// policy.
//
// A Policy carries everything a command needs above the replay engine:
// its flags, its settings file section, its replay (report formats, state
// writes), its sweep and its section of a check expectation. The engine
// (analyze) owns replay order, subjects and bookkeeping; a policy's state
// machine implements analyze.Policy.
package policy

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/report"
)

// Policy is a registered kill switch.
type Policy struct {
	// Name is the policy's name on the command line (--policy) and in
	// expectation files ("settings": {"policy": NAME}).
	Name string
	// Order places the policy in listings (--policy's help, error
	// messages): lower first. The default policy has the lowest.
	Order int
	// Help says in a few words what the policy is, for --policy's help.
	Help string

	// Replay registers the policy's own replay flags on fs and returns
	// the replayer that runs with them once the flags are parsed. Flags
	// of the same name registered by several policies are one flag
	// (Flag* functions below).
	Replay func(fs *pflag.FlagSet) Replayer
	// ReplayFormats are the report formats Replay renders, in the order
	// messages list them.
	ReplayFormats []string

	// Sweep, when set, registers the policy's sweep flags and returns its
	// sweeper; nil when the policy has no sweep.
	Sweep func(fs *pflag.FlagSet) Sweeper
	// SweepFormats are the report formats Sweep renders.
	SweepFormats []string
	// SweepReadsSettings says whether the sweep reads --settings (else
	// giving it is refused: never silently ignored).
	SweepReadsSettings bool

	// Settings is the policy's part of a settings file (nil: it reads
	// none).
	Settings *SettingsPart

	// Check runs the policy for `check` (nil: the policy cannot be
	// checked).
	Check Checker

	// Commands are commands of the policy's own (gateway: verify).
	Commands []Command

	// Conformance is what the conformance suite needs to hold the policy
	// to the promises every policy keeps (cmd/killswitch's
	// conformance_test.go): a policy without it does not pass.
	Conformance *Conformance
}

// Conformance are a policy's examples for the conformance suite, as
// testing/fstest.TestFS takes the files it expects.
type Conformance struct {
	// Capture is a capture the policy replays with something to report
	// (a path from the repository's root).
	Capture string
	// BadSettings are settings files the policy must refuse, each with
	// the key its message names: a value of the wrong type, an unknown
	// key, a number out of range.
	BadSettings []BadSetting
}

// BadSetting is a settings document and the key its error names.
type BadSetting struct{ Doc, Key string }

// Command is a command a policy adds to killswitch (the gateway's
// verify). The command line gives it -o/--output (its report, written as
// Env.Output does), the arguments (Env.Paths) and the flags Flags
// registers.
type Command struct {
	Name, Args string
	Summary    string // one line for killswitch's usage
	Help       string // what --help says above the flags
	// Flags registers the command's flags on fs and returns what runs it
	// once they are parsed.
	Flags func(fs *pflag.FlagSet) Runner
}

// Runner runs a policy's own command. found is exit status 1 (a finding
// the user asked to fail on); an error is exit status 2.
type Runner interface {
	Run(e *Env) (found bool, err error)
}

// ErrStrict ends a --strict run at the first malformed input item.
var ErrStrict = errors.New("stopped at the first malformed input item (--strict)")

// Replayer runs one replay with the options of the common flags.
type Replayer interface {
	Replay(e *Env, o *ReplayOptions) (*Outcome, error)
}

// SplitReplayer is the optional interface of a Replayer whose replay can
// be split into parts replayed apart (on the workers of a Beam pipeline,
// cmd/killswitch-beam) and merged into exactly what one replay writes:
// its decision records (-f jsonl), its -f json report and its state
// writes. A front end registers the policy's flags (Replay), parses them,
// then calls Split; a policy whose Replayer does not implement it is run
// by one `killswitch replay` only.
type SplitReplayer interface {
	Replayer
	// Split returns the split replay the parsed flags and the settings
	// file (its name and content; none when name is "") configure, with
	// Replay's defaults, precedence and errors.
	Split(settings string, data []byte) (Splitter, error)
}

// Splitter is a policy's replay split by a key of its own (the breaker's
// Redis key stem, the gateway's tenant): the records of one key are
// replayed together, in replay order, by one Part, and Merge joins the
// parts' results. A Splitter and its parts are used by one goroutine
// each.
type Splitter interface {
	// Profile is the loop profile whose features the parts' engines
	// read (analyze.ProfileUsage when the policy runs no loop detector).
	Profile() *analyze.Profile
	// Key is the shard key of a record (a request or a control record):
	// records of one key are replayed by one part.
	Key(rec *ingest.Record) string
	// Trim drops from rec, once its features are extracted, what no part
	// reads (bodies, or all but what the policy decides on), before it
	// crosses to its part.
	Trim(rec *ingest.Record)
	// Ends reports whether rec's time counts toward the capture's end,
	// the time every part is finished at (Part.Finish).
	Ends(rec *ingest.Record) bool
	// NewPart returns the replay of one part.
	NewPart() (Part, error)
	// Merge joins the parts' results (Part.Finish's, in any order) and
	// writes the -f json report to report, the state writes (as --writes
	// FILE with StateExt's suffix) to state, and to decisions the decision
	// records only the whole replay knows (none, for a policy whose
	// records are one per request: the parts write them all).
	Merge(parts [][]byte, decisions, report, state io.Writer) error
	// StateExt is the suffix of the state writes' file (".redis", ".sql").
	StateExt() string
}

// Part is one part of a split replay: its records are stepped, in
// replay order, through an engine of the Splitter's Profile and
// Policies.
type Part interface {
	// Policies are the part's policies, for the engine's configuration.
	Policies() []analyze.Policy
	// See is called with each record, before the engine steps it, and its
	// place in the whole replay.
	See(rec *ingest.Record, at Order)
	// Finish writes the part's decision records (-f jsonl) to w, each
	// request numbered as in the whole replay (seq maps the part's n-th
	// request, 1-based, to its number), and returns the part's result
	// for Merge. end is the capture's end (Splitter.Ends).
	Finish(w io.Writer, seq func(n int64) (int64, error), end time.Time) ([]byte, error)
}

// Renumber gives each of xs the number of the whole replay (seq, as
// Part.Finish gets it) in place of its part's, at the number num points
// to.
func Renumber[T any](xs []T, num func(*T) *int64, seq func(int64) (int64, error)) error {
	for i := range xs {
		n := num(&xs[i])
		g, err := seq(*n)
		if err != nil {
			return err
		}
		*n = g
	}
	return nil
}

// Order is a record's place in the replay order of several captures
// merged in time: by Clock, then File, then Idx.
type Order struct {
	// Clock is the latest time (Unix nanoseconds) of the record's capture
	// up to the record: the latest of the whole replay so far, as the
	// time-ordered merge of captures emits records by it.
	Clock int64
	File  int   // the capture's index among the inputs
	Idx   int64 // the record's index in its capture
}

// Less reports whether o comes before p in the replay.
func (o Order) Less(p Order) bool {
	if o.Clock != p.Clock {
		return o.Clock < p.Clock
	}
	if o.File != p.File {
		return o.File < p.File
	}
	return o.Idx < p.Idx
}

// Sweeper runs one sweep.
type Sweeper interface {
	Sweep(e *Env, o *SweepOptions) error
}

// ReplayOptions are replay's flags that every policy shares.
type ReplayOptions struct {
	Format     string // one of the policy's ReplayFormats
	Settings   string // the settings file ("": none)
	Writes     string // --writes FILE ("": none)
	Apply      string // --apply TARGET ("": none)
	AllowEmpty bool   // accept input without any request
	Wide, All  bool   // tables: every column, every row
}

// SweepOptions are sweep's flags that every policy shares.
type SweepOptions struct {
	Format     string
	Settings   string
	AllowEmpty bool
	Wide, All  bool
	MaxFP      int // --max-false-positives
}

// Outcome is what a replay found, for the command's closing lines and its
// exit status.
type Outcome struct {
	Summary *analyze.Summary // the engine's summary (warnings, malformed items)
	Found   bool             // the policy refused or killed something (--fail-on-kill)
	Notes   []string         // lines for standard error after the report
}

// Env is what a command hands a policy: the captures, where the report
// goes, and the replay every policy shares.
type Env struct {
	Command string    // the command, for messages ("replay")
	Paths   []string  // the captures as given
	Stdin   io.Reader // standard input ("-" among the paths)
	Stdout  io.Writer // standard output (a policy's own commands)
	Stderr  io.Writer // problems and notes
	Getenv  func(string) string
	Workers int  // --workers (0: the default, chosen by the input: see analyze.Replay)
	Verbose bool // --verbose

	// Width is the width of the terminal the report goes to (0: not a
	// terminal; tables then fit report.DefaultWidth).
	Width int
	// Replay replays the captures in time order through an engine of cfg,
	// reporting problems as they are met.
	Replay func(cfg analyze.Config, h analyze.Hooks) (*analyze.Summary, error)
	// Records calls step with every record of the captures in time order
	// (malformed and skipped ones are reported and counted, not passed).
	Records func(step func(*ingest.Record)) (malformed int, err error)
	// Open opens the captures, merged in time order, for a read of the
	// policy's own (a second pass, a sweep's collection); a progress line
	// runs until closer is called. Problems are the caller's to report
	// (Problem).
	Open func() (r ingest.Reader, closer func(), err error)
	// OpenFiles opens other captures (a flag's files) as Open opens the
	// command's, with the default input options.
	OpenFiles func(paths []string) (r ingest.Reader, closer func(), err error)
	// Rereadable says whether the captures can be read twice (not
	// standard input or a pipe).
	Rereadable bool
	// Problem reports a malformed or skipped record, or a warning, as the
	// replay does (and stops a --strict run with an error).
	Problem func(rec *ingest.Record, warn string) error
	// Output writes the report: atomically to the output file, or to
	// standard output.
	Output func(fn func(w io.Writer) error) error
	// Summarize says on standard error what the report does not: the
	// warnings counted but not printed, per kind, and the malformed items
	// skipped.
	Summarize func(warnings []analyze.WarningCount, malformed int)
	// WriteFile writes a file atomically (outfile.Write).
	WriteFile func(path string, fn func(w io.Writer) error) error
}

// NoRequests is the error for input that held no LLM request: random
// bytes, an empty file, a wrong --input-format. A nightly job must not
// pass on such a file (--allow-empty accepts it).
func NoRequests(requests, malformed int, skips []analyze.SkipCount) error {
	if requests > 0 {
		return nil
	}
	n := 0
	for _, s := range skips {
		n += s.Count
	}
	return fmt.Errorf("no LLM request in the input (%s, %s); --allow-empty accepts it", report.Plural(malformed, "malformed item"), report.Plural(n, "skipped item"))
}

var registry []*Policy

// Register adds p to the registry. It panics when the name is taken or
// empty, or Replay is nil: a programming error, found at start-up.
func Register(p *Policy) {
	if p.Name == "" || p.Replay == nil || len(p.ReplayFormats) == 0 {
		panic("policy.Register: a policy needs a name, a replay and its formats")
	}
	if Lookup(p.Name) != nil {
		panic("policy.Register: " + p.Name + " registered twice")
	}
	registry = append(registry, p)
	slices.SortStableFunc(registry, func(a, b *Policy) int {
		if a.Order != b.Order {
			return a.Order - b.Order
		}
		return strings.Compare(a.Name, b.Name)
	})
}

// Lookup returns the policy called name, or nil.
func Lookup(name string) *Policy {
	for _, p := range registry {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// All returns the registered policies in order. The caller must not
// modify the slice.
func All() []*Policy { return registry }

// Default is the policy a command runs without --policy: the first in
// order (the loop detector).
func Default() *Policy {
	if len(registry) == 0 {
		return nil
	}
	return registry[0]
}

// Names lists the policies for messages: "loop, breaker or gateway".
func Names() string {
	names := make([]string, len(registry))
	for i, p := range registry {
		names[i] = p.Name
	}
	return List(names)
}

// List joins words as a sentence does: "a", "a or b", "a, b or c".
func List(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// Unknown is the error for a --policy that names no policy.
func Unknown(name string) error {
	return fmt.Errorf("unknown --policy %q (want %s)", name, Names())
}
