package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"sync"
	"sync/atomic"
)

// A Holder is a Reader whose records can be kept past the next Scan
// without copying them. Its first Hold turns holding on and covers
// nothing; from then on each Hold adds to h every record returned since
// the previous Hold, with the buffers they point into, and those records
// stay valid until h.Release, after which the reader reuses them, the
// Record values included. Before its first Hold a Holder's records are
// valid only until the next Scan, as any Reader's, and never reused. The
// replay driver hands batches of records to its workers this way instead
// of copying every body, and hands each record back once stepped.
//
// Buffered is how many bytes the reader has read from its input and not
// yet returned as records: a read happens only once a record does not fit
// in them. A read while records are held cannot reuse their buffer, so a
// caller that holds only a few records at a time (the one-worker replay)
// releases them before the buffered bytes run out.
type Holder interface {
	Reader
	Hold(h *Held)
	Buffered() int
}

// Held is what a Holder's Hold keeps valid: the records of a run and the
// buffers they point into. The zero value holds nothing. Release may be
// called from any goroutine, once for what the Holds since the last
// Release added, after which h can be reused; h holds one reader's
// records at a time.
type Held struct {
	chunks []*chunk
	recs   []*Record
	pool   *recordPool
}

// Release lets the reader reuse what h held, the records included: they
// must no longer be used.
func (h *Held) Release() {
	for _, c := range h.chunks {
		c.release()
	}
	clear(h.chunks)
	h.chunks = h.chunks[:0]
	if len(h.recs) > 0 {
		h.pool.put(h.recs)
		clear(h.recs)
		h.recs = h.recs[:0]
	}
}

// recordPool is where a Holder's released records wait to be reused, so
// that a replay allocates no record a line: a fresh process's heap then
// stops growing once the first batches are in flight.
type recordPool struct {
	mu   sync.Mutex
	free []*Record
}

func (p *recordPool) put(recs []*Record) {
	p.mu.Lock()
	p.free = append(p.free, recs...)
	p.mu.Unlock()
}

// take returns the released records, giving the pool dst's array (empty)
// to fill next.
func (p *recordPool) take(dst []*Record) []*Record {
	p.mu.Lock()
	got := p.free
	p.free = dst[:0]
	p.mu.Unlock()
	return got
}

// A chunk is one read buffer of a lineBuf. refs counts its users: the
// lineBuf while the chunk is its current buffer, and every Held that holds
// it. At zero it goes back to its lineBuf's free list.
type chunk struct {
	buf  []byte
	refs atomic.Int32
	free chan *chunk
}

func (c *chunk) release() {
	if c.refs.Add(-1) == 0 {
		select {
		case c.free <- c:
		default: // the free list is full: the collector takes it
		}
	}
}

var errBadRead = errors.New("the input's reader returned an invalid count")

// readSize is the most a lineBuf reads at a time: 128 KiB, as coreutils'
// io_blksize, so that the bytes a read copies are parsed while they are in
// the core's cache, and without holding the 1 MiB buffer is touched only
// past its first 128 KiB when a line is longer.
const readSize = 128 << 10

// maxEmptyReads is how many reads returning nothing in a row fail with
// io.ErrNoProgress, as in bufio.
const maxEmptyReads = 100

// lineBuf reads lines as bufio.Reader.ReadSlice('\n') does, into chunks
// that a Holder's Hold can keep. Until the first hold it is bufio.Reader
// on one buffer of the same size. From then on every chunk a line is
// returned from is referenced (since) until a hold hands that reference to
// a Held, and a chunk referenced by anything but the lineBuf is never
// written again: the lineBuf moves on to another (a free one, or a new
// one), copying only the unread tail of the line it was in.
type lineBuf struct {
	src     io.Reader
	cur     *chunk
	r, w    int // the unread bytes are cur.buf[r:w]
	err     error
	free    chan *chunk
	holding bool
	since   []*chunk // once holding: chunks lines were returned from since the last hold, a reference each
	noted   bool     // cur is in since
	grow    int      // a line that fills cur moves to a chunk twice its size while cur is smaller than this
	longest int      // the longest line returned so far
}

// heldChunk is the least of the chunk a lineBuf reads into while the one
// it was in is held. Held chunks are what several workers keep in flight
// (a batch's records point into them until the engine has stepped it), and
// each is touched, page by page, the first time it is read into: reading
// on through a 1 MiB chunk while its first lines wait in batches kept a
// few megabytes in flight, ~770 page faults more than one worker on the
// tool corpus. A quarter of that holds lines of up to 64 KB four times.
const heldChunk = 256 << 10

// heldSize is the size of the chunk a held lineBuf reads into: heldChunk,
// doubled until it is four times the longest line so far, and room for the
// unread tail and a read after it, but never more than cur (which holds
// the tail: a line that fills its chunk moves on by enlarge).
func (b *lineBuf) heldSize(tail int) int {
	n := heldChunk
	for n < 4*b.longest {
		n *= 2
	}
	return min(max(n, tail+readSize), len(b.cur.buf))
}

