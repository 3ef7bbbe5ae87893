package logs

import (
	"bytes"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/internal/jsonend"
)

// A document input that is a regular file need not be held whole: the
// trace readers (Vercel AI SDK span arrays) scan its top-level array with
// the strict scanner through a bounded window, keep per element its
// offset and length and the little the span tree needs, then re-read each
// element with ReadAt to build its record. Only input the whole-document
// path would read without a single problem is taken (one top-level array
// of objects, valid UTF-8, accepted by the strict scanner): anything else
// is left to that path, which reports every problem at its position, so
// records and messages are the same either way.

// elemRef locates one element of a top-level array in the file.
type elemRef struct {
	off int64
	n   int
}

// streamWindow is the scan window's starting size (tests shrink it); it grows to hold the
// largest element.
var streamWindow = 1 << 20

// window reads a file forward through a buffer: buf holds the file's
// bytes [base, base+len(buf)), and i is the scan position in buf.
type window struct {
	ra    io.ReaderAt
	size  int64
	buf   []byte
	base  int64
	i     int
	lines int64 // newlines skip has passed
	// max bounds one value the window holds (value, take): a longer one
	// is not read on, as if it were not valid (the caller then leaves
	// the input to planUnits, which reads past it). 0: no bound.
	max int
}

// more reads on, keeping buf[i:] (the window grows when it is full);
// false at the end of the file or on a read error.
func (w *window) more() bool {
	end := w.base + int64(len(w.buf))
	if end >= w.size {
		return false
	}
	n := copy(w.buf, w.buf[w.i:])
	w.base += int64(w.i)
	w.buf, w.i = w.buf[:n], 0
	if len(w.buf) == cap(w.buf) {
		w.buf = append(make([]byte, 0, max(2*cap(w.buf), streamWindow)), w.buf...)
	}
	m := int(min(int64(cap(w.buf)-len(w.buf)), w.size-end))
	got, _ := w.ra.ReadAt(w.buf[len(w.buf):len(w.buf)+m], end)
	w.buf = w.buf[:len(w.buf)+got]
	return got > 0 // short: the file shrank (scanArray then sees its end early)
}

// skip moves past white space, counting its newlines; it returns the
// byte there, or 0 at the end.
func (w *window) skip() byte {
	for {
		i := w.i
		w.i = skipSpace(w.buf, w.i)
		w.lines += int64(bytes.Count(w.buf[i:w.i], []byte{'\n'}))
		if w.i < len(w.buf) {
			return w.buf[w.i]
		}
		if !w.more() {
			return 0
		}
	}
}

// value returns the end (in buf) of the valid JSON value at w.i, at
// nesting depth depth, reading on as far as it needs (a number is not
// taken to end where the window does); -1 when there is none, or when it
// is longer than w.max.
func (w *window) value(depth int) int {
	for {
		if end := strictValue(w.buf, w.i, depth); end >= 0 && (end < len(w.buf) || w.base+int64(end) >= w.size) {
			if w.max > 0 && end-w.i > w.max {
				return -1
			}
			return end
		}
		if w.max > 0 && len(w.buf)-w.i > w.max || !w.more() {
			return -1
		}
	}
}

// take returns the valid JSON value at w.i (valid UTF-8: the bytes are
// the window's) and moves past it; false when there is none.
func (w *window) take(depth int) ([]byte, bool) {
	end := w.value(depth)
	if end < 0 || !utf8.Valid(w.buf[w.i:end]) {
		return nil, false
	}
	b := w.buf[w.i:end]
	w.i = end
	return b, true
}

// members walks the object at w.i ('{') at depth: fn gets each key with
// w.i at its value, and moves past the value. false when the object is
// not valid JSON or fn says so.
func (w *window) members(depth int, fn func(key string) bool) bool {
	w.i++
	c := w.skip()
	if c == '}' {
		w.i++
		return true
	}
	for {
		if c != '"' {
			return false
		}
		k, ok := w.take(depth + 1)
		if !ok {
			return false
		}
		key := validString(k) // before skip reads on over k's bytes
		if w.skip() != ':' {
			return false
		}
		w.i++
		if w.skip() == 0 || !fn(key) {
			return false
		}
		switch w.skip() {
		case ',':
			w.i++
			c = w.skip()
		case '}':
			w.i++
			return true
		default:
			return false
		}
	}
}

