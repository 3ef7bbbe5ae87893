// Package gatewaylog reads an export of a live LLM gateway's call log —
// AgenticVerz M22's proxy_calls table — as JSONL, CSV or Parquet rows, so
// that every call can be decided again and compared with what the gateway
// recorded.
//
// A Reader is shaped like bufio.Scanner: a bad row is a Call whose Err is
// an *ingest.SyntaxError naming its position (file:line for JSONL, file:row
// N for CSV and Parquet); Err() is only for I/O failures.
//
// Columns read (others, such as id or model, are ignored):
//
//	created_at             required: RFC 3339, PostgreSQL's "2026-03-01 10:00:00+00", or Unix seconds
//	tenant_id              required
//	api_key_id             optional (NULL: none)
//	request_json           required: the chat body, as JSON text (or, in JSONL, as a JSON object)
//	response_json          optional
//	status_code            required: what the gateway answered
//	was_blocked            required: true/false (t/f in PostgreSQL's CSV)
//	block_reason           optional (NULL: none)
//	policy_decisions_json  optional: the guardrail decisions as JSON text; NULL is not compared
//	input_tokens, output_tokens  optional: what the upstream call used (budgets under the spec profile)
package gatewaylog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/killswitch/killswitch/ingest"
)

// Call is one row of the export: the call as a capture record (Rec: the
// time, tenant, key, request and response; Rec.Status is the upstream
// status, 200 when the gateway refused the call and the upstream never
// answered) and what the gateway recorded for it. A Call owns its slices.
type Call struct {
	Pos ingest.Pos
	Err error // a bad row (*ingest.SyntaxError); nothing else is set but Pos

	Rec ingest.Record

	Status      int    // status_code: what the gateway answered
	Blocked     bool   // was_blocked
	BlockReason string // block_reason; "" is NULL
	// Decisions is policy_decisions_json as recorded; nil when NULL or
	// absent (then not compared).
	Decisions []byte
}

// Reader is a stream of calls.
type Reader interface {
	Scan() bool
	Call() *Call
	Err() error
}

// Columns are the column names the readers know, in the order of the
// package comment.
var Columns = []string{"created_at", "tenant_id", "api_key_id", "request_json", "response_json",
	"status_code", "was_blocked", "block_reason", "policy_decisions_json", "input_tokens", "output_tokens"}

// required are the columns every row must have.
var required = []string{"created_at", "tenant_id", "request_json", "status_code", "was_blocked"}

// value is one column's value in a row, whatever the format: text (CSV,
// a JSON string, a Parquet byte array), a number, a boolean, a time, or
// raw JSON (a JSONL object or array), or null.
type value struct {
	null   bool
	text   string
	isText bool
	num    float64
	isNum  bool
	b      bool
	isBool bool
	t      time.Time
	isTime bool
	raw    []byte // JSON object or array
	kind   string // how messages name a value of the wrong type
}

