// Package ingest turns captures of LLM traffic (JSONL, HAR, Parquet and the
// log formats users already have) into Records: one type for every input
// format, each carrying its source position.
//
// Readers are shaped like bufio.Scanner:
//
//	for r.Scan() {
//		rec := r.Record()
//		if rec.Err != nil { … report rec.Err, count it, go on … }
//	}
//	if err := r.Err(); err != nil { … I/O error … }
//
// A malformed input item is a Record whose Err is a *SyntaxError naming its
// position; Err() is reserved for I/O failures that end the stream.
//
// # Formats
//
// OpenReader reads any registered format, compressed or not, from an
// io.Reader, and detects which one it is (see OpenReader for the order:
// the name's extension, then content sniffing, then JSONL as the
// fallback); Open does the same from a path or standard input. Each format is a Format value — name, extensions, sniffer,
// reader constructor — registered with Register; package ingest/formats
// registers them all, in one list, and commands import it. Nothing outside
// ingest knows a magic number or an extension.
//
// Where a new format goes: its reader in a subpackage (or in ingest/logs
// for one more JSON log schema), a Format value beside it
// (har.Format, pq.Format, logs.InputFormats), and one line in
// ingest/formats; place it before any format whose sniffer would also
// claim its content. Its reader yields Records like every other: a bad
// item is a Record with Err at its position, never an abort.
package ingest

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"
)

// PosKind says how a Pos counts.
type PosKind uint8

const (
	PosLine  PosKind = iota // 1-based line of a text file: "file:18"
	PosRow                  // 1-based row of a table: "file:row 18"
	PosEntry                // 0-based HAR entry index: "file:entries[3]"
	PosPath                 // a JSON path inside a document: "file:observations[2]"
)

// Pos is a record's source position.
type Pos struct {
	File string
	Kind PosKind
	N    int64  // line (1-based), row (1-based) or entry (0-based)
	Path string // for PosPath; for others an optional suffix ("response")
}

// String renders the position the way error messages and reports show it.
func (p Pos) String() string {
	return string(p.appendTo(nil, func(b []byte, s string) []byte { return append(b, s...) }))
}

// AppendJSONEscaped appends the position as String renders it, escaped
// for the inside of a JSON string (AppendJSONEscaped), without building
// the string: the separators and numbers need no escaping, and escaping
// the file and path apart gives the same bytes (an ASCII separator never
// continues a UTF-8 sequence).
func (p Pos) AppendJSONEscaped(b []byte) []byte { return p.appendTo(b, AppendJSONEscaped[string]) }

// appendTo appends the position to b, its file name and path through str.
func (p Pos) appendTo(b []byte, str func([]byte, string) []byte) []byte {
	switch p.Kind {
	case PosLine:
		b = strconv.AppendInt(append(str(b, p.File), ':'), p.N, 10)
	case PosRow:
		b = strconv.AppendInt(append(str(b, p.File), ":row "...), p.N, 10)
	case PosEntry:
		b = append(strconv.AppendInt(append(str(b, p.File), ":entries["...), p.N, 10), ']')
	case PosPath:
		return str(append(str(b, p.File), ':'), p.Path)
	}
	if p.Path != "" {
		b = str(append(b, ':'), p.Path)
	}
	return b
}

// SyntaxError is a malformed input item: its position and what is wrong.
type SyntaxError struct {
	Pos Pos
	Msg string
	Err error // the underlying cause, if any
}

func (e *SyntaxError) Error() string { return e.Pos.String() + ": " + e.Msg }
func (e *SyntaxError) Unwrap() error { return e.Err }

// Errorf builds a *SyntaxError at pos.
func Errorf(pos Pos, format string, args ...any) *SyntaxError {
	err := fmt.Errorf(format, args...)
	return &SyntaxError{Pos: pos, Msg: err.Error(), Err: errors.Unwrap(err)}
}

// Label is the ground truth a capture may carry for a request.
type Label uint8

const (
	LabelNone Label = iota
	LabelLoop
	LabelLegit
)

func (l Label) String() string {
	switch l {
	case LabelLoop:
		return "loop"
	case LabelLegit:
		return "legit"
	}
	return ""
}

// ParseLabel parses "loop" or "legit"; "" is LabelNone.
func ParseLabel(s string) (Label, error) {
	switch s {
	case "":
		return LabelNone, nil
	case "loop":
		return LabelLoop, nil
	case "legit":
		return LabelLegit, nil
	}
	return LabelNone, fmt.Errorf("a string of %d characters is neither \"loop\" nor \"legit\"", utf8.RuneCountInString(s))
}

// ControlEvent is what an operator did to an agent.
type ControlEvent uint8

const (
	ControlNone ControlEvent = iota
	ControlActivate
	ControlDeactivate
	ControlConfig
	ControlFreeze       // a gateway operator froze a tenant or an API key
	ControlUnfreeze     // … or unfroze it
	ControlBreakerOpen  // an operator opened an agent+workflow's circuit breaker for a while
	ControlBreakerClose // … or closed it
)

func (c ControlEvent) String() string {
	switch c {
	case ControlActivate:
		return "activate"
	case ControlDeactivate:
		return "deactivate"
	case ControlConfig:
		return "config"
	case ControlFreeze:
		return "freeze"
	case ControlUnfreeze:
		return "unfreeze"
	case ControlBreakerOpen:
		return "breaker_open"
	case ControlBreakerClose:
		return "breaker_close"
	}
	return "none"
}

