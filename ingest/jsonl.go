package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/killswitch/killswitch/internal/jsonsimd"
	"github.com/valyala/fastjson"
)

// JSONLOptions configures a JSONL reader. The zero value reads the capture
// record of SPEC §3 and per-call completion logs, detected per line.
type JSONLOptions struct {
	// Agent, when set, is the agent id of every record (the mapping flag).
	Agent string
	// MaxLine bounds a line's length in bytes (0: DefaultMaxLine). A longer
	// line is a malformed item (its position and length reported) and is
	// read past without being kept, so memory stays bounded whatever the
	// input (/dev/zero, a gigabyte of whitespace).
	MaxLine int
	// Size is the input's size in bytes when known (a regular file read
	// as it is), else 0: the reader's buffer is no larger than it needs,
	// so that a small capture (a check's, a one-line replay) does not
	// cost a MiB of buffer to clear and fault in.
	Size int64
}

// DefaultMaxLine is the longest line a JSONL reader keeps: 64 MiB, far
// above any real LLM call.
const DefaultMaxLine = 64 << 20

// JSONLReader reads one capture record per line. Lines may be of any
// length; blank lines are ignored; the input may be gzip or zstd
// compressed (see Decompress, which the caller applies). Memory does not
// grow with the file. A record's Request and Response alias the reader's
// buffer: they are valid until the next Scan (see Reader), or, once Hold
// has covered the record, until that Held is released (see Holder).
//
// Two line shapes are recognised:
//   - the capture record (SPEC §3): ts, agent, request, response, …, or a
//     control record with "event";
//   - a per-call completion log (LiteLLM's completion logging, as OpenHands
//     writes it): messages, tools, response, timestamp (Unix seconds),
//     latency_sec, cost, and the agent in kwargs.extra_body.metadata.tags
//     as "agent:NAME" (else metadata.agent_id / user, else "default").
type JSONLReader struct {
	lb     lineBuf
	name   string
	opt    JSONLOptions
	line   int64
	rec    *Record
	err    error
	buf    []byte
	kw     fastjson.Parser
	long   int64    // the length of the line just read past, when over MaxLine
	chunks [][]byte // a long line's fragments while it is read
	held   bool     // Hold was called: a long line's buffer is never reused
	pool   *recordPool
	free   []*Record // records to reuse, once held
	since  []*Record // once held: the records returned since the last Hold
}

// NewJSONL returns a reader of r, whose records name their position as
// name:line.
func NewJSONL(r io.Reader, name string, opt JSONLOptions) *JSONLReader {
	if opt.MaxLine <= 0 {
		opt.MaxLine = DefaultMaxLine
	}
	size := 1 << 20
	if m, ok := r.(interface{ Len() int }); ok && m.Len() < size {
		// Bytes in memory (a bytes.Buffer, bytes.Reader or strings.Reader:
		// one document's record at a time, from the document readers):
		// a buffer their size, not a MiB per record.
		size = max(m.Len()+1, 16)
	} else if opt.Size > 0 && opt.Size < int64(size) {
		size = max(int(opt.Size)+1, 16)
	}
	return &JSONLReader{lb: newLineBuf(r, size, opt.MaxLine), name: name, opt: opt}
}

// InputSize is the input's size in bytes when known (JSONLOptions.Size),
// else 0 (see Sized).
func (r *JSONLReader) InputSize() int64 { return r.opt.Size }

// Buffered is how many bytes of the input are read and not yet returned
// as records (see Holder).
func (r *JSONLReader) Buffered() int { return r.lb.w - r.lb.r }

// Hold keeps the records returned since the previous Hold valid until
// h.Release (see Holder).
func (r *JSONLReader) Hold(h *Held) {
	if r.pool == nil {
		r.pool = &recordPool{}
	}
	r.held = true
	r.lb.hold(h)
	h.pool = r.pool
	h.recs = append(h.recs, r.since...)
	clear(r.since)
	r.since = r.since[:0]
}

// newRecord returns a zero record: a released one once records are held,
// else a new one.
func (r *JSONLReader) newRecord() *Record {
	if len(r.free) == 0 && r.pool != nil {
		r.free = r.pool.take(r.free)
	}
	if n := len(r.free); n > 0 {
		rec := r.free[n-1]
		r.free[n-1] = nil
		r.free = r.free[:n-1]
		*rec = Record{}
		return rec
	}
	return new(Record)
}

