// Package state computes the writes the live loop kill switch would have
// made to its store while a replay ran — AgentGazer's agents and
// agent_events rows, our alerts rows and the webhook bodies — as plain
// values (Write), rendered by report and applied by the command. Writes
// belong to the policy that makes them: this is the loop policy's
// (LoopWriter); other policies bring their own store.
package state

import (
	"github.com/killswitch/killswitch/analyze"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/killswitch/killswitch/ingest"
)

// State writes (SPEC §2, §4.2): the rows, events and alerts the live system
// would have written while the replay ran, computed as plain values. They
// are rendered by report (JSONL, a SQLite script) and applied to a database
// by the command; nothing here does I/O.
//
// Choices the live system leaves open, fixed here:
//
//   - Times: every time column and the webhook timestamp is the capture time
//     of what caused the write, formatted by ingest.FormatTime (RFC 3339 UTC
//     with milliseconds, which is also what the live proxy writes: JavaScript's
//     Date.prototype.toISOString). created_at and updated_at are capture times
//     too, never the wall clock.
//   - Ids: the live proxy makes random UUIDs; replay derives name-based UUIDs
//     (version 5, SHA-1, RFC 9562) in Namespace from what the capture says:
//     an agent row's id from its agent id alone, an event's or alert's id from
//     its kind, the agent, the base name of the capture file with the record's
//     position in it (line, row or entry), and the record's time. The same
//     capture therefore yields the same ids wherever it lies and whichever
//     other files are replayed with it; a record replayed twice (the same file
//     given twice) yields the same ids twice and is stored once.
//   - retry_after_seconds: see RetryAfterSeconds.
//   - Agent rows are inserted (if absent) when the replay first sees the
//     agent, with the kill-switch settings the replay starts it with; a row
//     an existing database already holds is kept as it is.
//   - Only the kill switch's writes are computed: the llm_call events of
//     forwarded requests are already in the system the capture came from.
//   - Events carry what the decision knows: provider, model, tokens, cost and
//     latency are NULL, as the live proxy writes them for refused requests
//     (it leaves tokens and cost unset because nothing was forwarded).

// Store is where a write goes.
type Store uint8

const (
	StoreSQLite  Store = iota // the AgentGazer database (tables agents, agent_events) and the replay's alerts table
	StoreWebhook              // the alert webhook: Values are the JSON body posted
)

var storeNames = [...]string{"sqlite", "webhook"}

func (s Store) String() string { return storeNames[s] }

// Op is what a write does.
type Op uint8

const (
	// OpInsert inserts a row unless one with the same primary or unique
	// key exists (SQLite INSERT OR IGNORE). Every inserted row has a
	// deterministic id, so applying the same writes twice inserts once.
	OpInsert Op = iota
	// OpUpdate sets Values on the rows matching Key (SQL UPDATE … WHERE).
	OpUpdate
	// OpPost posts Values as a JSON object (StoreWebhook).
	OpPost
)

var opNames = [...]string{"insert", "update", "post"}

func (o Op) String() string { return opNames[o] }

// ValueKind is the type of a column value, as SQLite stores it.
type ValueKind uint8

const (
	KindNull ValueKind = iota
	KindInt
	KindReal
	KindText
)

// Value is one column value. Only the field of its Kind is meaningful.
type Value struct {
	Kind ValueKind
	Int  int64
	Real float64
	Text string // any bytes: agent ids come from captures verbatim
}

// Null, Int, Real and Text build Values.
func Null() Value          { return Value{} }
func Int(i int64) Value    { return Value{Kind: KindInt, Int: i} }
func Real(f float64) Value { return Value{Kind: KindReal, Real: f} }
func Text(s string) Value  { return Value{Kind: KindText, Text: s} }

func boolInt(b bool) Value {
	if b {
		return Int(1)
	}
	return Int(0)
}

func timeText(t time.Time) Value { return Text(ingest.FormatTime(t)) }

// Column is a named value.
type Column struct {
	Name  string
	Value Value
}

