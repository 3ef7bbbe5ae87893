package openclaw

import (
	"crypto/sha256"
	"regexp"
	"strings"
	"unicode/utf16"

	"github.com/killswitch/killswitch/analyze/peers/jsjson"
	"sync"
)

// ToolName is normalizeToolPolicyName(name || "tool"): trimmed, lower
// case, and the aliases bash → exec, apply-patch → apply_patch and
// cron → automations.
func ToolName(name string) string {
	if name == "" {
		name = "tool"
	}
	n := strings.ToLower(jsjson.Trim(name))
	switch n {
	case "bash":
		return "exec"
	case "apply-patch":
		return "apply_patch"
	case "cron":
		return "automations"
	}
	return n
}

// Params is a call's parameters as the detector reads them.
type Params struct {
	Key ArgsKey
	// Action is params.action when it is a string.
	Action    string
	HasAction bool
}

// NewParams reads a call's arguments text (blank: {}; text that does not
// parse stands for itself, a string) into its key: stableStringify, which
// writes every object's keys sorted by UTF-16 code units, as
// jsjson.Sorted does.
func NewParams(tool, args string) Params {
	if jsjson.Trim(args) == "" {
		args = "{}"
	}
	if jsjson.Canonical(args, jsjson.Sorted) {
		if p, ok := canonicalParams(tool, args); ok {
			return p
		}
	}
	return parsedParams(tool, args)
}

// canonicalParams is NewParams of arguments stableStringify writes back
// unchanged (jsjson.Canonical in Sorted order): the key is the text as it
// stands, and an action string is read between its quotes; ok is false
// for an action with an escape (parsedParams decodes it).
func canonicalParams(tool, args string) (p Params, ok bool) {
	p.Key = ArgsKey{Tool: tool, Args: sha256.Sum256([]byte(args))}
	for k, v := range jsjson.Members(args) {
		if k == `"action"` && v[0] == '"' {
			if strings.IndexByte(v, '\\') >= 0 {
				return p, false
			}
			p.Action, p.HasAction = v[1:len(v)-1], true
		}
	}
	return p, true
}

// parsedParams is NewParams of any arguments text: parsed, then written.
func parsedParams(tool, args string) Params {
	var p Params
	v, ok := jsjson.Stringify(args, jsjson.Sorted)
	text := v.Out
	if !ok {
		text = jsjson.QuoteString(args)
	}
	p.Key = ArgsKey{Tool: tool, Args: sha256.Sum256([]byte(text))}
	for _, m := range v.Members {
		if m.Key == `"action"` && m.Value.Kind == '"' {
			p.Action, p.HasAction = string(utf16.Decode(m.Value.Str)), true
		}
	}
	return p
}

// KnownPoll is isKnownPollToolCall: command_status, or process with
// action poll or log.
func KnownPoll(tool string, p Params) bool {
	return tool == "command_status" || (tool == "process" && (p.Action == "poll" || p.Action == "log"))
}

// sendLike are SEND_LIKE_MESSAGE_ACTIONS.
var sendLike = map[string]bool{"send": true, "broadcast": true, "reply": true, "thread-reply": true,
	"sendWithEffect": true, "sendAttachment": true, "upload-file": true, "sticker": true, "poll": true}

// volatileSend is isVolatileSendResult for the tools a capture can name:
// sessions_send, conversations_send and conversations_turn, and message
// with a send-like action (channel plugins' own send tools need the
// plugin registry, which a capture does not have).
func volatileSend(tool string, p Params) bool {
	switch tool {
	case "sessions_send", "conversations_send", "conversations_turn":
		return true
	case "message":
		return p.HasAction && sendLike[p.Action]
	}
	return false
}

// digest stands for digestToolOutcome of a value: sha256 of its kind and
// its text (outcomes of one tool and one key compare only with each
// other, so the kinds need only stay apart).
func digest(kind, text string) Hash {
	h := sha256.New()
	h.Write([]byte(kind))
	h.Write([]byte{0})
	h.Write([]byte(canonicalNonces(text)))
	var out Hash
	h.Sum(out[:0])
	return out
}

