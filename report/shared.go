package report

// Helpers the policies' reports share (policy/*/render*.go).

import (
	"strconv"
	"time"

	"github.com/killswitch/killswitch/ingest"
)

// StatusKeys renders a status histogram with string keys (JSON objects).
func StatusKeys(m map[int]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[strconv.Itoa(k)] = v
	}
	return out
}

// TimeOrNull is a time as RFC 3339, or nil for the zero time.
func TimeOrNull(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := ingest.FormatTime(t)
	return &s
}

// Ellipsis shortens s to n runes.
func Ellipsis(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// AppendNullString appends s as a JSON string, or null when it is empty.
func AppendNullString(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return AppendString(b, s)
}
