// Package postgres is the PostgreSQL store of the gateway's state writes
// (killswitch_state, proxy_calls, incidents, incident_events): Apply runs
// them in one transaction with bound parameters. The script form
// (--writes FILE.sql) is rendered by report.WriteGatewaySQL from the same
// statements.
package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/killswitch/killswitch/store/internal/dsn"
)

// Apply applies the gateway's writes to the PostgreSQL database at
// target (postgres://…, or libpq's key=value form) in one transaction: the schema, then every statement
// with bound parameters. Applying twice changes nothing. A text value
// PostgreSQL cannot hold (TextProblem) is refused before connecting.
func Apply(ctx context.Context, target string, stmts []Statement) error {
	if err := CheckStatements(stmts); err != nil {
		return fmt.Errorf("--apply: %w", err)
	}
	conn, err := pgx.Connect(ctx, target)
	if err != nil {
		return fmt.Errorf("--apply %s: %w", RedactDSN(target), redactErr(err, target))
	}
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("--apply: %w", redactErr(err, target))
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, Schema, pgx.QueryExecModeSimpleProtocol); err != nil {
		return fmt.Errorf("--apply: schema: %w", redactErr(err, target))
	}
	for i, s := range stmts {
		args := make([]any, len(s.Args))
		for j, a := range s.Args {
			if n, ok := a.(Num4); ok {
				var num pgtype.Numeric
				if err := num.Scan(string(n)); err != nil {
					return fmt.Errorf("--apply: statement %d: %w", i+1, err)
				}
				a = num
			}
			args[j] = a
		}
		if _, err := tx.Exec(ctx, s.SQL, args...); err != nil {
			return fmt.Errorf("--apply: statement %d: %w", i+1, redactErr(err, target))
		}
	}
	return redactErr(tx.Commit(ctx), target)
}

// IsDSN reports whether target is a PostgreSQL connection string pgx
// takes: a postgres:// or postgresql:// URL, or libpq's key=value form
// (no "://", at least one "=").
func IsDSN(target string) bool {
	if strings.HasPrefix(target, "postgres://") || strings.HasPrefix(target, "postgresql://") {
		return true
	}
	return !strings.Contains(target, "://") && strings.Contains(target, "=")
}

// RedactDSN is target as messages show it: a URL's user-info password and
// secret query parameters (?password=, ?sslpassword=) masked, or in the
// key=value form the values of password, sslpassword and other secret
// keys, parsed or not.
func RedactDSN(target string) string {
	if strings.Contains(target, "://") {
		return dsn.URL(target)
	}
	return dsn.KeyValue(target)
}

// redactErr masks in err's text the secrets of target.
func redactErr(err error, target string) error { return dsn.Err(err, target, RedactDSN) }
