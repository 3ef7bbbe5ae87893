package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/state"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/store/sqlite"
)

// runKS runs the command line and returns its outputs and exit status.
func runKS(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errb, func(string) string { return "" })
	return out.String(), errb.String(), code
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, errs, code := runKS(t, args...)
	if code != 0 {
		t.Fatalf("killswitch %s: exit %d\n%s", strings.Join(args, " "), code, errs)
	}
	return out
}

// loopRecord is a request of agent at ts, the same prompt and the same
// answer every time: request k of a fresh window scores (k−1) + 2(k−2) =
// 3k−5 (similar prompts, similar responses), so the spec profile kills the
// 6th (13 > 10).
func loopRecord(t *testing.T, ts time.Time, agent string) string {
	t.Helper()
	rec := map[string]any{
		"ts": ts.Format(time.RFC3339Nano), "agent": agent,
		"request":  map[string]any{"model": "gpt-4o-mini", "messages": []any{map[string]any{"role": "user", "content": "Deploy the release branch again."}}},
		"response": map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": "The deploy failed: permission denied."}}}},
	}
	line, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	return string(line)
}

var captureT0 = time.Date(2026, 1, 2, 9, 0, 0, 0, time.UTC)

func writeCapture(t *testing.T, dir, name string, lines []string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// loopCapture writes n loop requests of agent, gap apart from 09:00:00.
func loopCapture(t *testing.T, dir, name, agent string, n int, gap time.Duration) string {
	t.Helper()
	var lines []string
	for i := 0; i < n; i++ {
		lines = append(lines, loopRecord(t, captureT0.Add(time.Duration(i)*gap), agent))
	}
	return writeCapture(t, dir, name, lines)
}

// reactivationCapture is deploy-bot looping: requests 1–9 at 09:00:30 +
// 30 s steps, an operator's activate record at 09:05:00, requests 10–18 at
// 09:05:30 + 30 s steps. Killed at request 6 (09:03:00), refused 7–9,
// re-activated (window cleared), killed again at request 15 (09:08:00, the
// 6th after), refused 16–18.
func reactivationCapture(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	for i := 1; i <= 9; i++ {
		lines = append(lines, loopRecord(t, captureT0.Add(time.Duration(i)*30*time.Second), "deploy-bot"))
	}
	lines = append(lines, `{"ts":"2026-01-02T09:05:00Z","agent":"deploy-bot","event":"activate"}`)
	for i := 11; i <= 19; i++ {
		lines = append(lines, loopRecord(t, captureT0.Add(time.Duration(i)*30*time.Second), "deploy-bot"))
	}
	return writeCapture(t, dir, "reactivation.jsonl", lines)
}

func openDB(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// dump returns every row of the three tables, each as text, sorted: a
// database's whole state, independent of the order rows were written in.
func dump(t *testing.T, db *sql.DB) []string {
	t.Helper()
	var out []string
	for _, table := range []string{"agents", "agent_events", "alerts"} {
		rows, err := db.Query("SELECT * FROM " + table)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%s %q", table, vals))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	sort.Strings(out)
	return out
}

func queryStrings(t *testing.T, db *sql.DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s sql.NullString
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s.String)
	}
	return out
}

func TestWritesSQLFreshDatabase(t *testing.T) {
	dir := t.TempDir()
	capture := reactivationCapture(t, dir)
	script := filepath.Join(dir, "w.sql")
	mustRun(t, "replay", "--writes", script, capture)
	sqlText, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	db := openDB(t, filepath.Join(dir, "fresh.db"))
	if _, err := db.Exec(string(sqlText)); err != nil {
		t.Fatal(err)
	}
	// See reactivationCapture: killed at requests 6 and 15, each time with
	// 5 similar prompts and 4 similar responses (score 13), each kill
	// followed by 3 refusals of the inactive agent.
	var active int
	var by, updated string
	if err := db.QueryRow("SELECT active, deactivated_by, updated_at FROM agents WHERE agent_id = ?", "deploy-bot").Scan(&active, &by, &updated); err != nil {
		t.Fatal(err)
	}
	if active != 0 || by != "kill_switch" || updated != "2026-01-02T09:08:00.000Z" {
		t.Errorf("agent row: active %d, deactivated_by %q, updated_at %s", active, by, updated)
	}
	types := queryStrings(t, db, "SELECT event_type || ' ' || status_code || ' ' || json_extract(tags, '$.block_reason') FROM agent_events WHERE event_type = 'blocked' ORDER BY timestamp")
	want := []string{"blocked 403 loop_detected", "blocked 403 inactive", "blocked 403 inactive", "blocked 403 inactive",
		"blocked 403 loop_detected", "blocked 403 inactive", "blocked 403 inactive", "blocked 403 inactive"}
	if strings.Join(types, "|") != strings.Join(want, "|") {
		t.Errorf("blocked events:\n%s\nwant:\n%s", strings.Join(types, "\n"), strings.Join(want, "\n"))
	}
	tags := queryStrings(t, db, "SELECT tags FROM agent_events WHERE event_type = 'kill_switch' ORDER BY timestamp")
	wantTags := `{"loop_score":13,"threshold":10,"window_size":20,"similar_prompts":5,"similar_responses":4,"repeated_tool_calls":0,"action":"deactivated"}`
	if len(tags) != 2 || tags[0] != wantTags || tags[1] != wantTags {
		t.Errorf("kill_switch tags: %q", tags)
	}
	msgs := queryStrings(t, db, "SELECT message FROM alerts ORDER BY timestamp")
	wantMsg := "Kill switch triggered for agent \"deploy-bot\"\nLoop score: 13.0 (threshold: 10)\nDetails: 5 similar prompts, 4 similar responses, 0 repeated tool calls\nWindow size: 20"
	if len(msgs) != 2 || msgs[0] != wantMsg || msgs[1] != wantMsg {
		t.Errorf("alert messages: %q", msgs)
	}
	bodies := queryStrings(t, db, "SELECT json_extract(body, '$.timestamp') FROM alerts ORDER BY timestamp")
	if strings.Join(bodies, " ") != "2026-01-02T09:03:00.000Z 2026-01-02T09:08:00.000Z" {
		t.Errorf("alert webhook timestamps: %q", bodies)
	}

	// --apply writes the same rows through bound parameters.
	applied := openDB(t, filepath.Join(dir, "applied.db"))
	_, stderr, code := runKS(t, "replay", "--apply", "sqlite:"+filepath.Join(dir, "applied.db"), capture)
	if code != 0 {
		t.Fatalf("--apply: exit %d: %s", code, stderr)
	}
	// On success it says what it applied where: as many statements as the
	// script holds between BEGIN and COMMIT.
	n := len(regexp.MustCompile(`(?m)^(INSERT|UPDATE|DELETE) `).FindAll(sqlText, -1))
	if want := fmt.Sprintf("--apply: applied %d statements to sqlite:%s (one transaction)\n", n, filepath.Join(dir, "applied.db")); !strings.Contains(stderr, want) {
		t.Errorf("--apply: stderr lacks %q: %q", want, stderr)
	}
	if a, b := dump(t, db), dump(t, applied); strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Errorf("script and --apply differ:\n%s\n---\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
}

func TestApplyTwiceSameState(t *testing.T) {
	// 20 identical requests 30 s apart with --reactivate-after 1m: killed
	// at request 6, request 7 refused, re-activated at kill + 60 s when
	// request 8 arrives (window cleared), so killed again at 8+5 = 13 and
	// at 20; requests 7 and 14 refused: 3 kills, 2 inactive refusals.
	dir := t.TempDir()
	capture := loopCapture(t, dir, "loop.jsonl", "loop-bot", 20, 30*time.Second)
	dbPath := filepath.Join(dir, "state.db")
	args := []string{"replay", "--reactivate-after", "1m", "--apply", "sqlite:" + dbPath, capture}
	out := mustRun(t, args...)
	if n := strings.Count(out, "Kill switch triggered for agent \"loop-bot\""); n != 3 {
		t.Errorf("timeline shows %d alerts, want 3:\n%s", n, out)
	}
	db := openDB(t, dbPath)
	first := dump(t, db)
	counts := queryStrings(t, db, "SELECT event_type || ':' || count(*) FROM agent_events GROUP BY event_type ORDER BY event_type")
	if strings.Join(counts, " ") != "blocked:5 kill_switch:3" {
		t.Errorf("events: %v, want 5 blocked (3 kills + 2 inactive) and 3 kill_switch", counts)
	}
	kills := queryStrings(t, db, "SELECT timestamp FROM agent_events WHERE event_type = 'kill_switch' ORDER BY timestamp")
	if strings.Join(kills, " ") != "2026-01-02T09:02:30.000Z 2026-01-02T09:06:00.000Z 2026-01-02T09:09:30.000Z" {
		t.Errorf("kill times %v, want requests 6, 13 and 20", kills)
	}
	db.Close()
	mustRun(t, args...)
	again := dump(t, openDB(t, dbPath))
	if strings.Join(first, "\n") != strings.Join(again, "\n") {
		t.Errorf("a second --apply changed the state:\n%s\n---\n%s", strings.Join(first, "\n"), strings.Join(again, "\n"))
	}
	if len(first) != 1+8+3 {
		t.Errorf("%d rows, want 1 agent, 8 events and 3 alerts", len(first))
	}
}

func TestWritesSameAtAnyParallelism(t *testing.T) {
	// Several agents, more records than one extraction batch (256), so
	// that --workers 4 really runs in parallel.
	dir := t.TempDir()
	var paths []string
	for i := 0; i < 4; i++ {
		paths = append(paths, loopCapture(t, dir, fmt.Sprintf("c%d.jsonl", i), fmt.Sprintf("bot-%d", i), 150, time.Duration(7+i)*time.Second))
	}
	outputs := map[string][]byte{}
	for _, workers := range []string{"1", "4"} {
		for _, ext := range []string{"jsonl", "sql"} {
			path := filepath.Join(dir, "w"+workers+"."+ext)
			args := append([]string{"replay", "--workers", workers, "--reactivate-after", "5m", "--writes", path}, paths...)
			mustRun(t, args...)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if prev, ok := outputs[ext]; ok && !bytes.Equal(prev, b) {
				t.Errorf("--writes .%s differs between --workers 1 and 4", ext)
			}
			outputs[ext] = b
		}
	}
	if n := bytes.Count(outputs["jsonl"], []byte(`"event_type":"kill_switch"`)); n < 4 {
		t.Errorf("only %d kills: the test does not exercise the writes", n)
	}
}

func TestApplyToAgentGazerDatabase(t *testing.T) {
	// An existing AgentGazer database: its own schema (CHECK constraints,
	// NOT NULL created_at with a wall-clock default, random ids), an agent
	// row and an event already there.
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "agentgazer.db")
	db := openDB(t, dbPath)
	for _, stmt := range []string{
		`CREATE TABLE agents (id TEXT PRIMARY KEY DEFAULT (lower(hex(randomblob(16)))), agent_id TEXT NOT NULL UNIQUE, name TEXT,
		  active INTEGER NOT NULL DEFAULT 1, deactivated_by TEXT, budget_limit REAL, allowed_hours_start INTEGER, allowed_hours_end INTEGER,
		  kill_switch_enabled INTEGER NOT NULL DEFAULT 0, kill_switch_window_size INTEGER NOT NULL DEFAULT 20,
		  kill_switch_threshold REAL NOT NULL DEFAULT 10.0, created_at TEXT NOT NULL DEFAULT (datetime('now')),
		  updated_at TEXT NOT NULL DEFAULT (datetime('now')))`,
		`CREATE TABLE agent_events (id TEXT PRIMARY KEY DEFAULT (lower(hex(randomblob(16)))), agent_id TEXT NOT NULL,
		  event_type TEXT NOT NULL CHECK (event_type IN ('llm_call', 'completion', 'heartbeat', 'error', 'custom', 'blocked', 'kill_switch')),
		  provider TEXT, model TEXT, requested_model TEXT, tokens_in INTEGER, tokens_out INTEGER, tokens_total INTEGER, cost_usd REAL,
		  latency_ms INTEGER, ttft_ms INTEGER, status_code INTEGER, error_message TEXT, tags TEXT DEFAULT '{}',
		  source TEXT NOT NULL CHECK (source IN ('sdk', 'proxy')), timestamp TEXT NOT NULL, trace_id TEXT, span_id TEXT,
		  parent_span_id TEXT, created_at TEXT NOT NULL DEFAULT (datetime('now')))`,
		`INSERT INTO agents (id, agent_id, name, kill_switch_enabled) VALUES ('live-id', 'deploy-bot', 'Deploy bot', 1)`,
		`INSERT INTO agent_events (id, agent_id, event_type, source, timestamp) VALUES ('live-event', 'deploy-bot', 'llm_call', 'proxy', '2026-01-02T08:00:00.000Z')`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	mustRun(t, "replay", "--apply", "sqlite:"+dbPath, reactivationCapture(t, dir))
	db = openDB(t, dbPath)
	var id, name, by string
	var active int
	if err := db.QueryRow("SELECT id, name, active, deactivated_by FROM agents WHERE agent_id = 'deploy-bot'").Scan(&id, &name, &active, &by); err != nil {
		t.Fatal(err)
	}
	if id != "live-id" || name != "Deploy bot" || active != 0 || by != "kill_switch" {
		t.Errorf("existing agent row: id %q name %q active %d deactivated_by %q", id, name, active, by)
	}
	n := queryStrings(t, db, "SELECT count(*) FROM agent_events")
	if len(n) != 1 || n[0] != "11" { // the live event + 8 blocked + 2 kill_switch
		t.Errorf("agent_events rows: %v, want 11", n)
	}
	if c := queryStrings(t, db, "SELECT count(*) FROM agent_events WHERE id != 'live-event' AND created_at NOT LIKE '2026-01-02T%'"); c[0] != "0" {
		t.Error("an event took its created_at from the wall clock")
	}
}

func TestBlockModeWrites(t *testing.T) {
	// --mode block --retry-after 45s: request 6 scores 13 > 10 and is
	// refused with 429; refused requests enter the window without a
	// response, so requests 7 and 8 score 6 + 2·4 = 14 and 7 + 2·4 = 15.
	dir := t.TempDir()
	capture := loopCapture(t, dir, "loop.jsonl", "loop-bot", 8, 30*time.Second)
	writes := filepath.Join(dir, "w.jsonl")
	out := mustRun(t, "replay", "-f", "jsonl", "--mode", "block", "--retry-after", "45s", "--writes", writes, capture)
	if !strings.Contains(out, `"action":"block","reason":"loop detected: score 13.0 > threshold 10; HTTP 429, retry after 45 s"`) {
		t.Errorf("decision of request 6 missing:\n%s", out)
	}
	b, err := os.ReadFile(writes)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d writes, want the agent row and 3 refusals:\n%s", len(lines), b)
	}
	for i, score := range []string{"13", "14", "15"} {
		var w struct {
			Op     string `json:"op"`
			Values struct {
				StatusCode int    `json:"status_code"`
				Tags       string `json:"tags"`
			} `json:"values"`
		}
		if err := json.Unmarshal([]byte(lines[i+1]), &w); err != nil {
			t.Fatal(err)
		}
		var tags struct {
			Blocked     bool   `json:"blocked"`
			BlockReason string `json:"block_reason"`
			RetryAfter  int    `json:"retry_after_seconds"`
			Score       json.Number
		}
		if err := json.Unmarshal([]byte(w.Values.Tags), &tags); err != nil {
			t.Fatal(err)
		}
		if w.Op != "insert" || w.Values.StatusCode != 429 || !tags.Blocked || tags.BlockReason != "loop_detected" || tags.RetryAfter != 45 ||
			!strings.Contains(w.Values.Tags, `"loop_score":`+score+",") {
			t.Errorf("refusal %d: %s", i+1, lines[i+1])
		}
	}
}

func TestStateFlagErrors(t *testing.T) {
	dir := t.TempDir()
	capture := loopCapture(t, dir, "loop.jsonl", "loop-bot", 3, time.Second)
	for _, tt := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--writes", filepath.Join(dir, "w.txt")}, "want FILE.sql (the SQLite state script, for sqlite3 < FILE), - (the same on standard output) or FILE.jsonl"},
		{[]string{"--writes", "-"}, "--writes -: standard output carries the report: give -o FILE"},
		{[]string{"--apply", "postgres:x"}, "want sqlite:PATH"},
		{[]string{"--apply", "sqlite:"}, "want sqlite:PATH"},
	} {
		_, errs, code := runKS(t, append(append([]string{"replay"}, tt.args...), capture)...)
		if code != exitUsage || !strings.Contains(errs, tt.msg) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tt.args, code, errs, tt.msg)
		}
	}
	// A replay that fails leaves no writes file and no committed rows.
	w := filepath.Join(dir, "w.sql")
	dbPath := filepath.Join(dir, "s.db")
	if _, _, code := runKS(t, "replay", "--writes", w, "--apply", "sqlite:"+dbPath, capture, filepath.Join(dir, "missing.jsonl")); code != exitUsage {
		t.Errorf("missing input: exit %d, want 2", code)
	}
	if _, err := os.Stat(w); !os.IsNotExist(err) {
		t.Errorf("a failed replay left %s", w)
	}
	matches, _ := filepath.Glob(filepath.Join(dir, ".w.sql.tmp-*"))
	if len(matches) > 0 {
		t.Errorf("temporary files left: %v", matches)
	}
}

