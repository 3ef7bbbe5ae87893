package logs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/internal/pqtest"

	"github.com/killswitch/killswitch/internal/tracegen"
)

// TestOIFastApplies holds the column decoder to the tables it is for:
// tracegen's (Phoenix's layout, flat attributes, message lists with tool
// calls), the paged table (dictionary and plain columns, tiny pages and
// row groups), the fixture; and keeps it off a table with a column it
// does not read (a token-count group, a number as a message's content).
func TestOIFastApplies(t *testing.T) {
	var gen bytes.Buffer
	if err := tracegen.OpenInferenceParquet(&gen, traceSpans()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what string
		data []byte
		want bool
	}{
		{"tracegen", gen.Bytes(), true},
		{"paged", pagedParquet(t, 128, 40), true},
		{"fixture", traceFixture("phoenix-spans.parquet"), true},
		{"message shapes", msgParquet(t), false},
		{"nested attributes", nestedParquet(t), false},
	} {
		f := openOIFast(bytes.NewReader(c.data), int64(len(c.data)), "t.parquet", keepFull)
		if got := f != nil; got != c.want {
			t.Errorf("%s: decoder %v, want %v", c.what, got, c.want)
		}
		if f == nil {
			continue
		}
		rows := 0
		for {
			if _, ok := f.next(); !ok {
				break
			}
			rows++
		}
		if err, weird := f.stopped(); err != nil || weird || rows == 0 {
			t.Errorf("%s: decoder read %d rows and stopped: %v, weird %v", c.what, rows, err, weird)
		}
		f.close()
	}
}

// TestOIFastDamaged reads damaged copies of the tables the column decoder
// reads (bytes flipped through the pages, with and without the pages'
// checksums) as the
// reference reads them: where the decoder stops, the generic path reads
// the row and every row after it as it always did.
func TestOIFastDamaged(t *testing.T) {
	var gen bytes.Buffer
	spans, _ := generatedTraces()
	if err := tracegen.OpenInferenceParquet(&gen, spans); err != nil {
		t.Fatal(err)
	}
	for _, data := range [][]byte{gen.Bytes(), pagedParquet(t, 128, 40), pagedParquet(t, 0, 0),
		// Without page checksums a damaged page reaches the decoders.
		pqtest.WithoutCRC(t, gen.Bytes()), pqtest.WithoutCRC(t, pagedParquet(t, 128, 40))} {
		for k := range 40 {
			d := bytes.Clone(data)
			pos := 4 + (k*7919)%(len(d)-12)
			switch k % 4 {
			case 0:
				d[pos] ^= 0xff
			case 1:
				d[pos] = 0xff // a byte no UTF-8 text holds
			case 2:
				d[pos] ^= 0x01
			case 3:
				d[pos], d[pos+1] = 0x80, 0x80
			}
			t.Run(fmt.Sprintf("%d@%d", len(d), pos), func(t *testing.T) { sameParquetRecords(t, d) })
		}
	}
}

