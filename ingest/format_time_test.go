package ingest

import (
	"bytes"
	"testing"
	"time"
)

// FuzzAppendTime holds AppendTime's digit-by-digit rendering to the
// layout it replaced, at any instant (years before 0 and after 9999, which
// take the layout's path, included).
func FuzzAppendTime(f *testing.F) {
	for _, t := range []time.Time{
		{}, time.Unix(0, 0), time.Unix(1767225600, 999_999_999), time.Unix(1767225600, 1_000_000),
		time.Date(9999, 12, 31, 23, 59, 59, 999_000_000, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 2, 28, 23, 0, 0, 5, time.FixedZone("x", -5*3600)),
	} {
		f.Add(t.Unix(), int64(t.Nanosecond()))
	}
	f.Fuzz(func(t *testing.T, sec, nsec int64) {
		tm := time.Unix(sec, nsec%1e9)
		want := tm.UTC().Format(timeLayout)
		if got := string(AppendTime([]byte("x"), tm)); got != "x"+want {
			t.Fatalf("%d.%09d: %q, want %q", sec, nsec, got, "x"+want)
		}
	})
}

// FuzzPosAppendJSONEscaped holds Pos.AppendJSONEscaped to escaping
// String's rendering, whatever the file name and path hold (quotes,
// control characters, invalid UTF-8, U+2028) and for every kind.
func FuzzPosAppendJSONEscaped(f *testing.F) {
	f.Add("a.jsonl", uint8(PosLine), int64(18), "")
	f.Add("a.har", uint8(PosEntry), int64(0), "response")
	f.Add("t.parquet", uint8(PosRow), int64(-3), "x")
	f.Add("d\"o\\c\n.json", uint8(PosPath), int64(0), "observations[2]\u2028")
	f.Add("bad\xe2\x82", uint8(PosLine), int64(1), "\xff:\x82")
	f.Add("", uint8(9), int64(5), "p")
	f.Fuzz(func(t *testing.T, file string, kind uint8, n int64, path string) {
		p := Pos{File: file, Kind: PosKind(kind), N: n, Path: path}
		want := AppendJSONEscaped([]byte("x"), p.String())
		if got := p.AppendJSONEscaped([]byte("x")); !bytes.Equal(got, want) {
			t.Fatalf("%#v: %q, want %q", p, got, want)
		}
	})
}