// Scan advances to the next record.
func (r *JSONLReader) Scan() bool {
	if r.err != nil {
		return false
	}
	for {
		line, err := r.readLine()
		if err != nil {
			if err != io.EOF {
				r.err = fmt.Errorf("%s:%d: %w", r.name, r.line+1, err)
			}
			return false
		}
		r.line++
		if r.line == 1 {
			line = bytes.TrimPrefix(line, utf8BOM) // a byte order mark, as Windows tools write it
		}
		if r.long > 0 {
			pos := Pos{File: r.name, N: r.line}
			r.rec = &Record{Pos: pos, Err: Errorf(pos, "line of %d bytes is longer than the %d-byte limit (--max-line): skipped", r.long, r.opt.MaxLine)}
			r.long = 0
		} else if len(bytes.TrimSpace(line)) == 0 {
			continue
		} else {
			r.rec = r.parse(line)
		}
		if r.held {
			r.since = append(r.since, r.rec)
		}
		return true
	}
}

// Record returns the current record.
func (r *JSONLReader) Record() *Record { return r.rec }

// Err returns the I/O error that ended the stream, if any.
func (r *JSONLReader) Err() error { return r.err }

// Lines returns how many lines have been read.
func (r *JSONLReader) Lines() int64 { return r.line }

// readLine returns the next line without its terminator. The line aliases
// the reader's buffers: it is valid until the next call.
func (r *JSONLReader) readLine() ([]byte, error) {
	frag, err := r.lb.readSlice()
	if err == nil || (err == io.EOF && len(frag) > 0) {
		if n := len(frag); n > r.opt.MaxLine {
			// Longer than the limit though it fitted the buffer (a
			// --max-line below the buffer's size): skipped alike.
			if frag[n-1] == '\n' {
				n--
			}
			if n > r.opt.MaxLine {
				r.long = int64(n)
				return nil, nil
			}
		}
		return trimEOL(frag), nil
	}
	if err != bufio.ErrBufferFull {
		return nil, err
	}
	// A line longer than the buffer: keep its fragments (each copied once,
	// in chunks that never grow) and join them once at the end, so a long
	// line costs its length twice at most, never the garbage of a slice
	// grown by doubling; past MaxLine, read on without keeping anything.
	r.chunks = append(r.chunks[:0], append([]byte(nil), frag...))
	n := int64(len(frag))
	for {
		frag, err = r.lb.readSlice()
		n += int64(len(frag))
		if n > int64(r.opt.MaxLine) {
			clear(r.chunks)
			r.chunks = r.chunks[:0]
		} else {
			r.chunks = append(r.chunks, append([]byte(nil), frag...))
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		if n > int64(r.opt.MaxLine) {
			if len(frag) > 0 && frag[len(frag)-1] == '\n' {
				n--
			}
			r.long = n
			return nil, nil
		}
		if r.held || cap(r.buf) > 64<<20 || cap(r.buf) < int(n) {
			// Do not pin a huge buffer after a huge line; once records
			// are held, every long line gets a buffer of its own (the
			// collector frees it with the last record pointing into it).
			r.buf = make([]byte, 0, n)
		}
		r.buf = r.buf[:0]
		for _, c := range r.chunks {
			r.buf = append(r.buf, c...)
		}
		clear(r.chunks)
		r.chunks = r.chunks[:0]
		return trimEOL(r.buf), nil
	}
}

var utf8BOM = []byte("\xef\xbb\xbf")

func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
	}
	return b
}

func (r *JSONLReader) pos() Pos { return Pos{File: r.name, Kind: PosLine, N: r.line} }

func (r *JSONLReader) bad(format string, args ...any) *Record {
	return &Record{Pos: r.pos(), Err: Errorf(r.pos(), format, args...)}
}

// raw members of a line, by field.
type members struct {
	ts, agent, request, response, status, event, killSwitch, by   []byte
	id, provider, endpoint, model, tenant, apiKeyID, workflow     []byte
	session, latencyMS, tokensIn, tokensOut, costUSD, label       []byte
	messages, tools, timestamp, latencySec, cost, kwargs, metaRaw []byte
	prompt, input                                                 []byte
	eventType, agentID                                            []byte
	entity, reason, durationMin                                   []byte
}

