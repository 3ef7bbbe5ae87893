package analyze

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

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

// sameDriven fails t unless got holds want's records, bodies and
// features, in order; name says which drive.
func sameDriven(t *testing.T, name string, got, want []driven) {
	t.Helper()
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
			sameDriven(t, fmt.Sprintf("%d records, %d workers", n, workers), got, want)
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
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				sameDriven(t, what, got, want)
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
		{0, 1023, 1023 * 1000, false, "size unknown, fewer than autoRecords read"},
		{0, 1024, 1024 * 1000, true, "size unknown, autoRecords read"},
		{0, 5000, 5000 * (autoRecordBytes + 1), false, "size unknown, long records"},
		{142_000_000, 63, 63 * 3600, false, "size known, fewer than autoProbe read"},
		// (142e6 - 230,400) × 64 / 230,400 ≈ 39,380 records left.
		{142_000_000, 64, 64 * 3600, true, "short chat records, 142 MB"},
		// (29e6 - 768,000) × 64 / 768,000 ≈ 2,353 left: the tool corpus.
		{29_000_000, 64, 64 * 12000, true, "tool-agent records, 29 MB"},
		// (5e6 - 768,000) × 64 / 768,000 ≈ 353 left.
		{5_000_000, 64, 64 * 12000, false, "tool-agent records, 5 MB"},
		// (4e6 - 230,400) × 64 / 230,400 ≈ 1,047 left; 3.9e6 gives ≈ 1,019.
		{4_000_000, 64, 64 * 3600, true, "short records, 4 MB"},
		{3_900_000, 64, 64 * 3600, false, "short records, 3.9 MB"},
		{190_000_000, 64, 64 * 750_000, false, "records of 750 KB"},
		// (190e6 - 8,388,608) × 64 / 8,388,608 ≈ 1,386 left.
		{190_000_000, 64, 64 * autoRecordBytes, true, "records of autoRecordBytes, 190 MB"},
		// (100e6 - 8,388,608) × 64 / 8,388,608 ≈ 699 left.
		{100_000_000, 64, 64 * autoRecordBytes, false, "records of autoRecordBytes, 100 MB"},
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
				}, nil)
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
					}, nil, func(records int, _ int64) bool { return records >= at }, nil)
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
				sameDriven(t, name, got, want)
			}
		}
	}
}

// TestDriveSwitchBack: a drive that moves to several workers and back to
// one after any number of batches hands step the records and features
// one worker gives, in input order, and stops on a step error after the
// switch back.
func TestDriveSwitchBack(t *testing.T) {
	data := driveCapture(1500)
	want, err := driveAll(t, data, 1, -1)
	if err != nil {
		t.Fatal(err)
	}
	for _, plain := range []bool{false, true} {
		for _, at := range []int{1, batchRecords + 3} {
			for _, after := range []int{1, 2, 3, 5} {
				for _, workers := range []int{2, 3} {
					name := fmt.Sprintf("plain %v, switch at %d, back after %d batches, %d workers", plain, at, after, workers)
					open := func() ingest.Reader {
						var src ingest.Reader = ingest.NewJSONL(bytes.NewReader(data), "d.jsonl", ingest.JSONLOptions{})
						if plain {
							src = plainReader{src}
						}
						return src
					}
					var got []driven
					batches, backAt := 0, -1
					err := driveAuto(open(), ProfileSpec, workers, func(rec *ingest.Record, f *Features) error {
						got = append(got, driven{rec.Pos, *f, string(rec.Request) + string(rec.Response)})
						return nil
					}, nil, func(records int, _ int64) bool { return records >= at }, func(records int, _ int64) bool {
						batches++
						if batches == after {
							backAt = records
							return true
						}
						if batches > after {
							t.Fatalf("%s: back asked again after saying yes", name)
						}
						return false
					})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if backAt < 0 || backAt >= len(want) {
						t.Fatalf("%s: went back after %d records", name, backAt)
					}
					sameDriven(t, name, got, want)
					// A step error once back on one worker stops the drive.
					n := 0
					err = driveAuto(open(), ProfileSpec, workers, func(*ingest.Record, *Features) error {
						if n == 1400 {
							return errStop
						}
						n++
						return nil
					}, nil, func(records int, _ int64) bool { return records >= at }, func(int, int64) bool { return true })
					if err != errStop || n != 1400 {
						t.Fatalf("%s, step fails at 1,400: %d records, %v", name, n, err)
					}
				}
			}
		}
	}
}

