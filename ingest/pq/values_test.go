package pq

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/killswitch/killswitch/internal/pqtest"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
)

// decodeJSON is the JSON decoding the values mode is compared with:
// encoding/json with UseNumber.
func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

// valueRows reads every column of data as values (decode, or only
// checked), its timestamps as times when times is set: per row the
// values, then the row's RowErr; then the end error. The open error ends
// the list.
func valueRows(data []byte, decode, times bool) []string {
	opt := ValueOptions{JSON: decodeJSON}
	if times {
		opt.Times = func(string) bool { return true }
	}
	rs, err := OpenValues(bytes.NewReader(data), int64(len(data)), "v.parquet", nil, opt)
	if err != nil {
		return []string{"open: " + err.Error()}
	}
	defer rs.Close()
	var out []string
	for rs.NextValues(decode) {
		row := map[string]any{}
		for i, c := range rs.Columns() {
			v := rs.Value(i)
			if tm, ok := v.(time.Time); ok {
				if tm.Location() != time.UTC {
					return append(out, fmt.Sprintf("row %d: time %v not in UTC", rs.N(), tm))
				}
				v = tm.Format(time.RFC3339Nano) // as the JSON holds it
			}
			if v != nil {
				row[c] = v
			}
		}
		out = append(out, fmt.Sprintf("%#v %v", row, rs.RowErr()))
	}
	return append(out, endLine(rs.Err()))
}

// jsonRows is valueRows through Rows' JSON, decoded.
func jsonRows(data []byte) []string {
	rs, err := OpenRows(bytes.NewReader(data), int64(len(data)), "v.parquet", nil)
	if err != nil {
		return []string{"open: " + err.Error()}
	}
	defer rs.Close()
	var out []string
	for rs.Next() {
		v, err := decodeJSON(rs.Row())
		if err != nil {
			return append(out, fmt.Sprintf("row %d: the JSON does not decode: %v", rs.N(), err))
		}
		for k, x := range v.(map[string]any) {
			if x == nil { // a bad value, written as null
				delete(v.(map[string]any), k)
			}
		}
		out = append(out, fmt.Sprintf("%#v %v", v, rs.RowErr()))
	}
	return append(out, endLine(rs.Err()))
}

// endLine writes the error that ended the rows. What a decoder says of a
// damaged page may quote bytes of a pooled buffer it did not fill (a
// length), so numbers after "corrupt Parquet file" are not compared.
func endLine(err error) string {
	s := fmt.Sprint("end: ", err)
	if i := strings.Index(s, "corrupt Parquet file"); i >= 0 {
		s = s[:i] + digits.ReplaceAllString(s[i:], "N")
	}
	return s
}

var digits = regexp.MustCompile(`[0-9]+`)

// sameValues requires the values mode to read data as its JSON decodes,
// with timestamps as times or as text, and, when rows are only checked,
// to report the same row errors and end.
func sameValues(t *testing.T, data []byte) {
	t.Helper()
	want := jsonRows(data)
	for _, times := range []bool{false, true} {
		if got := valueRows(data, true, times); !reflect.DeepEqual(got, want) {
			t.Fatalf("values (times %v):\n%q\nJSON:\n%q", times, got, want)
		}
	}
	checked := valueRows(data, false, false)
	if len(checked) != len(want) {
		t.Fatalf("checked rows: %d lines, want %d:\n%q\n%q", len(checked), len(want), checked, want)
	}
	for i := range want {
		if errOf(checked[i]) != errOf(want[i]) {
			t.Fatalf("checked row %d: %q, want %q", i+1, checked[i], want[i])
		}
	}
}

// errOf is the part of a line of valueRows after the values: the row's
// error, or the end or open error.
func errOf(line string) string {
	if i := bytes.LastIndex([]byte(line), []byte("} ")); i >= 0 {
		return line[i+2:]
	}
	return line
}

