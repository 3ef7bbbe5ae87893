package logs

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"
	"unicode/utf8"

	"fmt"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/internal/jsonsimd"
	"strings"
)

// peekSize is how much of an input is looked at to choose between JSONL and
// documents: a first line longer than this is taken for a JSONL record (a
// pretty-printed document's first line is short).
const peekSize = 64 << 10

// unit is one item of an input: a JSONL line, a whole document, or an
// element of a top-level array.
type unit struct {
	line  int64  // 1-based line where the item starts
	index int    // element index in a top-level array; -1 when not an element
	raw   []byte // the item's JSON bytes; the unit owns them
	valid bool   // raw is known to be valid JSON (the strict scanner read it)
	err   *ingest.SyntaxError
}

type sourceMode uint8

const (
	modeUndecided sourceMode = iota
	modeLines
	modeDocs
)

// source splits an input into units (see the package doc, "Inputs").
type source struct {
	br    *bufio.Reader
	name  string
	mode  sourceMode
	line  int64 // lines read so far (JSONL mode)
	multi bool  // documents mode: the input holds more than one document
	// single is true in JSONL mode when the first non-blank line is the
	// only one: the input is one document, and paths need no line.
	single bool
	first  bool // the first non-blank line has been read
	pend   []unit
	done   bool
	err    error // the I/O error that ended the input
	size   int64 // the input's size when known (a regular file), else 0
	// ra reads the file at offsets when the input is a regular file read
	// as it is, or spooled (see scanArray, planUnits); else nil.
	ra io.ReaderAt
	// max is the longest item kept, in bytes (Options.MaxValue): a JSONL
	// line, an element of a top-level array, a document.
	max int
	// refs are the units left of a document input read at offsets (see
	// planUnits); planned says that planUnits took the input.
	refs    []unitRef
	planned bool
	// block holds the file's bytes from blockOff on: the units readAhead
	// read with the one it was asked for.
	block    []byte
	blockOff int64
	reuse    bool // a unit's bytes are not used after the next is read
	// whole is what planUnits found of an input it did not plan; tail,
	// when set, is the unit that follows the refs (an input refused
	// rather than read whole: see refuseWhole).
	whole wholeInput
	tail  *unit
	frags [][]byte // readLine's full buffers of a long line
}

// newSource returns the source of r; max is Options.MaxValue.
func newSource(r io.Reader, name string, max int) *source {
	if max <= 0 {
		max = ingest.DefaultMaxLine
	}
	s := &source{br: bufio.NewReaderSize(r, peekSize), name: name, max: max}
	if sr, ok := r.(sizedReader); ok {
		s.size, s.ra = sr.size, sr.ra
	}
	return s
}

// ioErr is err, the error that ended the input early (a read error, a
// truncated or corrupt compressed stream), named as a position: the line
// it struck when the input is read as lines, else the file. An error
// already naming the file is returned as it is.
func (s *source) ioErr(err error) error {
	if err == nil || strings.HasPrefix(err.Error(), s.name+":") {
		return err
	}
	if s.mode == modeLines {
		return fmt.Errorf("%s:%d: %w", s.name, s.line+1, err)
	}
	return fmt.Errorf("%s: %w", s.name, err)
}

// readAll reads the rest of the input, up to s.max bytes; into a buffer
// made at its size when the size is known. long is the input's length
// when it is longer: it is then read past, not kept.
func (s *source) readAll() (all []byte, long int64, err error) {
	if s.size <= 0 {
		all, err = io.ReadAll(io.LimitReader(s.br, int64(s.max)+1))
		if len(all) > s.max && err == nil {
			n, err := io.Copy(io.Discard, s.br)
			return nil, int64(len(all)) + n, err
		}
		return all, 0, err
	}
	var b bytes.Buffer
	b.Grow(int(min(s.size, math.MaxInt32)) + bytes.MinRead) // MinRead: room to see the end without growing
	_, err = b.ReadFrom(s.br)
	return b.Bytes(), 0, err
}

