package pq

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/internal/pqtest"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// seedFiles are small valid files of each shape the reader handles.
func seedFiles(t testing.TB) map[string][]byte {
	var canonical bytes.Buffer
	if err := WriteRecords(&canonical, roundTripRecords()); err != nil {
		t.Fatal(err)
	}
	ts := utc(2026, 3, 1, 12, 0, 0, 0)
	nested := writeRows(t, []nestedRow{
		{TS: ts, Agent: "a", Request: &nestedRequest{Model: "m", Stop: []string{"x"}, Messages: []nestedMessage{{Role: "user", Content: ptr("hi"), ToolCalls: []nestedToolCall{{"f", "{}"}}}}, Metadata: map[string]string{"k": "v"}}},
		{TS: ts, Agent: "a"},
	}, parquet.Compression(&parquet.Uncompressed))
	v1 := writeRows(t, []badRow{
		{TS: ptr("2026-01-01T00:00:00Z"), Agent: ptr("a"), Request: ptr(okRequest), Label: ptr("loop")},
		{TS: ptr("1767225600"), Agent: ptr("b"), Event: ptr("config"), Window: ptr[int64](3)},
	}, parquet.DataPageVersion(1), parquet.Compression(&parquet.Uncompressed))
	return map[string][]byte{"canonical": canonical.Bytes(), "nested": nested, "v1": v1}
}

// checkFile reads data as name and checks the error contract: no panic,
// every error names the file, bad rows are *ingest.SyntaxError at a row of
// the file. It returns the number of records read.
func checkFile(t *testing.T, data []byte, name string) int {
	r, err := NewReader(bytes.NewReader(data), int64(len(data)), name, Options{})
	if err != nil {
		if !strings.HasPrefix(err.Error(), name+": ") {
			t.Fatalf("NewReader error does not name the file: %v", err)
		}
		return 0
	}
	n := 0
	for r.Scan() && n < 100000 {
		rec := r.Record()
		n++
		if rec.Pos != (ingest.Pos{File: name, Kind: ingest.PosRow, N: int64(n)}) {
			t.Fatalf("record %d at %v", n, rec.Pos)
		}
		if rec.Err != nil {
			var se *ingest.SyntaxError
			if !errors.As(rec.Err, &se) || se.Pos != rec.Pos {
				t.Fatalf("row %d: Err %T %v is not a SyntaxError at the row", n, rec.Err, rec.Err)
			}
		} else if rec.Control == nil && rec.Request == nil {
			t.Fatalf("row %d: a request record without a request", n)
		}
	}
	if err := r.Err(); err != nil && !strings.HasPrefix(err.Error(), name+":row ") {
		t.Fatalf("Err does not name the file and row: %v", err)
	}
	return n
}

// TestCorruptFiles cuts and damages valid files: each must give a clear
// error naming the file, never a panic.
func TestCorruptFiles(t *testing.T) {
	for name, data := range seedFiles(t) {
		t.Run(name+"/truncated", func(t *testing.T) {
			for cut := 0; cut < len(data); cut += 1 + len(data)/200 {
				_, err := NewReader(bytes.NewReader(data[:cut]), int64(cut), "cut.parquet", Options{})
				if err == nil || !strings.HasPrefix(err.Error(), "cut.parquet: ") {
					t.Fatalf("cut at %d of %d: err %v", cut, len(data), err)
				}
			}
		})
		t.Run(name+"/damaged", func(t *testing.T) {
			// Overwrite a window of bytes at every position in turn.
			for at := 4; at < len(data)-8; at += 3 {
				d := bytes.Clone(data)
				for i := at; i < min(at+4, len(d)-8); i++ {
					d[i] ^= 0xa5
				}
				checkFile(t, d, "damaged.parquet")
			}
		})
	}
	// The footer intact but the page data gone (a file copied with holes):
	// reading must stop with an error naming the file and the row.
	seeds := seedFiles(t)
	data := bytes.Clone(seeds["canonical"])
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for _, cc := range f.Metadata().RowGroups[0].Columns {
		if cc.MetaData.PathInSchema[0] == "request" {
			lo := cc.MetaData.DataPageOffset
			if d := cc.MetaData.DictionaryPageOffset; d > 0 && d < lo {
				lo = d
			}
			clear(data[lo : lo+cc.MetaData.TotalCompressedSize])
		}
	}
	r, err := NewReader(bytes.NewReader(data), int64(len(data)), "holes.parquet", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for r.Scan() {
	}
	if err := r.Err(); err == nil || !strings.HasPrefix(err.Error(), "holes.parquet:row 1: corrupt Parquet file: ") {
		t.Errorf("Err = %v, want a corrupt-file error at holes.parquet:row 1", err)
	}
}

// FuzzParquet mutates small valid files: reading must never panic, and
// every error must name the file. The seeds are a few KB, so minimizing a
// new input is slow; run it with a short minimize time:
//
//	go test -run '^$' -fuzz FuzzParquet -fuzztime 30s -fuzzminimizetime 1s ./ingest/pq
func FuzzParquet(f *testing.F) {
	seeds := seedFiles(f)
	for _, name := range []string{"canonical", "nested", "v1"} {
		f.Add(seeds[name])
		// Without page checksums a mutated page reaches the decoders.
		f.Add(pqtest.WithoutCRC(f, seeds[name]))
	}
	// Named regression seeds: the magic bytes alone; a footer length
	// pointing before the start of the file.
	f.Add([]byte("PAR1PAR1"))
	f.Add([]byte("PAR1\xff\xff\xff\x7fPAR1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFile(t, data, "fuzz.parquet")
	})
}

// TestHugeClaims checks that a damaged size in the footer or in a page
// header is refused before anything of that size is allocated: parquet-go
// would allocate what the header claims (these inputs once took 1 to 4 GB).
func TestHugeClaims(t *testing.T) {
	var buf bytes.Buffer
	if err := writeRecords(&buf, roundTripRecords(), parquet.Compression(&parquet.Uncompressed)); err != nil {
		t.Fatal(err)
	}
	valid := buf.Bytes()
	patchHeader := func(patch func(h *format.PageHeader)) []byte {
		return pqtest.PatchPageHeader(t, valid, "request", patch)
	}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"footer length", func() []byte {
			d := bytes.Clone(valid)
			copy(d[len(d)-8:], []byte{0xff, 0xff, 0xff, 0xef})
			return d
		}(), "huge.parquet: not a readable Parquet file: footer of 4026531839 bytes does not fit"},
		{"compressed page size", patchHeader(func(h *format.PageHeader) { h.CompressedPageSize = 1 << 30 }),
			`huge.parquet:row 1: corrupt Parquet file: row group 1: column "request": page at offset`},
		{"uncompressed page size", patchHeader(func(h *format.PageHeader) { h.UncompressedPageSize = 1<<31 - 1 }),
			"claims 2147483647 uncompressed bytes"},
		{"values", patchHeader(func(h *format.PageHeader) { h.DataPageHeaderV2.V.NumValues = 1<<31 - 1 }),
			"claims 2147483647 values"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := readAll(t, tc.data, "huge.parquet", Options{})
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > 16<<20 {
				t.Errorf("allocated %d MB", n>>20)
			}
		})
	}
}

