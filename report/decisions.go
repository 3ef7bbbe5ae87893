// Package report renders the values computed by analyze as bytes: decision
// streams, timelines and summaries in table, JSON, JSONL, CSV and Markdown.
// It computes nothing the analysis did not.
package report

import (
	"bufio"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
)

// DecisionWriter writes the decision records of SPEC §5, one JSON object
// per line, with exactly the keys the contract names, in its order.
type DecisionWriter struct {
	w   *bufio.Writer
	buf []byte
}

// NewDecisionWriter returns a writer to w. Call Flush at the end.
func NewDecisionWriter(w io.Writer) *DecisionWriter {
	return &DecisionWriter{w: bufio.NewWriterSize(w, 1<<16)}
}

// Write appends one decision line.
func (dw *DecisionWriter) Write(d *analyze.Decision) error {
	dw.buf = AppendDecision(dw.buf[:0], d)
	dw.buf = append(dw.buf, '\n')
	_, err := dw.w.Write(dw.buf)
	return err
}

// Flush flushes buffered lines.
func (dw *DecisionWriter) Flush() error { return dw.w.Flush() }

// AppendDecision appends d as the SPEC §5 JSON object.
func AppendDecision(b []byte, d *analyze.Decision) []byte {
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, d.Seq, 10)
	b = append(b, `,"ts":`...)
	b = AppendString(b, ingest.FormatTime(d.TS))
	b = append(b, `,"agent":`...)
	b = AppendString(b, d.Agent)
	b = append(b, `,"source":`...)
	b = AppendString(b, d.Source.String())
	b = append(b, `,"prompt_hash":`...)
	b = appendHash(b, d.PromptHash, d.HasPrompt)
	b = append(b, `,"response_hash":`...)
	b = appendHash(b, d.ResponseHash, d.HasResponse)
	b = append(b, `,"similar_prompts":`...)
	b = strconv.AppendInt(b, int64(d.SimilarPrompts), 10)
	b = append(b, `,"similar_responses":`...)
	b = strconv.AppendInt(b, int64(d.SimilarResponses), 10)
	b = append(b, `,"repeated_tool_calls":`...)
	b = strconv.AppendInt(b, int64(d.RepeatedToolCalls), 10)
	b = append(b, `,"score":`...)
	b = AppendScore(b, d.Score)
	b = append(b, `,"action":`...)
	b = AppendString(b, d.Action.String())
	b = append(b, `,"reason":`...)
	b = AppendString(b, d.Reason)
	return append(b, '}')
}

// AppendScore formats a score with one decimal (scores are multiples of 0.5).
func AppendScore(b []byte, s float64) []byte { return strconv.AppendFloat(b, s, 'f', 1, 64) }

// Hash formats a 64-bit hash as 16 lower-case hex digits.
func Hash(h uint64) string {
	var b [16]byte
	return string(appendHex(b[:0], h))
}

func appendHex(b []byte, h uint64) []byte {
	const digits = "0123456789abcdef"
	for i := 60; i >= 0; i -= 4 {
		b = append(b, digits[(h>>uint(i))&0xf])
	}
	return b
}

func appendHash(b []byte, h uint64, ok bool) []byte {
	if !ok {
		return append(b, "null"...)
	}
	b = append(b, '"')
	b = appendHex(b, h)
	return append(b, '"')
}

// AppendString appends s as a JSON string: control characters, quotes,
// backslashes, U+2028 and U+2029 escaped; invalid UTF-8 becomes U+FFFD.
func AppendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
