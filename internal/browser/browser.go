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
	"time"
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

// hangAfter is how long one Chromium run may take before it is taken
// for hung and killed. A page renders in a second or two on an idle
// machine; the limit is far above that because on a loaded one (the
// whole test suite, or other builds, sharing two cores) Chromium's own
// start-up alone has taken over a minute, and a slow machine is not a
// failed page.
const hangAfter = 5 * time.Minute

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
	dir, err := os.MkdirTemp("", "killswitch-browser-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	png := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(ctx, hangAfter)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium,
		"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
		"--hide-scrollbars", "--user-data-dir="+filepath.Join(dir, "profile"),
		"--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>", // nothing to fetch: every fetch fails
		"--enable-logging=stderr", "--log-level=0",
		fmt.Sprintf("--window-size=%d,%d", width, height), "--screenshot="+png, "file://"+abs)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	// No D-Bus session: Chromium would wait for one.
	cmd.Env = append(os.Environ(), "HOME="+dir, "DBUS_SESSION_BUS_ADDRESS=disabled:", "DBUS_SYSTEM_BUS_ADDRESS=disabled:")
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", chromium, err, stderr.Bytes())
	}
	p := &Page{}
	if p.PNG, err = os.ReadFile(png); err != nil {
		return nil, fmt.Errorf("%s made no screenshot of %s: %v\n%s", chromium, path, err, stderr.Bytes())
	}
	for _, m := range console.FindAllSubmatch(stderr.Bytes(), -1) {
		p.Console = append(p.Console, string(m[1]))
	}
	return p, nil
}
