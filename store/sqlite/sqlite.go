// Package sqlite is the SQLite store of the loop kill switch's state
// writes (the tables of a live AgentGazer: agents, agent_events, alerts):
// Apply writes them to a database in one transaction with bound
// parameters. The script form (--writes FILE.sql) is rendered by
// NewScript from the same statements (script.go).
package sqlite

import (
	"database/sql"
	"fmt"

	_ "modernc.org/sqlite" // pure-Go SQLite driver "sqlite": the build needs no cgo

	"github.com/killswitch/killswitch/analyze/state"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/store/internal/dsn"
)

// Apply applies state writes to a SQLite database in one
// transaction, each write a prepared statement with bound parameters (the
// same statements Statement gives), after creating the tables if
// absent.
type Apply struct {
	db    *sql.DB
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
}

// Open opens (or creates) the database at path, passed to the
// driver as its data source name, and begins the transaction.
func Open(path string) (*Apply, error) {
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
	a := &Apply{db: db, tx: tx, stmts: map[string]*sql.Stmt{}}
	for _, ddl := range Schema() {
		if _, err := tx.Exec(ddl); err != nil {
			a.Finish(err)
			return nil, err
		}
	}
	return a, nil
}

// Write applies one write (a write that changes nothing in SQLite is
// skipped).
func (a *Apply) Write(w *state.Write) error {
	q, args, ok, err := Statement(w)
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

// Finish commits when err is nil and rolls back otherwise, then closes the
// database.
func (a *Apply) Finish(err error) error {
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

// RedactPath is an --apply target as the loop policy's messages show it.
// A SQLite path holds no secret, but the driver reads query parameters
// after it (file:x.db?_pragma=…), and the target may be another store's
// connection string given to the wrong policy: a URL's user-info password,
// secret query parameters (?password=…) and libpq's password=… are masked.
func RedactPath(target string) string { return dsn.KeyValue(dsn.URL(target)) }
