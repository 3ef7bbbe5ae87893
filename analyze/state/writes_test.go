package state

import (
	"fmt"
	"github.com/killswitch/killswitch/analyze"
	. "github.com/killswitch/killswitch/analyze/analyzetest"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/killswitch/killswitch/ingest"
)

// replayWrites steps an engine over b and feeds its output to a
// LoopWriter in the order Replay delivers it (a record's transitions, then
// its decision).
func replayWrites(t *testing.T, cfg analyze.Config, b *Builder) []Write {
	t.Helper()
	e, err := analyze.NewEngine(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var out []Write
	sw := NewLoopWriter(cfg, func(w *Write) error { out = append(out, *w); return nil })
	for i := range b.Steps {
		d, ok, trans := e.Step(b.Steps[i].Rec, &b.Steps[i].Feat)
		for j := range trans {
			if err := sw.Transition(&trans[j]); err != nil {
				t.Fatal(err)
			}
		}
		if ok {
			if err := sw.Decision(&d); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out
}

// describe renders a write compactly: time, store, op, table, key, and the
// columns that vary (an event's fixed NULL columns are checked apart, in
// checkEvent).
func describe(w *Write) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s %s", w.TS.Format("15:04:05"), w.Store, w.Op, w.Table)
	for _, c := range w.Key {
		fmt.Fprintf(&b, " [%s=%s]", c.Name, valueString(c.Value))
	}
	for _, c := range w.Values {
		switch c.Name {
		case "id", "created_at", "updated_at", "timestamp", "provider", "model", "requested_model", "tokens_in",
			"tokens_out", "tokens_total", "cost_usd", "latency_ms", "ttft_ms", "error_message", "source",
			"trace_id", "span_id", "parent_span_id", "name", "body":
			continue
		}
		fmt.Fprintf(&b, " %s=%s", c.Name, valueString(c.Value))
	}
	return b.String()
}

func valueString(v Value) string {
	switch v.Kind {
	case KindInt:
		return fmt.Sprint(v.Int)
	case KindReal:
		return fmt.Sprintf("%gr", v.Real)
	case KindText:
		return v.Text
	}
	return "NULL"
}

func col(w *Write, name string) Value {
	for _, c := range w.Values {
		if c.Name == name {
			return c.Value
		}
	}
	return Value{Kind: 255}
}

// checkEvent checks what every agent_events row has in common: the 21
// columns of SPEC §4.2 in schema order, NULL where the decision knows
// nothing, source 'proxy', timestamp and created_at the capture time.
func checkEvent(t *testing.T, w *Write) {
	t.Helper()
	want := []string{"id", "agent_id", "event_type", "provider", "model", "requested_model", "tokens_in", "tokens_out",
		"tokens_total", "cost_usd", "latency_ms", "ttft_ms", "status_code", "error_message", "tags", "source",
		"timestamp", "trace_id", "span_id", "parent_span_id", "created_at"}
	if len(w.Values) != len(want) {
		t.Fatalf("event has %d columns, want %d", len(w.Values), len(want))
	}
	for i, c := range w.Values {
		if c.Name != want[i] {
			t.Errorf("event column %d = %s, want %s", i, c.Name, want[i])
		}
		switch c.Name {
		case "provider", "model", "requested_model", "tokens_in", "tokens_out", "tokens_total", "cost_usd",
			"latency_ms", "ttft_ms", "error_message", "trace_id", "span_id", "parent_span_id":
			if c.Value.Kind != KindNull {
				t.Errorf("event column %s = %v, want NULL", c.Name, c.Value)
			}
		}
	}
	ts := ingest.FormatTime(w.TS)
	if col(w, "source").Text != "proxy" || col(w, "timestamp").Text != ts || col(w, "created_at").Text != ts {
		t.Errorf("event source/timestamp/created_at = %q/%q/%q, want proxy/%s/%s", col(w, "source").Text,
			col(w, "timestamp").Text, col(w, "created_at").Text, ts, ts)
	}
}

func TestStateWritesSequence(t *testing.T) {
	// Hand-derived: a config record sets agent a's threshold to 12; six
	// identical requests follow. Request k sees k−1 similar prompts and k−2
	// similar responses: 3k−5 > 12 first at k = 6 (score 13 = 5 + 2·4).
	// Requests 7 and 8 are refused (inactive, by kill_switch); an operator
	// re-activates; a manual deactivation follows; request 9 is refused
	// (inactive, by manual). Agent b appears once and only gets its row.
	// Record n is at T0 + n s (T0 = 03:04:05).
	twelve := 12.0
	b := &Builder{}
	b.Control("a", ingest.ControlConfig, ingest.KillSwitchPatch{Threshold: &twelve}) // n=1, 03:04:06
	b.Repeat(6, "a", 1, 2, "")                                                       // n=2..7, kill at 03:04:12
	b.Repeat(2, "a", 1, 2, "")                                                       // n=8,9
	b.Control("a", ingest.ControlActivate, ingest.KillSwitchPatch{})                 // n=10
	b.Control("a", ingest.ControlDeactivate, ingest.KillSwitchPatch{})               // n=11
	b.Req("a", 1, 2, "")                                                             // n=12
	b.Req("b", 7, 8, "")                                                             // n=13
	ws := replayWrites(t, analyze.NewConfig(), b)

	want := []string{
		"03:04:06 sqlite insert agents agent_id=a active=1 deactivated_by=NULL kill_switch_enabled=1 kill_switch_window_size=20 kill_switch_threshold=10r",
		"03:04:06 sqlite update agents [agent_id=a] kill_switch_enabled=1 kill_switch_window_size=20 kill_switch_threshold=12r",
		"03:04:12 sqlite update agents [agent_id=a] active=0 deactivated_by=kill_switch",
		`03:04:12 sqlite insert agent_events agent_id=a event_type=blocked status_code=403 tags={"block_reason":"loop_detected","block_message":"Agent loop detected (score: 13.0). Agent deactivated to prevent runaway costs."}`,
		`03:04:12 sqlite insert agent_events agent_id=a event_type=kill_switch status_code=200 tags={"loop_score":13,"threshold":12,"window_size":20,"similar_prompts":5,"similar_responses":4,"repeated_tool_calls":0,"action":"deactivated"}`,
		"03:04:12 sqlite insert alerts agent_id=a rule_type=kill_switch message=Kill switch triggered for agent \"a\"\nLoop score: 13.0 (threshold: 12)\nDetails: 5 similar prompts, 4 similar responses, 0 repeated tool calls\nWindow size: 20",
		"03:04:12 webhook post  agent_id=a rule_type=kill_switch message=Kill switch triggered for agent \"a\"\nLoop score: 13.0 (threshold: 12)\nDetails: 5 similar prompts, 4 similar responses, 0 repeated tool calls\nWindow size: 20",
		`03:04:13 sqlite insert agent_events agent_id=a event_type=blocked status_code=403 tags={"block_reason":"inactive","block_message":"Agent is inactive (deactivated by kill_switch)."}`,
		`03:04:14 sqlite insert agent_events agent_id=a event_type=blocked status_code=403 tags={"block_reason":"inactive","block_message":"Agent is inactive (deactivated by kill_switch)."}`,
		"03:04:15 sqlite update agents [agent_id=a] active=1 deactivated_by=NULL",
		"03:04:16 sqlite update agents [agent_id=a] active=0 deactivated_by=manual",
		`03:04:17 sqlite insert agent_events agent_id=a event_type=blocked status_code=403 tags={"block_reason":"inactive","block_message":"Agent is inactive (deactivated by manual)."}`,
		"03:04:18 sqlite insert agents agent_id=b active=1 deactivated_by=NULL kill_switch_enabled=1 kill_switch_window_size=20 kill_switch_threshold=10r",
	}
	var got []string
	for i := range ws {
		got = append(got, describe(&ws[i]))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("writes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	ids := map[string]bool{}
	for i := range ws {
		w := &ws[i]
		if w.Table == TableAgentEvents {
			checkEvent(t, w)
		}
		if w.Op == OpUpdate {
			if u := col(w, "updated_at").Text; u != ingest.FormatTime(w.TS) {
				t.Errorf("write %d: updated_at %q, want the capture time %s", i, u, ingest.FormatTime(w.TS))
			}
		}
		if w.Op != OpInsert {
			continue
		}
		id := col(w, "id").Text
		if ids[id] {
			t.Errorf("write %d: id %s used twice", i, id)
		}
		ids[id] = true
	}
	// Ids checked against Python's uuid.uuid5 (an independent
	// implementation): Namespace is uuid5(NAMESPACE_URL,
	// "https://github.com/killswitch/killswitch/state-writes") =
	// 785d8109-c971-5bbe-badb-7adf1426b9ab; agent a's row is
	// uuid5(ns, "agent\0a"); the kill_switch event is uuid5(ns,
	// "kill_switch\0a\0t.jsonl:7\02026-01-02T03:04:12Z").
	if id := col(&ws[0], "id").Text; id != "9024d001-a395-5e50-b8b2-a5b06ca59814" {
		t.Errorf("agent row id = %s", id)
	}
	if id := col(&ws[4], "id").Text; id != "11032a1e-2527-5738-a9a5-418299159cea" {
		t.Errorf("kill_switch event id = %s", id)
	}
	// The alert row's body is the webhook body as JSON.
	wantBody := `{"agent_id":"a","rule_type":"kill_switch","message":"Kill switch triggered for agent \"a\"\nLoop score: 13.0 (threshold: 12)\nDetails: 5 similar prompts, 4 similar responses, 0 repeated tool calls\nWindow size: 20","timestamp":"2026-01-02T03:04:12.000Z"}`
	if body := col(&ws[5], "body").Text; body != wantBody {
		t.Errorf("alert body:\n%s\nwant:\n%s", body, wantBody)
	}
}

func TestStateWritesBlockMode(t *testing.T) {
	// Block mode, RetryAfter 30.9 s (announced as 30: whole seconds,
	// truncated). Request 6 scores 13 > 10 and is refused with 429; it
	// enters the window without a response, so request 7 sees 6 similar
	// prompts and, among the 5 responses, 4 similar to the newest:
	// 6 + 2·4 = 14 > 10, refused too. The agent stays active: no update.
	cfg := analyze.NewConfig()
	cfg.Mode = analyze.ModeBlock
	cfg.RetryAfter = 30*time.Second + 900*time.Millisecond
	b := &Builder{}
	b.Repeat(7, "a", 1, 2, "")
	ws := replayWrites(t, cfg, b)
	if len(ws) != 3 {
		t.Fatalf("got %d writes, want 3 (agent row, two 429 events)", len(ws))
	}
	for _, w := range ws {
		if w.Op == OpUpdate {
			t.Errorf("block mode updated the agent: %s", describe(&w))
		}
	}
	checkEvent(t, &ws[1])
	want := []string{
		`{"blocked":true,"block_reason":"loop_detected","block_message":"Agent loop detected (score: 13.0). Request refused; retry after 30 seconds.","retry_after_seconds":30,"loop_score":13,"threshold":10,"window_size":20,"similar_prompts":5,"similar_responses":4,"repeated_tool_calls":0,"action":"blocked"}`,
		`{"blocked":true,"block_reason":"loop_detected","block_message":"Agent loop detected (score: 14.0). Request refused; retry after 30 seconds.","retry_after_seconds":30,"loop_score":14,"threshold":10,"window_size":20,"similar_prompts":6,"similar_responses":4,"repeated_tool_calls":0,"action":"blocked"}`,
	}
	for i, w := range ws[1:] {
		if tags := col(&w, "tags").Text; tags != want[i] {
			t.Errorf("block %d tags:\n%s\nwant:\n%s", i, tags, want[i])
		}
		if st := col(&w, "status_code"); st.Int != 429 || col(&w, "event_type").Text != "blocked" {
			t.Errorf("block %d: %s", i, describe(&w))
		}
	}
}

func TestStateWritesReactivateAfter(t *testing.T) {
	// Kill at request 6 (03:04:11); with --reactivate-after 3s the agent is
	// re-activated at 03:04:14, when request 9 arrives: requests 7 and 8
	// are refused, request 9 is scored against an empty window.
	cfg := analyze.NewConfig()
	cfg.ReactivateAfter = 3 * time.Second
	b := &Builder{}
	b.Repeat(9, "a", 1, 2, "")
	var got []string
	for _, w := range replayWrites(t, cfg, b) {
		what := w.Store.String() + " " + w.Op.String() + " " + w.Table
		if v := col(&w, "event_type"); v.Kind == KindText {
			what += " " + v.Text
		}
		if v := col(&w, "active"); v.Kind == KindInt {
			what += fmt.Sprintf(" active=%d", v.Int)
		}
		got = append(got, w.TS.Format("15:04:05")+" "+what)
	}
	want := []string{
		"03:04:06 sqlite insert agents active=1", // first sight
		"03:04:11 sqlite update agents active=0", // kill
		"03:04:11 sqlite insert agent_events blocked",
		"03:04:11 sqlite insert agent_events kill_switch",
		"03:04:11 sqlite insert alerts",
		"03:04:11 webhook post ",
		"03:04:12 sqlite insert agent_events blocked",
		"03:04:13 sqlite insert agent_events blocked",
		"03:04:14 sqlite update agents active=1", // reactivate-after, at kill + 3 s
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("writes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestNameUUID(t *testing.T) {
	// RFC 9562's NameSpace_DNS and the uuid5 value Python's uuid module
	// gives for "www.example.com".
	dns := [16]byte{0x6b, 0xa7, 0xb8, 0x10, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}
	if got := NameUUID(dns, "www.example.com"); got != "2ed6657d-e927-568b-95e1-2665a8aea6a2" {
		t.Errorf("NameUUID = %s", got)
	}
	if got := NameUUID(nsURL, "https://github.com/killswitch/killswitch/state-writes"); got != "785d8109-c971-5bbe-badb-7adf1426b9ab" {
		t.Errorf("Namespace = %s", got)
	}
}

func TestAppendJSNumber(t *testing.T) {
	// Expected values are what JavaScript's String(x) prints.
	tests := []struct {
		f    float64
		want string
	}{
		{0, "0"}, {10, "10"}, {12.5, "12.5"}, {-3, "-3"}, {0.1, "0.1"}, {1e-6, "0.000001"},
		{1.5e-7, "1.5e-7"}, {1e21, "1e+21"}, {123456789012, "123456789012"}, {math.MaxFloat64, "1.7976931348623157e+308"},
	}
	for _, tt := range tests {
		if got := string(appendJSNumber(nil, tt.f)); got != tt.want {
			t.Errorf("appendJSNumber(%v) = %s, want %s", tt.f, got, tt.want)
		}
	}
}

func TestAppendJSString(t *testing.T) {
	// Expected values are what JSON.stringify prints (for the invalid
	// byte: of the string Node decodes it to).
	tests := []struct{ in, want string }{
		{`a"b\c`, `"a\"b\\c"`},
		{"\x00\x01\b\f\n\r\t\x1f\x7f", `"\u0000\u0001\b\f\n\r\t\u001f` + "\x7f\""},
		{"é\u2028<>&", "\"é\u2028<>&\""},
		{"a\xffb", "\"a\uFFFDb\""},
	}
	for _, tt := range tests {
		if got := string(appendJSString(nil, tt.in)); got != tt.want {
			t.Errorf("appendJSString(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestRetryAfterSeconds(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want int64
	}{{60 * time.Second, 60}, {1500 * time.Millisecond, 1}, {999 * time.Millisecond, 0}, {0, 0}} {
		if got := RetryAfterSeconds(tt.d); got != tt.want {
			t.Errorf("RetryAfterSeconds(%v) = %d, want %d", tt.d, got, tt.want)
		}
	}
}