func (r *JSONLReader) parse(line []byte) *Record {
	if !jsonsimd.ValidUTF8(line) {
		off := invalidUTF8Offset(line)
		return r.bad("invalid UTF-8 at byte %d", off+1)
	}
	var m members
	err := eachMember(line, func(key, val []byte) error {
		switch string(key) {
		case "ts":
			m.ts = val
		case "agent":
			m.agent = val
		case "request":
			m.request = val
		case "response":
			m.response = val
		case "status":
			m.status = val
		case "event":
			m.event = val
		case "kill_switch":
			m.killSwitch = val
		case "by", "deactivated_by":
			m.by = val
		case "id":
			m.id = val
		case "provider":
			m.provider = val
		case "endpoint":
			m.endpoint = val
		case "model":
			m.model = val
		case "tenant":
			m.tenant = val
		case "api_key_id":
			m.apiKeyID = val
		case "workflow":
			m.workflow = val
		case "session":
			m.session = val
		case "latency_ms":
			m.latencyMS = val
		case "tokens_in":
			m.tokensIn = val
		case "tokens_out":
			m.tokensOut = val
		case "cost_usd":
			m.costUSD = val
		case "label":
			m.label = val
		case "messages":
			m.messages = val
		case "tools":
			m.tools = val
		case "timestamp":
			m.timestamp = val
		case "latency_sec":
			m.latencySec = val
		case "cost":
			m.cost = val
		case "kwargs":
			m.kwargs = val
		case "metadata":
			m.metaRaw = val
		case "prompt":
			m.prompt = val
		case "input":
			m.input = val
		case "event_type":
			m.eventType = val
		case "agent_id":
			m.agentID = val
		case "entity":
			m.entity = val
		case "reason":
			m.reason = val
		case "duration_minutes":
			m.durationMin = val
		}
		return nil
	})
	if err != nil {
		return r.bad("not a JSON object: %v", err)
	}
	if m.eventType != nil && m.request == nil && m.event == nil {
		return r.agentEvent(&m)
	}
	if m.request == nil && m.event == nil && (m.messages != nil || m.prompt != nil || m.input != nil) {
		return r.completionLog(&m)
	}
	return r.captureRecord(&m)
}

