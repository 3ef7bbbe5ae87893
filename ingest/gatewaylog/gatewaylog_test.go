package gatewaylog

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/killswitch/killswitch/internal/pqtest"
	"github.com/parquet-go/parquet-go"
)

// summary renders calls one per line for comparison.
func summary(calls []*Call) string {
	var b strings.Builder
	for _, c := range calls {
		if c.Err != nil {
			fmt.Fprintf(&b, "bad %v\n", c.Err)
			continue
		}
		r := &c.Rec
		fmt.Fprintf(&b, "%s %s %s/%s status=%d blocked=%t reason=%q upstream=%d decisions=%q tokens=%t:%d:%d req=%s\n",
			c.Pos, r.TS.Format(time.RFC3339Nano), r.Tenant, r.APIKeyID, c.Status, c.Blocked, c.BlockReason, r.Status, c.Decisions, r.HasTokens, r.TokensIn, r.TokensOut, r.Request)
	}
	return b.String()
}

func TestJSONL(t *testing.T) {
	in := `{"created_at":"2026-03-01T10:00:00+00:00","tenant_id":"acme","api_key_id":"k1","request_json":"{\"messages\":[]}","status_code":200,"was_blocked":false,"block_reason":null,"policy_decisions_json":"[]","input_tokens":12,"output_tokens":3}

{"created_at":"2026-03-01 11:00:00+01","tenant_id":"acme","api_key_id":null,"request_json":{"messages":[]},"status_code":423,"was_blocked":true,"block_reason":"killswitch"}
{"created_at":1772359200,"tenant_id":"acme","request_json":"{}","status_code":"400","was_blocked":"t"}
not json
{"tenant_id":"acme","request_json":"{}","status_code":200,"was_blocked":false}
{"created_at":"yesterday","tenant_id":"acme","request_json":"{}","status_code":200,"was_blocked":false}
{"created_at":"2026-03-01T10:00:00Z","tenant_id":"acme","request_json":"{}","status_code":42,"was_blocked":false}
{"created_at":"2026-03-01T10:00:00Z","tenant_id":"acme","request_json":"{}","status_code":200,"was_blocked":"maybe"}
{"created_at":"2026-03-01T10:00:00Z","tenant_id":7,"request_json":"{}","status_code":200,"was_blocked":false}
{"created_at":"2026-03-01T10:00:00Z","tenant_id":"acme","request_json":"{}","status_code":200,"was_blocked":false,"policy_decisions_json":"[{"}
{"created_at":"2026-03-01T10:00:00Z","tenant_id":"acme","request_json":"{}","status_code":200,"was_blocked":false} {}
[1]
`
	calls, err := ReadAll(NewJSONL(strings.NewReader(in), "x.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	want := `x.jsonl:1 2026-03-01T10:00:00Z acme/k1 status=200 blocked=false reason="" upstream=200 decisions="[]" tokens=true:12:3 req={"messages":[]}
x.jsonl:3 2026-03-01T10:00:00Z acme/ status=423 blocked=true reason="killswitch" upstream=200 decisions="" tokens=false:0:0 req={"messages":[]}
x.jsonl:4 2026-03-01T10:00:00Z acme/ status=400 blocked=true reason="" upstream=200 decisions="" tokens=false:0:0 req={}
bad x.jsonl:5: not JSON: invalid character 'o' in literal null (expecting 'u')
bad x.jsonl:6: created_at: missing (a proxy_calls export needs created_at, tenant_id, request_json, status_code, was_blocked)
bad x.jsonl:7: created_at: unparsable timestamp: a string of 9 characters where a time was expected (want RFC 3339 or Unix seconds/milliseconds)
bad x.jsonl:8: status_code: 42 is not an HTTP status
bad x.jsonl:9: was_blocked: a text of 5 bytes is neither true nor false
bad x.jsonl:10: tenant_id: want text, got a number
bad x.jsonl:11: policy_decisions_json: not JSON
bad x.jsonl:12: more than one JSON value on the line
bad x.jsonl:13: not JSON: json: cannot unmarshal array into Go value of type map[string]json.RawMessage
`
	if got := summary(calls); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestCSV(t *testing.T) {
	in := "created_at,tenant_id,api_key_id,request_json,status_code,was_blocked,block_reason,policy_decisions_json\n" +
		"2026-03-01 10:00:00.5+00,acme,k1,\"{\"\"messages\"\": []}\",200,f,,\n" +
		"2026-03-01 10:00:01-05,acme,,{},400,t,max_tokens_per_request,\"[{\"\"passed\"\": false}]\"\n" +
		"2026-03-01 10:00:02+00,acme,k1,{},200\n" +
		"2026-03-01 10:00:02+00,acme,k1,{},abc,f,,\n" +
		"2026-03-01 10:00:02+00,acme,k1,\"{\"x,200,f,,\n"
	calls, err := ReadAll(NewCSV(strings.NewReader(in), "x.csv"))
	if err != nil {
		t.Fatal(err)
	}
	want := `x.csv:row 1 2026-03-01T10:00:00.5Z acme/k1 status=200 blocked=false reason="" upstream=200 decisions="" tokens=false:0:0 req={"messages": []}
x.csv:row 2 2026-03-01T15:00:01Z acme/ status=400 blocked=true reason="max_tokens_per_request" upstream=200 decisions="[{\"passed\": false}]" tokens=false:0:0 req={}
bad x.csv:row 3: 5 fields, the header has 8
bad x.csv:row 4: status_code: a text of 3 bytes is not a whole number
bad x.csv:row 5: not CSV: extraneous or missing " in quoted-field
`
	if got := summary(calls); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// A header without the required columns is another file: one error,
	// naming the columns a proxy_calls export needs, not the header's own.
	calls, err = ReadAll(NewCSV(strings.NewReader("a,secret\n1,2\n3,4\n"), "h.csv"))
	if want := "h.csv: not a proxy_calls export: a CSV whose first row (2 columns) lacks created_at, tenant_id, request_json, status_code, was_blocked; a proxy_calls export needs the columns created_at, tenant_id, request_json, status_code, was_blocked"; len(calls) != 0 || err == nil || err.Error() != want {
		t.Errorf("header: %d calls, %v", len(calls), err)
	}
}

type pqRow struct {
	CreatedAt   time.Time `parquet:"created_at,timestamp(microsecond)"`
	TenantID    string    `parquet:"tenant_id"`
	APIKeyID    *string   `parquet:"api_key_id,optional"`
	RequestJSON string    `parquet:"request_json"`
	StatusCode  int32     `parquet:"status_code"`
	WasBlocked  bool      `parquet:"was_blocked"`
	BlockReason *string   `parquet:"block_reason,optional"`
}

func parquetExport(t testing.TB, rows []pqRow, opts ...parquet.WriterOption) []byte {
	return pqtest.Write(t, rows, opts...)
}

func TestParquet(t *testing.T) {
	k1, reason := "k1", "killswitch"
	ts := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	data := parquetExport(t, []pqRow{
		{ts, "acme", &k1, `{"messages":[]}`, 200, false, nil},
		{ts.Add(time.Second), "acme", nil, `{}`, 423, true, &reason},
		{ts, "acme", nil, `{}`, 7, false, nil},
	})
	if Sniff(data) != "parquet" {
		t.Fatal("not sniffed as Parquet")
	}
	pr, err := NewParquet(bytes.NewReader(data), int64(len(data)), "x.parquet")
	if err != nil {
		t.Fatal(err)
	}
	calls, err := ReadAll(pr)
	if err != nil {
		t.Fatal(err)
	}
	want := `x.parquet:row 1 2026-03-01T10:00:00Z acme/k1 status=200 blocked=false reason="" upstream=200 decisions="" tokens=false:0:0 req={"messages":[]}
x.parquet:row 2 2026-03-01T10:00:01Z acme/ status=423 blocked=true reason="killswitch" upstream=200 decisions="" tokens=false:0:0 req={}
bad x.parquet:row 3: status_code: 7 is not an HTTP status
`
	if got := summary(calls); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if _, err := NewParquet(bytes.NewReader(data[:len(data)-3]), int64(len(data)-3), "cut.parquet"); err == nil {
		t.Error("a truncated file opened")
	}
}

func TestSniff(t *testing.T) {
	for in, want := range map[string]string{"PAR1...": "parquet", "  {\"a\":1}": "jsonl", "\ufeff{": "jsonl", " [{": "json", "created_at,tenant_id": "csv", "": "csv"} {
		if got := Sniff([]byte(in)); got != want {
			t.Errorf("Sniff(%q) = %s, want %s", in, got, want)
		}
	}
}

// FuzzExport: no JSONL or CSV input makes a reader panic; every row is
// either bad (with its position in the message) or carries a time, a
// tenant and a status.
func FuzzExport(f *testing.F) {
	f.Add([]byte(`{"created_at":"2026-03-01T10:00:00Z","tenant_id":"a","request_json":"{}","status_code":200,"was_blocked":false}`))
	f.Add([]byte("created_at,tenant_id,request_json,status_code,was_blocked\n2026-03-01 10:00:00+00,a,{},200,f\n"))
	f.Add([]byte("created_at,tenant_id,request_json,status_code,was_blocked\n\"unterminated"))
	f.Add([]byte("{\"created_at\":1e400}\n\n{"))
	f.Add([]byte(`[{"created_at":"2026-03-01T10:00:00Z","tenant_id":"a","request_json":{},"status_code":200,"was_blocked":false},{"tenant_id":7}]`))
	f.Add([]byte(`[{"created_at":1},`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkRows(t, NewJSONL(bytes.NewReader(data), "f"))
		checkRows(t, NewCSV(bytes.NewReader(data), "f"))
		checkRows(t, NewJSONArray(bytes.NewReader(data), "f"))
	})
}

// FuzzParquetExport: the same for damaged Parquet files: byte mutations
// of the footer, the page headers and the pages. parquet-go verifies each
// page's CRC, so a mutated page of a file with checksums dies there; the
// seed without them (pqtest.WithoutCRC, pages uncompressed) lets a
// mutation reach the page decoders and the rows. The row decoding is also
// fuzzed on valid files by FuzzParquetRows. (Go's fuzzer shows a worker's execs
// only when it reports new coverage: "execs: 2" for a minute does not
// mean a stall: its inputs take well under a millisecond each.)
func FuzzParquetExport(f *testing.F) {
	f.Add(parquetExport(f, []pqRow{{time.Unix(1772359200, 0), "a", nil, "{}", 200, false, nil}}))
	k, reason := "k1", "killswitch"
	f.Add(pqtest.WithoutCRC(f, parquetExport(f, []pqRow{
		{time.Unix(1772359200, 0), "acme", &k, `{"messages":[{"role":"user","content":"hi"}]}`, 200, false, nil},
		{time.Unix(1772359201, 0), "acme", nil, "{}", 423, true, &reason},
	}, parquet.Compression(&parquet.Uncompressed))))
	f.Add([]byte("PAR1PAR1"))
	f.Add([]byte("PAR1\xff\xff\xff\x7fPAR1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if pr, err := NewParquet(bytes.NewReader(data), int64(len(data)), "f"); err == nil {
			checkRows(t, pr)
		}
	})
}

func checkRows(t *testing.T, r Reader) {
	// A few bytes of RLE levels can claim millions of rows: the first
	// 10,000 are checked.
	for n := 0; n < 10000 && r.Scan(); n++ {
		c := r.Call()
		if c.Err != nil {
			if !strings.HasPrefix(c.Err.Error(), c.Pos.String()+": ") {
				t.Fatalf("error without its position: %v", c.Err)
			}
			continue
		}
		if c.Rec.TS.IsZero() || c.Rec.Tenant == "" || c.Status < 100 || c.Status > 599 {
			t.Fatalf("%s: a good row without time, tenant or status: %+v", c.Pos, c)
		}
	}
}

// #28: a capture, or any JSONL without proxy_calls' columns, is one error
// saying what the file is, not one "created_at: missing" per line.
func TestJSONLNotAnExport(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"\n" + `{"ts":"2026-03-01T10:00:00Z","agent":"a","request":{}}` + "\n" + `{"ts":1,"agent":"a","request":{}}` + "\n",
			`c.jsonl:2: not a proxy_calls export: its first line is a killswitch capture record ("ts" and "request" or "event": killswitch replay reads it); a proxy_calls export (row_to_json, one row per line) needs created_at, tenant_id, request_json, status_code, was_blocked`},
		{`{"api_key":"sk-secret","x":1}` + "\n",
			`c.jsonl:1: not a proxy_calls export: its first line is a JSON object of 2 keys, none of them a proxy_calls column; a proxy_calls export (row_to_json, one row per line) needs created_at, tenant_id, request_json, status_code, was_blocked`},
	} {
		calls, err := ReadAll(NewJSONL(strings.NewReader(c.in), "c.jsonl"))
		if len(calls) != 0 || err == nil || err.Error() != c.want {
			t.Errorf("%d calls, err %v\nwant %s", len(calls), err, c.want)
		}
	}
	// A row missing one column is still a bad row of an export.
	calls, err := ReadAll(NewJSONL(strings.NewReader(`{"created_at":"2026-03-01T10:00:00Z"}`+"\n"), "c.jsonl"))
	if err != nil || len(calls) != 1 || calls[0].Err == nil {
		t.Errorf("one bad row: %d calls, %v", len(calls), err)
	}
}

// #28: json_agg's one JSON array of rows is read, each element as a JSONL
// row, positioned by row; a bad element is a bad row; broken JSON or a
// value that is not an array ends the stream with its position.
func TestJSONArray(t *testing.T) {
	in := `[{"created_at":"2026-03-01T10:00:00+00:00","tenant_id":"acme","api_key_id":"k1","request_json":{"messages":[]},"status_code":200,"was_blocked":false,"block_reason":null},
 {"tenant_id":"acme","request_json":"{}","status_code":200,"was_blocked":false},
 {"created_at":"2026-03-01 11:00:00+01","tenant_id":"acme","request_json":"{}","status_code":423,"was_blocked":true,"block_reason":"killswitch"}]
`
	calls, err := ReadAll(NewJSONArray(strings.NewReader(in), "a.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := `a.json:row 1 2026-03-01T10:00:00Z acme/k1 status=200 blocked=false reason="" upstream=200 decisions="" tokens=false:0:0 req={"messages":[]}
bad a.json:row 2: created_at: missing (a proxy_calls export needs created_at, tenant_id, request_json, status_code, was_blocked)
a.json:row 3 2026-03-01T10:00:00Z acme/ status=423 blocked=true reason="killswitch" upstream=200 decisions="" tokens=false:0:0 req={}
`
	if got := summary(calls); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for _, c := range []struct{ in, want string }{
		{`{"a":1}`, "a.json: not a JSON array of proxy_calls rows"},
		{`[{"created_at":"2026-03-01T10:00:00Z",`, "a.json:row 1: not JSON: unexpected EOF"},
		{`[{"ts":1,"agent":"a","request":{}}]`, `a.json:row 1: not a proxy_calls export: its first element is a killswitch capture record ("ts" and "request" or "event": killswitch replay reads it); a proxy_calls row needs created_at, tenant_id, request_json, status_code, was_blocked`},
		{`[] []`, "a.json: data after the array's end"},
	} {
		if _, err := ReadAll(NewJSONArray(strings.NewReader(c.in), "a.json")); err == nil || err.Error() != c.want {
			t.Errorf("%s: %v, want %s", c.in, err, c.want)
		}
	}
}
