package pq

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/internal/pqtest"
	"github.com/parquet-go/parquet-go"
)

// writeRows writes rows of any struct type with parquet-go's own writer.
func writeRows[T any](t testing.TB, rows []T, opts ...parquet.WriterOption) []byte {
	t.Helper()
	return pqtest.Write(t, rows, opts...)
}

// readAll reads every record of data; err is NewReader's or Err().
func readAll(t testing.TB, data []byte, name string, opt Options) ([]*ingest.Record, error) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data), int64(len(data)), name, opt)
	if err != nil {
		return nil, err
	}
	var out []*ingest.Record
	for r.Scan() {
		out = append(out, r.Record())
	}
	return out, r.Err()
}

// mustRead reads data and fails on any error, including a bad row.
func mustRead(t testing.TB, data []byte, opt Options) []*ingest.Record {
	t.Helper()
	recs, err := readAll(t, data, "t.parquet", opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Err != nil {
			t.Fatalf("unexpected bad row: %v", r.Err)
		}
	}
	return recs
}

// diffRecord describes how got differs from want, field by field ("" when
// equal). Times compare as instants and must be UTC; Pos is not compared.
func diffRecord(got, want *ingest.Record) string {
	var d []string
	if !got.TS.Equal(want.TS) || got.TS.Location() != time.UTC {
		d = append(d, fmt.Sprintf("TS %v, want %v", got.TS, want.TS))
	}
	g, w := *got, *want
	g.Pos, w.Pos, g.TS, w.TS = ingest.Pos{}, ingest.Pos{}, time.Time{}, time.Time{}
	if !bytes.Equal(g.Request, w.Request) || (g.Request == nil) != (w.Request == nil) {
		d = append(d, fmt.Sprintf("Request %q, want %q", g.Request, w.Request))
	}
	if !bytes.Equal(g.Response, w.Response) || (g.Response == nil) != (w.Response == nil) {
		d = append(d, fmt.Sprintf("Response %q (nil %v), want %q (nil %v)", g.Response, g.Response == nil, w.Response, w.Response == nil))
	}
	g.Request, w.Request, g.Response, w.Response = nil, nil, nil, nil
	if !reflect.DeepEqual(g.Control, w.Control) {
		d = append(d, fmt.Sprintf("Control %s, want %s", showControl(g.Control), showControl(w.Control)))
	}
	g.Control, w.Control = nil, nil
	if !reflect.DeepEqual(g, w) {
		d = append(d, fmt.Sprintf("got  %+v\nwant %+v", g, w))
	}
	return strings.Join(d, "; ")
}

func showControl(c *ingest.Control) string {
	if c == nil {
		return "nil"
	}
	s := fmt.Sprintf("{%s by %q", c.Event, c.By)
	if k := c.KillSwitch.Enabled; k != nil {
		s += fmt.Sprintf(" enabled=%v", *k)
	}
	if k := c.KillSwitch.WindowSize; k != nil {
		s += fmt.Sprintf(" window=%v", *k)
	}
	if k := c.KillSwitch.Threshold; k != nil {
		s += fmt.Sprintf(" threshold=%v", *k)
	}
	return s + "}"
}

// syntaxErr returns rec's *ingest.SyntaxError, or nil.
func syntaxErr(rec *ingest.Record) *ingest.SyntaxError {
	var se *ingest.SyntaxError
	if errors.As(rec.Err, &se) {
		return se
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

// utc builds a UTC time with microseconds.
func utc(y int, mo time.Month, d, h, mi, s, us int) time.Time {
	return time.Date(y, mo, d, h, mi, s, us*1000, time.UTC)
}