// TestOIBodies holds oiBodies to the bodies oiRequest and outputBody
// write, over invocation parameters of every shape (a model of their own
// before, at and after the span's, secrets, keys oiRequest drops, text
// that is no object) and output messages of text, none, several, and
// with tool calls (left to outputBody).
func TestOIBodies(t *testing.T) {
	s := func(v string) *string { return &v }
	msgs := []message{{Role: "system", Content: s("be \"brief\"\n\u2028")}, {Role: "user", Content: s("hi\x01")},
		{Role: "assistant", ToolCalls: []toolCall{{ID: "c", Type: "function", Function: toolFunction{Name: "f", Arguments: "{}"}}}},
		{Role: "tool", Content: s("ok"), ToolCallID: "c"}}
	params := []any{nil, "", " ", "{}", "[1]", "{bad", `{"temperature":0.2}`, `{"model":"p","temperature":1}`,
		`{"a":1,"model":"p"}`, `{"zz":1,"model":"p","aa":null}`, `{"api_key":"sk","n":{"password":"x","k":1}}`,
		`{"messages":[1],"tools":[2],"user":"u","metadata":{},"input":"i","stream_options":{},"top_p":1e300}`,
		`{"mz":1,"ma":2}`, `{"n":1.0e2}`, json.Number("3")}
	var b oiBodies
	for _, model := range []string{"", "gpt-4o", "model"} {
		for _, p := range params {
			for _, m := range [][]message{nil, msgs[:1], msgs} {
				want := oiRequest(model, m, nil, p)
				if got := b.request(model, m, p); got != nil && string(got) != string(want) {
					t.Errorf("model %q params %#v: request\n%s\nwant\n%s", model, p, got, want)
				}
			}
		}
		for _, out := range [][]message{nil, {{Role: "assistant"}}, msgs[:1], {msgs[0], {Role: "assistant"}, msgs[1]}, msgs} {
			var rec ingest.Record
			rec.Model = model
			objs := make([]any, 0, len(out))
			for _, m := range out {
				objs = append(objs, messageObj(m))
			}
			want := outputBody(objs, model)
			if b.response(&rec, out) && string(rec.Response) != string(want) {
				t.Errorf("model %q output %d messages: response\n%s\nwant\n%s", model, len(out), rec.Response, want)
			}
		}
	}
	if b.request("m", msgs, `{"temperature":0.2}`) == nil || b.request("m", msgs, nil) == nil {
		t.Error("oiBodies leaves the common requests to oiRequest")
	}
	var rec ingest.Record
	if !b.response(&rec, msgs[:2]) || b.response(&rec, msgs) {
		t.Error("oiBodies writes text responses and leaves tool calls to outputBody")
	}
}

// TestOIWindows reads the tables out of start-time order a few records
// at a time (windows of 1 and 3 ranks, of 1 and 600 bytes: a pass per
// record, per few records, and the byte bound dropping the last ranks of
// a window) as the reference reads them whole, through both paths, and
// counts the passes.
func TestOIWindows(t *testing.T) {
	defer func(b, r int) { oiWindowBytes, oiWindowRanks = b, r }(oiWindowBytes, oiWindowRanks)
	var gen bytes.Buffer
	spans, _ := generatedTraces()
	if err := tracegen.OpenInferenceParquet(&gen, spans); err != nil {
		t.Fatal(err)
	}
	mixed := 0
	for k, data := range append(parquetSeeds(t), gen.Bytes()) {
		r, err := NewOIParquetReader(bytes.NewReader(data), int64(len(data)), "w.parquet", Options{})
		if err != nil || r.sorted {
			continue
		}
		r.Close()
		mixed++
		for _, w := range [][2]int{{1 << 30, 1}, {1 << 30, 3}, {1, 1 << 18}, {600, 1 << 18}} {
			oiWindowBytes, oiWindowRanks = w[0], w[1]
			sameParquetRecords(t, data)
			r, _ := NewOIParquetReader(bytes.NewReader(data), int64(len(data)), "w.parquet", Options{})
			n := 0
			for r.Scan() {
				n++
			}
			if r.win.passes < 2 || r.Err() != nil {
				t.Errorf("window %v: %d records in %d passes, %v", w, n, r.win.passes, r.Err())
			}
			// The generated table is read by the column decoder in every
			// pass, the later ones trusting the rows an earlier one read
			// (put off).
			if k == len(parquetSeeds(t)) && (r.handovers > 0 || r.checkedRows == 0) {
				t.Errorf("window %v: %d rows handed over to the generic path, %d rows checked", w, r.handovers, r.checkedRows)
			}
		}
	}
	if mixed < 2 {
		t.Errorf("%d tables out of order, want 2 or more", mixed)
	}
}