// decide chooses JSONL or documents. In documents mode it plans the
// units of an input it can read at offsets (planUnits), or else reads the
// whole input and queues its units: an input of more than s.max bytes is
// not read whole, but refused at its position (see refuseWhole).
func (s *source) decide() {
	if s.planUnits() {
		return
	}
	if !s.wholeDocs() {
		return
	}
	if s.size > int64(s.max) {
		s.refuseWhole()
		return
	}
	line := s.firstLine()
	all, long, err := s.readAll()
	if err != nil {
		s.err, s.done = err, true
		return
	}
	if long > 0 {
		s.size, s.whole = long, wholeInput{line: line}
		s.refuseWhole()
		return
	}
	all = bytes.TrimPrefix(all, bom)
	units, ndocs, derr := splitDocs(s.name, all)
	if derr != nil && looksLikeJSONL(all) {
		// A JSONL file with a broken line: read it line by line.
		s.br = bufio.NewReaderSize(bytes.NewReader(all), peekSize)
		s.mode = modeLines
		return
	}
	if derr != nil {
		units = append(units, unit{index: -1, err: derr})
	}
	s.mode = modeDocs
	s.pend = units
	s.multi = ndocs > 1
	s.done = true
}

// firstLine is the line where the input's first value starts, as far as
// its head shows (1 past a blank head).
func (s *source) firstLine() int64 {
	head, _ := s.br.Peek(peekSize)
	h := bytes.TrimPrefix(head, bom)
	return int64(bytes.Count(h[:skipSpace(h, 0)], []byte{'\n'})) + 1
}

// wholeDocs looks at the head of the input and reports whether it is to
// be read whole as documents; when not, it sets the mode (JSONL) or ends
// the input (blank, or an I/O error). Nothing is consumed.
func (s *source) wholeDocs() bool {
	head, err := s.br.Peek(peekSize)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		if len(head) == 0 {
			s.err, s.done = err, true
			return false
		}
	}
	full := len(head) < peekSize // head is the whole input
	h := bytes.TrimPrefix(head, bom)
	i := skipSpace(h, 0)
	if i == len(h) {
		if full {
			s.done = true // empty or blank input
		}
		s.mode = modeLines
		return false
	}
	if h[i] == '[' {
		return true // a top-level array, one line or many (see isDocument)
	}
	nl := bytes.IndexByte(h[i:], '\n')
	if nl < 0 && !full {
		s.mode = modeLines // a first line longer than the window
		return false
	}
	first := h[i:]
	if nl >= 0 {
		first = h[i : i+nl]
	}
	if json.Valid(bytes.TrimSpace(first)) {
		s.mode = modeLines
		return false
	}
	return true
}

var bom = []byte("\xef\xbb\xbf")

// looksLikeJSONL reports whether the first and the last non-blank line of b
// both begin with '{' (a pretty-printed document ends with a line "}").
func looksLikeJSONL(b []byte) bool {
	t := bytes.TrimSpace(b)
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	last := t[bytes.LastIndexByte(t, '\n')+1:]
	last = bytes.TrimSpace(last)
	return len(last) > 0 && last[0] == '{'
}

// next returns the next unit; false at the end or on an I/O error (s.err).
func (s *source) next() (unit, bool) {
	for {
		if len(s.pend) > 0 {
			u := s.pend[0]
			s.pend[0] = unit{}
			s.pend = s.pend[1:]
			return u, true
		}
		if len(s.refs) > 0 {
			return s.readUnit()
		}
		if s.tail != nil {
			u := *s.tail
			s.tail = nil
			return u, true
		}
		if s.done {
			return unit{}, false
		}
		switch s.mode {
		case modeUndecided:
			s.decide()
		case modeLines:
			line, long, err := s.readLine()
			if len(line) == 0 && long == 0 && err != nil {
				if err != io.EOF {
					s.err = err
				}
				s.done = true
				continue
			}
			if err != nil && err != io.EOF {
				s.err, s.done = err, true
				continue
			}
			s.line++
			if long > 0 {
				if !s.first {
					s.first = true
					s.single = s.restIsBlank()
				}
				pos := ingest.Pos{File: s.name, Kind: ingest.PosLine, N: s.line}
				s.pend = []unit{{line: s.line, index: -1, err: ingest.Errorf(pos, "line of %d bytes is longer than the %d-byte limit (--max-line): skipped", long, s.max)}}
				continue
			}
			if s.line == 1 {
				line = bytes.TrimPrefix(line, bom)
			}
			line = bytes.TrimSpace(line)
			if len(line) == 0 {
				continue
			}
			if !s.first {
				s.first = true
				s.single = s.restIsBlank()
			}
			s.pend = s.expand(line, s.line)
		default:
			s.done = true
		}
	}
}

