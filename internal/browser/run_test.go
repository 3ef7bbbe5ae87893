//go:build unix

package browser

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// script writes a shell script into a temporary directory and returns
// its path and the directory (shared by its runs: its memory).
func script(t *testing.T, body string) (path, state string) {
	t.Helper()
	state = t.TempDir()
	path = filepath.Join(state, "browser.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\nS="+state+"\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path, state
}

var quick = runner{limits: []time.Duration{time.Second, 2 * time.Second}, grace: 200 * time.Millisecond, poll: 10 * time.Millisecond}

func noArgs(string) []string { return nil }

func endsHTML(stdout, _ []byte) bool {
	return strings.HasSuffix(strings.TrimSpace(string(stdout)), "</html>")
}

// alive reports whether the process whose pid the script wrote into
// state/name is still running.
func alive(t *testing.T, state, name string) bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(state, name))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if syscall.Kill(pid, 0) != nil || zombie(pid) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// zombie reports whether the process has exited and waits to be reaped
// (as a killed helper does whose parent was killed too, until init
// reaps it), where /proc says.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) state ...: comm may hold spaces and parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// A run that hangs at start-up is killed, with the helpers it started,
// and tried again from a new directory; the second attempt's output is
// returned.
func TestRunRetriesAHang(t *testing.T) {
	path, state := script(t, `
if [ -e $S/tried ]; then echo "<html>$1</html>"; exit 0; fi
touch $S/tried
sleep 60 & echo $! > $S/helper
echo starting >&2
wait
`)
	var dirs []string
	out, _, err := quick.run(context.Background(), path, func(dir string) []string {
		dirs = append(dirs, dir)
		return []string{dir}
	}, endsHTML, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) != 2 || dirs[0] == dirs[1] {
		t.Fatalf("attempts' directories %q, want two different ones", dirs)
	}
	if want := "<html>" + dirs[1] + "</html>\n"; string(out) != want {
		t.Errorf("output %q, want %q", out, want)
	}
	if alive(t, state, "helper") {
		t.Error("the hung attempt's helper process was left running")
	}
}

// A run whose work is done but that does not exit is killed after the
// grace and its output kept; keep reads its directory first.
func TestRunKeepsADoneHang(t *testing.T) {
	path, state := script(t, `
echo shot > $1/shot.png
echo "<html>x</html>"
sleep 60 & echo $! > $S/helper
wait
`)
	start := time.Now()
	var kept string
	out, _, err := quick.run(context.Background(), path, func(dir string) []string { return []string{dir} }, endsHTML,
		func(dir string) error {
			b, err := os.ReadFile(filepath.Join(dir, "shot.png"))
			kept = string(b)
			return err
		})
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != "<html>x</html>\n" || kept != "shot\n" {
		t.Errorf("output %q, kept %q", out, kept)
	}
	if d := time.Since(start); d >= quick.limits[0] {
		t.Errorf("took %v: a done run waits its grace (%v), not its attempt's limit", d, quick.grace)
	}
	if alive(t, state, "helper") {
		t.Error("the done run's helper process was left running")
	}
}

// When every attempt hangs, the error says so, attempt by attempt, with
// the last one's log.
func TestRunGivesUp(t *testing.T) {
	path, _ := script(t, "echo 'still loading' >&2\nexec sleep 60\n")
	_, _, err := quick.run(context.Background(), path, noArgs, endsHTML, nil)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"attempt 1 hung (killed after 1s)", "attempt 2 hung (killed after 2s)", "still loading"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// A run that fails is not tried again: that is the page's failure, not
// a hang.
func TestRunDoesNotRetryAFailure(t *testing.T) {
	path, state := script(t, "echo run >> $S/runs\necho 'page crashed' >&2\nexit 3\n")
	_, _, err := quick.run(context.Background(), path, noArgs, endsHTML, nil)
	if err == nil || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "page crashed") {
		t.Fatalf("error %v, want the exit status and the log", err)
	}
	if b, _ := os.ReadFile(filepath.Join(state, "runs")); string(b) != "run\n" {
		t.Errorf("runs %q, want one", b)
	}
}

// A cancelled context stops a run at once.
func TestRunCancelled(t *testing.T) {
	path, _ := script(t, "exec sleep 60\n")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, _, err := quick.run(ctx, path, noArgs, endsHTML, nil)
	if err != context.DeadlineExceeded {
		t.Fatalf("error %v, want the context's", err)
	}
}