// Write is one state write. Columns are in a fixed order per table (the
// order of SPEC §4.2's schema), so a rendering is deterministic.
type Write struct {
	TS     time.Time  // capture time of what caused the write
	Seq    int64      // the decision that caused it, 0 for a control record or --reactivate-after
	Source ingest.Pos // the capture record that caused it; zero for --reactivate-after
	Store  Store
	Op     Op
	Table  string   // StoreSQLite: TableAgents, TableAgentEvents or TableAlerts; "" for webhooks
	Key    []Column // OpUpdate: the columns that select the rows
	Values []Column
}

// Tables written.
const (
	TableAgents      = "agents"
	TableAgentEvents = "agent_events"
	// TableAlerts is the replay's record of the alerts that would have gone
	// out (AgentGazer keeps no such table: its alert_history rows need an
	// alert rule). Columns: id, agent_id, rule_type, message, timestamp, body
	// (the webhook body, JSON).
	TableAlerts = "alerts"
)

// Namespace is the UUID namespace of every id replay derives:
// UUIDv5(NameSpace_URL, "https://github.com/killswitch/killswitch/state-writes").
var Namespace = nameUUID(nsURL, "https://github.com/killswitch/killswitch/state-writes")

// nsURL is RFC 9562's NameSpace_URL, 6ba7b811-9dad-11d1-80b4-00c04fd430c8.
var nsURL = [16]byte{0x6b, 0xa7, 0xb8, 0x11, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}

// RetryAfterSeconds is the retry_after_seconds a block-mode refusal
// announces (SPEC §1.6, first variant): Config.RetryAfter in whole seconds,
// truncated, as the decision's reason states it. The default, 60, is the
// Retry-After the first (HTTP 429) version of the live kill switch sent.
func RetryAfterSeconds(d time.Duration) int64 { return int64(d / time.Second) }

// LoopWriter turns a replay's decisions and transitions, delivered in
// replay order (use Hooks), into Writes passed to emit in the order the live
// system would have made them. emit may keep the *Write. Per agent:
//
//   - first sight: insert the agent row (active, with its settings);
//   - kill (deactivate mode): update the row (active = 0, deactivated_by =
//     'kill_switch'), a 'blocked' event for the killing request (403,
//     block_reason loop_detected), the 'kill_switch' event with the score
//     details, the alert row and the webhook post;
//   - each request refused while inactive: a 'blocked' event (403,
//     block_reason inactive);
//   - block (block mode): a 'blocked' event with status 429, blocked: true,
//     block_reason loop_detected and retry_after_seconds; the agent stays
//     active;
//   - activation (operator or --reactivate-after): active = 1,
//     deactivated_by = NULL; manual deactivation: active = 0,
//     deactivated_by = 'manual' (or who the control record names);
//   - config change: the kill_switch_* columns.
type LoopWriter struct {
	cfg    analyze.Config
	emit   func(*Write) error
	agents map[string]*writerAgent
}

type writerAgent struct {
	deactivatedBy string
}

// NewLoopWriter returns a LoopWriter for a replay configured by cfg.
func NewLoopWriter(cfg analyze.Config, emit func(*Write) error) *LoopWriter {
	return &LoopWriter{cfg: cfg, emit: emit, agents: map[string]*writerAgent{}}
}

// Hooks returns next with the LoopWriter's Decision and Transition hooks
// run before next's own.
func (s *LoopWriter) Hooks(next analyze.Hooks) analyze.Hooks {
	h := next
	h.Decision = func(d *analyze.Decision) error {
		if err := s.Decision(d); err != nil {
			return err
		}
		if next.Decision != nil {
			return next.Decision(d)
		}
		return nil
	}
	h.Transition = func(t *analyze.Transition) error {
		if err := s.Transition(t); err != nil {
			return err
		}
		if next.Transition != nil {
			return next.Transition(t)
		}
		return nil
	}
	return h
}

