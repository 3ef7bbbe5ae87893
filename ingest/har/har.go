// Package har reads HAR 1.2 documents (browser DevTools exports, mitmproxy
// hardump, Polly.JS recordings) as ingest.Records, one per entry.
//
// The document is walked with encoding/json's Decoder down to log.entries
// and decoded one entry at a time, so memory does not grow with the number
// of entries; nor with one entry's size: the decoder never holds more than
// Options.MaxValue bytes of one value (an entry, or a member walked past
// on the way to log.entries) before it sees the value's end. A larger
// entry (a multi-gigabyte body string) is a malformed entry, read past
// without being kept; a larger value before or after log.entries refuses
// the rest of the document. Each entry becomes one Record positioned at
// "file:entries[i]" (0-based):
//
//   - an LLM call (POST with a JSON request body to a chat completions,
//     legacy completions, Responses, Anthropic Messages, Gemini
//     generateContent, Bedrock invoke or AgentGazer route endpoint on any
//     host, whose body has messages, prompt, input or contents) is a Record
//     with its request body, decoded response body text, time, status,
//     latency, agent, provider, endpoint and model;
//   - any other entry is a Record whose Skip says why
//     ("not an LLM call: GET https://host/v1/models");
//   - a malformed entry is a Record whose Err is an *ingest.SyntaxError.
//
// Record fields: TS from startedDateTime (UTC); Status from
// response.status (200 when absent; 0 as DevTools records a request that
// got no answer); LatencyMS from the entry's time, rounded to milliseconds;
// Request is the request body; Response is the body text as the client
// received it (base64 and Polly.JS chunk arrays decoded, gzip, deflate, br
// and zstd undone; an event stream kept verbatim); Endpoint is the URL path
// without the query; Provider is openai, anthropic, together, gemini,
// bedrock, the AgentGazer route's provider, or else the host name; Model is
// the request body's "model", else the model named in a Gemini or Bedrock
// path. The agent id is, in this order, Options.Agent, the AgentGazer route
// /agents/{agent}/{provider}/…, the agent header, else "default".
//
// No header value other than the agent header's and Content-Encoding's, no
// cookie, query string or URL user info ever reaches a Record, a Skip
// reason or an error message.
package har

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/internal/jsonend"
	"github.com/klauspost/compress/zstd"
)

// DefaultAgentHeader is the request header holding the agent id when
// Options.AgentHeader is empty.
const DefaultAgentHeader = "X-Agent-Id"

// MaxBodyBytes bounds a request or response body after decompression, in
// bytes; a larger body is a malformed entry, not an allocation.
const MaxBodyBytes = 64 << 20

// Options configures a Reader. The zero value derives the agent id from the
// URL route or the X-Agent-Id header, else "default".
type Options struct {
	// Agent, when set, is the agent id of every record (the mapping flag).
	Agent string
	// AgentHeader names the request header holding the agent id, matched
	// case-insensitively; "" means DefaultAgentHeader.
	AgentHeader string
	// MaxValue bounds one entry (or one value walked past outside
	// log.entries) in bytes, as the document holds it (0:
	// ingest.DefaultMaxLine, as --max-line bounds a JSONL line).
	MaxValue int
}

// state says where the walk through the document is.
type state uint8

const (
	stateStart   state = iota // before the top-level '{'
	stateEntries              // inside log.entries
	stateDone                 // nothing more to return
)

// Reader yields the entries of one HAR document as Records. It implements
// ingest.Reader. A document-level problem (not JSON, truncated, no
// log.entries) is reported as one last Record with an Err; a read error of
// the input (including a truncated or corrupt gzip/zstd/zlib container) ends
// the stream and is returned by Err.
type Reader struct {
	name  string
	opt   Options
	src   *sourceReader
	dec   *json.Decoder
	close func()
	state state
	n     int64 // index of the next entry
	// base is the offset in the document of the decoder's first byte
	// (see resync: a decoder restarted after an entry over MaxValue).
	base int64
	// pending is the record that ends the stream at the next Scan (an
	// entry over MaxValue that the document ends inside).
	pending *ingest.Record
	rec     *ingest.Record
	err     error
	zstd    *zstd.Decoder // created on first use by a zstd body
	gzip    *gzip.Reader  // reused by gzip bodies
}

