package main

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime/debug"
	"strings"

	"github.com/killswitch/killswitch/policy"
	"github.com/spf13/pflag"
	"sync"
)

// Exit statuses (SPEC §6).
const (
	exitOK    = 0
	exitFound = 1 // a check found a regression, or --fail-on-kill saw a kill
	exitUsage = 2 // bad usage or unreadable input
)

// env is the command's environment: standard streams and variables.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
}

type command struct {
	name, args, summary string
	run                 func(e *env, args []string) int
}

var commands []command

func init() {
	commands = []command{
		{"replay", "[flags] FILE...", "replay captures and print per-agent deactivation timelines", cmdReplay},
		{"sweep", "[flags] FILE...", "evaluate a grid of windows × thresholds: catches, false positives, the recommended setting", cmdSweep},
		{"check", "[flags] PATH...", "replay captured loops and check them against their NAME.expect.json (CI regression)", cmdCheck},
	}
	for _, p := range policy.All() {
		for _, c := range p.Commands {
			commands = append(commands, command{c.Name, c.Args, c.Summary, policyCommand(c)})
		}
	}
	commands = append(commands, []command{
		{"inspect", "[flags] FILE...", "show what a capture holds: format, records, agents, time span, skipped entries by reason", cmdInspect},
		{"fingerprint", "[flags] [TEXT | -] [TEXT2]", "show a prompt's extraction, normalized form and SimHash", cmdFingerprint},
	}...)
}

// policyCommand runs a policy's own command (policy.Command): its flags,
// -o, and the arguments as the captures it reads.
func policyCommand(c policy.Command) func(e *env, args []string) int {
	return func(e *env, args []string) int {
		fs := newFlags(e, c.Name, c.Args, c.Help)
		output := fs.StringP("output", "o", "", "write the report to this file (atomically) instead of standard output")
		policy.MarkOutput(fs, "output")
		runner := c.Flags(fs)
		if code, ok := parseFlags(e, fs, args); !ok {
			return code
		}
		if fs.NArg() == 0 {
			fs.Usage()
			return exitUsage
		}
		err := policy.GuardFiles(fs)
		if f := fs.Lookup("settings"); err == nil && f != nil {
			err = policy.CheckSettingsFile(f.Value.String())
		}
		if err != nil {
			return errorf(e, c.Name, "%v", err)
		}
		rf := readFlags{input: inputOptions{format: "auto", agentHeader: "X-Agent-Id"}}
		found, err := runner.Run(rf.policyEnv(e, c.Name, fs, *output))
		switch {
		case err != nil:
			return errorf(e, c.Name, "%v", err)
		case found:
			return exitFound
		}
		return exitOK
	}
}

func usage(w io.Writer) {
	fmt.Fprint(w, "killswitch replays captured LLM traffic through an AI-agent kill switch.\n\nUsage:\n  killswitch COMMAND [flags] [args]\n\nCommands:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, "\nRun 'killswitch COMMAND --help' for a command's flags, 'killswitch help TOPIC' for the reference\n(topics: "+helpTopicNames()+"), 'killswitch --version' for the version.\nExit status: 0 success, 1 a check failed or --fail-on-kill saw a kill, 2 bad usage or unreadable input.\n")
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv}
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "--help":
		usage(stdout)
		return exitOK
	case "help":
		return cmdHelp(e, args[1:])
	}
	if args[0] == "--version" || args[0] == "version" {
		fmt.Fprintln(stdout, versionLine())
		return exitOK
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(e, args[1:])
		}
	}
	fmt.Fprintf(stderr, "killswitch: unknown command %q\n\n", args[0])
	usage(stderr)
	return exitUsage
}

// flagSetMade, when set (by tests), is handed every command's flag set as
// it is made; the command defines its flags on it before parsing them.
var flagSetMade func(*pflag.FlagSet)

// newFlags returns a flag set for a subcommand that reports errors instead
// of exiting.
func newFlags(e *env, name, args, summary string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.SortFlags = false
	if flagSetMade != nil {
		flagSetMade(fs)
	}
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "Usage: killswitch %s %s\n\n%s\n\nFlags:\n%s", name, args, summary, fs.FlagUsages())
	}
	return fs
}

// parseFlags parses args; ok false means the caller returns code.
func parseFlags(e *env, fs *pflag.FlagSet, args []string) (code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fs.SetOutput(e.stdout)
			return exitOK, false
		}
		fmt.Fprintf(e.stderr, "killswitch %s: %s\n", fs.Name(), flagError(err))
		return exitUsage, false
	}
	return 0, true
}

// badValue matches pflag's message for a value its type cannot parse:
// invalid argument "x" for "-w, --window" flag: strconv.ParseInt: parsing "x": invalid syntax.
// Compiled on first use, not at every start (#30: start-up).
var badValue = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^invalid argument ("(?:[^"\\]|\\.)*") for "(?:-., )?(--[^"]+)" flag: (?:strconv\.Parse(Int|Uint|Float|Bool): parsing "(?:[^"\\]|\\.)*": (invalid syntax|value out of range)|time: (.*))$`)
})

// flagError says what is wrong with a flag in the words of the other
// checks (`--window: "x" is not a whole number`), not in strconv's.
func flagError(err error) string {
	m := badValue().FindStringSubmatch(err.Error())
	if m == nil {
		return err.Error()
	}
	val, flag := m[1], m[2]
	switch {
	case m[5] != "":
		return flag + ": " + val + " is not a duration (want 30s, 5m, 1h30m)"
	case m[4] == "value out of range":
		return flag + ": " + val + " is out of range"
	case m[3] == "Float":
		return flag + ": " + val + " is not a number"
	case m[3] == "Bool":
		return flag + ": " + val + " is not true or false"
	}
	return flag + ": " + val + " is not a whole number"
}

func errorf(e *env, cmd, format string, args ...any) int {
	fmt.Fprintf(e.stderr, "killswitch %s: %s\n", cmd, strings.TrimSpace(fmt.Sprintf(format, args...)))
	return exitUsage
}

// versionLine is what --version prints: the module version and the VCS
// revision the binary was built from (from its build information).
func versionLine() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "killswitch (no build information)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	line := "killswitch " + v
	var rev, when, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = ", modified"
			}
		}
	}
	if rev != "" {
		line += " (revision " + rev
		if when != "" {
			line += ", " + when
		}
		line += dirty + ")"
	}
	return line + ", " + bi.GoVersion
}