// see inserts the agent row the first time the agent appears.
func (s *LoopWriter) see(agent string, ts time.Time, seq int64, src ingest.Pos) (*writerAgent, error) {
	if a := s.agents[agent]; a != nil {
		return a, nil
	}
	a := &writerAgent{}
	s.agents[agent] = a
	st := s.cfg.SettingsFor(agent)
	return a, s.emit(&Write{TS: ts, Seq: seq, Source: src, Store: StoreSQLite, Op: OpInsert, Table: TableAgents,
		Values: []Column{
			{"id", Text(NameUUID(Namespace, "agent\x00"+agent))},
			{"agent_id", Text(agent)},
			{"name", Null()},
			{"active", Int(1)},
			{"deactivated_by", Null()},
			{"kill_switch_enabled", boolInt(st.Enabled)},
			{"kill_switch_window_size", Int(int64(st.WindowSize))},
			{"kill_switch_threshold", Real(st.Threshold)},
			{"created_at", timeText(ts)},
			{"updated_at", timeText(ts)},
		}})
}

// updateAgent sets columns of the agent's row.
func (s *LoopWriter) updateAgent(agent string, ts time.Time, seq int64, src ingest.Pos, cols ...Column) error {
	cols = append(cols, Column{"updated_at", timeText(ts)})
	return s.emit(&Write{TS: ts, Seq: seq, Source: src, Store: StoreSQLite, Op: OpUpdate, Table: TableAgents,
		Key: []Column{{"agent_id", Text(agent)}}, Values: cols})
}

// Transition records an agent state change.
func (s *LoopWriter) Transition(t *analyze.Transition) error {
	a, err := s.see(t.Agent, t.TS, t.Seq, t.Source)
	if err != nil {
		return err
	}
	switch t.Kind {
	case analyze.TransitionKill:
		// Written with the killing decision, which carries the score.
		return nil
	case analyze.TransitionActivate:
		a.deactivatedBy = ""
		return s.updateAgent(t.Agent, t.TS, 0, t.Source, Column{"active", Int(1)}, Column{"deactivated_by", Null()})
	case analyze.TransitionDeactivate:
		a.deactivatedBy = t.By
		return s.updateAgent(t.Agent, t.TS, 0, t.Source, Column{"active", Int(0)}, Column{"deactivated_by", Text(t.By)})
	case analyze.TransitionConfig:
		return s.updateAgent(t.Agent, t.TS, 0, t.Source,
			Column{"kill_switch_enabled", boolInt(t.Settings.Enabled)},
			Column{"kill_switch_window_size", Int(int64(t.Settings.WindowSize))},
			Column{"kill_switch_threshold", Real(t.Settings.Threshold)})
	}
	return nil
}

// Decision records what the kill switch did with a request.
func (s *LoopWriter) Decision(d *analyze.Decision) error {
	a, err := s.see(d.Agent, d.TS, d.Seq, d.Source)
	if err != nil {
		return err
	}
	switch d.Action {
	case analyze.ActionKill:
		a.deactivatedBy = "kill_switch"
		if err := s.updateAgent(d.Agent, d.TS, d.Seq, d.Source,
			Column{"active", Int(0)}, Column{"deactivated_by", Text("kill_switch")}); err != nil {
			return err
		}
		if err := s.event(d, "blocked/loop_detected", "blocked", 403, KillBlockedTags(d)); err != nil {
			return err
		}
		if err := s.event(d, "kill_switch", "kill_switch", 200, KillSwitchTags(d)); err != nil {
			return err
		}
		return s.alert(d)
	case analyze.ActionBlock:
		return s.event(d, "blocked/loop_detected/429", "blocked", 429, BlockTags(d, RetryAfterSeconds(s.cfg.RetryAfter)))
	case analyze.ActionBlocked:
		by := a.deactivatedBy
		if by == "" {
			by = "kill_switch" // unreachable: the engine blocks only after a deactivation
		}
		return s.event(d, "blocked/inactive", "blocked", 403, InactiveTags(by))
	}
	return nil
}

// writeID derives the id of an event or alert (see the package comment on
// state writes): kind, agent, capture file base name and position, time.
func writeID(kind string, d *analyze.Decision) string {
	p := d.Source
	p.File = baseName(p.File)
	return NameUUID(Namespace, kind+"\x00"+d.Agent+"\x00"+p.String()+"\x00"+d.TS.UTC().Format(time.RFC3339Nano))
}

