// Package testsrv starts real servers for tests: a PostgreSQL cluster in a
// temporary directory, on a Unix socket, stopped when the test ends.
package testsrv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pgBin finds a PostgreSQL binary: on PATH, else in Debian's
// /usr/lib/postgresql/*/bin.
func pgBin(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/" + name)
	if len(m) > 0 {
		return m[len(m)-1], nil
	}
	return "", fmt.Errorf("%s not found (install Debian's postgresql: .ci/install-services)", name)
}

// Postgres starts a throw-away cluster and returns a connection string for
// pgx (postgres://postgres@/postgres?host=SOCKETDIR). Without the server
// binaries the test is skipped, except under CI=true, where it fails.
// initdb refuses to run as root: as root the cluster runs as the
// postgres user (runuser).
func Postgres(t testing.TB) string {
	t.Helper()
	initdb, err := pgBin("initdb")
	var pgctl string
	if err == nil {
		pgctl, err = pgBin("pg_ctl")
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PostgreSQL is required under CI=true: %v", err)
		}
		t.Skipf("no PostgreSQL: %v", err)
	}
	dir, err := os.MkdirTemp("", "killswitch-pg-")
	if err != nil {
		t.Fatal(err)
	}
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "sock")
	if err := os.Mkdir(sock, 0o777); err != nil {
		t.Fatal(err)
	}
	asUser := func(bin string, args ...string) *exec.Cmd {
		if os.Geteuid() == 0 {
			return exec.Command("runuser", append([]string{"-u", "postgres", "--", bin}, args...)...)
		}
		return exec.Command(bin, args...)
	}
	if os.Geteuid() == 0 {
		if out, err := exec.Command("chown", "-R", "postgres", dir).CombinedOutput(); err != nil {
			t.Fatalf("chown %s: %v: %s", dir, err, out)
		}
	}
	if out, err := asUser(initdb, "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-locale").CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	opts := fmt.Sprintf("-k %s -c listen_addresses='' -c fsync=off -c full_page_writes=off", sock)
	if out, err := asUser(pgctl, "-D", data, "-o", opts, "-w", "-t", "60", "-l", filepath.Join(dir, "log"), "start").CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		t.Fatalf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	t.Cleanup(func() {
		if out, err := asUser(pgctl, "-D", data, "-m", "immediate", "-w", "stop").CombinedOutput(); err != nil {
			t.Errorf("pg_ctl stop: %v: %s", err, strings.TrimSpace(string(out)))
		}
		for i := 0; i < 3; i++ {
			if os.RemoveAll(dir) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	return "postgres://postgres@/postgres?host=" + sock + "&sslmode=disable"
}