// readLine reads the next line, with its '\n', as bufio.Reader.ReadBytes
// does (a line longer than the buffer is kept in full fragments, joined
// once); a line longer than s.max is read past without being kept: long
// is its length (without the '\n'). A line that holds a top-level array is
// not bounded: its elements are the items (see expand).
func (s *source) readLine() (line []byte, long int64, err error) {
	var n int64
	array := false
	s.frags = s.frags[:0]
	for {
		frag, err := s.br.ReadSlice('\n')
		if n == 0 {
			t := bytes.TrimLeft(bytes.TrimPrefix(frag, bom), " \t\r")
			array = len(t) > 0 && t[0] == '['
		}
		n += int64(len(frag))
		keep := n <= int64(s.max)+1 || array
		if err == bufio.ErrBufferFull {
			if keep {
				s.frags = append(s.frags, bytes.Clone(frag))
			} else {
				clear(s.frags)
				s.frags = s.frags[:0]
			}
			continue
		}
		if l := n - int64(len(frag)-len(bytes.TrimSuffix(frag, []byte{'\n'}))); !keep || l > int64(s.max) && !array {
			clear(s.frags)
			return nil, l, err
		}
		line = make([]byte, 0, n)
		for _, f := range s.frags {
			line = append(line, f...)
		}
		clear(s.frags)
		return append(line, frag...), 0, err
	}
}

// restIsBlank reports whether nothing but white space is left to read
// (looking at most peekSize bytes ahead).
func (s *source) restIsBlank() bool {
	for n := 1; ; n *= 2 {
		n = min(n, peekSize)
		b, err := s.br.Peek(n)
		if skipSpace(b, 0) < len(b) {
			return false
		}
		if err != nil {
			return err == io.EOF
		}
		if n == peekSize {
			return false
		}
	}
}

// expand returns the units of one JSONL line: the line itself, or the
// elements of a top-level array.
func (s *source) expand(line []byte, n int64) []unit {
	if !jsonsimd.ValidUTF8(line) {
		pos := ingest.Pos{File: s.name, Kind: ingest.PosLine, N: n}
		return []unit{{line: n, index: -1, err: ingest.Errorf(pos, "invalid UTF-8 at byte %d", invalidUTF8(line)+1)}}
	}
	if line[0] != '[' {
		return []unit{{line: n, index: -1, raw: line}}
	}
	var units []unit
	err := eachElement(line, func(i int, el []byte) {
		units = append(units, unit{line: n, index: i, raw: el})
	})
	if err != nil {
		pos := ingest.Pos{File: s.name, Kind: ingest.PosLine, N: n}
		units = append(units, unit{line: n, index: -1, err: ingest.Errorf(pos, "%v", jsonError(err))})
	}
	return units
}

// splitDocs splits an input read whole into its documents (a top-level
// array gives one unit per element) and counts the documents. The error, if
// any, is where the JSON stops making sense; the units before it are
// returned.
func splitDocs(name string, all []byte) (units []unit, ndocs int, _ *ingest.SyntaxError) {
	if off := invalidUTF8(all); off >= 0 {
		line, col := lineCol(all, off)
		return nil, 0, ingest.Errorf(ingest.Pos{File: name, Kind: ingest.PosLine, N: line},
			"invalid UTF-8 at column %d", col)
	}
	if units, ndocs, ok := splitDocsFast(all); ok && fastJSON {
		return units, ndocs, nil
	}
	return splitDocsStd(name, all)
}

// splitDocsFast splits valid input as splitDocsStd does, with the strict
// scanner; false when the input is not a sequence of JSON objects and
// arrays (other top-level values, an error), left to splitDocsStd.
func splitDocsFast(all []byte) (units []unit, ndocs int, ok bool) {
	line, counted := int64(1), 0 // line of offset counted
	for i := skipSpace(all, 0); i < len(all); i = skipSpace(all, i) {
		if all[i] != '{' && all[i] != '[' {
			return nil, 0, false
		}
		end := strictValue(all, i, 0)
		if end < 0 {
			return nil, 0, false
		}
		line += int64(bytes.Count(all[counted:i], []byte{'\n'}))
		counted = i
		raw := all[i:end:end]
		if raw[0] == '[' {
			for j, el := range arrayElements(raw) {
				units = append(units, unit{line: line, index: j, raw: el, valid: true})
			}
		} else {
			units = append(units, unit{line: line, index: -1, raw: raw, valid: true})
		}
		ndocs++
		i = end
	}
	return units, ndocs, true
}

