// Package outfile writes the files killswitch produces so that none is
// ever left half-written: a report, a state-write script or an expectation
// file is written to a temporary file beside its path and renamed over it
// only when complete; devices and pipes are written through; symbolic
// links are followed; an interrupt removes what was being written.
package outfile

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
//     not by name: guardFiles, cmd/killswitch/filerole.go).
//   - Messages name the path the user gave, never a temporary file.

// target is where an output path really writes.
type target struct {
	given   string      // as the user wrote it
	path    string      // symbolic links resolved
	info    fs.FileInfo // nil when it does not exist yet
	special bool        // a device, FIFO or socket: written through
}

// resolve follows path's symbolic links and classifies the target.
func resolve(path string) (target, error) {
	t := target{given: path, path: path}
	for range 40 { // a link chain longer than this is a loop
		fi, err := os.Lstat(t.path)
		if errors.Is(err, fs.ErrNotExist) {
			return t, nil
		}
		if err != nil {
			return t, fmt.Errorf("%s: %w", path, UnwrapPath(err))
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
			return t, fmt.Errorf("%s: %w", path, UnwrapPath(err))
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(t.path), link)
		}
		t.path = link
	}
	return t, fmt.Errorf("%s: too many levels of symbolic links", path)
}

// UnwrapPath drops a *PathError's path (which may name a temporary file)
// so that messages name the user's path once.
func UnwrapPath(err error) error {
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

// Check says, before any work is done, whether Write could write path:
// it refuses what Write would (a directory, a broken link chain) and a
// path whose directory does not exist or takes no new file (tried by
// creating a temporary file there and removing it). A special file is
// opened by Write itself, so only resolved here.
func Check(path string) error {
	t, err := resolve(path)
	if err != nil || t.special {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(t.path), "."+filepath.Base(t.path)+".check-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, UnwrapPath(err))
	}
	tmp.Close()
	return os.Remove(tmp.Name())
}

// Write writes path (see the rules above): a regular file or a
// new path through a temporary file and a rename, a special file directly.
func Write(path string, fn func(w io.Writer) error) (err error) {
	t, err := resolve(path)
	if err != nil {
		return err
	}
	if t.special {
		f, err := os.OpenFile(t.path, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("%s: %w", path, UnwrapPath(err))
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
		return fmt.Errorf("cannot write %s: %w", path, UnwrapPath(err))
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
		return fmt.Errorf("cannot write %s: %w", path, UnwrapPath(err))
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
		return fmt.Errorf("cannot write %s: %w", path, UnwrapPath(err))
	}
	if err = os.Rename(tmp.Name(), t.path); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, UnwrapPath(err))
	}
	return nil
}

// Scratch is a temporary working file that never outlives the run: it
// is unlinked as soon as it is created where the system allows it (so an
// interrupt or a crash leaves nothing behind), else removed by close or
// on SIGINT/SIGTERM like the temporary outputs.
type Scratch struct {
	*os.File
	tracked bool // not unlinked: removed by close
}

// CreateScratch creates a scratch file named after pattern in dir
// (os.TempDir when "").
func CreateScratch(dir, pattern string) (*Scratch, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	s := &Scratch{File: f}
	if os.Remove(f.Name()) != nil {
		trackTemp(f.Name())
		s.tracked = true
	}
	return s, nil
}

// Close closes and removes the file.
func (s *Scratch) Close() {
	s.File.Close()
	if s.tracked {
		os.Remove(s.Name())
		untrackTemp(s.Name())
	}
}

// Stream streams into Write through a pipe, so the file is
// written while the replay runs and renamed into place only at a
// successful close.
type Stream struct {
	W    *io.PipeWriter // what the caller writes to
	done chan error
}

func StartStream(path string) *Stream {
	pr, pw := io.Pipe()
	a := &Stream{W: pw, done: make(chan error, 1)}
	go func() {
		err := Write(path, func(w io.Writer) error {
			_, err := io.Copy(w, pr)
			return err
		})
		pr.CloseWithError(err) // a writer still writing gets the error (nil: io.ErrClosedPipe)
		a.done <- err
	}()
	return a
}

// Close ends the stream: with err nil the file is completed and renamed,
// otherwise the temporary file is removed. It returns the write's error.
func (a *Stream) Close(err error) error {
	if err != nil {
		a.W.CloseWithError(err)
		<-a.done
		return nil
	}
	a.W.Close()
	return <-a.done
}