func invalidUTF8Offset(b []byte) int {
	for i := 0; i < len(b); {
		c, size := utf8.DecodeRune(b[i:])
		if c == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return 0
}

func (r *JSONLReader) captureRecord(m *members) *Record {
	rec := r.newRecord()
	rec.Pos, rec.Status = r.pos(), 200
	var err error
	if m.ts == nil {
		if m.timestamp != nil {
			// The record has a time, under a name the capture record does
			// not use: say which names are read where.
			return r.bad(`missing "ts" (looked for "ts"; "timestamp" is read only in a completion log, one with "messages", "prompt" or "input" and no "request", and in an exported agent_events row, one with "event_type")`)
		}
		return r.bad(`missing "ts"`)
	}
	if rec.TS, err = timeValue(m.ts); err != nil {
		return r.bad(`"ts": %v`, err)
	}
	if isFreezeEvent(m.event) {
		return r.freezeRecord(m, rec)
	}
	if m.event != nil {
		ev, err := stringValue(m.event)
		if err != nil {
			return r.bad(`"event": %v`, err)
		}
		c := &Control{By: "manual"}
		if ev == "kill_switch" {
			// A kill the live system made: a deactivation by the kill switch.
			c.Event, c.By = ControlDeactivate, "kill_switch"
		} else if c.Event, err = ParseControlEvent(ev); err != nil {
			// The event first: a typo'd "freez" is an unknown event, not
			// a record without an agent.
			return r.bad(`"event": unknown event: %s is not one of %s`, describe(m.event), knownEvents)
		}
		if rec.Agent, err = r.agentValue(m.agent); err != nil {
			return r.bad(`"agent": %v`, err)
		}
		if m.by != nil {
			if c.By, err = stringValue(m.by); err != nil {
				return r.bad(`"by": %v`, err)
			}
		}
		if m.killSwitch != nil && !isNull(m.killSwitch) {
			if c.KillSwitch, err = ParseKillSwitch(m.killSwitch); err != nil {
				return r.bad(`"kill_switch": %v`, err)
			}
		} else if c.Event == ControlConfig {
			return r.bad(`"event": "config" without a "kill_switch" object`)
		}
		if c.Event == ControlBreakerOpen || c.Event == ControlBreakerClose {
			if err := r.breakerControl(m, rec, c); err != nil {
				return r.bad("%v", err)
			}
		}
		rec.Control = c
		return rec
	}
	if r.opt.Agent != "" || m.agent != nil && !isNull(m.agent) {
		if rec.Agent, err = r.agentValue(m.agent); err != nil {
			return r.bad(`"agent": %v`, err)
		}
	}
	if m.request == nil || isNull(m.request) {
		return r.bad(`missing "request" (neither a capture record nor a control record with "event")`)
	}
	if rec.Request, err = bodyValue(m.request); err != nil {
		return r.bad(`"request": %v`, err)
	}
	if m.response != nil && !isNull(m.response) {
		if rec.Response, err = bodyValue(m.response); err != nil {
			return r.bad(`"response": %v`, err)
		}
	}
	rec.NoStatus = m.status == nil || isNull(m.status)
	if !rec.NoStatus {
		f, err := numberOf(m.status)
		if err != nil || f != math.Trunc(f) || f < 0 || f > 999 {
			return r.bad(`"status": not an HTTP status: %s`, describe(m.status))
		}
		rec.Status = int(f)
	}
	for _, s := range []struct {
		dst  *string
		raw  []byte
		name string
	}{
		{&rec.ID, m.id, "id"}, {&rec.Provider, m.provider, "provider"}, {&rec.Endpoint, m.endpoint, "endpoint"},
		{&rec.Model, m.model, "model"}, {&rec.Tenant, m.tenant, "tenant"}, {&rec.APIKeyID, m.apiKeyID, "api_key_id"},
		{&rec.Workflow, m.workflow, "workflow"}, {&rec.Session, m.session, "session"},
	} {
		if s.raw == nil {
			continue
		}
		if *s.dst, err = memberValue(s.name, s.raw); err != nil {
			return r.bad(`"%s": %v`, s.name, err)
		}
	}
	if rec.Agent == "" {
		// A gateway's calls are keyed by tenant and API key: the tenant
		// stands in for a missing agent, as in a freeze record.
		if rec.Tenant == "" {
			return r.bad(`"agent": missing (give --agent to name the agent of every record; a record with a "tenant" and no "agent" is the tenant's)`)
		}
		rec.Agent = rec.Tenant
	}
	if m.latencyMS != nil && !isNull(m.latencyMS) {
		f, err := numberOf(m.latencyMS)
		if err != nil || f < 0 {
			return r.bad(`"latency_ms": not a duration in milliseconds: %s`, describe(m.latencyMS))
		}
		rec.LatencyMS, rec.HasLatency = int64(f), true
	}
	if m.tokensIn != nil || m.tokensOut != nil {
		for _, t := range []struct {
			dst  *int64
			raw  []byte
			name string
		}{{&rec.TokensIn, m.tokensIn, "tokens_in"}, {&rec.TokensOut, m.tokensOut, "tokens_out"}} {
			if t.raw == nil || isNull(t.raw) {
				continue
			}
			f, err := numberOf(t.raw)
			if err != nil || f < 0 || f != math.Trunc(f) {
				return r.bad(`"%s": not a token count: %s`, t.name, describe(t.raw))
			}
			*t.dst, rec.HasTokens = int64(f), true
		}
	}
	if m.costUSD != nil && !isNull(m.costUSD) {
		f, err := numberOf(m.costUSD)
		if err != nil || f < 0 || math.IsInf(f, 0) {
			return r.bad(`"cost_usd": not a cost: %s`, describe(m.costUSD))
		}
		rec.CostUSD, rec.HasCost = f, true
	}
	if m.label != nil && !isNull(m.label) {
		s, err := stringValue(m.label)
		if err == nil {
			rec.Label, err = ParseLabel(s)
		}
		if err != nil {
			return r.bad(`"label": %v`, err)
		}
	}
	return rec
}

// numberOf is numberValue with a fast path for a plain decimal (see
// decimalValue), as a capture's numbers nearly always are: a record's
// status, latency, tokens and cost are read for every request.
func numberOf(raw []byte) (float64, error) {
	if f, ok := decimalValue(raw); ok {
		return f, nil
	}
	return numberValue(raw)
}

// decimalValue reads a plain decimal ([-]digits[.digits], at most 15
// digits) as strconv.ParseFloat does, without its general parse: the
// digits make an integer below 2^53 and the scale is a power of ten up to
// 10^15, both exact in a float64, so their quotient is the correctly
// rounded value ParseFloat returns (its own exact fast path). Anything
// else (an exponent, a numeric string, more digits): ok is false.
func decimalValue(raw []byte) (f float64, ok bool) {
	neg := len(raw) > 0 && raw[0] == '-'
	if neg {
		raw = raw[1:]
	}
	var m uint64
	digits, frac, dot := 0, 0, false
	for _, c := range raw {
		switch {
		case c >= '0' && c <= '9':
			m = 10*m + uint64(c-'0')
			digits++
			if dot {
				frac++
			}
		case c == '.' && !dot:
			dot = true
		default:
			return 0, false
		}
	}
	if digits == 0 || digits > 15 || dot && frac == 0 {
		return 0, false
	}
	f = float64(m) / exactPow10[frac]
	if neg {
		f = -f
	}
	return f, true
}

// exactPow10 are the powers of ten a float64 holds exactly, up to 10^15.
var exactPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// knownEvents are the values of a control record's "event".
const knownEvents = "activate, deactivate, config, kill_switch, breaker_open, breaker_close, freeze, unfreeze"

func (r *JSONLReader) agentValue(raw []byte) (string, error) {
	if r.opt.Agent != "" {
		return r.opt.Agent, nil
	}
	if raw == nil || isNull(raw) {
		return "", errors.New(`missing (give --agent to name the agent of every record)`)
	}
	s, err := keyValue(raw)
	if err != nil {
		return "", err
	}
	if s == "" {
		return "", errors.New("empty agent id")
	}
	return s, nil
}

// timeValue reads a ts member: an RFC 3339 string or Unix seconds/ms.
func timeValue(raw []byte) (t time.Time, err error) {
	if len(raw) > 0 && raw[0] == '"' {
		if len(raw) >= 2 && bytes.IndexByte(raw[1:len(raw)-1], '\\') < 0 {
			// unquote's result without its copy: ParseTimeString keeps
			// nothing of s, so a short string(…) stays on the stack.
			return ParseTimeString(string(raw[1 : len(raw)-1]))
		}
		s, err := unquote(raw)
		if err != nil {
			return t, err
		}
		return ParseTimeString(s)
	}
	if isNull(raw) {
		return t, errors.New("is null")
	}
	f, err := numberOf(raw)
	if err != nil {
		return t, fmt.Errorf("not a time: %s", describe(raw))
	}
	return UnixNumber(f)
}

// bodyValue returns a body member's bytes: a JSON object or array as its
// exact bytes, a JSON string as its decoded text (a raw body).
func bodyValue(raw []byte) ([]byte, error) {
	switch raw[0] {
	case '{', '[':
		return raw, nil
	case '"':
		s, err := unquote(raw)
		if err != nil {
			return nil, err
		}
		return []byte(s), nil
	}
	return nil, fmt.Errorf("want a JSON object or a string holding the body, got %s", describe(raw))
}

// ParseKillSwitch parses a kill_switch settings object
// {"enabled": bool, "window_size": int, "threshold": number}. Unknown keys
// are errors, so that a typo never passes silently.
func ParseKillSwitch(raw []byte) (KillSwitchPatch, error) {
	var p KillSwitchPatch
	v, err := fastjson.ParseBytes(raw)
	if err != nil {
		return p, errors.New(NotJSON(raw))
	}
	o, err := v.Object()
	if err != nil {
		return p, errors.New("not an object")
	}
	o.Visit(func(k []byte, v *fastjson.Value) {
		if err != nil {
			return
		}
		switch string(k) {
		case "enabled":
			b, e := v.Bool()
			if e != nil {
				err = fmt.Errorf("enabled: want true or false")
				return
			}
			p.Enabled = &b
		case "window_size":
			n, e := v.Int()
			if e != nil || n < 1 || n > 100000 {
				err = fmt.Errorf("window_size: want an integer from 1 to 100000, got %s", v)
				return
			}
			p.WindowSize = &n
		case "threshold":
			f, e := v.Float64()
			if e != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
				err = fmt.Errorf("threshold: want a number ≥ 0, got %s", v)
				return
			}
			p.Threshold = &f
		default:
			err = fmt.Errorf("unknown key %q (want enabled, window_size, threshold)", k)
		}
	})
	return p, err
}