// arrayElements returns the elements of a JSON array the scanner
// accepted (each capped: appending to one copies it).
func arrayElements(b []byte) [][]byte {
	var els [][]byte
	for i := skipSpace(b, 1); b[i] != ']'; {
		end := strictValue(b, i, 1)
		els = append(els, b[i:end:end])
		if i = skipSpace(b, end); b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return els
}

// splitDocsStd is splitDocs with encoding/json, for input the fast
// scanner does not take: it says where the JSON stops making sense.
func splitDocsStd(name string, all []byte) (units []unit, ndocs int, _ *ingest.SyntaxError) {
	dec := json.NewDecoder(bytes.NewReader(all))
	line, counted := int64(1), 0 // line of offset counted
	for ; ; ndocs++ {
		start := skipSpace(all, int(dec.InputOffset()))
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			return units, ndocs, nil
		}
		if err != nil {
			// A syntax error's offset counts the bytes read up to and
			// including the bad one.
			off, msg := len(all), "truncated JSON: unexpected end of input"
			var se *json.SyntaxError
			if errors.As(err, &se) {
				off, msg = int(se.Offset)-1, se.Error()
			} else if !errors.Is(err, io.ErrUnexpectedEOF) {
				msg = err.Error()
			}
			line, col := lineCol(all, off)
			return units, ndocs + 1, ingest.Errorf(ingest.Pos{File: name, Kind: ingest.PosLine, N: line},
				"invalid JSON at column %d: %s", col, msg)
		}
		line += int64(bytes.Count(all[counted:start], []byte{'\n'}))
		counted = start
		if len(raw) > 0 && raw[0] == '[' {
			_ = eachElement(raw, func(i int, el []byte) {
				units = append(units, unit{line: line, index: i, raw: el})
			})
			continue
		}
		units = append(units, unit{line: line, index: -1, raw: raw})
	}
}

// eachElement calls fn with the bytes of each element of the JSON array b
// (valid UTF-8).
func eachElement(b []byte, fn func(i int, el []byte)) error {
	if end := strictValue(b, 0, 0); fastJSON && len(b) > 0 && b[0] == '[' && end >= 0 && skipSpace(b, end) == len(b) {
		for i, el := range arrayElements(b) {
			fn(i, el)
		}
		return nil
	}
	return eachElementStd(b, fn)
}

// eachElementStd is eachElement with encoding/json, whose errors say what
// is wrong.
func eachElementStd(b []byte, fn func(i int, el []byte)) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		return err
	}
	for i := 0; dec.More(); i++ {
		var el json.RawMessage
		if err := dec.Decode(&el); err != nil {
			return err
		}
		fn(i, el)
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	if rest := skipSpace(b, int(dec.InputOffset())); rest < len(b) {
		return errors.New("unexpected data after the JSON array at byte " + strconv.Itoa(rest+1))
	}
	return nil
}

// lineCol returns the 1-based line and column (in bytes) of offset off.
func lineCol(b []byte, off int) (int64, int) {
	off = min(max(off, 0), len(b))
	line := int64(bytes.Count(b[:off], []byte{'\n'})) + 1
	return line, off - (bytes.LastIndexByte(b[:off], '\n') + 1) + 1
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// invalidUTF8 returns the offset of the first invalid UTF-8 byte, or -1.
func invalidUTF8(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		c, size := utf8.DecodeRune(b[i:])
		if c == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

// pos returns the position of a unit, or of the item at path sub inside it
// (see the package doc, "Positions").
func (s *source) pos(u unit, sub string) ingest.Pos {
	path := ""
	if u.index >= 0 {
		path = "[" + strconv.Itoa(u.index) + "]"
	}
	if sub != "" {
		if path != "" {
			path += "."
		}
		path += sub
	}
	if path == "" {
		return ingest.Pos{File: s.name, Kind: ingest.PosLine, N: u.line}
	}
	if s.mode == modeLines && !s.single || s.multi {
		path = strconv.FormatInt(u.line, 10) + ":" + path
	}
	return ingest.Pos{File: s.name, Kind: ingest.PosPath, N: u.line, Path: path}
}
