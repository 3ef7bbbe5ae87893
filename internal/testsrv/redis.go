package testsrv

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Redis starts a throw-away redis-server listening only on a Unix socket
// in a temporary directory and returns the socket's path; the server is
// stopped when the test ends. Without redis-server the test is skipped,
// except under CI=true, where it fails.
func Redis(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("redis-server is required under CI=true (install Debian's redis-server: .ci/install-services)")
		}
		t.Skip("no redis-server (install Debian's redis-server: .ci/install-services)")
	}
	dir := t.TempDir()
	sock := filepath.Join(dir, "redis.sock")
	cmd := exec.Command(bin, "--port", "0", "--unixsocket", sock, "--unixsocketperm", "700",
		"--save", "", "--appendonly", "no", "--dir", dir, "--daemonize", "no")
	cmd.Stdout, cmd.Stderr = nil, nil
	if err := cmd.Start(); err != nil {
		t.Fatalf("redis-server: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		if c, err := net.Dial("unix", sock); err == nil {
			c.Close()
			return sock
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server did not listen on %s", sock)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