// NewReader returns a Reader of the HAR document in r, whose records name
// their position as name:entries[i]. The input may be gzip, zstd or zlib
// compressed (a .zhar is zlib): it is sniffed by magic bytes. The Reader
// does not close r.
func NewReader(r io.Reader, name string, opt Options) *Reader {
	if opt.AgentHeader == "" {
		opt.AgentHeader = DefaultAgentHeader
	}
	if opt.MaxValue <= 0 {
		opt.MaxValue = ingest.DefaultMaxLine
	}
	hr := &Reader{name: name, opt: opt, close: func() {}}
	dr, _, closer, err := ingest.Decompress(r)
	if err != nil {
		hr.err = fmt.Errorf("%s: %w", name, err)
		hr.state = stateDone
		return hr
	}
	hr.close = closer
	hr.src = &sourceReader{r: dr, max: int64(opt.MaxValue), held: hr.held}
	hr.dec = json.NewDecoder(hr.src)
	return hr
}

// Scan advances to the next record; false at the end of the document or on
// a read error.
func (r *Reader) Scan() bool {
	r.rec = nil
	if r.pending != nil {
		bad := r.pending
		r.pending = nil
		return r.finish(bad)
	}
	switch r.state {
	case stateStart:
		if bad := r.findEntries(); bad != nil {
			return r.finish(bad)
		}
		r.state = stateEntries
		return r.Scan()
	case stateEntries:
		if r.dec.More() {
			return r.next()
		}
		if _, err := r.dec.Token(); err != nil { // the closing ']'
			return r.finish(r.entriesErr(err))
		}
		return r.finish(r.skipRest())
	}
	return false
}

// Record returns the current record; each Scan returns a new one.
func (r *Reader) Record() *ingest.Record { return r.rec }

// Err returns the read error that ended the stream, if any, prefixed with
// the file name.
func (r *Reader) Err() error { return r.err }

// Close releases decompressor resources early. Reaching the end of the
// stream does so too; Close may be called more than once.
func (r *Reader) Close() {
	r.state = stateDone
	r.close()
	r.close = func() {}
	if r.zstd != nil {
		r.zstd.Close()
		r.zstd = nil
	}
}

// finish ends the stream, returning bad as the last record if non-nil.
// A read error of the input takes the place of bad.
func (r *Reader) finish(bad *ingest.Record) bool {
	r.Close()
	if r.src != nil && r.src.err != nil {
		r.err = fmt.Errorf("%s: %w", r.name, r.src.err)
		return false
	}
	if bad == nil {
		return false
	}
	r.rec = bad
	return true
}

// next decodes entry r.n.
func (r *Reader) next() bool {
	i := r.n
	var raw json.RawMessage
	if err := r.dec.Decode(&raw); err != nil {
		switch {
		case errors.Is(err, errTooLarge):
			r.n++
			r.rec = r.docErr(entryPos(r.name, i), "entry is larger than the %d-byte limit (--max-line): read past, not kept", r.opt.MaxValue)
			if !r.resync() {
				r.pending = r.docErr(pathPos(r.name, "log.entries"), "HAR is truncated inside entries[%d]", i)
			}
			return true
		case err == io.EOF: // only white space after the last ','
			return r.finish(r.docErr(pathPos(r.name, "log.entries"), "HAR is truncated after %s", r.lastEntry()))
		case err == io.ErrUnexpectedEOF:
			return r.finish(r.docErr(entryPos(r.name, i), "HAR is truncated inside this entry"))
		}
		return r.finish(r.docErr(entryPos(r.name, i), "%s", r.jsonErr(err)))
	}
	r.n++
	r.rec = r.entry(i, raw)
	return true
}

// lastEntry names the last complete entry for truncation messages.
func (r *Reader) lastEntry() string {
	if r.n == 0 {
		return "the start of log.entries"
	}
	return fmt.Sprintf("entries[%d]", r.n-1)
}

// findEntries walks from the top of the document to the first element of
// log.entries. Members before log and before entries are skipped.
func (r *Reader) findEntries() *ingest.Record {
	logPos := pathPos(r.name, "log")
	if tok, err := r.dec.Token(); err == io.EOF {
		return r.docErr(logPos, "HAR is empty")
	} else if err != nil {
		return r.walkErr(logPos, err)
	} else if tok != json.Delim('{') {
		return r.walkErr(logPos, fmt.Errorf("the top level is %s, want an object", tokenKind(tok)))
	}
	if err := r.seekMember("log", "the top level"); err != nil {
		return r.walkErr(logPos, err)
	}
	if err := r.expectDelim("log", '{'); err != nil {
		return r.walkErr(logPos, err)
	}
	if err := r.seekMember("entries", "log"); err != nil {
		return r.walkErr(logPos, err)
	}
	if err := r.expectDelim("log.entries", '['); err != nil {
		return r.walkErr(pathPos(r.name, "log.entries"), err)
	}
	return nil
}

