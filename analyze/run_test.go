package analyze

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/killswitch/killswitch/ingest"
)

// driveCapture returns n capture records whose prompts run from a few
// bytes to past batchBytes (so that batches close by count, by bytes, and
// around a record that needs a buffer of its own), with a malformed line
// and a control record among them.
func driveCapture(n int) []byte {
	var buf bytes.Buffer
	for i := range n {
		size := 8 + i%7*900
		if i%97 == 13 {
			size = batchBytes + 1000 // larger than a batch
		}
		switch {
		case i == 5:
			buf.WriteString("{not json\n")
			continue
		case i == 9:
			fmt.Fprintf(&buf, `{"ts":"2026-01-01T00:00:%02dZ","agent":"a%d","event":"deactivate"}`+"\n", i%60, i%5)
			continue
		}
		prompt := strings.Repeat(fmt.Sprintf("word%d ", i%11), size/7)
		fmt.Fprintf(&buf, `{"ts":"2026-01-01T00:%02d:%02dZ","agent":"a%d","request":{"messages":[{"role":"user","content":%q}]},"response":{"choices":[{"message":{"content":"ok %d"}}]}}`+"\n",
			i/60%60, i%60, i%5, prompt, i%3)
	}
	return buf.Bytes()
}

type driven struct {
	pos  ingest.Pos
	f    Features
	body string
}

func driveAll(t *testing.T, data []byte, workers, stopAt int) ([]driven, error) {
	t.Helper()
	var got []driven
	src := ingest.NewJSONL(bytes.NewReader(data), "d.jsonl", ingest.JSONLOptions{})
	err := Drive(src, ProfileSpec, workers, func(rec *ingest.Record, f *Features) error {
		if len(got) == stopAt {
			return errStop
		}
		got = append(got, driven{rec.Pos, *f, string(rec.Request) + string(rec.Response)})
		return nil
	})
	return got, err
}

var errStop = errors.New("stop")

// TestDriveAnyWorkers: every record reaches step in input order with the
// features and bodies one worker gives, at any number of workers, for
// inputs that fit one batch and inputs of many batches closed by count
// or by bytes; a step error stops the drive and is returned.
func TestDriveAnyWorkers(t *testing.T) {
	for _, n := range []int{0, 1, 3, batchRecords - 1, batchRecords, batchRecords + 1, 700} {
		data := driveCapture(n)
		want, err := driveAll(t, data, 1, -1)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) != n {
			t.Fatalf("%d records: one worker gave %d", n, len(want))
		}
		for _, workers := range []int{2, 3, 8} {
			got, err := driveAll(t, data, workers, -1)
			if err != nil {
				t.Fatalf("%d records, %d workers: %v", n, workers, err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d records, %d workers: %d records, want %d", n, workers, len(got), len(want))
			}
			for i := range want {
				w, g := want[i], got[i]
				if g.pos != w.pos || g.body != w.body || g.f.Entry != w.f.Entry || fmt.Sprint(g.f.Err) != fmt.Sprint(w.f.Err) || g.f.Warn != w.f.Warn {
					t.Fatalf("%d records, %d workers: record %d is %v %+v, want %v %+v", n, workers, i, g.pos, g.f.Entry, w.pos, w.f.Entry)
				}
			}
			if n == 0 {
				continue
			}
			for _, stopAt := range []int{0, n / 2, n - 1} {
				got, err := driveAll(t, data, workers, stopAt)
				if err != errStop || len(got) != stopAt {
					t.Fatalf("%d records, %d workers, step fails at %d: %d records, %v", n, workers, stopAt, len(got), err)
				}
			}
		}
	}
}

// plainReader hides a reader's Hold: records valid only until the next Scan.
type plainReader struct{ ingest.Reader }