// FuzzLeaves mutates small valid files and reads every leaf column of
// every row through Leaves, each value in its typed view: reading must
// never panic, and every error must name the file.
//
//	go test -run '^$' -fuzz FuzzLeaves -fuzztime 30s -fuzzminimizetime 1s ./ingest/pq
func FuzzLeaves(f *testing.F) {
	seeds := seedFiles(f)
	for _, name := range []string{"canonical", "nested", "v1"} {
		f.Add(seeds[name])
		f.Add(pqtest.WithoutCRC(f, seeds[name]))
	}
	f.Add([]byte("PAR1PAR1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ls, err := OpenLeaves(bytes.NewReader(data), int64(len(data)), "fuzz.parquet")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.parquet") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		defer ls.Close()
		var cs []*LeafCursor
		var kinds []LeafKind
		var maxDefs []uint8
		for i, l := range ls.Schema() {
			c := ls.Use(l)
			if i%2 == 1 {
				c.Prefetch(0) // its pages read (and damaged ones decoded) in a goroutine
			}
			cs = append(cs, c)
			kinds = append(kinds, l.Kind)
			maxDefs = append(maxDefs, uint8(l.MaxDef))
		}
	rows:
		for rows := 0; ls.Next() && rows < 10000; rows++ {
			for i, c := range cs {
				if ls.Schema()[i].MaxRep == 0 && (rows+i)%3 == 1 {
					c.Defer() // caught up at the column's next read
					continue
				}
				if err := c.CatchUp(); err != nil {
					break rows
				}
				for first := true; ; first = false {
					rep, def, more, err := c.Peek()
					if err != nil || !more || !first && rep == 0 {
						break
					}
					if (rows+i)%2 == 0 {
						// NextNull takes the slot Peek loaded exactly when
						// it is null, with Peek's levels.
						r, d, null := c.NextNull()
						if null != (def < maxDefs[i]) || null && (r != rep || d != def) {
							t.Fatalf("column %d: NextNull %d %d %v after Peek %d %d", i, r, d, null, rep, def)
						}
						if null {
							continue
						}
					}
					if _, _, has, err := c.Next(); err != nil {
						break rows
					} else if has {
						switch kinds[i] {
						case LeafText:
							c.Bytes()
						case LeafTimestamp, LeafInt64:
							c.Int64()
						case LeafDouble:
							c.Double()
						}
					}
				}
				if c.NextStartsRow() && c.RowEnd() != nil {
					t.Fatalf("column %d: RowEnd fails where NextStartsRow holds", i)
				}
				c.RowEnd()
			}
			ls.Release()
		}
		if err := ls.Err(); err != nil && !strings.HasPrefix(err.Error(), "fuzz.parquet") {
			t.Fatalf("error without the file name: %v", err)
		}
	})
}
