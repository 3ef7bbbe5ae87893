package gatewaylog

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/internal/pqtest"
)

// pqCol is one column of a generated export: its node, and per row its
// Parquet value and the same value as JSON (what a JSONL export of the
// row holds).
type pqCol struct {
	name string
	node parquet.Node
	vals []parquet.Value
	json []string
}

// writeColumns writes cols (every column optional, one value per row; a
// null Value is NULL) as one Parquet file, and returns it with the JSONL
// export of the same rows (NULL columns left out).
func writeColumns(t testing.TB, cols []pqCol) ([]byte, []string) {
	g := parquet.Group{}
	for _, c := range cols {
		g[c.name] = parquet.Optional(c.node)
	}
	schema := parquet.NewSchema("proxy_calls", g)
	var buf bytes.Buffer
	w := parquet.NewWriter(&buf, schema)
	n := len(cols[0].vals)
	lines := make([]string, n)
	for i := 0; i < n; i++ {
		row := make(parquet.Row, len(cols))
		obj := []string{}
		for _, c := range cols {
			lc, _ := schema.Lookup(c.name)
			v := c.vals[i]
			if v.IsNull() {
				row[lc.ColumnIndex] = parquet.NullValue().Level(0, 0, lc.ColumnIndex)
				continue
			}
			row[lc.ColumnIndex] = v.Level(0, 1, lc.ColumnIndex)
			obj = append(obj, strconv.Quote(c.name)+":"+c.json[i])
		}
		if _, err := w.WriteRows([]parquet.Row{row}); err != nil {
			t.Fatal(err)
		}
		lines[i] = "{" + strings.Join(obj, ",") + "}"
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), lines
}

func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// text, i64, i32, f64 and boolean make one value of a column of that
// type, with its JSON form.
func text(s string) (parquet.Value, string) { return parquet.ByteArrayValue([]byte(s)), jsonText(s) }
func i64(x int64) (parquet.Value, string)   { return parquet.Int64Value(x), strconv.FormatInt(x, 10) }
func i32(x int32) (parquet.Value, string)   { return parquet.Int32Value(x), strconv.Itoa(int(x)) }
func f64(x float64) (parquet.Value, string) {
	return parquet.DoubleValue(x), strconv.FormatFloat(x, 'g', -1, 64)
}
func boolean_(b bool) (parquet.Value, string) { return parquet.BooleanValue(b), strconv.FormatBool(b) }

func col(name string, node parquet.Node, v parquet.Value, js string) pqCol {
	return pqCol{name: name, node: node, vals: []parquet.Value{v}, json: []string{js}}
}

// sameCall reports how a (a Parquet row) differs from b (the same row read
// from JSONL): the same verdict, the same message after the position, the
// same values.
func sameCall(a, b *Call) string {
	switch {
	case (a.Err == nil) != (b.Err == nil):
		return "parquet: " + summary([]*Call{a}) + "jsonl: " + summary([]*Call{b})
	case a.Err != nil:
		ma := strings.TrimPrefix(a.Err.Error(), a.Pos.String()+": ")
		mb := strings.TrimPrefix(b.Err.Error(), b.Pos.String()+": ")
		if ma != mb {
			return "parquet: " + ma + "\njsonl:   " + mb
		}
		return ""
	}
	sa := strings.TrimPrefix(summary([]*Call{a}), a.Pos.String()+" ")
	sb := strings.TrimPrefix(summary([]*Call{b}), b.Pos.String()+" ")
	if sa != sb || !a.Rec.TS.Equal(b.Rec.TS) {
		return "parquet: " + sa + "jsonl:   " + sb
	}
	return ""
}

// readOne reads the one row of a generated file, failing on anything but
// exactly one row at f:row 1.
func readOne(t *testing.T, data []byte) *Call {
	t.Helper()
	pr, err := NewParquet(bytes.NewReader(data), int64(len(data)), "f")
	if err != nil {
		t.Fatalf("a valid file does not open: %v", err)
	}
	calls, err := ReadAll(pr)
	if err != nil || len(calls) != 1 || calls[0].Pos.String() != "f:row 1" {
		t.Fatalf("%d rows, err %v", len(calls), err)
	}
	return calls[0]
}