// completionLog maps a per-call completion log line (LiteLLM's completion
// logging shape, as written by OpenHands) to a record: the request body is
// rebuilt from its request-side members, byte for byte.
func (r *JSONLReader) completionLog(m *members) *Record {
	rec := r.newRecord()
	rec.Pos, rec.Status = r.pos(), 200
	var err error
	switch {
	case m.timestamp != nil:
		rec.TS, err = timeValue(m.timestamp)
	case m.ts != nil:
		rec.TS, err = timeValue(m.ts)
	default:
		return r.bad(`completion log without "timestamp"`)
	}
	if err != nil {
		return r.bad(`"timestamp": %v`, err)
	}
	var req bytes.Buffer
	req.WriteByte('{')
	add := func(k string, v []byte) {
		if v == nil {
			return
		}
		if req.Len() > 1 {
			req.WriteByte(',')
		}
		req.WriteString(`"` + k + `":`)
		req.Write(v)
	}
	add("model", m.model)
	add("messages", m.messages)
	add("prompt", m.prompt)
	add("input", m.input)
	add("tools", m.tools)
	req.WriteByte('}')
	rec.Request = req.Bytes()
	if m.response != nil && !isNull(m.response) {
		if rec.Response, err = bodyValue(m.response); err != nil {
			return r.bad(`"response": %v`, err)
		}
	}
	if m.latencySec != nil && !isNull(m.latencySec) {
		if f, err := numberOf(m.latencySec); err == nil && f >= 0 {
			rec.LatencyMS, rec.HasLatency = int64(math.Round(f*1000)), true
		}
	}
	if m.cost != nil && !isNull(m.cost) {
		if f, err := numberOf(m.cost); err == nil && f >= 0 {
			rec.CostUSD, rec.HasCost = f, true
		}
	}
	if m.model != nil {
		rec.Model, _ = stringValue(m.model)
	}
	rec.Agent = r.opt.Agent
	if rec.Agent == "" {
		rec.Agent = r.completionAgent(m)
	}
	return rec
}