// elems walks the array at w.i ('[') at depth as members walks objects.
func (w *window) elems(depth int, fn func(n int) bool) bool {
	w.i++
	if w.skip() == ']' {
		w.i++
		return true
	}
	for n := 0; ; n++ {
		if w.skip() == 0 || !fn(n) {
			return false
		}
		switch w.skip() {
		case ',':
			w.i++
		case ']':
			w.i++
			return true
		default:
			return false
		}
	}
}

// open starts a scan of the input when it is a regular file to be read
// whole as documents, past a byte order mark; the line where its first
// value starts. nil when the input is anything else.
func (s *source) open() (*window, int64) {
	if s.ra == nil || s.size <= 0 || !fastJSON || !s.wholeDocs() {
		return nil, 0
	}
	w := &window{ra: s.ra, size: s.size, max: s.max}
	for len(w.buf) < len(bom) && w.more() {
	}
	if bytes.HasPrefix(w.buf, bom) {
		w.i = len(bom)
	}
	w.skip()
	return w, w.lines + 1
}

// atEnd moves past the white space after the document and reports
// whether the file ends there, as long as it was when opened.
func (w *window) atEnd() bool {
	return w.skip() == 0 && w.base+int64(w.i) == w.size
}

// scanArray reads the input, when it is a regular file holding exactly
// one top-level array of JSON objects that the whole-document path reads
// without a problem, and calls fn with each element (the bytes are the
// window's: copy what is kept). It returns the elements' places and the
// line where the array starts; false when the input is anything else, or
// not a file (nothing is consumed: the source reads it as before).
func (s *source) scanArray(fn func(i int, raw []byte)) (refs []elemRef, line int64, ok bool) {
	w, line := s.open()
	if w == nil || w.skip() != '[' {
		return nil, 0, false
	}
	ok = w.elems(0, func(n int) bool {
		at := w.base + int64(w.i)
		if w.buf[w.i] != '{' {
			return false
		}
		raw, ok := w.take(1)
		if ok {
			fn(n, raw)
			refs = append(refs, elemRef{off: at, n: len(raw)})
		}
		return ok
	})
	if !ok || !w.atEnd() {
		return nil, 0, false // more after the array, or the file changed
	}
	return refs, line, true
}

// readElem reads the bytes of element ref again.
func (s *source) readElem(ref elemRef) ([]byte, error) {
	b := make([]byte, ref.n)
	if err := readFullAt(s.ra, b, ref.off); err != nil {
		return nil, err
	}
	return b, nil
}

// readFullAt fills b from ra at off; the file ending first is
// io.ErrUnexpectedEOF.
func readFullAt(ra io.ReaderAt, b []byte, off int64) error {
	if n, err := ra.ReadAt(b, off); n < len(b) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	return nil
}

// spanStream is the second pass over a streamed span array: it builds
// the records span by span, in the plan's order, re-reading each span
// that needs more than its plan says.
type spanStream struct {
	src     *source
	refs    []elemRef
	line    int64 // where the array starts (every span's position line)
	plan    spanPlan
	opt     Options
	decode  func(pos ingest.Pos, raw []byte) *tspan
	build   func(s *tspan, rec *ingest.Record)
	wrapper func(outer *tspan) string
	n       int // records yielded
}

// next returns the next record; nil at the end, with the read error that
// ended the input early, if any.
func (st *spanStream) next() (*ingest.Record, error) {
	if st.n >= len(st.plan.order) {
		return nil, nil
	}
	i := int(st.plan.order[st.n])
	st.n++
	pos := st.src.pos(unit{line: st.line, index: i}, "")
	flags := st.plan.flags[i]
	switch {
	case flags&lightErr == 0 && flags&lightCall == 0:
		return skip(pos, st.plan.strs[st.plan.skip[i]]), nil
	case flags&(lightErr|lightWrapped) == lightWrapped:
		return skip(pos, st.wrapper(nil)), nil
	}
	raw, err := st.src.readElem(st.refs[i])
	if err != nil {
		st.n = len(st.plan.order)
		return nil, fmt.Errorf("%s: %w", st.src.name, err)
	}
	s := st.decode(pos, raw)
	s.order = i
	if (s.err != nil) != (flags&lightErr != 0) || s.err == nil && !s.call {
		st.n = len(st.plan.order)
		return nil, fmt.Errorf("%s: the file changed between its two readings (%s)", st.src.name, pos)
	}
	return spanRecords([]*tspan{s}, st.plan.ancestors(i), st.opt, st.build)[0].rec, nil
}

