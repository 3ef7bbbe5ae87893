// Package report renders the values computed by analyze as bytes: decision
// streams, timelines and summaries in table, JSON, JSONL, CSV and Markdown.
// It computes nothing the analysis did not. Text reports fit a width
// (TextOptions, FitTable in fit.go; Wrap for prose): a table too wide keeps
// its compact columns and says what it left out.
package report

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
)

// DecisionWriter writes the decision records of SPEC §5, one JSON object
// per line, with exactly the keys the contract names, in its order.
type DecisionWriter = JSONLWriter[*analyze.Decision]

// NewDecisionWriter returns a writer to w. Call Flush at the end.
func NewDecisionWriter(w io.Writer) *DecisionWriter { return NewJSONLWriter(w, AppendDecision) }

// AppendDecision appends d as the SPEC §5 JSON object.
func AppendDecision(b []byte, d *analyze.Decision) []byte {
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, d.Seq, 10)
	b = append(b, `,"ts":"`...)
	b = ingest.AppendTime(b, d.TS)
	b = append(b, `","agent":`...)
	b = AppendString(b, d.Agent)
	b = append(b, `,"source":"`...)
	b = d.Source.AppendJSONEscaped(b)
	b = append(b, `","prompt_hash":`...)
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

// AppendScore formats a score with one decimal. Scores are nearly always
// multiples of 0.5 (the weights of SPEC §1.5): those are written as an
// integer and ".0" or ".5", what strconv.AppendFloat writes for them, at a
// fraction of its cost (a decision record is written for every request);
// any other score, and -0, through AppendFloat.
func AppendScore(b []byte, s float64) []byte {
	if h := 2 * s; h >= 0 && h < 1<<53 && h == math.Trunc(h) && !math.Signbit(s) {
		n := int64(h)
		b = strconv.AppendInt(b, n>>1, 10)
		if n&1 == 0 {
			return append(b, ".0"...)
		}
		return append(b, ".5"...)
	}
	return strconv.AppendFloat(b, s, 'f', 1, 64)
}

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

// AppendString appends s as a JSON string (ingest.AppendJSONString:
// control characters, quotes, backslashes, U+2028 and U+2029 escaped;
// invalid UTF-8 becomes U+FFFD).
func AppendString(b []byte, s string) []byte { return ingest.AppendJSONString(b, s) }

// TextlessLine is the message for n requests of total without text.
func TextlessLine(n, total int) string {
	return fmt.Sprintf("%d of %d requests have neither prompt nor response text to fingerprint (their bodies may be in a shape killswitch does not read; inspect shows their dialects)", n, total)
}