func baseName(f string) string {
	for i := len(f) - 1; i >= 0; i-- {
		if f[i] == '/' || f[i] == '\\' {
			return f[i+1:]
		}
	}
	return f
}

// event emits one agent_events row; kind names it for its id.
func (s *LoopWriter) event(d *analyze.Decision, kind, eventType string, status int64, tags string) error {
	ts := timeText(d.TS)
	return s.emit(&Write{TS: d.TS, Seq: d.Seq, Source: d.Source, Store: StoreSQLite, Op: OpInsert, Table: TableAgentEvents,
		Values: []Column{
			{"id", Text(writeID(kind, d))},
			{"agent_id", Text(d.Agent)},
			{"event_type", Text(eventType)},
			{"provider", Null()},
			{"model", Null()},
			{"requested_model", Null()},
			{"tokens_in", Null()},
			{"tokens_out", Null()},
			{"tokens_total", Null()},
			{"cost_usd", Null()},
			{"latency_ms", Null()},
			{"ttft_ms", Null()},
			{"status_code", Int(status)},
			{"error_message", Null()},
			{"tags", Text(tags)},
			{"source", Text("proxy")},
			{"timestamp", ts},
			{"trace_id", Null()},
			{"span_id", Null()},
			{"parent_span_id", Null()},
			{"created_at", ts},
		}})
}

// alert emits the alert row and the webhook post of a kill.
func (s *LoopWriter) alert(d *analyze.Decision) error {
	al := analyze.AlertFor(d.Agent, analyze.Kill{Seq: d.Seq, AgentN: d.AgentN, TS: d.TS, Source: d.Source, Counts: d.Counts,
		Score: d.Score, Threshold: d.Threshold, Window: d.Window, Action: d.Action})
	body := []Column{
		{"agent_id", Text(al.AgentID)},
		{"rule_type", Text(al.RuleType)},
		{"message", Text(al.Message)},
		{"timestamp", timeText(al.Timestamp)},
	}
	row := &Write{TS: d.TS, Seq: d.Seq, Source: d.Source, Store: StoreSQLite, Op: OpInsert, Table: TableAlerts,
		Values: []Column{
			{"id", Text(writeID("alert", d))},
			body[0], body[1], body[2], body[3],
			{"body", Text(string(appendJSONObject(nil, body)))},
		}}
	if err := s.emit(row); err != nil {
		return err
	}
	return s.emit(&Write{TS: d.TS, Seq: d.Seq, Source: d.Source, Store: StoreWebhook, Op: OpPost, Values: body})
}

// LoopMessage is the block_message of the request that fired the kill
// switch, exactly as the live proxy words it (SPEC §4.2).
func LoopMessage(score float64) string {
	return "Agent loop detected (score: " + strconv.FormatFloat(score, 'f', 1, 64) + "). Agent deactivated to prevent runaway costs."
}

// KillBlockedTags are the tags of the killing request's 'blocked' event:
// {"block_reason":"loop_detected","block_message":"Agent loop detected (score: X.X). …"}.
func KillBlockedTags(d *analyze.Decision) string {
	b := []byte(`{"block_reason":"loop_detected","block_message":`)
	b = appendJSString(b, LoopMessage(d.Score))
	return string(append(b, '}'))
}

// KillSwitchTags are the tags of the 'kill_switch' event, keys in the live
// proxy's order, numbers as JavaScript prints them (12, not 12.0):
// {loop_score, threshold, window_size, similar_prompts, similar_responses,
// repeated_tool_calls, action: "deactivated"}.
func KillSwitchTags(d *analyze.Decision) string {
	b := appendScoreTags(append([]byte(nil), '{'), d)
	return string(append(b, `,"action":"deactivated"}`...))
}