// walkErr describes a failure to reach log.entries: a truncation, a JSON
// syntax error, or a document that is not a HAR.
func (r *Reader) walkErr(pos ingest.Pos, err error) *ingest.Record {
	var se *json.SyntaxError
	switch {
	case errors.Is(err, errTooLarge):
		return r.docErr(pos, "HAR holds a value larger than the %d-byte limit (--max-line) before log.entries: not read", r.opt.MaxValue)
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return r.docErr(pos, "HAR is truncated before log.entries")
	case errors.As(err, &se):
		return r.docErr(pos, "%s", r.jsonErr(err))
	}
	return r.docErr(pos, "not a HAR document: %s", err)
}

// seekMember reads object members until the one named key, skipping the
// values of the others; it fails at the end of the object, named in.
func (r *Reader) seekMember(key, in string) error {
	for {
		tok, err := r.dec.Token()
		if err != nil {
			return err
		}
		k, ok := tok.(string)
		if !ok { // the closing '}'
			return fmt.Errorf("%s has no %q member", in, key)
		}
		if k == key {
			return nil
		}
		if err := r.skipValue(); err != nil {
			return err
		}
	}
}

// skipValue reads and drops one JSON value token by token.
func (r *Reader) skipValue() error {
	depth := 0
	for {
		tok, err := r.dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

// expectDelim reads one token, the value of what, and checks it is the
// delimiter want.
func (r *Reader) expectDelim(what string, want json.Delim) error {
	tok, err := r.dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("%s is %s, want %s", what, tokenKind(tok), kindOfDelim(want))
	}
	return nil
}

// skipRest reads the rest of the document after log.entries so that a
// truncated or corrupt tail is reported too.
func (r *Reader) skipRest() *ingest.Record {
	pos := pathPos(r.name, "log")
	for depth := 2; depth > 0; { // inside log and the top-level object
		tok, err := r.dec.Token()
		if errors.Is(err, errTooLarge) {
			return r.docErr(pos, "HAR holds a value larger than the %d-byte limit (--max-line) after log.entries: not read", r.opt.MaxValue)
		} else if err == io.EOF || err == io.ErrUnexpectedEOF {
			return r.docErr(pos, "HAR is truncated after log.entries")
		} else if err != nil {
			return r.docErr(pos, "after log.entries: %s", r.jsonErr(err))
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	switch _, err := r.dec.Token(); {
	case err == io.EOF:
		return nil
	case err == nil:
		return r.docErr(pos, "HAR has data after the end of the document")
	default:
		return r.docErr(pos, "after the end of the document: %s", r.jsonErr(err))
	}
}

// entriesErr describes a failure to read the ']' closing log.entries.
func (r *Reader) entriesErr(err error) *ingest.Record {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return r.docErr(pathPos(r.name, "log.entries"), "HAR is truncated after %s", r.lastEntry())
	}
	return r.docErr(pathPos(r.name, "log.entries"), "after %s: %s", r.lastEntry(), r.jsonErr(err))
}

func (r *Reader) docErr(pos ingest.Pos, format string, args ...any) *ingest.Record {
	return &ingest.Record{Pos: pos, Err: ingest.Errorf(pos, format, args...)}
}

func entryPos(name string, i int64) ingest.Pos {
	return ingest.Pos{File: name, Kind: ingest.PosEntry, N: i}
}

func pathPos(name, path string) ingest.Pos {
	return ingest.Pos{File: name, Kind: ingest.PosPath, Path: path}
}

// jsonErr renders a JSON syntax error of the document with the 1-based
// byte position of the offending character in the (decompressed) document.
// It never quotes more than one input character.
//
// The Decoder's own SyntaxError.Offset does not count the bytes consumed by
// Token, so the position is recomputed: a value that failed to decode is
// still buffered from its start and is scanned again on its own; an error
// at a delimiter leaves InputOffset at the offending character.
func (r *Reader) jsonErr(err error) string {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return "HAR is not valid JSON: " + err.Error()
	}
	at := r.base + r.dec.InputOffset() + 1
	if rest, rerr := io.ReadAll(r.dec.Buffered()); rerr == nil {
		var again *json.SyntaxError
		if errors.As(json.Unmarshal(rest, new(json.RawMessage)), &again) && again.Error() == se.Error() {
			at = r.base + r.dec.InputOffset() + again.Offset
		}
	}
	return fmt.Sprintf("HAR is not valid JSON at byte %d: %s", at, se.Error())
}

func tokenKind(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '[':
			return "an array"
		case '{':
			return "an object"
		}
		return fmt.Sprintf("%q", string(t))
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return "a value"
}

