package postgres

import (
	"bufio"
	"io"
	"strconv"
	"strings"
	"time"
)

// The gateway's state writes in PostgreSQL, the live system's database:
// killswitch_state, proxy_calls, incidents and incident_events, with the
// columns of M22's migration (037_m22_killswitch). One list of statements
// (the gateway policy's, gateway.Statements) is written two ways: a script
// (WriteScript: one transaction, literals) and bound statements through a
// driver (Apply).
// Applying either twice changes nothing: rows are keyed by content-derived
// ids (ON CONFLICT (id) DO NOTHING; killswitch_state is upserted to its
// final values, the same values the second time).

// Schema creates the four tables when missing. Types follow M22's
// SQLAlchemy columns: String(n) → varchar(n), Text → text, Numeric(p, s),
// DateTime(timezone=True) → timestamptz.
const Schema = `CREATE TABLE IF NOT EXISTS killswitch_state (
  id varchar(100) PRIMARY KEY,
  entity_type varchar(20) NOT NULL,
  entity_id varchar(100) NOT NULL,
  tenant_id varchar(100) NOT NULL,
  is_frozen boolean NOT NULL DEFAULT false,
  frozen_at timestamptz,
  frozen_by varchar(100),
  freeze_reason text,
  unfrozen_at timestamptz,
  unfrozen_by varchar(100),
  auto_triggered boolean DEFAULT false,
  trigger_type varchar(50),
  created_at timestamptz DEFAULT now(),
  updated_at timestamptz DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS ix_killswitch_state_entity ON killswitch_state (entity_type, entity_id);
CREATE INDEX IF NOT EXISTS ix_killswitch_state_frozen ON killswitch_state (is_frozen, tenant_id);
CREATE TABLE IF NOT EXISTS proxy_calls (
  id varchar(100) PRIMARY KEY,
  tenant_id varchar(100) NOT NULL,
  api_key_id varchar(100),
  endpoint varchar(100) NOT NULL,
  model varchar(100) NOT NULL,
  request_hash varchar(64) NOT NULL,
  request_json text NOT NULL,
  response_hash varchar(64),
  response_json text,
  status_code integer,
  error_code varchar(50),
  input_tokens integer DEFAULT 0,
  output_tokens integer DEFAULT 0,
  cost_cents numeric(10,4) DEFAULT 0,
  policy_decisions_json text,
  was_blocked boolean DEFAULT false,
  block_reason varchar(100),
  latency_ms integer,
  upstream_latency_ms integer,
  replay_eligible boolean DEFAULT true,
  replayed_from_id varchar(100),
  created_at timestamptz DEFAULT now()
);
CREATE INDEX IF NOT EXISTS ix_proxy_calls_tenant_time ON proxy_calls (tenant_id, created_at);
CREATE TABLE IF NOT EXISTS incidents (
  id varchar(100) PRIMARY KEY,
  tenant_id varchar(100) NOT NULL,
  title varchar(255) NOT NULL,
  severity varchar(20) NOT NULL,
  status varchar(20) NOT NULL DEFAULT 'open',
  trigger_type varchar(50) NOT NULL,
  trigger_value text,
  calls_affected integer DEFAULT 0,
  cost_delta_cents numeric(10,4) DEFAULT 0,
  error_rate numeric(5,4),
  auto_action varchar(50),
  action_details_json text,
  started_at timestamptz NOT NULL,
  ended_at timestamptz,
  duration_seconds integer,
  related_call_ids_json text,
  killswitch_id varchar(100),
  created_at timestamptz DEFAULT now(),
  updated_at timestamptz DEFAULT now(),
  resolved_at timestamptz,
  resolved_by varchar(100)
);
CREATE INDEX IF NOT EXISTS ix_incidents_tenant_status ON incidents (tenant_id, status);
CREATE TABLE IF NOT EXISTS incident_events (
  id varchar(100) PRIMARY KEY,
  incident_id varchar(100) NOT NULL REFERENCES incidents(id) ON DELETE CASCADE,
  event_type varchar(50) NOT NULL,
  description text NOT NULL,
  data_json text,
  created_at timestamptz DEFAULT now()
);
CREATE INDEX IF NOT EXISTS ix_incident_events_incident_id ON incident_events (incident_id);
`

// Statement is one parameterized statement ($1, $2, …). Args are string,
// int64, float64 (written with 4 decimals: numeric(10,4)), bool,
// time.Time or nil (NULL).
type Statement struct {
	SQL  string
	Args []any
}

// Num4 is a numeric(10,4) value, held as its text so that the script and
// the driver write the same decimal.
type Num4 string

// WriteScript writes the statements as one PostgreSQL script: BEGIN,
// the schema, every statement with its arguments as literals, COMMIT.
func WriteScript(w io.Writer, stmts []Statement) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString("-- killswitch gateway state writes (PostgreSQL). Applying twice changes nothing.\nBEGIN;\n")
	bw.WriteString(Schema)
	var buf []byte
	for _, s := range stmts {
		buf = AppendStatement(buf[:0], s)
		buf = append(buf, ";\n"...)
		bw.Write(buf)
	}
	bw.WriteString("COMMIT;\n")
	return bw.Flush()
}

// AppendStatement appends s with each $n replaced by its argument as a
// PostgreSQL literal (standard_conforming_strings: only ' is doubled).
func AppendStatement(b []byte, s Statement) []byte {
	q := s.SQL
	for i := 0; i < len(q); i++ {
		if q[i] != '$' {
			b = append(b, q[i])
			continue
		}
		j := i + 1
		for j < len(q) && q[j] >= '0' && q[j] <= '9' {
			j++
		}
		n, _ := strconv.Atoi(q[i+1 : j])
		b = appendLiteral(b, s.Args[n-1])
		i = j - 1
	}
	return b
}

func appendLiteral(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "NULL"...)
	case string:
		b = append(b, '\'')
		b = append(b, strings.ReplaceAll(x, "'", "''")...)
		return append(b, '\'')
	case int64:
		return strconv.AppendInt(b, x, 10)
	case Num4:
		return append(b, x...)
	case bool:
		return strconv.AppendBool(b, x)
	case time.Time:
		b = append(b, '\'')
		b = x.UTC().AppendFormat(b, "2006-01-02 15:04:05.999999Z07:00")
		return append(b, "'::timestamptz"...)
	}
	panic("postgres: unsupported PostgreSQL argument type")
}
