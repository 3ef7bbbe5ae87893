// Package docs holds killswitch's reference documentation, the Markdown
// files of this directory, embedded so that `killswitch help TOPIC` prints
// it offline, on a machine without the repository. The files are the
// documentation: the repository's README links to them, and the help
// command prints them as they are.
package docs

import (
	"embed"
	"fmt"
	"io/fs"
	"strings"
)

//go:embed *.md
var files embed.FS

// A Topic is one subject of `killswitch help`: a file, or one section of
// it (a "## " heading and what follows up to the next one).
type Topic struct {
	Name    string
	Aliases []string
	File    string
	Section string // a "## " heading of File; empty for the whole file
	Summary string
}

// Topics lists the help topics in the order `killswitch help` shows them.
// Every file of the directory is some topic's (a test checks it).
var Topics = []Topic{
	{Name: "policies", File: "policies.md", Summary: "the three kill switches: what each decides and the state it writes"},
	{Name: "profiles", Aliases: []string{"loop"}, File: "loop.md", Summary: "the loop detector: settings, the spec, agentgazer and progress profiles, state writes"},
	{Name: "progress", File: "progress.md", Summary: "the progress loop profile: its rules and how it does on real trajectories"},
	{Name: "peers", Aliases: []string{"gemini-cli", "openhands", "roo", "cline", "openclaw"}, File: "peers.md", Summary: "the agent frameworks' loop detectors as profiles: gemini-cli, openhands, roo, cline, openclaw"},
	{Name: "breaker", File: "breaker.md", Summary: "the error-rate circuit breaker (--policy breaker)"},
	{Name: "gateway", Aliases: []string{"verify"}, File: "gateway.md", Summary: "the gateway policy (--policy gateway) and killswitch verify"},
	{Name: "formats", Aliases: []string{"input"}, File: "formats.md", Summary: "the capture record, control records and every input format"},
	{Name: "settings", File: "settings.md", Summary: "settings files of every policy"},
	{Name: "sweep", Aliases: []string{"tuning"}, File: "sweep.md", Summary: "tuning the loop detector with sweep"},
	{Name: "ci", Aliases: []string{"expectations"}, File: "ci.md", Summary: "killswitch check in CI: expectation files, --update, a GitHub Actions job"},
	{Name: "commands", Aliases: []string{"cli", "flags"}, File: "cli.md", Summary: "every command and flag, exit status, what killswitch will not do to your files"},
	{Name: "exit-codes", Aliases: []string{"exit-status", "exit"}, File: "cli.md", Section: "Exit status", Summary: "what each exit status means"},
	{Name: "beam", File: "beam.md", Summary: "the same replay as an Apache Beam pipeline"},
	{Name: "performance", File: "performance.md", Summary: "throughput and memory figures, how to reproduce them"},
	{Name: "architecture", Aliases: []string{"layout"}, File: "architecture.md", Summary: "the layout, and where a profile, policy, format or store goes"},
	{Name: "development", Aliases: []string{"contributing", "make"}, File: "development.md", Summary: "working on killswitch: make targets, what make test runs and how long it takes"},
}

// Lookup returns the topic called name (or one of its aliases).
func Lookup(name string) (Topic, bool) {
	name = strings.ToLower(name)
	for _, t := range Topics {
		if t.Name == name {
			return t, true
		}
		for _, a := range t.Aliases {
			if a == name {
				return t, true
			}
		}
	}
	return Topic{}, false
}

// Text returns the topic's Markdown.
func (t Topic) Text() (string, error) {
	b, err := fs.ReadFile(files, t.File)
	if err != nil {
		return "", err
	}
	s := string(b)
	if t.Section == "" {
		return s, nil
	}
	head := "## " + t.Section + "\n"
	i := strings.Index(s, "\n"+head)
	if i < 0 {
		return "", fmt.Errorf("docs: %s has no section %q", t.File, t.Section)
	}
	s = s[i+1:]
	if j := strings.Index(s[len(head):], "\n## "); j >= 0 {
		s = s[:len(head)+j+1]
	}
	return s, nil
}

// Files returns the names of the embedded Markdown files, sorted.
func Files() []string {
	ents, _ := fs.ReadDir(files, ".")
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}
