package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/killswitch/killswitch/internal/jsonsimd"
)

// This file is a minimal scanner over one JSON object: it yields the raw
// bytes of each top-level member's value without decoding nested values, so
// that a request or response body can be handed on as the exact bytes the
// capture holds. Nested values are checked only for balanced brackets and
// terminated strings; their full validation happens where they are parsed.

var errUnexpectedEnd = errors.New("unexpected end of JSON")

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i] == '"'.
func skipString(b []byte, i int) (int, error) {
	k := jsonsimd.StringEnd(b[i+1:])
	if k < 0 {
		return 0, fmt.Errorf("unterminated string starting at byte %d", i+1)
	}
	return i + k + 2, nil
}

// skipValue returns the index just past the JSON value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errUnexpectedEnd
	}
	switch c := b[i]; c {
	case '"':
		return skipString(b, i)
	case '{', '[':
		if jsonsimd.Enabled {
			if n := jsonsimd.SkipContainer(b[i:]); n > 0 {
				return i + n, nil
			}
			// Not closed within b, or a backslash outside strings: the
			// loop below finds the error, or makes sense of it.
		}
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, err := skipString(b, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, errUnexpectedEnd
	default:
		j := i
		for j < len(b) {
			c := b[j]
			if c == ',' || c == '}' || c == ']' || isSpace(c) {
				break
			}
			j++
		}
		if j == i {
			return 0, fmt.Errorf("unexpected character %q at byte %d", c, i+1)
		}
		lit := b[i:j]
		switch string(lit) {
		case "true", "false", "null":
		default:
			if end, ok := SkipJSONNumber(lit, 0); !ok || end != len(lit) {
				return 0, fmt.Errorf("invalid literal of %d bytes at byte %d", len(lit), i+1)
			}
		}
		return j, nil
	}
}

// eachMember calls fn with the raw key (without quotes, still escaped) and
// the raw value bytes of every member of the object that b holds.
func eachMember(b []byte, fn func(key, val []byte) error) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		if i < len(b) && b[i] == '[' {
			return fmt.Errorf("line is a JSON array (%d bytes): JSONL holds one record per line (jq -c '.[]' writes an array's elements so)", len(b))
		}
		if i < len(b) {
			return fmt.Errorf("line is not a JSON object (%d bytes, not starting with '{')", len(b))
		}
		return errUnexpectedEnd
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return checkTrailing(b, i+1)
	}
	for {
		if i >= len(b) {
			return errUnexpectedEnd
		}
		if b[i] != '"' {
			return fmt.Errorf("expected a member name at byte %d", i+1)
		}
		end, err := skipString(b, i)
		if err != nil {
			return err
		}
		key := b[i+1 : end-1]
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return fmt.Errorf("expected ':' after member %q", truncate(key, 40))
		}
		i = skipSpace(b, i+1)
		vend, err := skipValue(b, i)
		if err != nil {
			return fmt.Errorf("member %q: %w", truncate(key, 40), err)
		}
		if err := fn(key, b[i:vend]); err != nil {
			return err
		}
		i = skipSpace(b, vend)
		if i >= len(b) {
			return errUnexpectedEnd
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return checkTrailing(b, i+1)
		default:
			return fmt.Errorf("expected ',' or '}' at byte %d", i+1)
		}
	}
}

func checkTrailing(b []byte, i int) error {
	if i = skipSpace(b, i); i < len(b) {
		return fmt.Errorf("unexpected data after the JSON object at byte %d", i+1)
	}
	return nil
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// unquote decodes a raw JSON string value (with its quotes).
func unquote(raw []byte) (string, error) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", fmt.Errorf("not a string: %s", describe(raw))
	}
	in := raw[1 : len(raw)-1]
	if bytes.IndexByte(in, '\\') < 0 {
		return string(in), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", err
	}
	return s, nil
}

// stringValue decodes a string member, accepting null as "".
func stringValue(raw []byte) (string, error) {
	if string(raw) == "null" {
		return "", nil
	}
	return unquote(raw)
}

// keyValue decodes a string member that names what a kill switch keys on
// (agent, tenant, API key, workflow), accepting null as "". A lone UTF-16
// surrogate escape ("\ud800") is refused: it decodes to U+FFFD, so
// "\ud800" and "\udbff" would name one key where the live system (a
// JavaScript or Python service) sees two.
func keyValue(raw []byte) (string, error) {
	if err := LoneSurrogateError(raw); err != nil {
		return "", err
	}
	return stringValue(raw)
}

