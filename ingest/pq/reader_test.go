package pq

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/killswitch/killswitch/ingest"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
)

const okRequest = `{"messages":[{"role":"user","content":"hi"}]}`

// Row types for files whose ts column has each accepted type.
type (
	tsMillis struct {
		TS      time.Time `parquet:"ts,timestamp(millisecond)"`
		Agent   string    `parquet:"agent"`
		Request string    `parquet:"request"`
	}
	tsMicros struct {
		TS      time.Time `parquet:"ts,timestamp(microsecond)"`
		Agent   string    `parquet:"agent"`
		Request string    `parquet:"request"`
	}
	tsNanosLocal struct {
		TS      int64  `parquet:"ts,timestamp(nanosecond:local)"`
		Agent   string `parquet:"agent"`
		Request string `parquet:"request"`
	}
	tsInt64 struct {
		TS      int64  `parquet:"ts"`
		Agent   string `parquet:"agent"`
		Request string `parquet:"request"`
	}
	tsInt32 struct {
		TS      int32  `parquet:"ts"`
		Agent   string `parquet:"agent"`
		Request string `parquet:"request"`
	}
	tsDouble struct {
		TS      float64 `parquet:"ts"`
		Agent   string  `parquet:"agent"`
		Request string  `parquet:"request"`
	}
	tsString struct {
		TS      string `parquet:"ts"`
		Agent   string `parquet:"agent"`
		Request string `parquet:"request"`
	}
	tsDate struct {
		TS      int32  `parquet:"ts,date"`
		Agent   string `parquet:"agent"`
		Request string `parquet:"request"`
	}
	tsInt96 struct {
		TS      deprecated.Int96 `parquet:"ts"`
		Agent   string           `parquet:"agent"`
		Request string           `parquet:"request"`
	}
)

// int96 builds a legacy Impala/Spark INT96 time: nanoseconds of the day in
// the low 8 bytes, the Julian day number in the high 4.
func int96(julianDay uint32, nanos uint64) deprecated.Int96 {
	return deprecated.Int96{uint32(nanos), uint32(nanos >> 32), julianDay}
}

func TestTimestampColumns(t *testing.T) {
	// 2026-01-02T03:04:05.678Z is Unix 1767323045.678 (date -u -d @1767323045
	// → Fri Jan  2 03:04:05 UTC 2026); its day is day 20455 after the epoch,
	// Julian day 2440588 + 20455 = 2461043.
	want := utc(2026, 1, 2, 3, 4, 5, 678000)
	day := utc(2026, 1, 2, 0, 0, 0, 0)
	tests := []struct {
		name string
		data func(t *testing.T) []byte
		want time.Time
	}{
		{"TIMESTAMP(MILLIS)", func(t *testing.T) []byte {
			return writeRows(t, []tsMillis{{want, "a", okRequest}})
		}, want},
		{"TIMESTAMP(MICROS)", func(t *testing.T) []byte {
			return writeRows(t, []tsMicros{{want.Add(9 * time.Microsecond), "a", okRequest}})
		}, want.Add(9 * time.Microsecond)},
		{"TIMESTAMP(NANOS) not adjusted to UTC", func(t *testing.T) []byte {
			return writeRows(t, []tsNanosLocal{{1767323045678000001, "a", okRequest}})
		}, want.Add(1)},
		{"INT64 Unix seconds", func(t *testing.T) []byte {
			return writeRows(t, []tsInt64{{1767323045, "a", okRequest}})
		}, want.Truncate(time.Second)},
		{"INT64 Unix milliseconds", func(t *testing.T) []byte {
			return writeRows(t, []tsInt64{{1767323045678, "a", okRequest}})
		}, want},
		{"INT32 Unix seconds", func(t *testing.T) []byte {
			return writeRows(t, []tsInt32{{1767323045, "a", okRequest}})
		}, want.Truncate(time.Second)},
		{"DOUBLE Unix seconds", func(t *testing.T) []byte {
			return writeRows(t, []tsDouble{{1767323045.678, "a", okRequest}})
		}, want},
		{"string RFC 3339", func(t *testing.T) []byte {
			return writeRows(t, []tsString{{"2026-01-02T04:04:05.678+01:00", "a", okRequest}})
		}, want},
		{"string without zone (LiteLLM)", func(t *testing.T) []byte {
			return writeRows(t, []tsString{{"2026-01-02 03:04:05.678000", "a", okRequest}})
		}, want},
		{"string of Unix milliseconds", func(t *testing.T) []byte {
			return writeRows(t, []tsString{{"1767323045678", "a", okRequest}})
		}, want},
		{"DATE", func(t *testing.T) []byte {
			return writeRows(t, []tsDate{{20455, "a", okRequest}})
		}, day},
		{"INT96", func(t *testing.T) []byte {
			return writeRows(t, []tsInt96{{int96(2461043, (3*3600+4*60+5)*1e9+678e6), "a", okRequest}})
		}, want},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			recs := mustRead(t, tc.data(t), Options{})
			if len(recs) != 1 {
				t.Fatalf("%d records", len(recs))
			}
			if got := recs[0].TS; !got.Equal(tc.want) || got.Location() != time.UTC {
				t.Errorf("TS = %v, want %v", got, tc.want)
			}
		})
	}
}

