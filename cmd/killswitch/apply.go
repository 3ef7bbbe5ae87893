package main

import (
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
	_ "modernc.org/sqlite" // pure-Go SQLite driver "sqlite": the build needs no cgo

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/state"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/report"
)

// stateFlags are replay's state-write flags (SPEC §2, §4.2).
type stateFlags struct {
	writes, apply string
}

func (f *stateFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.writes, "writes", "", "also write the agent state writes the live system would have made (rows, events, alerts) to `FILE`:\n"+
		".jsonl (one JSON object per write) or .sql (a SQLite script: one transaction, creates the tables if absent, idempotent)")
	fs.StringVar(&f.apply, "apply", "", "also apply the state writes to the SQLite database `sqlite:PATH` (created if absent; an AgentGazer\n"+
		"database works too): one transaction, bound parameters, idempotent; PATH is the driver's data source name")
	markOutput(fs, "writes")
	markOutputDSN(fs, "apply", "sqlite:")
}

// stateWrites computes the state writes of a replay and sends each, as it
// is made, to the --writes file and the --apply database. A nil
// *stateWrites (neither flag given) does nothing.
type stateWrites struct {
	sw    *state.LoopWriter
	sinks []func(*state.Write) error
	flush func() error // the file renderer's end (COMMIT, flush)
	file  *atomicStream
	db    *sqliteApply
}

// open prepares the outputs the flags name; nil when none.
func (f *stateFlags) open(cfg analyze.Config) (*stateWrites, error) {
	if f.writes == "" && f.apply == "" {
		return nil, nil
	}
	s := &stateWrites{}
	if f.writes != "" {
		if f.writes == "-" {
			return nil, errors.New("--writes needs a file: standard output carries the report")
		}
		format, err := report.WritesFormat(f.writes)
		if err != nil {
			return nil, err
		}
		s.file = startAtomic(f.writes)
		if format == report.FormatSQL {
			w := report.NewWritesSQL(s.file.pw)
			s.sinks, s.flush = append(s.sinks, w.Write), w.Close
		} else {
			w := report.NewWritesJSONL(s.file.pw)
			s.sinks, s.flush = append(s.sinks, w.Write), w.Flush
		}
	}
	if f.apply != "" {
		path, ok := strings.CutPrefix(f.apply, "sqlite:")
		if !ok || path == "" {
			s.finish(errors.New("not applied"))
			return nil, fmt.Errorf("--apply %q: want sqlite:PATH", f.apply)
		}
		db, err := openSQLiteApply(path)
		if err != nil {
			s.finish(err)
			return nil, fmt.Errorf("--apply %s: %w", f.apply, err)
		}
		s.db = db
		s.sinks = append(s.sinks, db.write)
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
		if ferr := s.file.close(err); err == nil && ferr != nil {
			err = fmt.Errorf("--writes: %w", ferr)
		}
	}
	if s.db != nil {
		if derr := s.db.finish(err); err == nil && derr != nil {
			err = fmt.Errorf("--apply: %w", derr)
		}
	}
	return err
}

// atomicStream streams into writeFileAtomic through a pipe, so the file is
// written while the replay runs and renamed into place only at a
// successful close.
type atomicStream struct {
	pw   *io.PipeWriter
	done chan error
}

func startAtomic(path string) *atomicStream {
	pr, pw := io.Pipe()
	a := &atomicStream{pw: pw, done: make(chan error, 1)}
	go func() {
		err := writeFileAtomic(path, func(w io.Writer) error {
			_, err := io.Copy(w, pr)
			return err
		})
		pr.CloseWithError(err) // a writer still writing gets the error (nil: io.ErrClosedPipe)
		a.done <- err
	}()
	return a
}

// close ends the stream: with err nil the file is completed and renamed,
// otherwise the temporary file is removed. It returns the write's error.
func (a *atomicStream) close(err error) error {
	if err != nil {
		a.pw.CloseWithError(err)
		<-a.done
		return nil
	}
	a.pw.Close()
	return <-a.done
}

// sqliteApply applies state writes to a SQLite database in one
// transaction, each write a prepared statement with bound parameters (the
// same statements report.SQLStatement gives), after creating the tables if
// absent.
type sqliteApply struct {
	db    *sql.DB
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
}

// openSQLiteApply opens (or creates) the database at path, passed to the
// driver as its data source name, and begins the transaction.
func openSQLiteApply(path string) (*sqliteApply, error) {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1) // one connection: the transaction and its statements share it
	// Wait for a live AgentGazer process's write lock rather than fail.
	if _, err := db.Exec("PRAGMA busy_timeout = 10000"); err != nil {
		db.Close()
		return nil, err
	}
	tx, err := db.Begin()
	if err != nil {
		db.Close()
		return nil, err
	}
	a := &sqliteApply{db: db, tx: tx, stmts: map[string]*sql.Stmt{}}
	for _, ddl := range report.SQLSchema() {
		if _, err := tx.Exec(ddl); err != nil {
			a.finish(err)
			return nil, err
		}
	}
	return a, nil
}

func (a *sqliteApply) write(w *state.Write) error {
	q, args, ok, err := report.SQLStatement(w)
	if err != nil || !ok {
		return err
	}
	st := a.stmts[q]
	if st == nil {
		if st, err = a.tx.Prepare(q); err != nil {
			return fmt.Errorf("--apply: %w", err)
		}
		a.stmts[q] = st
	}
	if _, err := st.Exec(args...); err != nil {
		return fmt.Errorf("--apply: %s %s at %s: %w", w.Op, w.Table, ingestPos(w), err)
	}
	return nil
}

func ingestPos(w *state.Write) string {
	if w.Source.File == "" {
		return ingest.FormatTime(w.TS)
	}
	return w.Source.String()
}

// finish commits when err is nil and rolls back otherwise, then closes the
// database.
func (a *sqliteApply) finish(err error) error {
	for _, st := range a.stmts {
		st.Close()
	}
	if err != nil {
		a.tx.Rollback()
		a.db.Close()
		return nil
	}
	if err = a.tx.Commit(); err != nil {
		a.db.Close()
		return err
	}
	return a.db.Close()
}
