package gateway

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/killswitch/killswitch/analyze/gateway"
	"github.com/killswitch/killswitch/store/postgres"
)

func num4(f float64) postgres.Num4 { return postgres.Num4(strconv.FormatFloat(f, 'f', 4, 64)) }

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

// Statements returns the gateway's PostgreSQL writes of a replay: every logged call
// (M22 logs no row for a body it refuses with 422 or 500), the final
// killswitch_state rows, the incidents and their events.
func Statements(decs []gateway.Decision, res *gateway.Result) []postgres.Statement {
	out := stateStatements(res)
	for i := range decs {
		if decs[i].Logged {
			out = append(out, callStatement(&decs[i]))
		}
	}
	return append(out, incidentStatements(res)...)
}

// stateStatements are the killswitch_state rows at the end of the replay.
func stateStatements(res *gateway.Result) []postgres.Statement {
	var out []postgres.Statement
	for _, s := range res.States {
		out = append(out, postgres.Statement{
			SQL: `INSERT INTO killswitch_state (id, entity_type, entity_id, tenant_id, is_frozen, frozen_at, frozen_by, freeze_reason, unfrozen_at, unfrozen_by, auto_triggered, trigger_type, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) ON CONFLICT (id) DO UPDATE SET is_frozen = EXCLUDED.is_frozen, frozen_at = EXCLUDED.frozen_at, frozen_by = EXCLUDED.frozen_by, freeze_reason = EXCLUDED.freeze_reason, unfrozen_at = EXCLUDED.unfrozen_at, unfrozen_by = EXCLUDED.unfrozen_by, auto_triggered = EXCLUDED.auto_triggered, trigger_type = EXCLUDED.trigger_type, updated_at = EXCLUDED.updated_at`,
			Args: []any{s.ID, s.Entity, s.EntityID, s.Tenant, s.Frozen, nullTime(s.FrozenAt), nullStr(s.FrozenBy), nullStr(s.Reason),
				nullTime(s.UnfrozenAt), nullStr(s.UnfrozenBy), s.Auto, nullStr(s.Trigger), s.CreatedAt, s.UpdatedAt},
		})
	}
	return out
}

// callStatement is the proxy_calls row of a logged call.
func callStatement(d *gateway.Decision) postgres.Statement {
	sum := sha256.Sum256(d.RequestJSON)
	var decisions any
	if d.Guardrails != nil {
		decisions = string(gateway.AppendDecisionsJSON(nil, d.Guardrails))
	}
	cost := num4(d.ChargedCents)
	var key any = nullStr(d.APIKeyID)
	return postgres.Statement{
		SQL: `INSERT INTO proxy_calls (id, tenant_id, api_key_id, endpoint, model, request_hash, request_json, status_code, error_code, input_tokens, output_tokens, cost_cents, policy_decisions_json, was_blocked, block_reason, replay_eligible, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) ON CONFLICT (id) DO NOTHING`,
		Args: []any{d.CallID, pgText(d.Tenant), key, "/v1/chat/completions", pgText(d.Model), hex.EncodeToString(sum[:]),
			pgText(string(d.RequestJSON)), int64(d.HTTPStatus), nullStr(d.ErrorCode), d.InputTokens, d.OutputTokens, cost,
			decisions, d.Blocked, nullStr(d.BlockReason), !d.Blocked && d.HTTPStatus == 200, d.TS},
	}
}

// incidentStatements are the incidents and their events.
func incidentStatements(res *gateway.Result) []postgres.Statement {
	var out []postgres.Statement
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
		out = append(out, postgres.Statement{
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
			out = append(out, postgres.Statement{
				SQL:  `INSERT INTO incident_events (id, incident_id, event_type, description, data_json, created_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING`,
				Args: []any{e.ID, in.ID, e.Type, pgText(e.Description), data, e.TS},
			})
		}
	}
	return out
}