// Any document input the source can read at offsets (a regular file, or
// input spooled to a temporary file: see sized) is read in two passes
// too, whatever its format: planUnits scans it once through the window,
// keeping only each unit's place, and next re-reads the units one at a
// time. An input with any problem (not JSON, invalid UTF-8, a value the
// strict scanner refuses) is left to the whole-document path, so that
// records and messages are the same either way; a unit over the size
// limit is read past without being kept and reported at its position.

// unitRef locates one unit of a document input: its offset and length
// in the file, the line of its document, its index in a top-level array
// (-1: a document), and, for a unit over the limit, its length (n is then
// 0: it is not read again).
type unitRef struct {
	off   int64
	n     int
	line  int64
	index int
	long  int64
}

// planUnits is the first pass over a document input read at offsets:
// it splits the input into units as splitDocsFast does (a top-level array
// gives its elements) and keeps their places in s.refs; false, with
// nothing consumed, when the input is no such input or has a problem.
// Then s.whole is what decide needs to refuse an input larger than the
// limit rather than read it whole.
func (s *source) planUnits() bool {
	w, _ := s.open()
	if w == nil {
		return false
	}
	if w.skip() == '{' {
		line := w.lines + 1
		n, ok := w.skipValue()
		if !ok {
			// Broken: the whole-document path says where.
			s.whole = wholeInput{line: line, bad: true}
			return false
		}
		if w.skip() == 0 {
			// One object is the whole input (a Phoenix page, a Langfuse
			// trace, an OTLP document): one unit, read whole as before, at
			// its size, unless it is over the limit (the readers that take
			// it apart hold what they need of it anyway).
			s.whole = wholeInput{line: line, size: n}
			return false
		}
	}
	w, _ = s.open()
	var refs []unitRef
	ndocs := 0
	fail := func() bool {
		s.whole = wholeInput{line: w.lines + 1, bad: true, refs: refs, multi: ndocs > 1}
		return false
	}
	for c := w.skip(); c != 0; c = w.skip() {
		if c != '{' && c != '[' {
			return fail()
		}
		line := w.lines + 1
		ndocs++
		if c == '{' {
			ref, ok := w.unit(0, s.max)
			if !ok {
				return fail()
			}
			ref.line, ref.index = line, -1
			refs = append(refs, ref)
			continue
		}
		ok := w.elems(0, func(n int) bool {
			ref, ok := w.unit(1, s.max)
			if ok {
				ref.line, ref.index = line, n
				refs = append(refs, ref)
			}
			return ok
		})
		if !ok {
			return fail()
		}
	}
	if w.base+int64(w.i) != w.size {
		return false // a read error, or the file changed
	}
	s.refs, s.multi, s.mode, s.done, s.planned = refs, ndocs > 1, modeDocs, true, true
	return true
}

// wholeInput is what planUnits found of an input it did not plan, for
// decide, which reads such an input whole only up to the limit: its
// first document's line and size when it is one object; else, when it
// has a problem (bad), where the problem's unit starts and the units
// before it.
type wholeInput struct {
	line  int64
	size  int64
	bad   bool
	refs  []unitRef
	multi bool
}

// refuseWhole ends an input that is read whole (see decide) and is
// larger than the limit, without reading it: the units planUnits placed
// before a problem are read, then the problem is reported where its unit
// starts; an input that is one document is reported at its line.
func (s *source) refuseWhole() {
	wh := s.whole
	s.mode, s.done = modeDocs, true
	pos := ingest.Pos{File: s.name, Kind: ingest.PosLine, N: max(wh.line, 1)}
	var err *ingest.SyntaxError
	switch {
	case wh.bad:
		s.refs, s.multi = wh.refs, wh.multi
		err = ingest.Errorf(pos, "JSON from here on is not read: it is not valid JSON objects or arrays, and the input (%d bytes) is larger than the %d-byte limit (--max-line) for reading it whole to say where", s.size, s.max)
	case wh.size > 0:
		err = ingest.Errorf(pos, "document of %d bytes is larger than the %d-byte limit (--max-line): skipped", wh.size, s.max)
	default:
		err = ingest.Errorf(pos, "JSON input of %d bytes is larger than the %d-byte limit (--max-line) for an input read whole: skipped", s.size, s.max)
	}
	s.tail = &unit{line: pos.N, index: -1, err: err}
}