// build converts one row's columns into a Call at pos. Every problem makes
// the Call a bad row naming the column.
func build(pos ingest.Pos, get func(col string) (value, bool)) *Call {
	c := &Call{Pos: pos}
	bad := func(format string, args ...any) *Call {
		return &Call{Pos: pos, Err: ingest.Errorf(pos, format, args...)}
	}
	for _, col := range required {
		if v, ok := get(col); !ok || v.null {
			return bad("%s: missing (a proxy_calls export needs %s)", col, strings.Join(required, ", "))
		}
	}
	rec := &c.Rec
	rec.Pos = pos
	// created_at
	v, _ := get("created_at")
	switch {
	case v.isTime:
		rec.TS = v.t.UTC()
	case v.isText:
		t, err := parseTime(v.text)
		if err != nil {
			return bad("created_at: %v", err)
		}
		rec.TS = t
	case v.isNum:
		t, err := ingest.UnixNumber(v.num)
		if err != nil {
			return bad("created_at: %v", err)
		}
		rec.TS = t
	default:
		return bad("created_at: want a time, got %s", v.kind)
	}
	var err error
	text := func(col string, required bool) (string, *Call) {
		v, ok := get(col)
		if !ok || v.null {
			return "", nil
		}
		if !v.isText {
			return "", bad("%s: want text, got %s", col, v.kind)
		}
		if required && v.text == "" {
			return "", bad("%s: empty", col)
		}
		return v.text, nil
	}
	var b *Call
	if rec.Tenant, b = text("tenant_id", true); b != nil {
		return b
	}
	if rec.APIKeyID, b = text("api_key_id", false); b != nil {
		return b
	}
	if c.BlockReason, b = text("block_reason", false); b != nil {
		return b
	}
	rec.Agent = rec.Tenant
	body := func(col string) ([]byte, *Call) {
		v, ok := get(col)
		switch {
		case !ok || v.null:
			return nil, nil
		case v.raw != nil:
			return v.raw, nil
		case v.isText:
			return []byte(v.text), nil
		}
		return nil, bad("%s: want JSON text, got %s", col, v.kind)
	}
	if rec.Request, b = body("request_json"); b != nil {
		return b
	}
	if rec.Response, b = body("response_json"); b != nil {
		return b
	}
	if c.Decisions, b = body("policy_decisions_json"); b != nil {
		return b
	}
	if c.Decisions != nil && !json.Valid(c.Decisions) {
		return bad("policy_decisions_json: not JSON")
	}
	v, _ = get("status_code")
	n, err := integer(v)
	if err != nil || n < 100 || n > 599 {
		if err == nil {
			err = fmt.Errorf("%d is not an HTTP status", n)
		}
		return bad("status_code: %v", err)
	}
	c.Status = int(n)
	v, _ = get("was_blocked")
	if c.Blocked, err = boolean(v); err != nil {
		return bad("was_blocked: %v", err)
	}
	for i, col := range []string{"input_tokens", "output_tokens"} {
		v, ok := get(col)
		if !ok || v.null {
			continue
		}
		n, err := integer(v)
		if err != nil || n < 0 {
			if err == nil {
				err = fmt.Errorf("%d is negative", n)
			}
			return bad("%s: %v", col, err)
		}
		rec.HasTokens = true
		if i == 0 {
			rec.TokensIn = n
		} else {
			rec.TokensOut = n
		}
	}
	// The upstream status: the recorded one when the gateway forwarded the
	// call; a refused call never reached it.
	rec.Status = c.Status
	if c.Blocked {
		rec.Status = 200
	}
	return c
}

// parseTime reads created_at as text: what ingest.ParseTimeString reads,
// and PostgreSQL's timestamptz output, whose zone may be an hour alone
// ("+00", "-05").
func parseTime(s string) (time.Time, error) {
	t, err := ingest.ParseTimeString(s)
	if err == nil {
		return t, nil
	}
	s = strings.TrimSpace(s)
	for _, layout := range []string{"2006-01-02 15:04:05.999999999Z07", "2006-01-02T15:04:05.999999999Z07"} {
		if t, e := time.Parse(layout, s); e == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, err
}

func integer(v value) (int64, error) {
	switch {
	case v.isNum:
		if v.num != math.Trunc(v.num) || math.Abs(v.num) > 1<<53 {
			return 0, fmt.Errorf("%v is not a whole number", v.num)
		}
		return int64(v.num), nil
	case v.isText:
		n, err := strconv.ParseInt(strings.TrimSpace(v.text), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("a text of %d bytes is not a whole number", len(v.text))
		}
		return n, nil
	}
	return 0, fmt.Errorf("want a whole number, got %s", v.kind)
}

func boolean(v value) (bool, error) {
	switch {
	case v.isBool:
		return v.b, nil
	case v.isText:
		switch strings.ToLower(strings.TrimSpace(v.text)) {
		case "t", "true", "1", "yes", "y":
			return true, nil
		case "f", "false", "0", "no", "n":
			return false, nil
		}
		return false, fmt.Errorf("a text of %d bytes is neither true nor false", len(v.text))
	case v.isNum && (v.num == 0 || v.num == 1):
		return v.num == 1, nil
	}
	return false, fmt.Errorf("want true or false, got %s", v.kind)
}

// Sniff names the format of an export from its first bytes: "parquet"
// (the PAR1 magic), "jsonl" (a JSON object first), else "csv".
func Sniff(head []byte) string {
	if bytes.HasPrefix(head, []byte("PAR1")) {
		return "parquet"
	}
	head = bytes.TrimLeft(head, " \t\r\n\uFEFF")
	if bytes.HasPrefix(head, []byte("\xef\xbb\xbf")) {
		head = head[3:]
	}
	if len(head) > 0 && head[0] == '{' {
		return "jsonl"
	}
	if len(head) > 0 && head[0] == '[' {
		return "json"
	}
	return "csv"
}

// ReadAll reads every call of r.
func ReadAll(r Reader) ([]*Call, error) {
	var out []*Call
	for r.Scan() {
		out = append(out, r.Call())
	}
	return out, r.Err()
}