// ResultOutcome is hashToolOutcome for a captured tool result: the text
// the model was given, and whether the call failed (an Anthropic
// is_error result, or a tool the request does not offer). The tool's
// details object is not in a capture: it is taken as {}, so outcomes
// compare by their text (exec's status and exit code, process's counters,
// write's changed flag and the message ids a send strips are details), and
// a send's outcome is always the same.
func ResultOutcome(tool string, p Params, text string, failed bool) Outcome {
	if failed {
		return Outcome{HasResult: true, Result: digest("error", text), NoProgress: true, Unknown: unknownTool(text)}
	}
	text = jsjson.Trim(text)
	switch {
	case tool == "process" && p.Action == "poll":
		return Outcome{HasResult: true, Result: digest("poll", text)}
	case tool == "process" && p.Action == "log":
		return Outcome{HasResult: true, Result: digest("log", text)}
	case volatileSend(tool, p):
		return Outcome{HasResult: true, Result: digest("send", "")}
	}
	return Outcome{HasResult: true, Result: digest("result", text)}
}

// The two patterns are compiled on first use, not at every start of the
// binary (#30: start-up).
var (
	unknownToolRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)unknown tool[:\s]+["']?([a-z0-9_.-]+)["']?`)
	})
	notFoundRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)tool\s+["']?([a-z0-9_.-]+)["']?\s+(?:not found|is not available)`)
	})
)

// unknownTool is extractUnknownToolName of an error's text.
func unknownTool(msg string) string {
	raw := jsjson.Trim(msg)
	if raw == "" {
		return ""
	}
	m := unknownToolRE().FindStringSubmatch(raw)
	if m == nil {
		m = notFoundRE().FindStringSubmatch(raw)
	}
	if m == nil {
		return ""
	}
	return strings.ToLower(jsjson.Trim(m[1]))
}

const (
	openMarker  = `<<<EXTERNAL_UNTRUSTED_CONTENT id="`
	closeMarker = `<<<END_EXTERNAL_UNTRUSTED_CONTENT id="`
	zeroID      = "0000000000000000"
)

// canonicalNonces is digestToolOutcome's normalization of the external
// content wrapper: in <<<EXTERNAL_UNTRUSTED_CONTENT id="N">>> … <<<END_EXTERNAL_UNTRUSTED_CONTENT id="N">>>
// with the same 16 hex digits N at both ends and no other marker between,
// both ids become zeros. The source also matches wrappers whose quotes
// are backslash-escaped (a wrapper inside a JSON string); those are left
// as they are here.
func canonicalNonces(s string) string {
	if !strings.Contains(s, openMarker) {
		return s
	}
	var sb strings.Builder
	i := 0
	for {
		j := strings.Index(s[i:], openMarker)
		if j < 0 {
			break
		}
		start := i + j
		idAt := start + len(openMarker)
		if end, ok := wrapperEnd(s, idAt); ok {
			mid := s[idAt+16 : end-len(closeMarker)]
			sb.WriteString(s[i:start])
			sb.WriteString(openMarker + zeroID + mid + closeMarker + zeroID + `">>>`)
			i = end + 16 + len(`">>>`)
			continue
		}
		sb.WriteString(s[i : start+1])
		i = start + 1
	}
	sb.WriteString(s[i:])
	return sb.String()
}

// wrapperEnd returns where the closing marker's id starts, for a wrapper
// whose id starts at idAt.
func wrapperEnd(s string, idAt int) (int, bool) {
	if idAt+16+4 > len(s) || !isHex16(s[idAt:idAt+16]) || s[idAt+16:idAt+20] != `">>>` {
		return 0, false
	}
	id := s[idAt : idAt+16]
	body := idAt + 20
	// The first marker after the opening one must be the matching end.
	k := strings.Index(s[body:], "<<<")
	for k >= 0 {
		at := body + k
		rest := s[at:]
		if strings.HasPrefix(rest, closeMarker) {
			idEnd := at + len(closeMarker)
			if strings.HasPrefix(s[idEnd:], id+`">>>`) {
				return idEnd, true
			}
			return 0, false
		}
		if strings.HasPrefix(rest, "<<<EXTERNAL_UNTRUSTED_CONTENT") || strings.HasPrefix(rest, "<<<END_EXTERNAL_UNTRUSTED_CONTENT") {
			return 0, false
		}
		n := strings.Index(s[at+3:], "<<<")
		if n < 0 {
			break
		}
		k = at + 3 + n - body
	}
	return 0, false
}

func isHex16(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return len(s) == 16
}
