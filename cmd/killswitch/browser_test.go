package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/killswitch/killswitch/internal/browser"
	"github.com/killswitch/killswitch/internal/htmltest"
)

// pageKinds are the kinds of HTML page killswitch writes, each made from
// the fixtures (the arguments without -f html).
var pageKinds = []struct {
	name string
	args []string
}{
	{"replay-loop", []string{"replay", "fixtures/scenarios/identical-loop.jsonl", "fixtures/scenarios/healthy.jsonl", "fixtures/scenarios/numbers-only-loop.jsonl"}},
	{"replay-progress", []string{"replay", "--profile", "progress", "fixtures/progress/loop-same-error.jsonl", "fixtures/progress/loop-cycle.jsonl", "fixtures/progress/healthy-edit-build.jsonl"}},
	{"replay-breaker", []string{"replay", "--policy", "breaker", "fixtures/breaker/outage.jsonl"}},
	{"replay-gateway", []string{"replay", "--policy", "gateway", "--variant", "spec", "fixtures/gateway/m22.jsonl"}},
	{"sweep-loop", []string{"sweep", "fixtures/sweep/labelled.jsonl"}},
	{"sweep-profiles", []string{"sweep", "--profiles", "spec,progress", "fixtures/sweep/labelled.jsonl"}},
	{"sweep-breaker", []string{"sweep", "--policy", "breaker", "fixtures/breaker/outage.jsonl"}},
	{"sweep-gateway", []string{"sweep", "--policy", "gateway", "--variant", "spec", "--rpms", "1,2,100", "fixtures/gateway/incidents.jsonl"}},
}

// htmlPage runs the command of a page kind with -f html and returns the
// page.
func htmlPage(t *testing.T, args []string) string {
	t.Helper()
	args = append([]string{args[0], "-f", "html"}, args[1:]...)
	page, stderr, code := runCLI(t, "", args...)
	if code != exitOK || !strings.HasPrefix(page, "<!DOCTYPE html>") {
		t.Fatalf("%q: exit %d: %s", args, code, stderr)
	}
	return page
}

// Every mark of every chart has a hover title (time, request or agent,
// value), read from each page kind's markup.
func TestPagesMarksHaveTitles(t *testing.T) {
	for _, p := range pageKinds {
		t.Run(p.name, func(t *testing.T) {
			els := htmltest.Parse(t, []byte(htmlPage(t, p.args)))
			for _, e := range htmltest.Untitled(els) {
				t.Errorf("a <%s> %v in chart %q has no title", e.Name, e.Attrs, e.Chart.Attrs["class"])
			}
		})
	}
}

// TestPagesInABrowser opens every kind of HTML page killswitch writes,
// made from the fixtures, in a headless Chromium as a reader would: each
// page loads, says nothing in the browser's console (no error, no blocked
// fetch: the pages are self-contained) and renders to a screenshot. With
// KILLSWITCH_SCREENSHOTS=DIR the screenshots are kept there (make
// screenshots keeps them in docs/screenshots, for reviewers to see what a
// change did to the pages). Without Chromium the test skips, except under
// CI=true, where it fails (.ci/run installs it).
func TestPagesInABrowser(t *testing.T) {
	chromium, err := browser.Find()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	keep := os.Getenv("KILLSWITCH_SCREENSHOTS")
	dir := t.TempDir()
	for _, p := range pageKinds {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel() // the browser mostly waits: the pages overlap
			page := htmlPage(t, p.args)
			file := filepath.Join(dir, p.name+".html")
			if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
				t.Fatal(err)
			}
			shot, err := browser.Shot(context.Background(), chromium, file, 1280, 1600)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(shot.PNG, []byte("\x89PNG\r\n\x1a\n")) || len(shot.PNG) < 10_000 {
				t.Errorf("%s: the screenshot is not a PNG of a page (%d bytes)", p.name, len(shot.PNG))
			}
			for _, m := range shot.Console {
				t.Errorf("%s: the console says %s", p.name, m)
			}
			// Numbers read from the DOM the browser built equal those of
			// -f json of the same run.
			check := pageNumbers[p.name]
			if check == nil {
				t.Fatalf("%s: no numbers are checked for this page kind (pageNumbers)", p.name)
			}
			dom, err := browser.DOM(context.Background(), chromium, file)
			if err != nil {
				t.Fatal(err)
			}
			args := append([]string{p.args[0], "-f", "json"}, p.args[1:]...)
			doc, stderr, code := runCLI(t, "", args...)
			if code != exitOK {
				t.Fatalf("%q: exit %d: %s", args, code, stderr)
			}
			got, want := check(t, browser.Elements(dom), []byte(doc))
			if len(want) == 0 || strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s: the page shows\n%s\n-f json says\n%s", p.name, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if keep != "" {
				if err := os.WriteFile(filepath.Join(keep, p.name+".png"), shot.PNG, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