// memberValue decodes a string member named name: through keyValue when
// it names a key (tenant, api_key_id, workflow), else as any string.
func memberValue(name string, raw []byte) (string, error) {
	switch name {
	case "tenant", "api_key_id", "workflow":
		return keyValue(raw)
	}
	return stringValue(raw)
}

// LoneSurrogateError is the problem of a JSON string naming what a kill
// switch keys on (raw, its JSON text, quotes included) that holds a lone
// UTF-16 surrogate escape, or nil: such a string decodes to U+FFFD, so
// "\ud800" and "\udbff" would name one key where the live system (a
// JavaScript or Python service) sees two. Readers of other formats refuse
// such keys with it, as the JSONL reader does.
func LoneSurrogateError(raw []byte) error {
	if u, ok := loneSurrogate(raw); ok {
		return fmt.Errorf("holds a lone UTF-16 surrogate (\\u%04x), which cannot name a key: it would read as U+FFFD, the same as any other", u)
	}
	return nil
}

// loneSurrogate returns the first \uXXXX escape of a JSON string that is a
// surrogate not part of a high-low pair.
func loneSurrogate(raw []byte) (rune, bool) {
	hex4 := func(b []byte) (rune, bool) {
		if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(string(b[2:6]), 16, 16)
		return rune(v), err == nil
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		u, ok := hex4(raw[i:])
		if !ok {
			i++ // a two-byte escape: skip what it escapes
			continue
		}
		switch {
		case u >= 0xd800 && u <= 0xdbff:
			if lo, ok := hex4(raw[i+6:]); ok && lo >= 0xdc00 && lo <= 0xdfff {
				i += 11
				continue
			}
			return u, true
		case u >= 0xdc00 && u <= 0xdfff:
			return u, true
		}
		i += 5
	}
	return 0, false
}

// numberValue decodes a number member, accepting a numeric string.
func numberValue(raw []byte) (float64, error) {
	if len(raw) > 0 && raw[0] == '"' {
		s, err := unquote(raw)
		if err != nil {
			return 0, err
		}
		raw = []byte(s)
	}
	return strconv.ParseFloat(string(raw), 64)
}

func isNull(raw []byte) bool { return string(raw) == "null" }

// describe names the kind of a raw JSON value without its content, for
// messages: a capture's fields may hold secrets, and a field of the wrong
// type is where one ends up (an API key pasted into "ts"). Only short
// numbers and the JSON literals are shown as they are.
func describe(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		return "nothing"
	case raw[0] == '"':
		if s, err := unquote(raw); err == nil {
			return fmt.Sprintf("a string of %d characters", utf8.RuneCountInString(s))
		}
		return fmt.Sprintf("a malformed string of %d bytes", len(raw))
	case raw[0] == '{':
		return "an object"
	case raw[0] == '[':
		return "an array"
	case string(raw) == "true" || string(raw) == "false" || string(raw) == "null":
		return string(raw)
	case raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9'):
		if _, err := strconv.ParseFloat(string(raw), 64); err == nil {
			if len(raw) <= 12 {
				return "the number " + string(raw)
			}
			return fmt.Sprintf("a number of %d characters", len(raw))
		}
	}
	return fmt.Sprintf("%d bytes that are not a JSON value", len(raw))
}

// NotJSON says where b stops being JSON, never what it holds: a JSON
// parser's own message quotes the text around the error, and a capture's
// text may hold secrets. Call it only on the error path.
func NotJSON(b []byte) string {
	var v any
	var se *json.SyntaxError
	if err := json.Unmarshal(b, &v); errors.As(err, &se) {
		return fmt.Sprintf("invalid JSON at byte %d of %d", se.Offset, len(b))
	}
	return fmt.Sprintf("invalid JSON (%d bytes)", len(b))
}

// SkipJSONNumber returns the index just past the JSON number starting at
// b[i] (RFC 8259: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?), or false
// when there is none. The one number grammar of the scanners in ingest,
// ingest/logs and analyze/body.
func SkipJSONNumber(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return 0, false
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		i = skipDigits(b, i+1)
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		j := skipDigits(b, i+1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := skipDigits(b, i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

func skipDigits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}