// Nested request and response columns. The expected JSON is written by
// hand from the rows: members in schema order, null members left out,
// empty repeated fields as [], LIST groups as arrays, MAP groups as objects.
type (
	nestedToolCall struct {
		Name      string `parquet:"name"`
		Arguments string `parquet:"arguments,json"`
	}
	nestedMessage struct {
		Role      string           `parquet:"role"`
		Content   *string          `parquet:"content"`
		ToolCalls []nestedToolCall `parquet:"tool_calls"`
	}
	nestedOptions struct {
		Seed int32 `parquet:"seed"`
	}
	nestedRequest struct {
		Model       string            `parquet:"model"`
		Temperature float64           `parquet:"temperature"`
		Stream      bool              `parquet:"stream"`
		MaxTokens   *int64            `parquet:"max_tokens"`
		Stop        []string          `parquet:"stop,list"`
		Messages    []nestedMessage   `parquet:"messages"`
		Metadata    map[string]string `parquet:"metadata"`
		Options     *nestedOptions    `parquet:"options"`
	}
	nestedResponseChoice struct {
		Index        int32  `parquet:"index"`
		FinishReason string `parquet:"finish_reason"`
	}
	nestedResponse struct {
		ID      string                 `parquet:"id"`
		Choices []nestedResponseChoice `parquet:"choices,list"`
	}
	nestedRow struct {
		TS       time.Time       `parquet:"ts,timestamp(millisecond)"`
		Agent    string          `parquet:"agent"`
		Request  *nestedRequest  `parquet:"request"`
		Response *nestedResponse `parquet:"response"`
		Model    string          `parquet:"model"`
	}
)