// agentIDWrites is a kill, an inactive refusal and a re-activation of
// agent: every kind of write that names the agent.
func agentIDWrites(agent string) []state.Write {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var ws []state.Write
	sw := state.NewLoopWriter(analyze.NewConfig(), func(w *state.Write) error { ws = append(ws, *w); return nil })
	pos := ingest.Pos{File: "f.jsonl", N: 1}
	sw.Decision(&analyze.Decision{Seq: 1, AgentN: 1, TS: t0, Agent: agent, Source: pos, Threshold: 10, Window: 20,
		Counts: analyze.Counts{SimilarPrompts: 11}, Score: 11, Action: analyze.ActionKill})
	pos.N = 2
	sw.Decision(&analyze.Decision{Seq: 2, AgentN: 2, TS: t0.Add(time.Second), Agent: agent, Source: pos, Action: analyze.ActionBlocked})
	sw.Transition(&analyze.Transition{Kind: analyze.TransitionActivate, TS: t0.Add(time.Minute), Agent: agent, By: "reactivate-after"})
	return ws
}

// checkAgentRoundTrip reads back every agent_id column and the alert
// message, which embeds the id.
func checkAgentRoundTrip(t *testing.T, db *sql.DB, agent, path string) {
	t.Helper()
	for _, q := range []string{"SELECT agent_id FROM agents", "SELECT agent_id FROM agent_events", "SELECT agent_id FROM alerts"} {
		ids := queryStrings(t, db, q)
		if len(ids) == 0 {
			t.Fatalf("%s: %s: no rows", path, q)
		}
		for _, id := range ids {
			if id != agent {
				t.Fatalf("%s: %s: got %q, want %q", path, q, id, agent)
			}
		}
	}
	var active int
	if err := db.QueryRow("SELECT active FROM agents WHERE agent_id = ?", agent).Scan(&active); err != nil || active != 1 {
		t.Fatalf("%s: the updates missed the agent row (active %d, %v)", path, active, err)
	}
	msgs := queryStrings(t, db, "SELECT message FROM alerts")
	if len(msgs) != 1 || !strings.HasPrefix(msgs[0], "Kill switch triggered for agent \""+agent+"\"\n") {
		t.Fatalf("%s: alert message %q", path, msgs)
	}
}

