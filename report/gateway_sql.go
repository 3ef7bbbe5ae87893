package report

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/killswitch/killswitch/analyze/gateway"
)

// The gateway's state writes in PostgreSQL, the live system's database:
// killswitch_state, proxy_calls, incidents and incident_events, with the
// columns of M22's migration (037_m22_killswitch). Rendered two ways from
// one list of statements: a script (GatewaySQL, one transaction, literals)
// and parameterized statements for a driver (GatewayStatements).
// Applying either twice changes nothing: rows are keyed by content-derived
// ids (ON CONFLICT (id) DO NOTHING; killswitch_state is upserted to its
// final values, the same values the second time).

// GatewaySchema creates the four tables when missing. Types follow M22's
// SQLAlchemy columns: String(n) → varchar(n), Text → text, Numeric(p, s),
// DateTime(timezone=True) → timestamptz.
const GatewaySchema = `CREATE TABLE IF NOT EXISTS killswitch_state (
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

func num4(f float64) Num4 { return Num4(strconv.FormatFloat(f, 'f', 4, 64)) }

func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

// pgText drops NUL, which PostgreSQL text cannot hold, for U+FFFD.
func pgText(s string) string { return strings.ReplaceAll(s, "\x00", "\uFFFD") }

// GatewayStatements returns the writes of a replay: every logged call
// (M22 logs no row for a body it refuses with 422 or 500), the final
// killswitch_state rows, the incidents and their events.
func GatewayStatements(decs []gateway.Decision, res *gateway.Result) []Statement {
	var out []Statement
	for _, s := range res.States {
		out = append(out, Statement{
			SQL: `INSERT INTO killswitch_state (id, entity_type, entity_id, tenant_id, is_frozen, frozen_at, frozen_by, freeze_reason, unfrozen_at, unfrozen_by, auto_triggered, trigger_type, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) ON CONFLICT (id) DO UPDATE SET is_frozen = EXCLUDED.is_frozen, frozen_at = EXCLUDED.frozen_at, frozen_by = EXCLUDED.frozen_by, freeze_reason = EXCLUDED.freeze_reason, unfrozen_at = EXCLUDED.unfrozen_at, unfrozen_by = EXCLUDED.unfrozen_by, auto_triggered = EXCLUDED.auto_triggered, trigger_type = EXCLUDED.trigger_type, updated_at = EXCLUDED.updated_at`,
			Args: []any{s.ID, s.Entity, s.EntityID, s.Tenant, s.Frozen, nullTime(s.FrozenAt), nullStr(s.FrozenBy), nullStr(s.Reason),
				nullTime(s.UnfrozenAt), nullStr(s.UnfrozenBy), s.Auto, nullStr(s.Trigger), s.CreatedAt, s.UpdatedAt},
		})
	}
	for i := range decs {
		d := &decs[i]
		if !d.Logged {
			continue
		}
		sum := sha256.Sum256(d.RequestJSON)
		var decisions any
		if d.Guardrails != nil {
			decisions = string(gateway.AppendDecisionsJSON(nil, d.Guardrails))
		}
		cost := num4(d.ChargedCents)
		var key any = nullStr(d.APIKeyID)
		out = append(out, Statement{
			SQL: `INSERT INTO proxy_calls (id, tenant_id, api_key_id, endpoint, model, request_hash, request_json, status_code, error_code, input_tokens, output_tokens, cost_cents, policy_decisions_json, was_blocked, block_reason, replay_eligible, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) ON CONFLICT (id) DO NOTHING`,
			Args: []any{d.CallID, pgText(d.Tenant), key, "/v1/chat/completions", pgText(d.Model), hex.EncodeToString(sum[:]),
				pgText(string(d.RequestJSON)), int64(d.HTTPStatus), nullStr(d.ErrorCode), d.InputTokens, d.OutputTokens, cost,
				decisions, d.Blocked, nullStr(d.BlockReason), !d.Blocked && d.HTTPStatus == 200, d.TS},
		})
	}
	for _, in := range res.Incidents {
		ids := make([]byte, 0, 40*len(in.Calls))
		ids = append(ids, '[')
		for j, c := range in.Calls {
			if j > 0 {
				ids = append(ids, ", "...)
			}
			ids = append(ids, '"')
			ids = append(ids, c.CallID...)
			ids = append(ids, '"')
		}
		ids = append(ids, ']')
		var dur any
		if s := in.DurationSec(); s >= 0 {
			dur = s
		}
		out = append(out, Statement{
			SQL: `INSERT INTO incidents (id, tenant_id, title, severity, status, trigger_type, trigger_value, calls_affected, cost_delta_cents, auto_action, started_at, ended_at, duration_seconds, related_call_ids_json, created_at, updated_at, resolved_at, resolved_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18) ON CONFLICT (id) DO NOTHING`,
			Args: []any{in.ID, pgText(in.Tenant), pgText(gateway.FirstRunes(in.Title, 255)), in.Severity, in.Status, in.Trigger, pgText(in.TriggerValue),
				int64(len(in.Calls)), num4(in.CostCents), in.AutoAction, in.StartedAt, nullTime(in.EndedAt), dur, string(ids),
				in.StartedAt, in.UpdatedAt, nullTime(in.EndedAt), nullStr(in.ResolvedBy)},
		})
		for _, e := range in.Events {
			var data any
			if len(e.Data) > 0 {
				b := []byte{'{'}
				for j, kv := range e.Data {
					if j > 0 {
						b = append(b, ", "...)
					}
					b = append(b, '"')
					b = append(b, kv[0]...)
					b = append(b, `": `...)
					b = append(b, kv[1]...)
				}
				data = string(append(b, '}'))
			}
			out = append(out, Statement{
				SQL:  `INSERT INTO incident_events (id, incident_id, event_type, description, data_json, created_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING`,
				Args: []any{e.ID, in.ID, e.Type, pgText(e.Description), data, e.TS},
			})
		}
	}
	return out
}

// WriteGatewaySQL writes the statements as one PostgreSQL script: BEGIN,
// the schema, every statement with its arguments as literals, COMMIT.
func WriteGatewaySQL(w io.Writer, stmts []Statement) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString("-- killswitch gateway state writes (PostgreSQL). Applying twice changes nothing.\nBEGIN;\n")
	bw.WriteString(GatewaySchema)
	var buf []byte
	for _, s := range stmts {
		buf = AppendPGStatement(buf[:0], s)
		buf = append(buf, ";\n"...)
		bw.Write(buf)
	}
	bw.WriteString("COMMIT;\n")
	return bw.Flush()
}

// AppendPGStatement appends s with each $n replaced by its argument as a
// PostgreSQL literal (standard_conforming_strings: only ' is doubled).
func AppendPGStatement(b []byte, s Statement) []byte {
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
		b = appendPGLiteral(b, s.Args[n-1])
		i = j - 1
	}
	return b
}

func appendPGLiteral(b []byte, v any) []byte {
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
	panic("report: unsupported PostgreSQL argument type")
}