// timeRow is a span row whose times are millisecond timestamps, so that
// they can hold years a time.Time reads back alike (0 to 9999) and years
// outside them (read as RFC 3339 text, which spanTime then refuses or
// reads as it reads text).
type timeRow struct {
	Name     string    `parquet:"name"`
	SpanKind string    `parquet:"span_kind"`
	ParentID *string   `parquet:"parent_id,optional"`
	Start    time.Time `parquet:"start_time,timestamp(millisecond)"`
	End      time.Time `parquet:"end_time,timestamp(millisecond)"`
	SpanID   string    `parquet:"context.span_id"`
	TraceID  string    `parquet:"context.trace_id"`
	Input    *string   `parquet:"attributes.input.value,optional"`
}

// TestOIFastTimes reads start and end times at the edges of what the
// column decoder reads as times (year 0 and 9999 and the zero time, which
// is no start time; years past 9999 and before 0, which are text) as the
// reference reads them, rows in time order and not.
func TestOIFastTimes(t *testing.T) {
	at := []time.Time{time.Date(2026, 1, 2, 9, 0, 0, 0, time.UTC), {}, time.Date(0, 3, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999e6, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 6, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 2, 9, 0, 1, 0, time.UTC)}
	for _, order := range []string{"as listed", "reversed"} {
		var rows []timeRow
		for i, start := range at {
			q := fmt.Sprintf(`{"messages":[{"role":"user","content":"q%d"}]}`, i)
			root := timeRow{Name: "agent", SpanKind: "AGENT", Start: start, End: start, SpanID: fmt.Sprintf("a%d", i), TraceID: fmt.Sprintf("t%d", i)}
			call := timeRow{Name: "llm", SpanKind: "LLM", ParentID: &root.SpanID, Start: start, End: at[(i+3)%len(at)],
				SpanID: fmt.Sprintf("c%d", i), TraceID: root.TraceID, Input: &q}
			rows = append(rows, root, call)
		}
		if order == "reversed" {
			slices.Reverse(rows)
		}
		var b bytes.Buffer
		if err := parquet.Write(&b, rows); err != nil {
			t.Fatal(err)
		}
		if f := openOIFast(bytes.NewReader(b.Bytes()), int64(b.Len()), "t.parquet", keepFull); f == nil {
			t.Fatalf("%s: the column decoder does not read the table", order)
		} else {
			f.close()
		}
		sameParquetRecords(t, b.Bytes())
	}
}