// unit moves past the value at w.i (at depth), which must be valid JSON
// and UTF-8, and returns its place. A value over max bytes is read past
// without being held: its length is long. false when the value is not
// valid, or the file ends inside it.
func (w *window) unit(depth, max int) (unitRef, bool) {
	off := w.base + int64(w.i)
	for {
		if end := strictValue(w.buf, w.i, depth); end >= 0 && (end < len(w.buf) || w.base+int64(end) >= w.size) {
			raw := w.buf[w.i:end]
			if !utf8.Valid(raw) {
				return unitRef{}, false
			}
			w.lines += int64(bytes.Count(raw, []byte{'\n'}))
			w.i = end
			if len(raw) > max {
				return unitRef{off: off, long: int64(len(raw))}, true
			}
			return unitRef{off: off, n: len(raw)}, true
		}
		if len(w.buf)-w.i > max {
			n, ok := w.skipValue()
			// A value that ends within max bytes is one the strict
			// scanner refused.
			return unitRef{off: off, long: n}, ok && n > int64(max)
		}
		if !w.more() {
			return unitRef{}, false
		}
	}
}

// skipValue reads past the object, array or string at w.i without
// holding it (see jsonend), counting its newlines; its length, and false
// when the file ends first or the value is another kind.
func (w *window) skipValue() (int64, bool) {
	off := w.base + int64(w.i)
	if c := w.buf[w.i]; c != '{' && c != '[' && c != '"' {
		return 0, false
	}
	var end jsonend.Scanner
	for {
		n := end.Feed(w.buf[w.i:])
		stop := len(w.buf)
		if n >= 0 {
			stop = w.i + n
		}
		w.lines += int64(bytes.Count(w.buf[w.i:stop], []byte{'\n'}))
		w.i = stop
		if n >= 0 {
			return w.base + int64(w.i) - off, true
		}
		if !w.more() {
			return 0, false
		}
	}
}

// readUnit returns the next planned unit, read again; a unit over the
// limit is its error. false on a read error (s.err), which ends the input.
func (s *source) readUnit() (unit, bool) {
	ref := s.refs[0]
	s.refs = s.refs[1:]
	u := unit{line: ref.line, index: ref.index}
	if ref.long > 0 {
		pos := s.pos(u, "")
		u.err = ingest.Errorf(pos, "item of %d bytes is larger than the %d-byte limit (--max-line): skipped", ref.long, s.max)
		return u, true
	}
	raw, err := s.readAhead(ref)
	if err != nil {
		s.refs, s.err = nil, fmt.Errorf("%s: %w", s.name, err)
		return unit{}, false
	}
	u.raw = raw
	return u, true
}

// unitBlock is how much readAhead reads at a time: the planned units
// that follow ref and fit in it are read with it, in one ReadAt, rather
// than one read each (3,000 reads of 3.7 KB items cost more than their
// records' decoding on this kind of machine).
var unitBlock = 1 << 20

// readAhead returns the bytes of ref, the unit just taken from s.refs.
// When s.reuse says the reader is done with a unit's bytes once it asks
// for the next, ref is read together with the units after it that end
// within unitBlock bytes of its start, into one buffer used again and
// again; else ref is read alone into a buffer of its own (a unit a
// reader keeps must not hold a block of others).
func (s *source) readAhead(ref unitRef) ([]byte, error) {
	if !s.reuse {
		return s.readElem(elemRef{off: ref.off, n: ref.n})
	}
	if b := s.block; ref.off >= s.blockOff && ref.off+int64(ref.n) <= s.blockOff+int64(len(b)) {
		i := ref.off - s.blockOff
		return b[i : i+int64(ref.n) : i+int64(ref.n)], nil
	}
	end := ref.off + int64(ref.n)
	for _, r := range s.refs {
		if r.long > 0 {
			continue
		}
		if r.off < end || r.off+int64(r.n)-ref.off > int64(unitBlock) {
			break
		}
		end = r.off + int64(r.n)
	}
	b := s.block
	if n := int(end - ref.off); cap(b) >= n {
		b = b[:n]
	} else {
		b = make([]byte, n)
	}
	if err := readFullAt(s.ra, b, ref.off); err != nil {
		return nil, err
	}
	s.block, s.blockOff = b, ref.off
	return b[:ref.n:ref.n], nil
}