// maxGrow is the largest chunk a lineBuf grows to for a long line: lines
// of hundreds of kilobytes to a few megabytes (long-context agents) are
// read straight into a chunk that holds them, as any other line, and
// the chunk is reused; a longer line is returned in pieces
// (bufio.ErrBufferFull) for the caller to join.
const maxGrow = 8 << 20

// newLineBuf returns a lineBuf reading src through chunks of size bytes,
// grown for a long line up to maxGrow but not past the chunk that holds a
// line of maxLine bytes and its '\n' (a longer line is not kept).
func newLineBuf(src io.Reader, size, maxLine int) lineBuf {
	free := make(chan *chunk, 8)
	c := &chunk{buf: make([]byte, size), free: free}
	c.refs.Store(1)
	return lineBuf{src: src, cur: c, free: free, grow: min(maxGrow, max(maxLine, 0)+1)}
}

// readSlice returns the next line, with its '\n', as
// bufio.Reader.ReadSlice('\n') does: bufio.ErrBufferFull with a full
// buffer's worth of a longer line, or the last bytes with the read error
// (io.EOF at the end). The line is valid until the next call, or until
// the release of a Held that a later hold filled.
func (b *lineBuf) readSlice() (line []byte, err error) {
	s := 0 // bytes of cur.buf[r:w] already searched
	for {
		buf := b.cur.buf
		if i := bytes.IndexByte(buf[b.r+s:b.w], '\n'); i >= 0 {
			end := b.r + s + i + 1
			line = buf[b.r:end]
			b.r = end
			b.longest = max(b.longest, len(line))
			b.note()
			return line, nil
		}
		if b.err != nil {
			line = buf[b.r:b.w]
			b.r = b.w
			err, b.err = b.err, nil
			b.note()
			return line, err
		}
		if b.w-b.r == len(buf) {
			if len(buf) < b.grow {
				b.enlarge()
				continue
			}
			b.r = b.w
			return buf, bufio.ErrBufferFull
		}
		s = b.w - b.r
		b.fill()
	}
}

// enlarge moves the unread bytes, a line that fills cur, to the start of
// a chunk twice cur's size (at most grow bytes rounded up to a doubling):
// a free one that large, else a new one. cur goes back to the free list
// once nothing holds it, so a run of long lines settles on chunks that
// hold them, as short lines do on the first.
func (b *lineBuf) enlarge() {
	dst := b.take(2 * len(b.cur.buf))
	b.w = copy(dst.buf, b.cur.buf[b.r:b.w])
	b.r = 0
	b.cur.release()
	b.cur, b.noted = dst, false
}

// take returns a chunk of at least n bytes, referenced once: a free one
// that large, else a new one of n (a free one too small is left to the
// collector).
func (b *lineBuf) take(n int) *chunk {
	var c *chunk
	select {
	case c = <-b.free:
		if len(c.buf) < n {
			c = nil
		}
	default:
	}
	if c == nil {
		c = &chunk{buf: make([]byte, n), free: b.free}
	}
	c.refs.Store(1)
	return c
}

// note records that a line was returned from cur, once holding.
func (b *lineBuf) note() {
	if b.holding && !b.noted {
		b.cur.refs.Add(1)
		b.since = append(b.since, b.cur)
		b.noted = true
	}
}

// fill reads once more into cur, after moving the unread bytes to the
// start of a buffer when they are not there: to the start of cur when
// nobody holds it (as bufio.Reader does); when cur is held, to another
// chunk (heldSize bytes) once cur is filled to heldSize, else the read
// goes on after them in cur. A read asks for at most readSize bytes, so
// that what it copies is still in the core's cache when the line is
// parsed.
func (b *lineBuf) fill() {
	if b.r > 0 {
		dst := b.cur
		if b.cur.refs.Load() != 1 {
			want := b.heldSize(b.w - b.r)
			if b.w < min(want, len(b.cur.buf)) {
				dst = nil // room left in cur: read on
			} else {
				dst = b.take(want)
			}
		}
		if dst != nil {
			copy(dst.buf, b.cur.buf[b.r:b.w])
			b.w -= b.r
			b.r = 0
			if dst != b.cur {
				b.cur.release()
				b.cur, b.noted = dst, false
			}
		}
	}
	end := min(len(b.cur.buf), b.w+readSize)
	for range maxEmptyReads {
		n, err := b.src.Read(b.cur.buf[b.w:end])
		if n < 0 || n > end-b.w {
			b.err = errBadRead
			return
		}
		b.w += n
		if err != nil {
			b.err = err
			return
		}
		if n > 0 {
			return
		}
	}
	b.err = io.ErrNoProgress
}

// hold turns holding on, and hands h the references to the chunks lines
// were returned from since the last hold.
func (b *lineBuf) hold(h *Held) {
	b.holding = true
	h.chunks = append(h.chunks, b.since...)
	clear(b.since)
	b.since = b.since[:0]
	b.noted = false
}
