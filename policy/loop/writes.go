package loop

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/state"
	"github.com/killswitch/killswitch/internal/outfile"
	"github.com/killswitch/killswitch/policy"
	"github.com/killswitch/killswitch/report"
	"github.com/killswitch/killswitch/store/sqlite"
)

// stateWrites computes the state writes of a replay and sends each, as it
// is made, to the --writes file and the --apply database. A nil
// *stateWrites (neither flag given) does nothing.
type stateWrites struct {
	sw    *state.LoopWriter
	sinks []func(*state.Write) error
	flush func() error // the file renderer's end (COMMIT, flush)
	file  *outfile.Stream
	db    *sqlite.Apply
	dbAt  string // the --apply target, redacted
	rows  int    // SQL statements sent to db (not the webhook posts)
}

// open prepares the outputs the flags name; nil when none.
func openWrites(f *policy.ReplayOptions, cfg analyze.Config, stdout io.Writer) (*stateWrites, error) {
	if f.Writes == "" && f.Apply == "" {
		return nil, nil
	}
	s := &stateWrites{}
	switch {
	case f.Writes == "-":
		// The SQLite script on standard output (the report went to -o
		// FILE), for a pipe into sqlite3: written as the replay goes; its
		// COMMIT only when the replay completes, so a failed run applies
		// nothing.
		w := sqlite.NewScript(stdout)
		s.sinks, s.flush = append(s.sinks, w.Write), w.Close
	case f.Writes != "":
		format, err := report.WritesFormat(f.Writes)
		if err != nil {
			return nil, err
		}
		s.file = outfile.StartStream(f.Writes)
		if format == report.FormatSQL {
			w := sqlite.NewScript(s.file.W)
			s.sinks, s.flush = append(s.sinks, w.Write), w.Close
		} else {
			w := report.NewWritesJSONL(s.file.W)
			s.sinks, s.flush = append(s.sinks, w.Write), w.Flush
		}
	}
	if f.Apply != "" {
		path, ok := strings.CutPrefix(f.Apply, "sqlite:")
		if !ok || path == "" {
			s.finish(errors.New("not applied"))
			return nil, fmt.Errorf("--apply %q: want sqlite:PATH", sqlite.RedactPath(f.Apply))
		}
		db, err := sqlite.Open(path)
		if err != nil {
			s.finish(err)
			return nil, fmt.Errorf("--apply %s: %w", sqlite.RedactPath(f.Apply), err)
		}
		s.db, s.dbAt = db, sqlite.RedactPath(f.Apply)
		s.sinks = append(s.sinks, func(w *state.Write) error {
			if w.Store == state.StoreSQLite {
				s.rows++
			}
			return db.Write(w)
		})
	}
	s.sw = state.NewLoopWriter(cfg, func(w *state.Write) error {
		for _, sink := range s.sinks {
			if err := sink(w); err != nil {
				return err
			}
		}
		return nil
	})
	return s, nil
}

// hooks returns h with the state writer's hooks added.
func (s *stateWrites) hooks(h analyze.Hooks) analyze.Hooks {
	if s == nil {
		return h
	}
	return s.sw.Hooks(h)
}

// finish completes the outputs when err is nil (the file is renamed into
// place, the transaction committed) and abandons them otherwise (nothing
// is left half-written). It returns err, or the first error completing.
func (s *stateWrites) finish(err error) error {
	if s == nil {
		return err
	}
	if s.file != nil {
		if err == nil && s.flush != nil {
			err = s.flush()
		}
		if ferr := s.file.Close(err); err == nil && ferr != nil {
			err = fmt.Errorf("--writes: %w", ferr)
		}
	} else if s.flush != nil && err == nil {
		if ferr := s.flush(); ferr != nil {
			err = fmt.Errorf("--writes -: %w", ferr)
		}
	}
	if s.db != nil {
		if derr := s.db.Finish(err); err == nil && derr != nil {
			err = fmt.Errorf("--apply: %w", derr)
		}
	}
	return err
}

// note says what a completed --apply wrote where; nil without one.
func (s *stateWrites) note() []string {
	if s == nil || s.db == nil {
		return nil
	}
	return []string{fmt.Sprintf("--apply: applied %s to %s (one transaction)", report.Plural(s.rows, "statement"), s.dbAt)}
}