// TestAutoChoice: the one worker is timed from its autoWarm-th record
// over at least autoProbeTime, the workers from their autoRampBatches-th
// batch over at least autoTrialBatches batches and autoTrialTime; they
// stay if the process's CPU time grew at least autoParallelism times as
// fast as the wall time, or, where CPU time is not known, if they stepped
// records at autoMargin times the one worker's rate or better; the answer
// is given once. Time is simulated: each record costs oneCost on one
// worker, manyCost on the workers, whose CPU time grows par times as
// fast as the wall time (0: not known).
func TestAutoChoice(t *testing.T) {
	const rec = 3000 // bytes of body a record: 4,024 units of work with autoRecordWork
	base := time.Unix(1_700_000_000, 0)
	const us = time.Microsecond
	for _, c := range []struct {
		name      string
		oneCost   time.Duration
		probeWant int // records read when pays first says yes
		manyCost  time.Duration
		par       float64
		backWant  bool
	}{
		// (384 - 64) × 6.25 µs = 2 ms: the probe's least time.
		{"rates: workers twice as fast", 6250 * time.Nanosecond, 384, 3125 * time.Nanosecond, 0, false},
		{"rates: workers as fast", 6250 * time.Nanosecond, 384, 6250 * time.Nanosecond, 0, true},
		{"rates: workers slower", 6250 * time.Nanosecond, 384, 20 * us, 0, true},
		// 6.25 µs / 5.935 µs = 1.053: past the margin; / 6.015 = 1.039: short of it.
		{"rates: workers 5.3 % faster", 6250 * time.Nanosecond, 384, 5935 * time.Nanosecond, 0, false},
		{"rates: workers 3.9 % faster", 6250 * time.Nanosecond, 384, 6015 * time.Nanosecond, 0, true},
		// The probe's time is reached by record 96.
		{"rates: slow one worker", 62500 * time.Nanosecond, 96, 20 * us, 0, false},
		// With CPU time, the rates do not count, and the probe is not
		// timed: it answers at autoProbe records.
		{"CPU: two cores, rates alike", 6250 * time.Nanosecond, autoProbe, 6250 * time.Nanosecond, 1.9, false},
		{"CPU: one core, workers' rate twice", 6250 * time.Nanosecond, autoProbe, 3125 * time.Nanosecond, 1.0, true},
		{"CPU: just past autoParallelism", 6250 * time.Nanosecond, autoProbe, 6250 * time.Nanosecond, 1.26, false},
		{"CPU: just short of it", 6250 * time.Nanosecond, autoProbe, 3125 * time.Nanosecond, 1.24, true},
	} {
		var elapsed, start time.Duration
		trial := false
		cpu := func() (time.Duration, bool) {
			if c.par == 0 {
				return 0, false
			}
			if !trial {
				return elapsed, true
			}
			return start + time.Duration(float64(elapsed-start)*c.par), true
		}
		a := newAutoChoice(100_000_000, func() time.Time { return base.Add(elapsed) }, cpu)
		got := -1
		for records := 16; records <= 4096; records += 16 {
			elapsed = time.Duration(records) * c.oneCost
			if a.pays(records, int64(records)*rec) {
				got = records
				break
			}
		}
		if got != c.probeWant {
			t.Errorf("%s: pays says yes after %d records, want %d", c.name, got, c.probeWant)
			continue
		}
		start, trial = elapsed, true
		back, asked := false, 0
		for batch := 1; batch <= 200; batch++ {
			elapsed = start + time.Duration(batch*64)*c.manyCost
			if a.back(batch*64, int64(batch*64)*rec) {
				if back {
					t.Fatalf("%s: back says yes twice", c.name)
				}
				back, asked = true, batch
			}
		}
		if back != c.backWant {
			t.Errorf("%s: back = %v, want %v", c.name, back, c.backWant)
		}
		// The workers' clock starts at batch 4; the trial needs 24
		// batches and 6 ms more: at 64 × 6.25 µs = 400 µs a batch, 24
		// batches (9.6 ms) bind and it answers at batch 28; at 64 ×
		// 3.125 µs = 200 µs, 6 ms binds: batch 34.
		want := map[time.Duration]int{6250 * time.Nanosecond: 28, 3125 * time.Nanosecond: 34}[c.manyCost]
		if back && want != 0 && asked != want {
			t.Errorf("%s: back says yes at batch %d, want %d", c.name, asked, want)
		}
	}
	// An input too small to try: pays never says yes, whatever the clock.
	var elapsed time.Duration
	a := newAutoChoice(1_000_000, func() time.Time { return base.Add(elapsed) }, func() (time.Duration, bool) { return elapsed, true })
	for records := 16; records <= 320; records += 16 {
		elapsed += time.Second
		if a.pays(records, int64(records)*rec) {
			t.Fatalf("a 1 MB input tries several workers after %d records", records)
		}
	}
}