func kindOfDelim(d json.Delim) string {
	if d == '[' {
		return "an array"
	}
	return "an object"
}

// sourceReader remembers the first read error of the input other than
// io.EOF, so that a decompression failure is told apart from a truncated
// JSON document; and it refuses to read on (errTooLarge) when the decoder,
// asking for more, already holds max bytes of the value it is reading.
type sourceReader struct {
	r    io.Reader
	err  error
	n    int64        // bytes read
	max  int64        // 0: no bound
	held func() int64 // bytes read that the decoder has not consumed
}

// errTooLarge is the read error by which a value over MaxValue stops the
// decoder; it is reported as a malformed item, never as an I/O error.
var errTooLarge = errors.New("value over the size limit")

func (s *sourceReader) Read(p []byte) (int, error) {
	if s.max > 0 && s.held() >= s.max {
		return 0, errTooLarge
	}
	n, err := s.r.Read(p)
	s.n += int64(n)
	if err != nil && err != io.EOF && s.err == nil {
		s.err = err
	}
	return n, err
}

// held is how many of the bytes read the decoder holds unconsumed: the
// value it is reading, from its start (a decoder advances only past
// whole values and tokens), and what it read ahead.
func (r *Reader) held() int64 { return r.src.n - r.base - r.dec.InputOffset() }

// resync reads past the entry over MaxValue that the decoder stopped at
// (its bytes, from the entry's start, are the decoder's buffer, then the
// input), without keeping it, and a ',' after it; then restarts the
// decoder there, as if inside log.entries. false when the input ends
// first.
func (r *Reader) resync() bool {
	start := r.base + r.dec.InputOffset()
	br := bufio.NewReader(io.MultiReader(r.dec.Buffered(), r.src))
	max := r.src.max
	r.src.max = 0 // read past the entry without a bound: nothing is kept
	defer func() { r.src.max = max }()
	k, ok := skipJSONValue(br)
	if !ok {
		return false
	}
	for {
		c, err := br.ReadByte()
		if err != nil {
			break
		}
		k++
		if c == ',' {
			break
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			br.UnreadByte()
			k--
			break
		}
	}
	ahead, _ := br.Peek(br.Buffered())
	rest := io.MultiReader(strings.NewReader(reentry), bytes.NewReader(bytes.Clone(ahead)), r.src)
	// The restarted decoder reads reentry (the tokens down to inside
	// log.entries, so that the document's end reads as it would have),
	// then the document from offset start+k: its offsets are the
	// document's minus base.
	r.base = start + k - int64(len(reentry))
	r.dec = json.NewDecoder(rest)
	for range 5 {
		if _, err := r.dec.Token(); err != nil {
			return false
		}
	}
	return true
}

// reentry is what a restarted decoder reads before the rest of
// log.entries: 5 tokens.
const reentry = `{"log":{"entries":[`

// skipJSONValue reads past one object or array, keeping nothing; it
// returns the bytes read, and false when the input ends first.
func skipJSONValue(br *bufio.Reader) (int64, bool) {
	var k int64
	var end jsonend.Scanner
	for {
		buf, err := br.Peek(max(br.Buffered(), 1))
		if len(buf) == 0 {
			return k, false
		}
		if n := end.Feed(buf); n >= 0 {
			br.Discard(n)
			return k + int64(n), true
		}
		br.Discard(len(buf))
		k += int64(len(buf))
		if err != nil && br.Buffered() == 0 {
			return k, false
		}
	}
}

// invalidUTF8 returns the 0-based offset of the first invalid UTF-8
// sequence in b, or -1.
func invalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		c, size := utf8.DecodeRune(b[i:])
		if c == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}
