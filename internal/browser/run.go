package browser

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// A headless Chromium now and then hangs, on an idle machine as on a
// loaded one, and a hung run is no failed page:
//
//   - at start-up: in CI (Chromium 148) a run printed its start-up lines,
//     probed Vulkan for the on-device model service and then did nothing
//     for five minutes, the page never loaded;
//   - after its work: the screenshot written or the document dumped, the
//     process does not exit (a known bug of the new headless mode).
//
// So every run is watched. A run whose work is done (its done function
// says so from what it printed) and that has not exited after grace is
// killed and its output kept. A run that is still not done after its
// attempt's limit is killed and started again, with a new profile;
// only when every attempt hangs is that an error, which gives each
// attempt's time and the last one's log. A run that exits with an error
// is not tried again: that is the page's (or the browser's) failure.
type runner struct {
	limits []time.Duration // one attempt for each, with its limit
	grace  time.Duration   // how long a run whose work is done may take to exit
	poll   time.Duration   // how often a run's output is looked at
}

// chromiumRuns watches the runs of Shot and DOM. A page renders in a
// second or two on an idle machine and in well under a minute with the
// whole test suite on two cores; later attempts get more time in case
// the machine is slower than that. The sum stays under go test's
// default limit of ten minutes with the rest of the package's tests.
var chromiumRuns = runner{
	limits: []time.Duration{75 * time.Second, 90 * time.Second, 120 * time.Second},
	grace:  5 * time.Second,
	poll:   100 * time.Millisecond,
}

// slots bounds how many Chromiums run at once: each is a handful of
// processes, and a test that opens every page kind in parallel would
// otherwise start sixteen on a machine of two cores.
var slots = make(chan struct{}, 4)

// lockedBuffer is a bytes.Buffer written by a command's copying
// goroutine and read by the watcher.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) Bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return bytes.Clone(l.b.Bytes())
}

// run runs the program name with the arguments args(dir) gives, dir
// being a new temporary directory for each attempt (the profile and
// HOME: nothing is shared between attempts), and returns what it wrote.
// keep is called with dir when an attempt ends well, before dir is
// removed (to read a file the program wrote there).
func (r runner) run(ctx context.Context, name string, args func(dir string) []string, done func(stdout, stderr []byte) bool, keep func(dir string) error) (stdout, stderr []byte, err error) {
	select {
	case slots <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	defer func() { <-slots }()
	var hung []string
	for i, limit := range r.limits {
		var finished bool
		stdout, stderr, finished, err = r.attempt(ctx, name, args, done, keep, limit)
		if err != nil || finished {
			return stdout, stderr, err
		}
		hung = append(hung, fmt.Sprintf("attempt %d hung (killed after %v)", i+1, limit))
	}
	return nil, nil, fmt.Errorf("%s: %s\nthe last attempt's log:\n%s", name, strings.Join(hung, "; "), stderr)
}

// attempt is one run of run's: finished is false when it hung (stderr
// then holds its log).
func (r runner) attempt(ctx context.Context, name string, args func(dir string) []string, done func(stdout, stderr []byte) bool, keep func(dir string) error, limit time.Duration) (stdout, stderr []byte, finished bool, err error) {
	dir, err := os.MkdirTemp("", "killswitch-browser-*")
	if err != nil {
		return nil, nil, false, err
	}
	defer os.RemoveAll(dir)
	var out, errb lockedBuffer
	cmd := exec.Command(name, args(dir)...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	// No D-Bus session: Chromium would wait for one.
	cmd.Env = append(os.Environ(), "HOME="+dir, "DBUS_SESSION_BUS_ADDRESS=disabled:", "DBUS_SYSTEM_BUS_ADDRESS=disabled:")
	ownGroup(cmd)
	// A child left holding the output pipes would keep Wait waiting.
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, nil, false, fmt.Errorf("%s: %v", name, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		killGroup(cmd)
		<-exited
	}
	defer killGroup(cmd) // Chromium's helpers, were any left behind
	over := time.NewTimer(limit)
	defer over.Stop()
	tick := time.NewTicker(r.poll)
	defer tick.Stop()
	// ended is what an attempt that ended well returns: err from the
	// program, or from keep.
	ended := func(err error) ([]byte, []byte, bool, error) {
		if err == nil && keep != nil {
			err = keep(dir)
		}
		if err != nil {
			return nil, nil, false, fmt.Errorf("%s: %v\n%s", name, err, errb.Bytes())
		}
		return out.Bytes(), errb.Bytes(), true, nil
	}
	var doneAt time.Time
	for {
		select {
		case err := <-exited:
			return ended(err)
		case <-ctx.Done():
			stop()
			return nil, nil, false, ctx.Err()
		case <-over.C:
			if !doneAt.IsZero() {
				continue // done: the grace decides
			}
			stop()
			return nil, errb.Bytes(), false, nil
		case now := <-tick.C:
			if doneAt.IsZero() && done(out.Bytes(), errb.Bytes()) {
				doneAt = now
			}
			if !doneAt.IsZero() && now.Sub(doneAt) >= r.grace {
				stop() // its work is done: the hang at exit is no failure
				return ended(nil)
			}
		}
	}
}
