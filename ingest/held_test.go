package ingest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// choppyReader returns its content in reads of random sizes, and hides
// Len, so that NewJSONL reads it through full-size chunks.
type choppyReader struct {
	data []byte
	rng  *rand.Rand
}

func (c *choppyReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.data), 1+c.rng.IntN(700<<10))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// heldCapture is n capture records whose requests differ line by line
// and whose sizes vary from a few bytes to past the reader's 1 MiB chunk
// (lines that take the reader's long-line path), and the request each
// line holds.
func heldCapture(n int) (data []byte, reqs []string) {
	rng := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	for i := range n {
		size := rng.IntN(20 << 10)
		if i%97 == 5 {
			size = 1<<20 + rng.IntN(300<<10)
		}
		req := fmt.Sprintf(`{"i":%d,"pad":"%s"}`, i, strings.Repeat(string(rune('a'+i%26)), size))
		reqs = append(reqs, req)
		fmt.Fprintf(&b, `{"ts":%d,"agent":"a","request":%s,"response":{"n":%d}}`+"\n", 1767323045+i, req, i)
	}
	return b.Bytes(), reqs
}

// TestJSONLHold: records a Hold covers keep their bodies while the reader
// reads on past them and reuses the buffers released meanwhile, as the
// parallel replay's batches use them; released records are not checked.
func TestJSONLHold(t *testing.T) {
	data, reqs := heldCapture(600)
	for _, seed := range []uint64{1, 2, 3} {
		r := NewJSONL(&choppyReader{data: data, rng: rand.New(rand.NewPCG(seed, 9))}, "c.jsonl", JSONLOptions{})
		type held struct {
			recs []*Record
			h    Held
		}
		var out []*held // held, oldest first; at most 5 out at a time
		cur := &held{}
		r.Hold(&cur.h) // holding on, before the first Scan
		check := func(h *held) {
			for _, rec := range h.recs {
				i := int(rec.Pos.N) - 1
				if rec.Err != nil {
					t.Fatalf("seed %d: %v", seed, rec.Err)
				}
				if string(rec.Request) != reqs[i] || string(rec.Response) != fmt.Sprintf(`{"n":%d}`, i) {
					t.Fatalf("seed %d: line %d's bodies changed while held", seed, i+1)
				}
			}
		}
		n := 0
		for r.Scan() {
			n++
			cur.recs = append(cur.recs, r.Record())
			if len(cur.recs) == 1+n%7 {
				r.Hold(&cur.h)
				out = append(out, cur)
				cur = &held{}
				if len(out) > 5 {
					check(out[0])
					out[0].h.Release()
					out = out[1:]
				}
			}
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		r.Hold(&cur.h)
		for _, h := range append(out, cur) {
			check(h)
			h.h.Release()
		}
		if n != len(reqs) {
			t.Fatalf("seed %d: %d records, want %d", seed, n, len(reqs))
		}
	}
}

// TestJSONLNoHoldReuses: without Hold the reader reads in one buffer, as
// bufio does, records valid until the next Scan only; it moves to another
// only for a line longer than its buffer, to one twice the size, once:
// the capture's lines of up to 1.3 MiB end in one buffer of 2 MiB.
func TestJSONLNoHoldReuses(t *testing.T) {
	data, reqs := heldCapture(300)
	r := NewJSONL(&choppyReader{data: data, rng: rand.New(rand.NewPCG(4, 5))}, "c.jsonl", JSONLOptions{})
	bufs := []*chunk{r.lb.cur}
	n := 0
	for r.Scan() {
		if got := string(r.Record().Request); got != reqs[n] {
			t.Fatalf("line %d: wrong request", n+1)
		}
		if c := r.lb.cur; c != bufs[len(bufs)-1] {
			bufs = append(bufs, c)
		}
		n++
	}
	if n != len(reqs) || r.Err() != nil {
		t.Fatalf("%d records, %v", n, r.Err())
	}
	if len(bufs) != 2 || len(bufs[0].buf) != 1<<20 || len(bufs[1].buf) != 2<<20 {
		var sizes []int
		for _, c := range bufs {
			sizes = append(sizes, len(c.buf))
		}
		t.Errorf("the reader read through buffers of %v bytes, want one of 1 MiB, then one of 2 MiB", sizes)
	}
}

// FuzzLineBuf: lineBuf returns what bufio.Reader.ReadSlice('\n') returns
// over a buffer of the size its chunks grow to (its first chunk's size
// doubled 0–3 times: a line longer than the first chunk moves to a larger
// one), line by line and error by error, for any content, any sizes of the
// underlying reads, holding or not (held chunks released at random).
func FuzzLineBuf(f *testing.F) {
	f.Add([]byte("a\nbb\n\nccc"), uint64(1), uint8(4), uint8(0), true)
	f.Add([]byte("0123456789abcdefghij\nxy\n"), uint64(2), uint8(0), uint8(0), false)
	f.Add(bytes.Repeat([]byte("abc\n"), 40), uint64(3), uint8(7), uint8(0), true)
	f.Add([]byte("0123456789abcdefghij0123456789abcdefghij\nxy\n"+strings.Repeat("z", 70)+"\nw\n"), uint64(4), uint8(0), uint8(1), true)
	f.Add([]byte(strings.Repeat("long line ", 30)+"\n"+strings.Repeat("longer line ", 40)+"\nend"), uint64(5), uint8(3), uint8(3), false)
	f.Fuzz(func(t *testing.T, data []byte, seed uint64, size, doublings uint8, holding bool) {
		n := 16 + int(size%48)
		most := n << (doublings % 4)
		want := bufio.NewReaderSize(&choppyReader{data: data, rng: rand.New(rand.NewPCG(seed, 1))}, most)
		lb := newLineBuf(&choppyReader{data: data, rng: rand.New(rand.NewPCG(seed, 1))}, n, most-1)
		rng := rand.New(rand.NewPCG(seed, 2))
		var held []*Held
		type line struct {
			got  []byte
			want string
		}
		var kept []line // lines held and not yet released
		for i := 0; ; i++ {
			if holding && i%3 == 0 {
				h := &Held{}
				lb.hold(h)
				held = append(held, h)
				if len(held) > 1 && rng.IntN(2) == 0 {
					for _, l := range kept {
						if string(l.got) != l.want {
							t.Fatalf("a held line changed: %q, was %q", l.got, l.want)
						}
					}
					for _, h := range held[:len(held)-1] {
						h.Release()
					}
					held, kept = held[len(held)-1:], nil
				}
			}
			w, werr := want.ReadSlice('\n')
			g, gerr := lb.readSlice()
			if string(g) != string(w) || gerr != werr {
				t.Fatalf("line %d: got %q, %v; want %q, %v", i, g, gerr, w, werr)
			}
			if holding && gerr == nil {
				kept = append(kept, line{g, string(w)})
			}
			if werr != nil && werr != bufio.ErrBufferFull {
				break
			}
		}
	})
}

// TestJSONLHoldRecyclesRecords: once a Held is released, the reader's next
// records reuse the released ones (a replay allocates no record a line);
// records still held are never reused.
func TestJSONLHoldRecyclesRecords(t *testing.T) {
	data, _ := heldCapture(40)
	r := NewJSONL(&choppyReader{data: data, rng: rand.New(rand.NewPCG(6, 7))}, "c.jsonl", JSONLOptions{})
	var a, b Held
	r.Hold(&a)
	var first []*Record
	for range 5 {
		r.Scan()
		first = append(first, r.Record())
	}
	r.Hold(&a)
	r.Scan()
	kept := r.Record()
	r.Hold(&b) // kept stays held by b
	a.Release()
	reused := 0
	for range 10 {
		r.Scan()
		rec := r.Record()
		if rec == kept {
			t.Fatal("a record still held was reused")
		}
		for _, f := range first {
			if rec == f {
				reused++
			}
		}
	}
	if reused != 5 {
		t.Errorf("%d of the 5 released records reused, want 5", reused)
	}
	if kept.Pos.N != 6 {
		t.Errorf("the held record changed: line %d", kept.Pos.N)
	}
}

// TestJSONLHeldChunkSize: while its records are held, a reader of short
// lines moves to chunks of heldChunk bytes, not to chunks the size of its
// first (1 MiB), and reads on in its first chunk no further than
// heldChunk: what batches in flight keep touched stays about their size.
// Lines four times longer than a quarter of heldChunk get larger chunks.
func TestJSONLHeldChunkSize(t *testing.T) {
	for _, tc := range []struct {
		line, want int
	}{{2 << 10, heldChunk}, {100 << 10, 512 << 10}} {
		var data bytes.Buffer
		for i := 0; data.Len() < 8<<20; i++ {
			fmt.Fprintf(&data, `{"ts":%d,"agent":"a","request":{"pad":"%s"}}`+"\n", i, strings.Repeat("x", tc.line))
		}
		r := NewJSONL(struct{ io.Reader }{bytes.NewReader(data.Bytes())}, "c.jsonl", JSONLOptions{})
		first := r.lb.cur
		var out []*Held
		cur := &Held{}
		r.Hold(cur)
		sizes := map[int]int{}
		seen := map[*chunk]bool{}
		n := 0
		for r.Scan() {
			if c := r.lb.cur; !seen[c] {
				seen[c] = true
				sizes[len(c.buf)]++
			}
			if r.lb.cur == first && r.lb.w > tc.want+readSize {
				t.Fatalf("lines of %d bytes: read on to byte %d of the first chunk", tc.line, r.lb.w)
			}
			if n++; n%8 == 0 { // a batch of 8 records; four batches in flight
				r.Hold(cur)
				out = append(out, cur)
				cur = &Held{}
				if len(out) > 4 {
					out[0].Release()
					out = out[1:]
				}
			}
		}
		if r.Err() != nil {
			t.Fatal(r.Err())
		}
		delete(sizes, 1<<20) // the first chunk
		if len(sizes) != 1 || sizes[tc.want] == 0 {
			t.Errorf("lines of %d bytes: chunks taken while held, by size: %v; want all of %d bytes", tc.line, sizes, tc.want)
		}
	}
}
