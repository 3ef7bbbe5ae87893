package loop

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/killswitch/killswitch/analyze/sweep"
	"github.com/killswitch/killswitch/internal/outfile"
	"github.com/killswitch/killswitch/internal/units"
	"github.com/killswitch/killswitch/policy"
)

// spillFlags choose where a sweep spills its packed requests.
type spillFlags struct {
	budget, dir string
}

func (s *spillFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&s.budget, "spill-budget", fmt.Sprintf("%dMiB", sweep.DefaultSpillBudget>>20), "packed requests (~27 bytes each) kept in memory; past it they go to a temporary file, read back agent by agent (off: keep every request in memory)")
	fs.StringVar(&s.dir, "tmp-dir", "", "directory of the temporary spill file (default $TMPDIR, else /tmp); the file is removed at once and never outlives the run")
}

// spill returns the sweep's Spill and the file behind it (nil when the
// budget is off); the caller closes the file.
func (s *spillFlags) spill(e *policy.Env) (sweep.Spill, *spillFile, error) {
	if strings.EqualFold(strings.TrimSpace(s.budget), "off") {
		return sweep.Spill{}, nil, nil
	}
	budget, err := units.ParseSize(strings.TrimSpace(s.budget))
	if err != nil {
		return sweep.Spill{}, nil, fmt.Errorf("--spill-budget %q: want a size (e.g. 64MiB, 1GiB, 4096) or off", s.budget)
	}
	dir := s.dir
	if dir == "" {
		dir = e.Getenv("TMPDIR")
	}
	if dir == "" {
		dir = os.TempDir()
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return sweep.Spill{}, nil, fmt.Errorf("--tmp-dir %s is not a directory", dir)
	}
	f := &spillFile{dir: dir, budget: s.budget}
	return sweep.Spill{Store: f, Budget: int64(budget)}, f, nil
}

// spillFile is a sweep.SpillStore in a temporary file, created at the
// first Append. The file is unlinked as soon as it is created, so that
// nothing is left behind whatever ends the run (an interrupt, a crash);
// where that fails, it is removed at Close or on SIGINT/SIGTERM like the
// temporary outputs.
type spillFile struct {
	dir, budget string // for messages
	f           *outfile.Scratch
	w           *bufio.Writer
	off         int64 // bytes appended since the last Reset
	total       int64 // bytes appended in all
}

func (s *spillFile) fail(op string, err error) error {
	return fmt.Errorf("%s the temporary spill file in %s: %w (--tmp-dir DIR spills elsewhere; --spill-budget, now %s, keeps more in memory; off keeps everything)",
		op, s.dir, outfile.UnwrapPath(err), s.budget)
}

// Append implements sweep.SpillStore.
func (s *spillFile) Append(p []byte) (int64, error) {
	if s.f == nil {
		f, err := outfile.CreateScratch(s.dir, "killswitch-sweep-*.spill")
		if err != nil {
			return 0, s.fail("cannot create", err)
		}
		s.f, s.w = f, bufio.NewWriterSize(f, 1<<20)
	}
	off := s.off
	n, err := s.w.Write(p)
	s.off += int64(n)
	s.total += int64(n)
	if err != nil {
		return 0, s.fail("cannot write", err)
	}
	return off, nil
}

// ReadAt implements sweep.SpillStore.
func (s *spillFile) ReadAt(p []byte, off int64) (int, error) {
	if s.f == nil {
		return 0, s.fail("cannot read", os.ErrNotExist)
	}
	if s.w.Buffered() > 0 {
		if err := s.w.Flush(); err != nil {
			return 0, s.fail("cannot write", err)
		}
	}
	n, err := s.f.ReadAt(p, off)
	if err != nil {
		return n, s.fail("cannot read", err)
	}
	return n, nil
}

// note returns what -v says of the file: nothing when nothing was spilled.
func (s *spillFile) note() string {
	if s == nil || s.total == 0 {
		return ""
	}
	return fmt.Sprintf("spilled %.1f MiB of packed requests to a temporary file in %s (--spill-budget %s)", float64(s.total)/(1<<20), s.dir, s.budget)
}

// Close closes and removes the file.
func (s *spillFile) Close() {
	if s == nil || s.f == nil {
		return
	}
	s.f.Close()
	s.f = nil
}