// FuzzParquetRows fuzzes the row-decoding layer on valid files (a
// mutated file dies at the page checksums parquet-go verifies, so byte
// mutations never reach it): each input is one proxy_calls row, its
// values and its column types chosen by the fuzzer (created_at a
// TIMESTAMP in ms, µs or ns, Unix seconds as INT64, or text; status_code
// INT32, INT64, DOUBLE or text; was_blocked BOOLEAN, INT32 or text; text
// columns NULL when empty), written as a valid Parquet file. Read back,
// the row must be what the JSONL reader makes of the same row — the same
// verdict, message and values — and a row of the plain types with a
// valid time, tenant and status must be read exactly (the time from
// time.UnixMilli, not through any code under test).
func FuzzParquetRows(f *testing.F) {
	f.Add(int64(1772359200000), uint8(0), "acme", "k1", `{"messages":[]}`, int64(200), uint8(0), uint8(0), "")
	f.Add(int64(1772359200), uint8(3), "acme", "", `{}`, int64(423), uint8(1), uint8(1), "killswitch")
	f.Add(int64(-1), uint8(2), "", "k", "x", int64(7), uint8(2), uint8(2), "r")
	f.Add(int64(9223372036854775807), uint8(1), "a\xff", "k", "{}", int64(200), uint8(3), uint8(5), "")
	f.Add(int64(0), uint8(4), "acme", "k", "{}", int64(1<<53+1), uint8(1), uint8(4), "")
	f.Fuzz(func(t *testing.T, ts int64, tsType uint8, tenant, key, request string, status int64, stType, blType uint8, reason string) {
		var cols []pqCol
		// created_at
		units := []parquet.TimeUnit{parquet.Millisecond, parquet.Microsecond, parquet.Nanosecond}
		switch k := tsType % 5; k {
		case 0, 1, 2:
			at := [...]func(int64) time.Time{time.UnixMilli, time.UnixMicro, func(x int64) time.Time { return time.Unix(0, x) }}[k](ts)
			cols = append(cols, pqCol{"created_at", parquet.Timestamp(units[k]), []parquet.Value{parquet.Int64Value(ts)},
				[]string{jsonText(at.UTC().Format(time.RFC3339Nano))}})
		case 3:
			v, js := i64(ts)
			cols = append(cols, col("created_at", parquet.Int(64), v, js))
		default:
			s := time.UnixMilli(ts).UTC().Format("2006-01-02 15:04:05.999999-07")
			v, js := text(s)
			cols = append(cols, col("created_at", parquet.String(), v, js))
		}
		opt := func(name, s string) {
			v, js := text(s)
			if s == "" {
				v = parquet.NullValue()
			}
			cols = append(cols, col(name, parquet.String(), v, js))
		}
		opt("tenant_id", tenant)
		opt("api_key_id", key)
		opt("request_json", request)
		opt("block_reason", reason)
		switch stType % 4 {
		case 0:
			v, js := i32(int32(status))
			cols = append(cols, col("status_code", parquet.Int(32), v, js))
		case 1:
			v, js := i64(status)
			cols = append(cols, col("status_code", parquet.Int(64), v, js))
		case 2:
			v, js := f64(float64(status) / 4)
			cols = append(cols, col("status_code", parquet.Leaf(parquet.DoubleType), v, js))
		default:
			v, js := text(strconv.FormatInt(status, 10))
			cols = append(cols, col("status_code", parquet.String(), v, js))
		}
		switch blType % 6 {
		case 0, 1:
			v, js := boolean_(blType%6 == 1)
			cols = append(cols, col("was_blocked", parquet.Leaf(parquet.BooleanType), v, js))
		case 2, 3:
			v, js := i32(int32(blType % 3))
			cols = append(cols, col("was_blocked", parquet.Int(32), v, js))
		default:
			v, js := text([]string{"t", "maybe"}[blType%2])
			cols = append(cols, col("was_blocked", parquet.String(), v, js))
		}
		data, lines := writeColumns(t, cols)
		got := readOne(t, data)
		anyBadText := !utf8.ValidString(tenant) || !utf8.ValidString(key) || !utf8.ValidString(request) || !utf8.ValidString(reason)
		if anyBadText {
			// JSON cannot hold such text; the Parquet row names the column.
			if got.Err == nil || !strings.Contains(got.Err.Error(), "not valid UTF-8") {
				t.Fatalf("text that is not UTF-8: %v", got.Err)
			}
			return
		}
		want := parseJSONRow(ingest.Pos{File: "f", Kind: ingest.PosLine, N: 1}, []byte(lines[0]))
		if d := sameCall(got, want); d != "" {
			t.Fatalf("row %s\n%s", lines[0], d)
		}
		plain := tsType%5 == 0 && stType%4 == 0 && blType%6 < 2
		if plain && tenant != "" && request != "" && status >= 100 && status <= 599 && ts >= 0 && ts < 253402300800000 {
			if got.Err != nil || !got.Rec.TS.Equal(time.UnixMilli(ts)) || got.Rec.Tenant != tenant || got.Rec.APIKeyID != key ||
				string(got.Rec.Request) != request || got.Status != int(status) || got.Blocked != (blType%6 == 1) || got.BlockReason != reason {
				t.Fatalf("a plain row read wrong: %s", summary([]*Call{got}))
			}
		}
	})
}

// validExport is a valid two-row export whose request_json column is
// stored uncompressed, and the offsets of its first page.
func validExport(t *testing.T) []byte {
	k1 := "k1"
	ts := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	return parquetExport(t, []pqRow{
		{ts, "acme", &k1, `{"messages":[]}`, 200, false, nil},
		{ts.Add(time.Second), "acme", nil, `{}`, 423, true, nil},
	})
}