func FuzzSQLAgentID(f *testing.F) {
	for _, s := range []string{
		"support-bot", "o'brien", `back\slash`, "nul\x00byte", "line\nbreak\r\n", "'; DROP TABLE agents; --",
		"\"quoted\"", "Ünïcödé 🤖", "\xff\xfe not utf-8", "\u2028\u2029", "", "'", "''", "char(0)", "X'00'", "--", "/*",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, agent string) {
		ws := agentIDWrites(agent)
		// The script path: render, execute on a fresh database, read back.
		var b bytes.Buffer
		sw := sqlite.NewScript(&b)
		for i := range ws {
			if err := sw.Write(&ws[i]); err != nil {
				t.Fatal(err)
			}
		}
		sw.Close()
		script := openDB(t, ":memory:")
		if _, err := script.Exec(b.String()); err != nil {
			t.Fatalf("script does not apply: %v\n%s", err, b.String())
		}
		checkAgentRoundTrip(t, script, agent, "script")

		// The --apply path: bound parameters in a transaction.
		dbPath := filepath.Join(t.TempDir(), "a.db")
		ap, err := sqlite.Open(dbPath + "?_pragma=synchronous(OFF)")
		if err != nil {
			t.Fatal(err)
		}
		for i := range ws {
			if err := ap.Write(&ws[i]); err != nil {
				ap.Finish(err)
				t.Fatal(err)
			}
		}
		if err := ap.Finish(nil); err != nil {
			t.Fatal(err)
		}
		applied := openDB(t, dbPath)
		checkAgentRoundTrip(t, applied, agent, "--apply")
		if a, b := dump(t, script), dump(t, applied); strings.Join(a, "\n") != strings.Join(b, "\n") {
			t.Fatalf("script and --apply differ:\n%s\n---\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
		}
	})
}
