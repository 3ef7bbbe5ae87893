package loop

import (
	"bufio"
	"os"
	"testing"

	"github.com/killswitch/killswitch/internal/outfile"
)

// TestSpillFileFull: a full disk (/dev/full answers every write with
// ENOSPC) is an error from Append that says so, never a short file read
// back later.
func TestSpillFileFull(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_RDWR, 0)
	if err != nil {
		t.Skip("no /dev/full:", err)
	}
	defer full.Close()
	s := &spillFile{dir: "/somewhere", budget: "64MiB", f: &outfile.Scratch{File: full}, w: bufio.NewWriterSize(full, 16)}
	if _, err := s.Append(make([]byte, 100)); err == nil ||
		err.Error() != "cannot write the temporary spill file in /somewhere: no space left on device (--tmp-dir DIR spills elsewhere; --spill-budget, now 64MiB, keeps more in memory; off keeps everything)" {
		t.Errorf("Append: %v", err)
	}
}