// ParseControlEvent parses "activate", "deactivate", "config",
// "breaker_open" or "breaker_close".
func ParseControlEvent(s string) (ControlEvent, error) {
	switch s {
	case "breaker_open":
		return ControlBreakerOpen, nil
	case "breaker_close":
		return ControlBreakerClose, nil
	case "activate":
		return ControlActivate, nil
	case "deactivate":
		return ControlDeactivate, nil
	case "config":
		return ControlConfig, nil
	}
	return ControlNone, fmt.Errorf("a string of %d characters is not one of activate, deactivate, config, kill_switch, breaker_open, breaker_close", utf8.RuneCountInString(s))
}

// KillSwitchPatch is a partial kill-switch configuration: nil fields are left
// as they were. It is the "kill_switch" object of control records and of
// settings files.
type KillSwitchPatch struct {
	Enabled    *bool
	WindowSize *int
	Threshold  *float64
}

// Control is an operator action carried by a control record.
type Control struct {
	Event      ControlEvent
	By         string // who deactivated: "manual" (default) or "kill_switch" (a kill the live system made)
	KillSwitch KillSwitchPatch

	// Freeze and unfreeze (a gateway's tenant/key kill switch): Entity is
	// "tenant" or "key"; the record's Tenant and APIKeyID name it. Reason
	// is the operator's text (freeze_reason).
	Entity string
	Reason string

	// Duration is how long a breaker_open record keeps the breaker open
	// (duration_minutes).
	Duration time.Duration
}

// Record is one captured LLM call (or one control record), whatever the
// input format. Request and Response hold the provider bodies as raw bytes:
// the request JSON, and the response body text exactly as captured (a JSON
// document, or a whole text/event-stream). The Record owns its slices.
type Record struct {
	Pos Pos
	Err error // non-nil: a malformed item (a *SyntaxError); nothing else is set but Pos
	// Skip, when non-empty, says why a well-formed input item is not an LLM
	// call and yields no request (e.g. "not an LLM endpoint: GET /v1/models").
	// Skipped items are counted by reason; nothing else is set but Pos.
	Skip string

	TS    time.Time // UTC
	Agent string
	// AgentFrom, when set, says where a reader found Agent (trace exports:
	// "session.id", "user.id", "root span name", "trace id"), so that
	// inspect can tell how agents were told apart.
	AgentFrom string

	// Control is non-nil for control records, which carry no request.
	Control *Control

	Request  []byte // raw request body (JSON)
	Response []byte // raw response body text; nil when the capture has none
	Status   int    // HTTP status of the upstream answer; 200 when absent
	// NoStatus says the capture gave no status (absent or null; in HAR, no
	// response or status 0): Status then holds the default 200 (or the
	// HAR's 0), which the loop kill switch uses and the error-rate breaker
	// does not (it counts such a request as neither success nor error).
	NoStatus bool

	ID, Provider, Endpoint, Model, Tenant, APIKeyID, Workflow, Session string

	// Optional numbers; the Has* flags say whether the capture gave them.
	LatencyMS           int64
	TokensIn, TokensOut int64
	CostUSD             float64
	HasLatency          bool
	HasTokens           bool
	HasCost             bool

	Label Label
}

// Reader is a stream of records. JSONL, HAR and Parquet readers and the
// time-ordered merge of several readers all implement it.
type Reader interface {
	// Scan advances to the next record; false at the end or on an I/O error.
	Scan() bool
	// Record returns the current record. Its byte slices (Request,
	// Response) may alias the reader's buffers and are valid only until the
	// next Scan, as with bufio.Scanner: a caller that keeps a record past
	// that copies them (Record.CopyInto).
	Record() *Record
	// Err returns the I/O error that ended the stream, if any.
	Err() error
}

// A Sized reader knows how many bytes its input holds: InputSize is that
// size (the whole input's, read or not), or 0 when it is unknown (a pipe,
// a decompressed stream). The replay driver estimates from it how many
// records are left, to choose its default parallelism.
type Sized interface {
	Reader
	InputSize() int64
}

// CopyInto makes r own its byte slices by appending them to arena, and
// returns the grown arena. When arena lacks capacity the slices get a
// buffer of their own, so earlier records copied into arena stay valid.
func (r *Record) CopyInto(arena []byte) []byte {
	need := len(r.Request) + len(r.Response)
	if cap(arena)-len(arena) < need {
		own := make([]byte, 0, need)
		own = append(own, r.Request...)
		own = append(own, r.Response...)
		r.setBodies(own)
		return arena
	}
	start := len(arena)
	arena = append(arena, r.Request...)
	arena = append(arena, r.Response...)
	r.setBodies(arena[start:len(arena):len(arena)])
	return arena
}

func (r *Record) setBodies(b []byte) {
	n := len(r.Request)
	hasResp := r.Response != nil
	r.Request = b[:n:n]
	if hasResp {
		r.Response = b[n:]
	}
}

// FormatUUID writes 16 bytes in the 8-4-4-4-12 lower-case hex form of RFC
// 9562. b must hold at least 16 bytes.
func FormatUUID(b []byte) string {
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:36], b[10:16])
	return string(s[:])
}