// TestParquetDamaged: hand-damaged files give a clear error naming the
// file (and the row, once rows are read), never a panic, never a hang,
// never an allocation of what a damaged header claims.
func TestParquetDamaged(t *testing.T) {
	valid := validExport(t)
	open := func(data []byte) (calls []*Call, err error) {
		pr, err := NewParquet(bytes.NewReader(data), int64(len(data)), "d.parquet")
		if err != nil {
			return nil, err
		}
		return ReadAll(pr)
	}
	reqChunk := pqtest.Chunk(t, valid, "request_json")
	patchHeader := func(patch func(h *format.PageHeader)) []byte {
		return pqtest.PatchPageHeader(t, valid, "request_json", patch)
	}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"truncated footer", valid[:len(valid)-5], "d.parquet: not a readable Parquet file"},
		{"cut in half", valid[:len(valid)/2], "d.parquet: not a readable Parquet file"},
		{"wrong magic", append(bytes.Clone(valid[:len(valid)-4]), "PAR2"...), "d.parquet: not a readable Parquet file"},
		{"footer length past the start", func() []byte {
			d := bytes.Clone(valid)
			copy(d[len(d)-8:], []byte{0xff, 0xff, 0xff, 0x7f})
			return d
		}(), "d.parquet: not a readable Parquet file"},
		{"page data damaged", func() []byte {
			d := bytes.Clone(valid)
			d[reqChunk.MetaData.DataPageOffset+reqChunk.MetaData.TotalCompressedSize-3] ^= 0xff
			return d
		}(), "d.parquet:row 1: corrupt Parquet file"},
		{"page claims 1 GB", patchHeader(func(h *format.PageHeader) { h.CompressedPageSize = 1 << 30 }),
			"d.parquet:row 1: corrupt Parquet file: row group 1: column \"request_json\""},
		{"page claims 2^31 values", patchHeader(func(h *format.PageHeader) {
			h.DataPageHeader.V.NumValues = 1<<31 - 1
			h.DataPageHeaderV2.V.NumValues = 1<<31 - 1
		}), "d.parquet:row 1: corrupt Parquet file"},
		{"not Parquet", []byte("created_at,tenant_id\n"), "d.parquet: not a readable Parquet file: no Parquet magic"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			calls, err := open(tc.data)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("%d rows, err = %v, want %q…", len(calls), err, tc.want)
			}
		})
	}
}

// A column of the wrong type is a bad row naming the column and what it
// holds, not an unreadable file; a missing required column is an error
// naming the file.
func TestParquetWrongTypes(t *testing.T) {
	base := func() []pqCol {
		ts, tsj := text("2026-03-01T10:00:00Z")
		tn, tnj := text("acme")
		rq, rqj := text("{}")
		st, stj := i32(200)
		bl, blj := boolean_(false)
		return []pqCol{col("created_at", parquet.String(), ts, tsj), col("tenant_id", parquet.String(), tn, tnj),
			col("request_json", parquet.String(), rq, rqj), col("status_code", parquet.Int(32), st, stj),
			col("was_blocked", parquet.Leaf(parquet.BooleanType), bl, blj)}
	}
	with := func(name string, node parquet.Node, v parquet.Value, js string) []pqCol {
		cols := base()
		for i := range cols {
			if cols[i].name == name {
				cols[i] = col(name, node, v, js)
			}
		}
		return cols
	}
	tv, tj := i64(42)
	sv, sj := boolean_(true)
	bv, bj := f64(0.5)
	cv, cj := boolean_(true)
	for _, tc := range []struct {
		cols []pqCol
		want string
	}{
		{base(), ""},
		{with("tenant_id", parquet.Int(64), tv, tj), "f:row 1: tenant_id: want text, got a number"},
		{with("status_code", parquet.Leaf(parquet.BooleanType), sv, sj), "f:row 1: status_code: want a whole number, got a boolean"},
		{with("was_blocked", parquet.Leaf(parquet.DoubleType), bv, bj), "f:row 1: was_blocked: want true or false, got a number"},
		{with("created_at", parquet.Leaf(parquet.BooleanType), cv, cj), "f:row 1: created_at: want a time, got a boolean"},
	} {
		data, _ := writeColumns(t, tc.cols)
		got := readOne(t, data)
		if tc.want == "" {
			if got.Err != nil || got.Rec.Tenant != "acme" || got.Status != 200 {
				t.Errorf("plain row: %s", summary([]*Call{got}))
			}
		} else if got.Err == nil || got.Err.Error() != tc.want {
			t.Errorf("got %v, want %s", got.Err, tc.want)
		}
	}
	data, _ := writeColumns(t, base()[:4])
	if _, err := NewParquet(bytes.NewReader(data), int64(len(data)), "f"); err == nil ||
		!strings.HasPrefix(err.Error(), `f: no column "was_blocked"`) {
		t.Errorf("no was_blocked: %v", err)
	}
}
