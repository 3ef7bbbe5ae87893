package logs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/killswitch/killswitch/ingest"
)

// The foreign formats are read into generic trees (encoding/json with
// UseNumber: map[string]any, []any, string, json.Number, bool, nil): they
// are not the replay's hot path, and their bodies are rebuilt anyway.
// Trees are written back with marshal, which sorts object keys, so output
// never depends on map order.

type obj = map[string]any

// decodeTree parses one JSON value. Invalid UTF-8 is an error (encoding/json
// would replace it silently). Valid input takes the fast parser (see
// jsonscan.go); the rest decodeTreeStd, which says what is wrong.
func decodeTree(raw []byte) (any, error) {
	if off := invalidUTF8(raw); off >= 0 {
		return nil, fmt.Errorf("invalid UTF-8 at byte %d", off+1)
	}
	if !fastJSON {
		return decodeTreeStd(raw)
	}
	if v, ok := fastTree(raw); ok {
		return v, nil
	}
	return decodeTreeStd(raw)
}

// decodeTreeStd parses one JSON value of valid UTF-8 with encoding/json:
// the reference fastTree is tested against, and the source of every
// syntax error's message.
func decodeTreeStd(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("truncated JSON: the value ends after %d bytes", len(raw))
		}
		return nil, jsonError(err)
	}
	if rest := skipSpace(raw, int(dec.InputOffset())); rest < len(raw) {
		return nil, fmt.Errorf("unexpected data after the JSON value at byte %d", rest+1)
	}
	return v, nil
}

// jsonError rewords encoding/json's errors with their byte offsets.
func jsonError(err error) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("invalid JSON at byte %d: %v", se.Offset, se)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return errors.New("truncated JSON: unexpected end of input")
	}
	return err
}

// marshal writes v as compact JSON with object keys sorted and without
// HTML escaping. Trees and the bodies of chat.go are written by
// appendJSON (marshalfast.go), byte for byte as encoding/json writes
// them; anything else by marshalStd.
func marshal(v any) []byte {
	if fastJSON {
		// Written into a reused buffer, then copied at its size.
		bp := marshalBufs.Get().(*[]byte)
		defer marshalBufs.Put(bp)
		b, ok := appendJSON((*bp)[:0], v)
		*bp = b
		if ok {
			return bytes.Clone(b)
		}
	}
	return marshalStd(v)
}

var marshalBufs = sync.Pool{New: func() any { return new([]byte) }}

// marshalStd is marshal with encoding/json: the reference appendJSON is
// tested against.
func marshalStd(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only unsupported Go values fail, and trees hold none.
		panic("logs: marshal: " + err.Error())
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}

// get walks object members by key; nil when any step is missing.
func get(v any, keys ...string) any {
	for _, k := range keys {
		o, ok := v.(obj)
		if !ok {
			return nil
		}
		v = o[k]
	}
	return v
}

// str returns v when it is a string, else "".
func str(v any) string {
	s, _ := v.(string)
	return s
}

// firstStr returns the first non-empty string among vs.
func firstStr(vs ...any) string {
	for _, v := range vs {
		if s := str(v); s != "" {
			return s
		}
	}
	return ""
}

// number returns v as a float when it is a JSON number or a numeric string.
func number(v any) (float64, bool) {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = string(x)
	case string:
		s = strings.TrimSpace(x)
	default:
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// count returns v as a token count: a non-negative whole number.
func count(v any) (int64, bool) {
	f, ok := number(v)
	if !ok || f < 0 || f != math.Trunc(f) || f > 1e15 {
		return 0, false
	}
	return int64(f), true
}

// cost returns v as a cost in USD: a non-negative number.
func cost(v any) (float64, bool) {
	f, ok := number(v)
	if !ok || f < 0 {
		return 0, false
	}
	return f, true
}

// isEmpty reports an absent value: null, "", {} or [].
func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return strings.TrimSpace(x) == ""
	case obj:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}

// maybeJSON returns the value a string holds when it is a JSON object or
// array (logging libraries often store structures serialized), else v.
func maybeJSON(v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	t := strings.TrimSpace(s)
	if len(t) < 2 || (t[0] != '{' && t[0] != '[') {
		return v
	}
	d, err := decodeTree([]byte(t))
	if err != nil {
		return v
	}
	return d
}

// kind names the JSON type of v for messages.
func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case obj:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}

// timeOf reads a timestamp: a string (RFC 3339, LiteLLM's zone-less UTC
// form, or Unix seconds/milliseconds as text) or a number of Unix seconds
// or milliseconds.
func timeOf(v any) (time.Time, error) {
	switch x := v.(type) {
	case string:
		return ingest.ParseTimeString(x)
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return time.Time{}, fmt.Errorf("not a time: %s", x)
		}
		return ingest.UnixNumber(f)
	case nil:
		return time.Time{}, errors.New("is null")
	}
	return time.Time{}, fmt.Errorf("not a time: %s", kind(v))
}

// latencyMS returns end − start in milliseconds when both are times and
// end is not before start.
func latencyMS(start time.Time, end any) (int64, bool) {
	if end == nil {
		return 0, false
	}
	t, err := timeOf(end)
	if err != nil || t.Before(start) {
		return 0, false
	}
	return t.Sub(start).Round(time.Millisecond).Milliseconds(), true
}

// clip shortens s for a message or a skip reason.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + "…"
}

// scrub removes, in place and at every depth, the object members of v that
// may hold a credential, and returns v. A member goes when its name
// (lower-cased) contains authorization, api_key, api-key, apikey, secret,
// password, access_token, private_key, credential or cookie; inside objects
// named like metadata or headers, any member whose name contains "key"
// goes too (LiteLLM's user_api_key_*, x-api-key, …). Values are not
// inspected: a secret pasted into message text is the user's text.
func scrub(v any, inMeta bool) any {
	switch x := v.(type) {
	case obj:
		for k, e := range x {
			n := strings.ToLower(k)
			if secretName(n) || (inMeta && strings.Contains(n, "key")) {
				delete(x, k)
				continue
			}
			scrub(e, inMeta || metaName(n))
		}
	case []any:
		for _, e := range x {
			scrub(e, inMeta)
		}
	}
	return v
}

func secretName(n string) bool {
	for _, s := range [...]string{"authorization", "api_key", "api-key", "apikey", "secret",
		"password", "access_token", "private_key", "credential", "cookie"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

func metaName(n string) bool {
	return strings.Contains(n, "metadata") || strings.Contains(n, "header")
}
