// Package postgres is the PostgreSQL store of the gateway's state writes
// (killswitch_state, proxy_calls, incidents, incident_events): Apply runs
// them in one transaction with bound parameters. The script form
// (--writes FILE.sql) is rendered by report.WriteGatewaySQL from the same
// statements.
package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/killswitch/killswitch/report"
)

// Apply applies the gateway's writes to the PostgreSQL database at
// dsn (postgres://…) in one transaction: the schema, then every statement
// with bound parameters. Applying twice changes nothing. A text value
// PostgreSQL cannot hold (TextProblem) is refused before connecting.
func Apply(ctx context.Context, dsn string, stmts []report.Statement) error {
	if err := CheckStatements(stmts); err != nil {
		return fmt.Errorf("--apply: %w", err)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("--apply: %w", err)
	}
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("--apply: %w", err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, report.GatewaySchema, pgx.QueryExecModeSimpleProtocol); err != nil {
		return fmt.Errorf("--apply: schema: %w", err)
	}
	for i, s := range stmts {
		args := make([]any, len(s.Args))
		for j, a := range s.Args {
			if n, ok := a.(report.Num4); ok {
				var num pgtype.Numeric
				if err := num.Scan(string(n)); err != nil {
					return fmt.Errorf("--apply: statement %d: %w", i+1, err)
				}
				a = num
			}
			args[j] = a
		}
		if _, err := tx.Exec(ctx, s.SQL, args...); err != nil {
			return fmt.Errorf("--apply: statement %d: %w", i+1, err)
		}
	}
	return tx.Commit(ctx)
}
