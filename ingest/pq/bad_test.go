package pq

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/killswitch/killswitch/ingest"
)

// TestFileErrors covers files NewReader refuses: every message names the
// file and the column, and a missing column lists the columns present.
func TestFileErrors(t *testing.T) {
	type noTS struct {
		Time    string `parquet:"time"`
		Agent   string `parquet:"agent"`
		Request string `parquet:"request"`
	}
	type noAgent struct {
		TS      string `parquet:"ts"`
		Request string `parquet:"request"`
	}
	type noRequest struct {
		TS    string `parquet:"ts"`
		Agent string `parquet:"agent"`
		Body  string `parquet:"body"`
	}
	type boolTS struct {
		TS      bool   `parquet:"ts"`
		Agent   string `parquet:"agent"`
		Request string `parquet:"request"`
	}
	type intRequest struct {
		TS      string `parquet:"ts"`
		Agent   string `parquet:"agent"`
		Request int64  `parquet:"request"`
	}
	type boolStatus struct {
		TS      string `parquet:"ts"`
		Agent   string `parquet:"agent"`
		Request string `parquet:"request"`
		Status  bool   `parquet:"status"`
	}
	type listAgent struct {
		TS      string   `parquet:"ts"`
		Agent   []string `parquet:"agent,list"`
		Request string   `parquet:"request"`
	}
	type listRequest struct {
		TS      string `parquet:"ts"`
		Agent   string `parquet:"agent"`
		Request []struct {
			Model string `parquet:"model"`
		} `parquet:"request"`
	}
	type groupModel struct {
		TS      string `parquet:"ts"`
		Agent   string `parquet:"agent"`
		Request string `parquet:"request"`
		Model   struct {
			Name string `parquet:"name"`
		} `parquet:"model"`
	}
	type badKillSwitch struct {
		TS         string `parquet:"ts"`
		Agent      string `parquet:"agent"`
		Request    string `parquet:"request"`
		KillSwitch struct {
			Threshold float64 `parquet:"treshold"`
		} `parquet:"kill_switch"`
	}
	const ts = "2026-01-01T00:00:00Z"
	tests := []struct {
		name string
		data func(t *testing.T) []byte
		opt  Options
		want []string // substrings of the error
	}{
		{"no ts", func(t *testing.T) []byte { return writeRows(t, []noTS{{ts, "a", okRequest}}) }, Options{},
			[]string{`bad.parquet: no "ts" column`, "--map ts=COLUMN", "columns: time, agent, request"}},
		{"no agent", func(t *testing.T) []byte { return writeRows(t, []noAgent{{ts, okRequest}}) }, Options{},
			[]string{`bad.parquet: no "agent" column (give --agent NAME, or --map agent=COLUMN; a gateway log's "tenant" column stands in for it); columns: ts, request`}},
		{"no request", func(t *testing.T) []byte { return writeRows(t, []noRequest{{ts, "a", okRequest}}) }, Options{},
			[]string{`bad.parquet: no "request" column`, "columns: ts, agent, body"}},
		{"mapped column missing", func(t *testing.T) []byte { return writeRows(t, []noRequest{{ts, "a", okRequest}}) },
			Options{Map: map[string]string{"request": "body", "model": "meta.model"}},
			[]string{`bad.parquet: no column "meta.model" (mapped to model by --map)`, "columns: ts, agent, body"}},
		{"unknown map key", func(t *testing.T) []byte { return writeRows(t, []noRequest{{ts, "a", okRequest}}) },
			Options{Map: map[string]string{"requests": "body"}},
			[]string{`bad.parquet: --map requests=body: unknown field "requests"`}},
		{"ts boolean", func(t *testing.T) []byte { return writeRows(t, []boolTS{{true, "a", okRequest}}) }, Options{},
			[]string{`bad.parquet: column "ts" has type BOOLEAN; ts needs a TIMESTAMP`}},
		{"request integer", func(t *testing.T) []byte { return writeRows(t, []intRequest{{ts, "a", 1}}) }, Options{},
			[]string{`bad.parquet: column "request" has type INT64 (INT); request needs a string holding JSON text, or a struct`}},
		{"status boolean", func(t *testing.T) []byte { return writeRows(t, []boolStatus{{ts, "a", okRequest, true}}) }, Options{},
			[]string{`column "status" has type BOOLEAN; status needs an INT32/INT64`}},
		{"agent is a list", func(t *testing.T) []byte { return writeRows(t, []listAgent{{ts, []string{"a"}, okRequest}}) }, Options{},
			[]string{`bad.parquet: column "agent" is a group; agent needs a string`}},
		{"agent list element mapped", func(t *testing.T) []byte { return writeRows(t, []listAgent{{ts, []string{"a"}, okRequest}}) },
			Options{Map: map[string]string{"agent": "agent.list.element"}},
			[]string{`column "agent.list.element" repeats (holds a list); agent needs one value per row`}},
		{"request is a list", func(t *testing.T) []byte { return writeRows(t, []listRequest{{TS: ts, Agent: "a"}}) }, Options{},
			[]string{`column "request" is a list; request needs a JSON object`}},
		{"model is a group", func(t *testing.T) []byte { return writeRows(t, []groupModel{{TS: ts, Agent: "a", Request: okRequest}}) }, Options{},
			[]string{`column "model" is a group; model needs a string`}},
		{"misspelt kill_switch member", func(t *testing.T) []byte {
			return writeRows(t, []badKillSwitch{{TS: ts, Agent: "a", Request: okRequest}})
		}, Options{},
			[]string{`group "kill_switch" has a member "treshold"`}},
		{"not parquet", func(*testing.T) []byte { return []byte(`{"ts":1}` + "\n" + `{"ts":2}` + "\n") }, Options{},
			[]string{"bad.parquet: not a readable Parquet file"}},
		{"empty", func(*testing.T) []byte { return nil }, Options{},
			[]string{"bad.parquet: not a Parquet file: only 0 bytes"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.data(t)
			_, err := NewReader(bytes.NewReader(data), int64(len(data)), "bad.parquet", tc.opt)
			if err == nil {
				t.Fatal("NewReader succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
		})
	}
}

// badRow is a row of the malformed-values corpus: every column optional
// text, so that any value can be put anywhere.
type badRow struct {
	TS        *string  `parquet:"ts"`
	Agent     *string  `parquet:"agent"`
	Event     *string  `parquet:"event"`
	Window    *int64   `parquet:"kill_switch.window_size"`
	Threshold *float64 `parquet:"kill_switch.threshold"`
	Request   *string  `parquet:"request"`
	Response  *string  `parquet:"response"`
	Status    *int32   `parquet:"status"`
	Model     *string  `parquet:"model"`
	Latency   *float64 `parquet:"latency_ms"`
	TokensIn  *int64   `parquet:"tokens_in"`
	Cost      *string  `parquet:"cost_usd"`
	Label     *string  `parquet:"label"`
}

// TestBadRows checks that each malformed value is a record with a
// *ingest.SyntaxError at its row, and that reading goes on: the good row
// after each bad one is read whole.
func TestBadRows(t *testing.T) {
	good := func() badRow {
		return badRow{TS: ptr("2026-01-01T00:00:00Z"), Agent: ptr("a"), Request: ptr(okRequest)}
	}
	with := func(f func(r *badRow)) badRow { r := good(); f(&r); return r }
	tests := []struct {
		name string
		row  badRow
		want string // the whole message after "file:row N: "
	}{
		{"null ts", with(func(r *badRow) { r.TS = nil }), "ts: is null"},
		{"unparsable ts", with(func(r *badRow) { r.TS = ptr("yesterday") }),
			`ts: unparsable timestamp: a string of 9 characters where a time was expected (want RFC 3339 or Unix seconds/milliseconds)`},
		{"bad date", with(func(r *badRow) { r.TS = ptr("2026-13-01T00:00:00Z") }),
			`ts: unparsable timestamp: a string of 20 characters where a time was expected (want RFC 3339)`},
		{"negative Unix time", with(func(r *badRow) { r.TS = ptr("-5") }), "ts: timestamp -5 is not a Unix time"},
		{"null agent", with(func(r *badRow) { r.Agent = nil }), "agent: is null (give --agent to name the agent of every record; a row with a tenant and no agent is the tenant's)"},
		{"empty agent", with(func(r *badRow) { r.Agent = ptr("") }), "agent: is empty (a row with a tenant and no agent is the tenant's)"},
		{"agent not UTF-8", with(func(r *badRow) { r.Agent = ptr("a\xff") }), "agent: is not valid UTF-8"},
		{"null request", with(func(r *badRow) { r.Request = nil }), "request: is null (a row is a request, or a control record with event)"},
		{"empty request", with(func(r *badRow) { r.Request = ptr("  ") }), "request: is empty (want a JSON object)"},
		{"request not JSON", with(func(r *badRow) { r.Request = ptr("hello") }), "request: is not a JSON object (5 bytes)"},
		{"request an array", with(func(r *badRow) { r.Request = ptr(`[{"a":1}]`) }), "request: is not a JSON object (9 bytes)"},
		{"request truncated", with(func(r *badRow) { r.Request = ptr(`{"messages":[`) }), "request: is not a JSON object: invalid JSON at byte 13 of 13"},
		{"request a JSON string", with(func(r *badRow) { r.Request = ptr(`"hi"`) }), "request: is a JSON string of 2 bytes, not a JSON object"},
		{"request not UTF-8", with(func(r *badRow) { r.Request = ptr("{\"a\":\"\xc3\x28\"}") }), "request: is not valid UTF-8"},
		{"response not UTF-8", with(func(r *badRow) { r.Response = ptr("\xff") }), "response: is not valid UTF-8"},
		{"status 1000", with(func(r *badRow) { r.Status = ptr[int32](1000) }), "status: 1000 is not an HTTP status"},
		{"model not UTF-8", with(func(r *badRow) { r.Model = ptr("gpt\xfe") }), "model: is not valid UTF-8"},
		{"negative latency", with(func(r *badRow) { r.Latency = ptr(-1.0) }), "latency_ms: -1 is not a duration in milliseconds"},
		{"NaN latency", with(func(r *badRow) { r.Latency = ptr(math.NaN()) }), "latency_ms: NaN is not a finite number"},
		{"negative tokens", with(func(r *badRow) { r.TokensIn = ptr[int64](-3) }), "tokens_in: -3 is not a token count"},
		{"cost not a number", with(func(r *badRow) { r.Cost = ptr("1,5") }), "cost_usd: a string of 3 characters is not a number"},
		{"bad label", with(func(r *badRow) { r.Label = ptr("Loop") }), `label: a string of 4 characters is neither "loop" nor "legit"`},
		{"unknown event", with(func(r *badRow) { r.Event = ptr("pause") }), "event: a string of 5 characters is not one of activate, deactivate, config, kill_switch, breaker_open, breaker_close"},
		{"config without settings", with(func(r *badRow) { r.Event = ptr("config") }), `event: "config" without kill_switch settings`},
		{"window size 0", with(func(r *badRow) { r.Event = ptr("config"); r.Window = ptr[int64](0) }),
			"kill_switch.window_size: want an integer from 1 to 100000, got 0"},
		{"negative threshold", with(func(r *badRow) { r.Event = ptr("config"); r.Threshold = ptr(-1.0) }),
			"kill_switch.threshold: want a number ≥ 0, got -1"},
	}
	var rows []badRow
	for _, tc := range tests {
		rows = append(rows, tc.row, good())
	}
	recs, err := readAll(t, writeRows(t, rows), "corpus.parquet", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2*len(tests) {
		t.Fatalf("%d records, want %d", len(recs), 2*len(tests))
	}
	for i, tc := range tests {
		bad, next := recs[2*i], recs[2*i+1]
		row := int64(2*i + 1)
		se := syntaxErr(bad)
		switch {
		case se == nil:
			t.Errorf("%s: row %d: Err = %v, want a *ingest.SyntaxError", tc.name, row, bad.Err)
		case se.Pos != ingest.Pos{File: "corpus.parquet", Kind: ingest.PosRow, N: row}:
			t.Errorf("%s: Pos %v, want row %d", tc.name, se.Pos, row)
		case !strings.HasPrefix(se.Msg, tc.want) || !strings.HasSuffix(tc.want, ": ") && se.Msg != tc.want:
			t.Errorf("%s: message\n got %q\nwant %q", tc.name, se.Msg, tc.want)
		}
		if want := "corpus.parquet:row " + strconv.FormatInt(row, 10) + ": " + tc.want; !strings.HasPrefix(bad.Err.Error(), want) {
			t.Errorf("%s: Error() = %q, want prefix %q", tc.name, bad.Err, want)
		}
		if next.Err != nil || string(next.Request) != okRequest || next.Agent != "a" || next.Pos.N != row+1 {
			t.Errorf("%s: the good row after it: %+v", tc.name, next)
		}
	}
}

// TestTenantStandsInForAgent: a gateway log keyed by tenant and API key
// needs no agent, as in JSONL: with no agent column, or a null or empty
// agent, the row's tenant names its agent; a row with neither is
// malformed, naming the row.
func TestTenantStandsInForAgent(t *testing.T) {
	const ts = "2026-01-01T00:00:00Z"
	type gwRow struct {
		TS      string  `parquet:"ts"`
		Tenant  *string `parquet:"tenant"`
		Key     string  `parquet:"api_key_id"`
		Request string  `parquet:"request"`
	}
	acme := "acme"
	rows := []gwRow{{ts, &acme, "k1", okRequest}, {ts, nil, "k2", okRequest}, {ts, ptr(""), "k3", okRequest}, {ts, &acme, "k4", okRequest}}
	recs, err := readAll(t, writeRows(t, rows), "gw.parquet", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 {
		t.Fatalf("%d records", len(recs))
	}
	for _, i := range []int{0, 3} {
		if recs[i].Err != nil || recs[i].Agent != "acme" || recs[i].Tenant != "acme" {
			t.Errorf("row %d: %+v", i+1, recs[i])
		}
	}
	for _, i := range []int{1, 2} {
		want := "gw.parquet:row " + strconv.Itoa(i+1) + ": tenant: is null or empty, and there is no agent column to name the agent (give --agent)"
		if recs[i].Err == nil || recs[i].Err.Error() != want {
			t.Errorf("row %d: error %v, want %q", i+1, recs[i].Err, want)
		}
	}
	// With an agent column, a null agent falls back to the tenant too.
	type gwAgentRow struct {
		TS      string  `parquet:"ts"`
		Agent   *string `parquet:"agent"`
		Tenant  string  `parquet:"tenant"`
		Request string  `parquet:"request"`
	}
	recs, err = readAll(t, writeRows(t, []gwAgentRow{{ts, nil, "acme", okRequest}, {ts, ptr("bot"), "acme", okRequest}}), "gw.parquet", Options{})
	if err != nil || len(recs) != 2 || recs[0].Agent != "acme" || recs[1].Agent != "bot" {
		t.Fatalf("records %+v, %v", recs, err)
	}
}
