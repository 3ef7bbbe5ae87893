// Package browser renders the HTML reports in a real browser for tests: a
// headless Chromium (Debian package chromium) takes a screenshot of a page
// and reports what its console said. Nothing of it ships in killswitch.
package browser

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
)

// Find returns the path of a Chromium the tests can run, or an error
// saying what to install.
func Find() (string, error) {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no Chromium: install the Debian package chromium (apt-get install chromium) to render the HTML reports in a browser")
}

// Page is what the browser made of one page.
type Page struct {
	PNG     []byte   // the screenshot
	Console []string // console messages (errors, warnings, logs), in order
}

// console matches Chromium's log lines for a page's console messages
// (--log-level=0), in either of the forms versions print:
// [1127/120102.123:INFO:CONSOLE:12] "message", source: file:///… (12)
// [1127/120102.123:INFO:CONSOLE(12)] "message", source: file:///… (12)
var console = regexp.MustCompile(`:CONSOLE(?::\d+|\(\d+\))\] (.*)`)

// quiet are the flags that keep a headless Chromium to the page: no
// first-run, extensions, component updates, background fetches, or
// on-device model service (whose start-up probe of the GPU drivers was
// running in the one run seen hung at start-up). The proxy leads
// nowhere, so a page cannot fetch anything from elsewhere.
var quiet = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-default-apps", "--no-default-browser-check",
	"--disable-features=LogOnDeviceMetricsOnStartup,OnDeviceModelWarmDrivers,OptimizationGuideModelExecution,OptimizationHints",
	"--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>", // nothing to fetch: every fetch fails
}

// Shot loads the page at path (a local file) in a headless Chromium of
// the given window size and returns its screenshot and console messages.
// The browser's proxy leads nowhere, so a page cannot fetch anything from
// elsewhere (such a failed fetch writes no console line: internal/htmltest
// checks the pages' markup for it).
func Shot(ctx context.Context, chromium, path string, width, height int) (*Page, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	var png []byte
	_, stderr, err := chromiumRuns.run(ctx, chromium,
		func(dir string) []string {
			return append(slices.Clone(quiet),
				"--hide-scrollbars", "--user-data-dir="+filepath.Join(dir, "profile"),
				"--enable-logging=stderr", "--log-level=0",
				fmt.Sprintf("--window-size=%d,%d", width, height), "--screenshot="+filepath.Join(dir, "shot.png"), "file://"+abs)
		},
		func(_, stderr []byte) bool { return bytes.Contains(stderr, []byte(" bytes written to file ")) },
		func(dir string) (err error) {
			if png, err = os.ReadFile(filepath.Join(dir, "shot.png")); err != nil {
				return fmt.Errorf("no screenshot of %s: %v", path, err)
			}
			return nil
		})
	if err != nil {
		return nil, err
	}
	p := &Page{PNG: png}
	for _, m := range console.FindAllSubmatch(stderr, -1) {
		p.Console = append(p.Console, string(m[1]))
	}
	return p, nil
}