// completionAgent finds the agent of a completion log: a tag "agent:NAME"
// in kwargs.extra_body.metadata.tags, else metadata agent_id, user_id or
// session_id, else "default".
func (r *JSONLReader) completionAgent(m *members) string {
	look := func(meta *fastjson.Value) string {
		if meta == nil {
			return ""
		}
		for _, t := range meta.GetArray("tags") {
			if s := string(t.GetStringBytes()); strings.HasPrefix(s, "agent:") && len(s) > 6 {
				return s[6:]
			}
		}
		for _, k := range []string{"agent_id", "user_api_key_end_user_id", "session_id", "user_id"} {
			if s := meta.GetStringBytes(k); len(s) > 0 {
				return string(s)
			}
		}
		return ""
	}
	if m.kwargs != nil {
		if v, err := r.kw.ParseBytes(m.kwargs); err == nil {
			if a := look(v.Get("extra_body", "metadata")); a != "" {
				return a
			}
			if a := look(v.Get("metadata")); a != "" {
				return a
			}
		}
	}
	if m.metaRaw != nil {
		if v, err := r.kw.ParseBytes(m.metaRaw); err == nil {
			if a := look(v); a != "" {
				return a
			}
		}
	}
	return "default"
}

// agentEvent reads a row of the live system's agent_events table (SPEC
// §4.2: agent_id, event_type, timestamp, …) exported as JSON: a
// "kill_switch" event is a kill the live system made, read as a
// deactivation by the kill switch (ground truth for sweeps); other event
// types are not requests and are skipped with their type as the reason.
func (r *JSONLReader) agentEvent(m *members) *Record {
	typ, err := stringValue(m.eventType)
	if err != nil {
		return r.bad(`"event_type": %v`, err)
	}
	if typ != "kill_switch" {
		return &Record{Pos: r.pos(), Skip: fmt.Sprintf("agent event %q is not a request", typ)}
	}
	rec := &Record{Pos: r.pos(), Control: &Control{Event: ControlDeactivate, By: "kill_switch"}}
	raw := m.timestamp
	if raw == nil {
		raw = m.ts
	}
	if raw == nil {
		return r.bad(`kill_switch event without "timestamp"`)
	}
	if rec.TS, err = timeValue(raw); err != nil {
		return r.bad(`"timestamp": %v`, err)
	}
	agent := m.agentID
	if agent == nil {
		agent = m.agent
	}
	if rec.Agent, err = r.agentValue(agent); err != nil {
		return r.bad(`"agent_id": %v`, err)
	}
	return rec
}
