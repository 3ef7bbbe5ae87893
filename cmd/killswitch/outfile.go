package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
)

// What killswitch does to the files it writes (README "What killswitch
// will not do to your files"):
//
//   - A regular file, or a path that does not exist yet, is written through
//     a temporary file beside it and renamed over it only when everything
//     was written: never half-written, never left behind (an interrupt
//     removes it).
//   - A device, a FIFO or a terminal (/dev/null, /dev/stdout, a named pipe)
//     is written to as it is: never replaced by a regular file.
//   - A symbolic link is followed: the file it points to is written, the
//     link stays.
//   - A path that is one of the command's inputs, or given as two outputs,
//     is refused before anything is read (compared by device and inode,
//     not by name: guardFiles, filerole.go).
//   - Messages name the path the user gave, never a temporary file.

// outTarget is where an output path really writes.
type outTarget struct {
	given   string      // as the user wrote it
	path    string      // symbolic links resolved
	info    fs.FileInfo // nil when it does not exist yet
	special bool        // a device, FIFO or socket: written through
}

// resolveOutput follows path's symbolic links and classifies the target.
func resolveOutput(path string) (outTarget, error) {
	t := outTarget{given: path, path: path}
	for range 40 { // a link chain longer than this is a loop
		fi, err := os.Lstat(t.path)
		if errors.Is(err, fs.ErrNotExist) {
			return t, nil
		}
		if err != nil {
			return t, fmt.Errorf("%s: %w", path, unwrapPath(err))
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			if fi.IsDir() {
				return t, fmt.Errorf("%s is a directory", path)
			}
			t.info = fi
			t.special = !fi.Mode().IsRegular()
			return t, nil
		}
		link, err := os.Readlink(t.path)
		if err != nil {
			return t, fmt.Errorf("%s: %w", path, unwrapPath(err))
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(t.path), link)
		}
		t.path = link
	}
	return t, fmt.Errorf("%s: too many levels of symbolic links", path)
}

// unwrapPath drops a *PathError's path (which may name a temporary file)
// so that messages name the user's path once.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// temps are the temporary files being written, removed on SIGINT/SIGTERM.
var temps struct {
	sync.Mutex
	files map[string]bool
	once  sync.Once
}

func trackTemp(name string) {
	temps.Lock()
	defer temps.Unlock()
	if temps.files == nil {
		temps.files = map[string]bool{}
	}
	temps.files[name] = true
	temps.once.Do(func() {
		c := make(chan os.Signal, 1)
		signal.Notify(c, syscall.SIGINT, syscall.SIGTERM)
		go func() {
			s := <-c
			removeTemps()
			code := 130
			if s == syscall.SIGTERM {
				code = 143
			}
			os.Exit(code)
		}()
	})
}

func untrackTemp(name string) {
	temps.Lock()
	delete(temps.files, name)
	temps.Unlock()
}

func removeTemps() {
	temps.Lock()
	defer temps.Unlock()
	for name := range temps.files {
		os.Remove(name)
	}
}

// writeFileAtomic writes path (see the rules above): a regular file or a
// new path through a temporary file and a rename, a special file directly.
func writeFileAtomic(path string, fn func(w io.Writer) error) (err error) {
	t, err := resolveOutput(path)
	if err != nil {
		return err
	}
	if t.special {
		f, err := os.OpenFile(t.path, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("%s: %w", path, unwrapPath(err))
		}
		bw := bufio.NewWriterSize(f, 1<<16)
		err = fn(bw)
		if ferr := bw.Flush(); err == nil {
			err = ferr
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(t.path), "."+filepath.Base(t.path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	trackTemp(tmp.Name())
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
		untrackTemp(tmp.Name())
	}()
	// CreateTemp makes the file 0600; a report is an ordinary file (an
	// existing file keeps its mode).
	mode := fs.FileMode(0o644)
	if t.info != nil {
		mode = t.info.Mode().Perm()
	}
	if err = tmp.Chmod(mode); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	bw := bufio.NewWriterSize(tmp, 1<<16)
	if err = fn(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err == nil {
		if err = tmp.Sync(); err == nil {
			err = tmp.Close()
		}
	}
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	if err = os.Rename(tmp.Name(), t.path); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	return nil
}

// maxWorkers bounds --workers: extraction is CPU-bound, and each worker
// holds batches of records in memory.
const maxWorkers = 256

// checkWorkers validates --workers: 0 means one per CPU.
func checkWorkers(n int) error {
	if n < 0 || n > maxWorkers {
		return fmt.Errorf("--workers %d: want 0 (one per CPU) to %d", n, maxWorkers)
	}
	return nil
}

// scratchFile is a temporary working file that never outlives the run: it
// is unlinked as soon as it is created where the system allows it (so an
// interrupt or a crash leaves nothing behind), else removed by close or
// on SIGINT/SIGTERM like the temporary outputs.
type scratchFile struct {
	*os.File
	tracked bool // not unlinked: removed by close
}

// createScratch creates a scratch file named after pattern in dir
// (os.TempDir when "").
func createScratch(dir, pattern string) (*scratchFile, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	s := &scratchFile{File: f}
	if os.Remove(f.Name()) != nil {
		trackTemp(f.Name())
		s.tracked = true
	}
	return s, nil
}

// close closes and removes the file.
func (s *scratchFile) close() {
	s.File.Close()
	if s.tracked {
		os.Remove(s.Name())
		untrackTemp(s.Name())
	}
}