func TestNestedRequest(t *testing.T) {
	ts := utc(2026, 3, 1, 12, 0, 0, 0)
	rows := []nestedRow{
		{
			TS: ts, Agent: "a", Model: "gpt-4o",
			Request: &nestedRequest{
				Model: "gpt-4o", Temperature: 0.5, Stream: true, MaxTokens: ptr[int64](256),
				Stop: []string{"\n\n", "END"},
				Messages: []nestedMessage{
					{Role: "system", Content: ptr("be \"brief\"")},
					{Role: "user", Content: ptr("order #1 ☃")},
					{Role: "assistant", ToolCalls: []nestedToolCall{
						{Name: "lookup", Arguments: `{"order": 1}`},
						{Name: "refund", Arguments: `{}`},
					}},
				},
				Metadata: map[string]string{"tenant": "acme"},
				Options:  &nestedOptions{Seed: 7},
			},
			Response: &nestedResponse{ID: "r1", Choices: []nestedResponseChoice{{0, "stop"}}},
		},
		{
			// Empty lists, no max_tokens, no options, no response.
			TS: ts.Add(time.Second), Agent: "a", Model: "m",
			Request: &nestedRequest{Model: "m", Temperature: 1e-7, Stop: []string{}},
		},
		{
			// A null request: a bad row, and the next row must still be read.
			TS: ts.Add(2 * time.Second), Agent: "a",
		},
		{
			TS: ts.Add(3 * time.Second), Agent: "b",
			Request: &nestedRequest{Model: "x", Messages: []nestedMessage{{Role: "user", Content: ptr("")}}},
		},
	}
	want := []struct{ request, response string }{
		{
			`{"model":"gpt-4o","temperature":0.5,"stream":true,"max_tokens":256,"stop":["\n\n","END"],` +
				`"messages":[{"role":"system","content":"be \"brief\"","tool_calls":[]},{"role":"user","content":"order #1 ☃","tool_calls":[]},` +
				`{"role":"assistant","tool_calls":[{"name":"lookup","arguments":{"order": 1}},{"name":"refund","arguments":{}}]}],` +
				`"metadata":{"tenant":"acme"},"options":{"seed":7}}`,
			`{"id":"r1","choices":[{"index":0,"finish_reason":"stop"}]}`,
		},
		{`{"model":"m","temperature":1e-7,"stream":false,"stop":[],"messages":[],"metadata":{}}`, ""},
		{"", ""},
		{`{"model":"x","temperature":0,"stream":false,"stop":[],"messages":[{"role":"user","content":"","tool_calls":[]}],"metadata":{}}`, ""},
	}
	for _, v := range []struct {
		name string
		opts []parquet.WriterOption
	}{{"v2", nil}, {"v1 pages", []parquet.WriterOption{parquet.DataPageVersion(1)}}, {"tiny pages", []parquet.WriterOption{parquet.PageBufferSize(32)}}} {
		t.Run(v.name, func(t *testing.T) {
			data := writeRows(t, rows, v.opts...)
			recs, err := readAll(t, data, "nested.parquet", Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != len(want) {
				t.Fatalf("%d records, want %d", len(recs), len(want))
			}
			for i, w := range want {
				rec := recs[i]
				if w.request == "" {
					se := syntaxErr(rec)
					if se == nil || se.Pos.N != int64(i+1) || !strings.Contains(se.Msg, "request: is null") {
						t.Errorf("row %d: Err = %v, want request is null at row %d", i+1, rec.Err, i+1)
					}
					continue
				}
				if rec.Err != nil {
					t.Fatalf("row %d: %v", i+1, rec.Err)
				}
				if string(rec.Request) != w.request {
					t.Errorf("row %d request:\n got %s\nwant %s", i+1, rec.Request, w.request)
				}
				if w.response == "" && rec.Response != nil {
					t.Errorf("row %d response = %q, want nil", i+1, rec.Response)
				}
				if w.response != "" && string(rec.Response) != w.response {
					t.Errorf("row %d response:\n got %s\nwant %s", i+1, rec.Response, w.response)
				}
				if rec.Model != rows[i].Model {
					t.Errorf("row %d model %q", i+1, rec.Model)
				}
			}
		})
	}
}

// TestFlattenedColumns reads a file whose request object and kill_switch
// settings are spread over columns literally named with dots, as
// json_normalize-style exports write them. A JSON column's text is embedded
// as is; a group of null members is left out; a request whose members are
// all null is null.
func TestFlattenedColumns(t *testing.T) {
	type row struct {
		TS        string   `parquet:"ts"`
		Agent     string   `parquet:"agent"`
		Event     *string  `parquet:"event"`
		Enabled   *bool    `parquet:"kill_switch.enabled"`
		Window    *int32   `parquet:"kill_switch.window_size"`
		Threshold *float64 `parquet:"kill_switch.threshold"`
		Model     *string  `parquet:"request.model"`
		Messages  string   `parquet:"request.messages,json"`
		User      *string  `parquet:"request.metadata.user"`
	}
	rows := []row{
		{TS: "2026-01-01T00:00:00Z", Agent: "a", Model: ptr("gpt"), Messages: `[{"role":"user","content":"hi"}]`, User: ptr("u1")},
		{TS: "2026-01-01T00:00:01Z", Agent: "a", Event: ptr("config"), Enabled: ptr(true), Window: ptr[int32](5), Threshold: ptr(3.5), Messages: "[]"},
		{TS: "2026-01-01T00:00:02Z", Agent: "a", Model: ptr("gpt"), Messages: "[]"},
	}
	recs, err := readAll(t, writeRows(t, rows), "flat.parquet", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 {
		t.Fatalf("%d records", len(recs))
	}
	if got, want := string(recs[0].Request), `{"model":"gpt","messages":[{"role":"user","content":"hi"}],"metadata":{"user":"u1"}}`; got != want {
		t.Errorf("row 1 request %s, want %s", got, want)
	}
	wantCtl := &ingest.Control{Event: ingest.ControlConfig, By: "manual", KillSwitch: ingest.KillSwitchPatch{Enabled: ptr(true), WindowSize: ptr(5), Threshold: ptr(3.5)}}
	if d := diffRecord(recs[1], &ingest.Record{TS: utc(2026, 1, 1, 0, 0, 1, 0), Agent: "a", Status: 200, Control: wantCtl}); d != "" {
		t.Errorf("row 2: %s", d)
	}
	if got, want := string(recs[2].Request), `{"model":"gpt","messages":[]}`; got != want {
		t.Errorf("row 3 request %s, want %s", got, want)
	}

	type sparse struct {
		TS    string  `parquet:"ts"`
		Agent string  `parquet:"agent"`
		Model *string `parquet:"request.model"`
	}
	recs, err = readAll(t, writeRows(t, []sparse{{"2026-01-01T00:00:00Z", "a", nil}, {"2026-01-01T00:00:01Z", "a", ptr("m")}}), "flat.parquet", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if se := syntaxErr(recs[0]); se == nil || se.Msg != "request: is null (a row is a request, or a control record with event)" {
		t.Errorf("row 1: %v, want request is null", recs[0].Err)
	}
	if got := string(recs[1].Request); got != `{"model":"m"}` {
		t.Errorf("row 2 request %s", got)
	}
}

// TestKillSwitchJSONColumn reads control records whose settings are JSON
// text in a kill_switch column, the deactivated_by alias of by, and the
// "kill_switch" event (a kill the live system made).
func TestKillSwitchJSONColumn(t *testing.T) {
	type row struct {
		TS      int64   `parquet:"ts,timestamp(millisecond)"`
		Agent   string  `parquet:"agent"`
		Event   string  `parquet:"event"`
		By      *string `parquet:"deactivated_by"`
		KS      *string `parquet:"kill_switch"`
		Request *string `parquet:"request"`
	}
	rows := []row{
		{TS: 1000, Agent: "a", Event: "config", KS: ptr(`{"enabled":false,"window_size":12}`)},
		{TS: 2000, Agent: "a", Event: "deactivate", By: ptr("kill_switch")},
		{TS: 3000, Agent: "a", Event: "kill_switch"},
		{TS: 4000, Agent: "a", Event: "config", KS: ptr(`{"treshold":3}`)},
	}
	recs, err := readAll(t, writeRows(t, rows), "ks.parquet", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []*ingest.Control{
		{Event: ingest.ControlConfig, By: "manual", KillSwitch: ingest.KillSwitchPatch{Enabled: ptr(false), WindowSize: ptr(12)}},
		{Event: ingest.ControlDeactivate, By: "kill_switch"},
		{Event: ingest.ControlDeactivate, By: "kill_switch"}, // a kill the live system made
	}
	for i, w := range want {
		if recs[i].Err != nil || showControl(recs[i].Control) != showControl(w) {
			t.Errorf("row %d: %v %s, want %s", i+1, recs[i].Err, showControl(recs[i].Control), showControl(w))
		}
	}
	if se := syntaxErr(recs[3]); se == nil || !strings.Contains(se.Msg, `unknown key "treshold"`) {
		t.Errorf("row 4: %v, want the misspelt key named", recs[3].Err)
	}
}

// A Helicone-like export: its own column names, the agent in a nested
// properties group, the time in microseconds, the status as a string.
type heliconeRow struct {
	RequestCreatedAt time.Time `parquet:"request_created_at,timestamp(microsecond)"`
	RequestID        [16]byte  `parquet:"request_id,uuid"`
	RequestBody      string    `parquet:"request_body,json"`
	ResponseBody     string    `parquet:"response_body,json"`
	ResponseStatus   string    `parquet:"response_status"`
	Properties       struct {
		AgentName string `parquet:"Helicone-Agent-Name"`
		Session   string `parquet:"Helicone-Session-Id"`
	} `parquet:"properties"`
	Provider       string  `parquet:"provider"`
	Model          string  `parquet:"model"`
	Delay          float64 `parquet:"delay_ms"`
	PromptTokens   int32   `parquet:"prompt_tokens"`
	Completion     int32   `parquet:"completion_tokens"`
	CostMicroCents int64   `parquet:"cost,decimal(6:18)"`
	Unused         []byte  `parquet:"big_unused_blob"`
}

func TestMappedHeliconeExport(t *testing.T) {
	row := heliconeRow{
		RequestCreatedAt: utc(2026, 2, 3, 4, 5, 6, 789012),
		RequestID:        [16]byte{0x0b, 0x3e, 0x5f, 0x1c, 0x7d, 0x2a, 0x4e, 0x6b, 0x9c, 0x8d, 0x1a, 0x2b, 0x3c, 0x4d, 0x5e, 0x6f},
		RequestBody:      `{"model":"gpt-4o","messages":[{"role":"user","content":"ping"}]}`,
		ResponseBody:     `{"choices":[]}`,
		ResponseStatus:   "200",
		Provider:         "OPENAI", Model: "gpt-4o", Delay: 1234.9, PromptTokens: 11, Completion: 2,
		CostMicroCents: 1250, // decimal(6): 0.001250
		Unused:         bytes.Repeat([]byte{0xff}, 1000),
	}
	row.Properties.AgentName = "triage"
	row.Properties.Session = "sess-9"
	opt := Options{Map: map[string]string{
		"ts": "request_created_at", "id": "request_id", "request": "request_body", "response": "response_body",
		"status": "response_status", "agent": "properties.Helicone-Agent-Name", "session": "properties.Helicone-Session-Id",
		"latency_ms": "delay_ms", "tokens_in": "prompt_tokens", "tokens_out": "completion_tokens", "cost_usd": "cost",
	}}
	recs := mustRead(t, writeRows(t, []heliconeRow{row}), opt)
	want := &ingest.Record{
		TS: row.RequestCreatedAt, Agent: "triage", Status: 200,
		Request: []byte(row.RequestBody), Response: []byte(`{"choices":[]}`),
		ID: "0b3e5f1c-7d2a-4e6b-9c8d-1a2b3c4d5e6f", Provider: "OPENAI", Model: "gpt-4o", Session: "sess-9",
		LatencyMS: 1234, HasLatency: true, TokensIn: 11, TokensOut: 2, HasTokens: true,
		CostUSD: 0.00125, HasCost: true,
	}
	if d := diffRecord(recs[0], want); d != "" {
		t.Error(d)
	}
}

// A LiteLLM SpendLogs-like export: zone-less start times, the agent under
// metadata, the body in proxy_server_request, a spend column.
func TestMappedLiteLLMExport(t *testing.T) {
	type meta struct {
		UserAPIKeyAlias string `parquet:"user_api_key_alias"`
		AgentID         string `parquet:"agent_id"`
	}
	type row struct {
		RequestID string `parquet:"request_id"`
		StartTime string `parquet:"startTime"`
		Model     string `parquet:"model"`
		Spend     float64
		Body      string `parquet:"proxy_server_request"`
		Metadata  meta   `parquet:"metadata"`
	}
	rows := []row{
		{"r1", "2025-06-01 10:00:00.250000", "claude", 0.5, `{"messages":[{"role":"user","content":"a"}]}`, meta{"k", "planner"}},
		{"r2", "2025-06-01 10:00:01.000000", "claude", 0, `"{\"messages\":[]}"`, meta{"k", "planner"}},
	}
	recs := mustRead(t, writeRows(t, rows), Options{Map: map[string]string{
		"ts": "startTime", "id": "request_id", "request": "proxy_server_request",
		"agent": "metadata.agent_id", "api_key_id": "metadata.user_api_key_alias", "cost_usd": "Spend",
	}})
	if got := recs[0]; got.Agent != "planner" || got.APIKeyID != "k" || got.Model != "claude" || got.CostUSD != 0.5 ||
		!got.TS.Equal(utc(2025, 6, 1, 10, 0, 0, 250000)) || got.ID != "r1" {
		t.Errorf("row 1: %+v", got)
	}
	// A body encoded twice (a JSON string holding the object) is unwrapped.
	if got := string(recs[1].Request); got != `{"messages":[]}` {
		t.Errorf("row 2 request %s", got)
	}
}

func TestExplicitAgent(t *testing.T) {
	type row struct {
		TS      string `parquet:"ts"`
		Request string `parquet:"request"`
	}
	data := writeRows(t, []row{{"2026-01-01T00:00:00Z", okRequest}})
	recs := mustRead(t, data, Options{Agent: "cli-agent"})
	if recs[0].Agent != "cli-agent" {
		t.Errorf("agent %q", recs[0].Agent)
	}
}

// TestProjection checks that columns the record does not use are never
// read: no byte of their column chunks is fetched from the file.
func TestProjection(t *testing.T) {
	rows := make([]heliconeRow, 50)
	for i := range rows {
		rows[i] = heliconeRow{RequestCreatedAt: utc(2026, 1, 1, 0, 0, i, 0), RequestBody: okRequest, ResponseStatus: "200", Unused: bytes.Repeat([]byte{byte(i)}, 5000)}
	}
	data := writeRows(t, rows, parquet.MaxRowsPerRowGroup(20))
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	// The byte ranges of the unused column's chunks, from the footer.
	type span struct{ lo, hi int64 }
	var unused []span
	for _, rg := range f.Metadata().RowGroups {
		for _, cc := range rg.Columns {
			if strings.Join(cc.MetaData.PathInSchema, ".") == "big_unused_blob" {
				lo := cc.MetaData.DataPageOffset
				if d := cc.MetaData.DictionaryPageOffset; d > 0 && d < lo {
					lo = d
				}
				unused = append(unused, span{lo, lo + cc.MetaData.TotalCompressedSize})
			}
		}
	}
	if len(unused) != 3 {
		t.Fatalf("%d chunks of the unused column, want 3", len(unused))
	}
	rec := &recordingReaderAt{r: bytes.NewReader(data)}
	r, err := NewReader(rec, int64(len(data)), "p.parquet", Options{Agent: "a", Map: map[string]string{"ts": "request_created_at", "request": "request_body"}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for r.Scan() {
		if r.Record().Err != nil {
			t.Fatal(r.Record().Err)
		}
		n++
	}
	if n != 50 || r.Err() != nil {
		t.Fatalf("%d rows, %v", n, r.Err())
	}
	for _, read := range rec.reads {
		for _, u := range unused {
			if read.off < u.hi && read.off+read.n > u.lo {
				t.Errorf("read [%d,%d) overlaps the unused column chunk [%d,%d)", read.off, read.off+read.n, u.lo, u.hi)
			}
		}
	}
}

// recordingReaderAt records the byte ranges read. ReadAt may be called
// from several goroutines at once (the reader prefetches pages).
type recordingReaderAt struct {
	r     *bytes.Reader
	mu    sync.Mutex
	reads []struct{ off, n int64 }
}

func (r *recordingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := r.r.ReadAt(p, off)
	r.mu.Lock()
	r.reads = append(r.reads, struct{ off, n int64 }{off, int64(n)})
	r.mu.Unlock()
	return n, err
}