// TestOIFastChecksFullColumns holds the second reading to checking every
// column the first did not read: a model name that is not UTF-8 on a row
// the plan decides (an AGENT span, a wrapper) and on a call is a bad row
// at its place, as the reference says, though the light columns are not
// checked again (tiny pages and row groups, and one page a column).
func TestOIFastChecksFullColumns(t *testing.T) {
	bad := "gpt\xff"
	for _, paged := range [][2]int{{128, 40}, {0, 0}} {
		var rows []pageRow
		for i := range 12 {
			trace := fmt.Sprintf("%032x", i+1)
			id := func(k int) string { return fmt.Sprintf("%016x", 3*i+k) }
			at := pagedStart.Add(time.Duration(i) * time.Second)
			content := fmt.Sprintf("question %d", i)
			root := pageRow{Name: "agent.run", SpanKind: "AGENT", Start: at, SpanID: id(1), TraceID: trace}
			outer := pageRow{Name: "llm", SpanKind: "LLM", ParentID: &root.SpanID, Start: at, SpanID: id(2), TraceID: trace}
			inner := pageRow{Name: "ChatCompletion", SpanKind: "LLM", ParentID: &outer.SpanID, Start: at, SpanID: id(3), TraceID: trace,
				Input: []msgElem{{Content: &content}}}
			switch i % 4 {
			case 1:
				root.Model = &bad
			case 2:
				outer.Model = &bad
			case 3:
				inner.Model = &bad
			}
			rows = append(rows, root, outer, inner)
		}
		data := writePageRows(t, rows, paged[0], paged[1])
		pr, err := NewOIParquetReader(bytes.NewReader(data), int64(len(data)), "t.parquet", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !pr.lightChecked {
			t.Errorf("pages %v: the first reading did not go through the column decoder", paged)
		}
		badRows := 0
		for pr.Scan() {
			if pr.Record().Err != nil {
				badRows++
			}
		}
		pr.Close()
		if badRows != 9 {
			t.Errorf("pages %v: %d bad rows, want 9 (every row whose model is not UTF-8)", paged, badRows)
		}
		sameParquetRecords(t, data)
	}
}

// The full view's cursors that read their pages ahead (oiFast.prefetch;
// here every chunk's, as a large table's message columns) read the
// records the reference reads: over every seed table, damaged copies of
// tracegen's table and of a table of tiny pages, and tables out of
// time order read in several passes of small windows.
func TestOIFastPrefetch(t *testing.T) {
	defer func(c int64, b, r int) { oiPrefetchChunk, oiWindowBytes, oiWindowRanks = c, b, r }(oiPrefetchChunk, oiWindowBytes, oiWindowRanks)
	oiPrefetchChunk = 0
	var gen bytes.Buffer
	spans, _ := generatedTraces()
	if err := tracegen.OpenInferenceParquet(&gen, spans); err != nil {
		t.Fatal(err)
	}
	tables := parquetSeeds(t)
	for _, data := range [][]byte{gen.Bytes(), pqtest.WithoutCRC(t, pagedParquet(t, 128, 40))} {
		for k := range 12 {
			d := bytes.Clone(data)
			pos := 4 + (k*7919)%(len(d)-12)
			d[pos] ^= 0xff
			tables = append(tables, d)
		}
	}
	for i, data := range tables {
		t.Run(fmt.Sprintf("%d", i), func(t *testing.T) { sameParquetRecords(t, data) })
	}
	oiWindowBytes, oiWindowRanks = 600, 1<<18 // several passes over a table out of order
	for i, data := range parquetSeeds(t) {
		t.Run(fmt.Sprintf("windows/%d", i), func(t *testing.T) { sameParquetRecords(t, data) })
	}
	// A reader closed before the end stops its prefetchers: no goroutine
	// is left reading pages for nobody.
	before := runtime.NumGoroutine()
	data := pagedParquet(t, 128, 0) // many pages: the prefetchers are still reading at the third record
	r, err := NewOIParquetReader(bytes.NewReader(data), int64(len(data)), "in.parquet", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		r.Scan()
	}
	if runtime.NumGoroutine() <= before {
		t.Fatalf("%d goroutines while reading, %d before: nothing prefetched", runtime.NumGoroutine(), before)
	}
	r.Close()
	for wait := 0; runtime.NumGoroutine() > before; wait++ {
		if wait == 100 {
			t.Fatalf("%d goroutines after Close, %d before", runtime.NumGoroutine(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// endedTraces are n traces of four spans each (an agent, an LLM span
// wrapping the call's, a tool), their starts a second apart, each lasting
// 1 to 13 s (so that traces overlap), and the rows in the order the
// spans ended, as Phoenix's tables hold them: a child before its parent,
// a short trace before a longer one that started earlier.
func endedTraces(n int) []tracegen.Span {
	base := traceSpans()
	t0 := time.Date(2026, 1, 2, 9, 0, 0, 0, time.UTC)
	var spans []tracegen.Span
	for i := range n {
		trace := fmt.Sprintf("%032x", i+1)
		id := func(k int) string { return fmt.Sprintf("%016x", 4*i+k) }
		at := t0.Add(time.Duration(i) * time.Second)
		d := time.Duration(1+(i*7)%13) * time.Second
		inner := base[i%len(base)]
		inner.TraceID, inner.SpanID, inner.ParentID = trace, id(3), id(2)
		inner.Start, inner.End = at.Add(2*time.Millisecond), at.Add(d-3*time.Millisecond)
		root := tracegen.Span{TraceID: trace, SpanID: id(1), Name: "agent.run", Kind: "AGENT", Start: at, End: at.Add(d), Session: fmt.Sprintf("session-%d", i%3)}
		outer := tracegen.Span{TraceID: trace, SpanID: id(2), ParentID: id(1), Name: "llm", Kind: "LLM", Start: at.Add(time.Millisecond), End: at.Add(d - 2*time.Millisecond)}
		tool := tracegen.Span{TraceID: trace, SpanID: id(4), ParentID: id(1), Name: "tool", Kind: "TOOL", Start: at.Add(d - time.Millisecond), End: at.Add(d - time.Millisecond/2)}
		spans = append(spans, root, outer, inner, tool)
	}
	slices.SortStableFunc(spans, func(a, b tracegen.Span) int { return a.End.Compare(b.End) })
	return spans
}

// TestOISlidingWindows reads tables out of start-time order in several
// row orders (as the spans ended, reversed, shuffled, shuffled within
// runs) through windows of every size from a record to all, as the
// reference reads them whole. A table in the order its spans ended is
// read in two passes when a window holds the records read ahead of the
// earliest open span, however many windows its records fill: the later
// pass slides.
func TestOISlidingWindows(t *testing.T) {
	defer func(b, r int) { oiWindowBytes, oiWindowRanks = b, r }(oiWindowBytes, oiWindowRanks)
	ended := endedTraces(60)
	rng := rand.New(rand.NewPCG(30, 21))
	orders := map[string][]tracegen.Span{"ended": ended}
	rev := slices.Clone(ended)
	slices.SortStableFunc(rev, func(a, b tracegen.Span) int { return b.Start.Compare(a.Start) })
	orders["reversed"] = rev
	shuf := slices.Clone(ended)
	rng.Shuffle(len(shuf), func(i, j int) { shuf[i], shuf[j] = shuf[j], shuf[i] })
	orders["shuffled"] = shuf
	local := slices.Clone(ended)
	for i := 0; i < len(local); i += 9 {
		run := local[i:min(i+9, len(local))]
		rng.Shuffle(len(run), func(i, j int) { run[i], run[j] = run[j], run[i] })
	}
	orders["local"] = local
	for _, name := range slices.Sorted(maps.Keys(orders)) {
		var buf bytes.Buffer
		if err := tracegen.OpenInferenceParquet(&buf, orders[name]); err != nil {
			t.Fatal(err)
		}
		data := buf.Bytes()
		oiWindowBytes, oiWindowRanks = 1<<30, 1<<18
		all := 0
		r, err := NewOIParquetReader(bytes.NewReader(data), int64(len(data)), "s.parquet", Options{})
		if err != nil || r.sorted {
			t.Fatalf("%s: %v, sorted %v", name, err, r != nil && r.sorted)
		}
		for r.Scan() {
			all += recordBytes(r.Record())
		}
		r.Close()
		// Groups planned early split traces: the whole tree is planned.
		t.Run(name+"/groups=2", func(t *testing.T) {
			defer func(n int) { groupSpans = n }(groupSpans)
			groupSpans = 2
			sameParquetRecords(t, data)
			r, _ := NewOIParquetReader(bytes.NewReader(data), int64(len(data)), "s.parquet", Options{})
			defer r.Close()
			if r.planner != "tree" {
				t.Errorf("planned by %s, want tree", r.planner)
			}
		})
		for _, w := range [][2]int{{1, 1 << 18}, {600, 1 << 18}, {3000, 1 << 18}, {all / 5, 1 << 18}, {all / 5, 7}, {1 << 30, 1}, {1 << 30, 2}, {1 << 30, 5}, {1 << 30, 1 << 18}} {
			oiWindowBytes, oiWindowRanks = w[0], w[1]
			t.Run(fmt.Sprintf("%s/bytes=%d/ranks=%d", name, w[0], w[1]), func(t *testing.T) {
				sameParquetRecords(t, data)
				r, _ := NewOIParquetReader(bytes.NewReader(data), int64(len(data)), "s.parquet", Options{})
				defer r.Close()
				n := 0
				for r.Scan() {
					n++
				}
				if r.Err() != nil || n != 4*60 {
					t.Fatalf("%d records, %v", n, r.Err())
				}
				// The first pass holds the rows of a trace at a time (every
				// trace of so small a table at once).
				if r.planner != "groups" {
					t.Errorf("planned by %s, want groups", r.planner)
				}
				if name == "ended" && w == [2]int{all / 5, 1 << 18} && r.win.passes != 1 {
					t.Errorf("%d passes over a table in the order its spans ended, want 1 (sliding)", r.win.passes)
				}
				if w[0] >= all && w[1] >= 4*60 && r.win.passes != 1 {
					t.Errorf("%d passes when every record fits, want 1", r.win.passes)
				}
			})
		}
	}
}

// FuzzOIWindows reads a mutated span table through small windows (the
// first two bytes pick the window's bytes and ranks), so that the passes
// over a table out of start-time order, the first and the sliding ones,
// meet damaged rows: as the reference reads the table whole.
func FuzzOIWindows(f *testing.F) {
	defer func(b, r int) { oiWindowBytes, oiWindowRanks = b, r }(oiWindowBytes, oiWindowRanks)
	var gen bytes.Buffer
	if err := tracegen.OpenInferenceParquet(&gen, endedTraces(8)); err != nil {
		f.Fatal(err)
	}
	for k, data := range append(parquetSeeds(f), gen.Bytes()) {
		f.Add(append([]byte{byte(k), byte(k / 2)}, data...))
	}
	sizes := []int{1, 300, 600, 2000, 6000, 1 << 30}
	ranks := []int{1, 2, 3, 5, 1 << 18}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		oiWindowBytes, oiWindowRanks = sizes[int(data[0])%len(sizes)], ranks[int(data[1])%len(ranks)]
		sameParquetRecords(t, data[2:])
	})
}

// TestOIOutOfOrderDamage: a table out of start-time order with a byte
// flipped in its pages yields, before the error, the records that come
// before the damaged row's in start-time order, as the reference does
// (and as a table in that order does), through windows from one record
// to all. Some damage must end the stream after records, some before
// any.
func TestOIOutOfOrderDamage(t *testing.T) {
	defer func(b, r int) { oiWindowBytes, oiWindowRanks = b, r }(oiWindowBytes, oiWindowRanks)
	rows := pagedRows()
	// The traces from the last to the first: every trace's rows before
	// those of the traces that started earlier.
	var reversed []pageRow
	for i := len(rows) - 3; i >= 0; i -= 3 {
		reversed = append(reversed, rows[i:i+3]...)
	}
	data := pqtest.WithoutCRC(t, writePageRows(t, reversed, 128, 40))
	if r, err := NewOIParquetReader(bytes.NewReader(data), int64(len(data)), "d.parquet", Options{}); err != nil || r.sorted {
		t.Fatalf("the table is in start-time order, or %v", err)
	} else {
		r.Close()
	}
	after, before := 0, 0
	for k := range 40 {
		d := bytes.Clone(data)
		d[4+(k*7919)%(len(d)/2)] ^= 0xff // the pages are in the first half, the footer at the end
		ref, err := refReadTwice(bytes.NewReader(d), int64(len(d)), "in.parquet", Options{})
		if err != nil {
			continue
		}
		recs, rerr := plainRecords(ref)
		ref.Close()
		if rerr == "" {
			continue
		}
		if len(recs) > 0 {
			after++
		} else {
			before++
		}
		for _, w := range [][2]int{{1 << 30, 1 << 18}, {1 << 30, 1}, {1 << 30, 3}, {1, 1 << 18}, {600, 1 << 18}} {
			oiWindowBytes, oiWindowRanks = w[0], w[1]
			t.Run(fmt.Sprintf("flip%d/bytes=%d/ranks=%d", k, w[0], w[1]), func(t *testing.T) { sameParquetRecords(t, d) })
		}
	}
	t.Logf("%d damaged tables ended after records, %d before any", after, before)
	if after < 3 || before < 1 {
		t.Errorf("%d damaged tables ended after records, %d before any: want some of each", after, before)
	}
}