// valueTypes is a row of every leaf type the values mode converts.
type valueTypes struct {
	S   *string          `parquet:"s,optional"`
	I32 int32            `parquet:"i32"`
	U64 uint64           `parquet:"u64"`
	F32 float32          `parquet:"f32"`
	F64 float64          `parquet:"f64"`
	B   bool             `parquet:"b"`
	TS  time.Time        `parquet:"ts,timestamp(microsecond)"`
	D   int32            `parquet:"d,date"`
	I96 deprecated.Int96 `parquet:"i96"`
	J   string           `parquet:"j,json"`
	U   [16]byte         `parquet:"u,uuid"`
	Dec int64            `parquet:"dec,decimal(2:18)"`
	L   []string         `parquet:"l,list"`
	M   map[string]int64 `parquet:"m"`
	G   *struct {
		A string   `parquet:"a.b"`
		N []*int64 `parquet:"n,list"`
	} `parquet:"g,optional"`
}

func valueTypesFile(t testing.TB) []byte {
	s := "text \u2028 \"q\""
	bad := string([]byte{'a', 0xff})
	rows := []valueTypes{
		{S: &s, I32: -3, U64: 1 << 63, F32: 0.1, F64: 1e-7, B: true, TS: time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC),
			D: 20455, I96: int96(2461043, 1), J: `{"a":[1,2.50,null],"b":"x"}`, U: [16]byte{1, 2, 3}, Dec: -12345,
			L: []string{"x", ""}, M: map[string]int64{"k": 1, "": 2},
			G: &struct {
				A string   `parquet:"a.b"`
				N []*int64 `parquet:"n,list"`
			}{A: "ab", N: []*int64{nil, ptr[int64](7)}}},
		{F64: 1e300 * 10, TS: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), I96: int96(2461043, 86400*1e9), J: "[1,", S: &bad},
		{J: "null", L: []string{}},
	}
	return writeRows(t, rows, parquet.Compression(&parquet.Uncompressed))
}

// pagedValuesFile is a file of 60 rows written a row at a time into
// pages of at most 96 bytes, so that rows, and the lists of one row, are
// cut across pages: a dictionary-encoded text, an optional text (null in
// every third row), and lists of objects whose lengths go up and down
// from row to row (the values mode reuses a row's lists and objects for
// the next), with an optional member and a nested list.
func pagedValuesFile(t testing.TB) []byte {
	type elem struct {
		Role *string  `parquet:"role,optional"`
		Tags []string `parquet:"tags,list"`
	}
	type row struct {
		Kind  string  `parquet:"kind,dict"`
		Name  *string `parquet:"name,optional"`
		Elems []elem  `parquet:"elems,list"`
	}
	var b bytes.Buffer
	w := parquet.NewGenericWriter[row](&b, parquet.PageBufferSize(96), parquet.Compression(&parquet.Uncompressed))
	for i := range 60 {
		r := row{Kind: []string{"LLM", "TOOL", "AGENT"}[i%3]}
		if i%3 != 0 {
			r.Name = ptr(fmt.Sprintf("span %d", i))
		}
		for j := range (i * 7) % 5 {
			e := elem{Tags: make([]string, j%3)}
			if j%2 == 0 {
				e.Role = ptr(fmt.Sprintf("r%d.%d", i, j))
			}
			for k := range e.Tags {
				e.Tags[k] = fmt.Sprint(k)
			}
			r.Elems = append(r.Elems, e)
		}
		if _, err := w.Write([]row{r}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestValuesReadAsJSON: the values mode reads every seed file, and every
// leaf type, as the rows' JSON decodes, and so do damaged copies of them
// (the same values, row errors and end errors).
func TestValuesReadAsJSON(t *testing.T) {
	files := seedFiles(t)
	files["types"] = valueTypesFile(t)
	files["paged"] = pagedValuesFile(t)
	for name, data := range files {
		t.Run(name, func(t *testing.T) {
			sameValues(t, data)
			d := pqtest.WithoutCRC(t, data)
			for at := 4; at < len(d)-8; at += 7 {
				bad := bytes.Clone(d)
				for i := at; i < min(at+3, len(bad)-8); i++ {
					bad[i] ^= 0x5a
				}
				sameValues(t, bad)
			}
		})
	}
}

// FuzzValues requires the values mode to read mutated files as their
// rows' JSON decodes.
func FuzzValues(f *testing.F) {
	files := seedFiles(f)
	files["types"] = valueTypesFile(f)
	files["paged"] = pagedValuesFile(f)
	for _, data := range files {
		f.Add(data)
		f.Add(pqtest.WithoutCRC(f, data))
	}
	f.Fuzz(func(t *testing.T, data []byte) { sameValues(t, data) })
}