// TestDriveAhead: the records ahead is handed are the next ones stepped,
// each once, in groups of at most aheadRecords, before their step; the
// records and features stepped are those of a plain loop (scan, extract,
// step, one record at a time) at one and two workers, from a Holder and
// from a reader that holds nothing; a step error stops the drive at once.
func TestDriveAhead(t *testing.T) {
	data := driveCapture(700)
	var want []driven
	x := NewExtractor(ProfileSpec)
	for src := ingest.NewJSONL(bytes.NewReader(data), "d.jsonl", ingest.JSONLOptions{}); src.Scan(); {
		rec := src.Record()
		var f Features
		if needsFeatures(rec) {
			f = x.Extract(rec)
		}
		want = append(want, driven{rec.Pos, f, string(rec.Request) + string(rec.Response)})
	}
	for _, workers := range []int{1, 2} {
		for _, holding := range []bool{true, false} {
			for _, stopAt := range []int{-1, 0, 17, 350} {
				var src ingest.Reader = ingest.NewJSONL(bytes.NewReader(data), "d.jsonl", ingest.JSONLOptions{})
				if !holding {
					src = plainReader{src}
				}
				var got []driven
				var pending []ingest.Pos // handed ahead, not yet stepped
				groups := 0
				err := drive(src, ProfileSpec, workers, func(rec *ingest.Record, f *Features) error {
					if len(pending) == 0 || pending[0] != rec.Pos {
						t.Fatalf("workers %d, holding %v: %v stepped, not handed ahead first (pending %v)", workers, holding, rec.Pos, pending)
					}
					pending = pending[1:]
					if len(got) == stopAt {
						return errStop
					}
					got = append(got, driven{rec.Pos, *f, string(rec.Request) + string(rec.Response)})
					return nil
				}, func(recs []*ingest.Record) {
					if len(pending) != 0 || len(recs) == 0 || len(recs) > aheadRecords {
						t.Fatalf("workers %d, holding %v: %d records ahead with %d pending", workers, holding, len(recs), len(pending))
					}
					groups++
					for _, rec := range recs {
						pending = append(pending, rec.Pos)
					}
				})
				what := fmt.Sprintf("workers %d, holding %v, step fails at %d", workers, holding, stopAt)
				if stopAt >= 0 {
					if err != errStop || len(got) != stopAt {
						t.Fatalf("%s: %d records, %v", what, len(got), err)
					}
					continue
				}
				if err != nil || len(got) != len(want) {
					t.Fatalf("%s: %d records, %v; want %d", what, len(got), err, len(want))
				}
				for i := range want {
					w, g := want[i], got[i]
					if g.pos != w.pos || g.body != w.body || g.f.Entry != w.f.Entry || fmt.Sprint(g.f.Err) != fmt.Sprint(w.f.Err) || g.f.Warn != w.f.Warn {
						t.Fatalf("%s: record %d is %v %+v, want %v %+v", what, i, g.pos, g.f.Entry, w.pos, w.f.Entry)
					}
				}
				// Records are grouped where they can be held (one worker
				// with a Holder, or any batch), one at a time otherwise.
				if single := workers == 1 && !holding; single != (groups == len(want)) {
					t.Fatalf("%s: %d groups for %d records", what, groups, len(want))
				}
			}
		}
	}
}

// TestDriveGroupBytes: with one worker, a group of long records ends once
// their bodies fill batchBytes (sixteen records of 100 KB held at once
// would keep the reader taking fresh buffers), while short ones are still
// grouped.
func TestDriveGroupBytes(t *testing.T) {
	var buf bytes.Buffer
	for i := range 60 {
		size := 100 << 10
		if i >= 40 {
			size = 200 // short records after the long ones: still grouped
		}
		fmt.Fprintf(&buf, `{"ts":%d,"agent":"a%d","request":{"messages":[{"role":"user","content":%q}]}}`+"\n", i+1, i%3, strings.Repeat("x", size))
	}
	src := ingest.NewJSONL(bytes.NewReader(buf.Bytes()), "g.jsonl", ingest.JSONLOptions{})
	longest, n := 0, 0
	err := drive(src, ProfileSpec, 1, func(*ingest.Record, *Features) error { n++; return nil }, func(recs []*ingest.Record) {
		size := 0
		for _, rec := range recs[:len(recs)-1] {
			size += len(rec.Request) + len(rec.Response)
		}
		if size >= batchBytes {
			t.Errorf("a group of %d records holds %d bytes before its last", len(recs), size)
		}
		longest = max(longest, len(recs))
	})
	if err != nil || n != 60 {
		t.Fatalf("%d records stepped, %v", n, err)
	}
	if longest < 2 {
		t.Errorf("no group of more than one record")
	}
}

