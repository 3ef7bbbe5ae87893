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
