package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDocsCommands runs the `killswitch …` lines of docs/*.md's sh blocks
// as TestREADMECommands runs the README's, in place: they may only read
// (a command that writes a file belongs in the README's sandbox).
func TestDocsCommands(t *testing.T) {
	docs, _ := filepath.Glob("docs/*.md")
	if len(docs) == 0 {
		t.Skip("no docs/")
	}
	for _, doc := range docs {
		for _, args := range readmeCommands(t, doc) {
			line := strings.Join(args, " ")
			if slices.ContainsFunc(args, func(a string) bool {
				return a == "-o" || a == "--writes" || a == "--apply" || a == "--update" || strings.HasPrefix(a, "--output")
			}) {
				t.Errorf("%s: %s writes files: run it in TestREADMECommands' sandbox", doc, line)
				continue
			}
			if _, err := os.Stat("../shared"); err != nil && strings.Contains(line, "../shared/") {
				t.Logf("skipped without ../shared: %s", line)
				continue
			}
			_, stderr, code := runCLI(t, "", expandGlobs(t, args)...)
			if code != 0 {
				t.Errorf("%s: killswitch %s: exit %d\n%s", doc, line, code, stderr)
			}
		}
	}
}