func appendScoreTags(b []byte, d *analyze.Decision) []byte {
	b = append(b, `"loop_score":`...)
	b = appendJSNumber(b, d.Score)
	b = append(b, `,"threshold":`...)
	b = appendJSNumber(b, d.Threshold)
	b = append(b, `,"window_size":`...)
	b = strconv.AppendInt(b, int64(d.Window), 10)
	b = append(b, `,"similar_prompts":`...)
	b = strconv.AppendInt(b, int64(d.SimilarPrompts), 10)
	b = append(b, `,"similar_responses":`...)
	b = strconv.AppendInt(b, int64(d.SimilarResponses), 10)
	b = append(b, `,"repeated_tool_calls":`...)
	return strconv.AppendInt(b, int64(d.RepeatedToolCalls), 10)
}

// BlockMessage is the block_message of a block-mode refusal.
func BlockMessage(score float64, retryAfter int64) string {
	return "Agent loop detected (score: " + strconv.FormatFloat(score, 'f', 1, 64) + "). Request refused; retry after " +
		strconv.FormatInt(retryAfter, 10) + " seconds."
}

// BlockTags are the tags of a block-mode refusal's 'blocked' event (status
// 429; SPEC §1.6, first variant): {"blocked":true,"block_reason":
// "loop_detected","block_message":…,"retry_after_seconds":N, then the score
// details as in KillSwitchTags, "action":"blocked"}.
func BlockTags(d *analyze.Decision, retryAfter int64) string {
	b := []byte(`{"blocked":true,"block_reason":"loop_detected","block_message":`)
	b = appendJSString(b, BlockMessage(d.Score, retryAfter))
	b = append(b, `,"retry_after_seconds":`...)
	b = strconv.AppendInt(b, retryAfter, 10)
	b = append(b, ',')
	b = appendScoreTags(b, d)
	return string(append(b, `,"action":"blocked"}`...))
}

// InactiveTags are the tags of a request refused because its agent was
// inactive: {"block_reason":"inactive","block_message":"Agent is inactive
// (deactivated by BY)."}. SPEC §4.2 names the reason; the message is ours.
func InactiveTags(by string) string {
	b := []byte(`{"block_reason":"inactive","block_message":`)
	b = appendJSString(b, "Agent is inactive (deactivated by "+by+").")
	return string(append(b, '}'))
}

// appendJSONObject appends cols as a JSON object of text, integer, real
// and null values, in order.
func appendJSONObject(b []byte, cols []Column) []byte {
	b = append(b, '{')
	for i, c := range cols {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSString(b, c.Name)
		b = append(b, ':')
		switch c.Value.Kind {
		case KindNull:
			b = append(b, "null"...)
		case KindInt:
			b = strconv.AppendInt(b, c.Value.Int, 10)
		case KindReal:
			b = appendJSNumber(b, c.Value.Real)
		case KindText:
			b = appendJSString(b, c.Value.Text)
		}
	}
	return append(b, '}')
}

// appendJSString appends s as JavaScript's JSON.stringify writes a string:
// '"' and '\' escaped, \b \f \n \r \t, other control characters as \u00XX,
// everything else (U+2028 included) as is. Invalid UTF-8 becomes U+FFFD, as
// Node decodes it.
func appendJSString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\b':
				b = append(b, '\\', 'b')
			case c == '\f':
				b = append(b, '\\', 'f')
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, "\uFFFD"...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// appendJSNumber appends f as JavaScript's Number.prototype.toString does
// for the values written here: integers without a fraction (10, not 10.0),
// the shortest round-tripping decimal otherwise, exponent form outside
// [1e-6, 1e21).
func appendJSNumber(b []byte, f float64) []byte {
	a := f
	if a < 0 {
		a = -a
	}
	if a == 0 || (a >= 1e-6 && a < 1e21) {
		return strconv.AppendFloat(b, f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // 1e+21, 1.5e-07
	m, e, _ := strings.Cut(s, "e")
	sign := e[0]
	e = e[1:]
	for len(e) > 1 && e[0] == '0' {
		e = e[1:]
	}
	b = append(b, m...)
	return append(append(append(b, 'e'), sign), e...)
}