// TestParallelPays: the default parallelism's rule, on figures worked by
// hand from the corpora it was measured on.
func TestParallelPays(t *testing.T) {
	for _, c := range []struct {
		size    int64
		records int
		bytes   int64
		want    bool
		why     string
	}{
		{0, 0, 0, false, "nothing read"},
		{0, 4095, 4095 * 1000, false, "size unknown, fewer than autoRecords read"},
		{0, 4096, 4096 * 1000, true, "size unknown, autoRecords read"},
		{0, 5000, 5000 * (autoRecordBytes + 1), false, "size unknown, long records"},
		{142_000_000, 63, 63 * 3600, false, "size known, fewer than autoProbe read"},
		// (142e6 - 230,400) × 64 / 230,400 ≈ 39,380 records left.
		{142_000_000, 64, 64 * 3600, true, "short chat records, 142 MB"},
		// (29e6 - 768,000) × 64 / 768,000 ≈ 2,353 left: the tool corpus.
		{29_000_000, 64, 64 * 12000, false, "tool-agent records, 29 MB"},
		// (116e6 - 768,000) × 64 / 768,000 ≈ 9,603 left.
		{116_000_000, 64, 64 * 12000, true, "tool-agent records, 116 MB"},
		// (15e6 - 230,400) × 64 / 230,400 ≈ 4,103 left; 14.9e6 gives ≈ 4,075.
		{15_000_000, 64, 64 * 3600, true, "short records, 15 MB"},
		{14_900_000, 64, 64 * 3600, false, "short records, 14.9 MB"},
		{190_000_000, 64, 64 * 750_000, false, "records of 750 KB"},
		// (1e9 - 8,388,608) × 64 / 8,388,608 ≈ 7,565 left.
		{1_000_000_000, 64, 64 * autoRecordBytes, true, "records of autoRecordBytes, 1 GB"},
		// (190e6 - 8,388,608) × 64 / 8,388,608 ≈ 1,386 left.
		{190_000_000, 64, 64 * autoRecordBytes, false, "records of autoRecordBytes, 190 MB"},
	} {
		if got := parallelPays(c.size, c.records, c.bytes); got != c.want {
			t.Errorf("%s: parallelPays(%d, %d, %d) = %v, want %v", c.why, c.size, c.records, c.bytes, got, c.want)
		}
	}
}

// TestDriveSwitch: a drive that starts on one worker and moves to several
// after any group hands step the records and features one worker gives,
// in input order, from a Holder and from a reader that holds nothing, and
// a step error after the switch still stops it.
func TestDriveSwitch(t *testing.T) {
	data := driveCapture(700)
	want, err := driveAll(t, data, 1, -1)
	if err != nil {
		t.Fatal(err)
	}
	for _, plain := range []bool{false, true} {
		for _, at := range []int{1, aheadRecords, aheadRecords + 1, batchRecords, 650, 699, 700} {
			for _, workers := range []int{2, 3} {
				var src ingest.Reader = ingest.NewJSONL(bytes.NewReader(data), "d.jsonl", ingest.JSONLOptions{})
				if plain {
					src = plainReader{src}
				}
				var got []driven
				switched := -1
				err := driveAuto(src, ProfileSpec, workers, func(rec *ingest.Record, f *Features) error {
					got = append(got, driven{rec.Pos, *f, string(rec.Request) + string(rec.Response)})
					return nil
				}, nil, func(records int, _ int64) bool {
					if records >= at && switched < 0 {
						switched = records
					}
					return records >= at
				})
				name := fmt.Sprintf("plain %v, switch at %d, %d workers", plain, at, workers)
				if at == aheadRecords+1 {
					// A step error after the switch stops the drive.
					stopSrc := ingest.NewJSONL(bytes.NewReader(data), "d.jsonl", ingest.JSONLOptions{})
					n := 0
					err := driveAuto(stopSrc, ProfileSpec, workers, func(*ingest.Record, *Features) error {
						if n == 500 {
							return errStop
						}
						n++
						return nil
					}, nil, func(records int, _ int64) bool { return records >= at })
					if err != errStop || n != 500 {
						t.Fatalf("%s, step fails at 500: %d records, %v", name, n, err)
					}
				}
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if at < len(want) && (switched < at || switched >= len(want)) {
					t.Fatalf("%s: switched after %d records", name, switched)
				}
				if len(got) != len(want) {
					t.Fatalf("%s: %d records, want %d", name, len(got), len(want))
				}
				for i := range want {
					w, g := want[i], got[i]
					if g.pos != w.pos || g.body != w.body || g.f.Entry != w.f.Entry || fmt.Sprint(g.f.Err) != fmt.Sprint(w.f.Err) || g.f.Warn != w.f.Warn {
						t.Fatalf("%s: record %d is %v %+v, want %v %+v", name, i, g.pos, g.f.Entry, w.pos, w.f.Entry)
					}
				}
			}
		}
	}
}
