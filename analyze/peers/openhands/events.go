package openhands

import (
	"crypto/sha256"
	"strconv"
	"strings"
)

// NewEvent returns an event of kind k whose dataclass fields, other than
// those every event of the kind shares, are fields (in a fixed order per
// kind; callers format numbers and booleans with F). label names it in
// explanations.
func NewEvent(k Kind, src Source, label string, fields ...string) Event {
	e := Event{Kind: k, Source: src, Label: label, eq: fieldHash(byte(k), fields)}
	return e
}

// F formats a field value: strings as they are, booleans and numbers
// in a form that cannot be mistaken for a string's, nil as None.
func F(v any) string {
	switch v := v.(type) {
	case nil:
		return "\x00None"
	case bool:
		if v {
			return "\x00True"
		}
		return "\x00False"
	case int:
		return "\x00" + strconv.Itoa(v)
	case string:
		return v
	}
	panic("openhands: field type")
}

func fieldHash(tag byte, fields []string) [16]byte {
	h := sha256.New()
	var n [8]byte
	h.Write([]byte{tag})
	for _, f := range fields {
		l := len(f)
		for i := range n {
			n[i] = byte(l >> (8 * i))
		}
		h.Write(n[:])
		h.Write([]byte(f))
	}
	var out [16]byte
	copy(out[:], h.Sum(nil))
	return out
}

// Message is MessageAction(content, wait_for_response) from src.
func Message(src Source, content string, wait bool) Event {
	return NewEvent(MessageAction, src, "message", content, F(wait))
}

// CmdRun is CmdRunAction(command, is_input, thought, blocking,
// security_risk).
func CmdRun(command string, isInput bool, thought string, blocking bool, risk int) Event {
	return NewEvent(CmdRunAction, SourceAgent, "execute_bash", command, F(isInput), thought, F(blocking), F(risk))
}

// CmdOutput is CmdOutputObservation(content, command, exit_code): equal
// to _eq_no_pid when the command and exit code are.
func CmdOutput(content, command string, exitCode int) Event {
	e := NewEvent(CmdOutputObservation, SourceNone, "", content, command, F(exitCode))
	e.alt = fieldHash(0, []string{command, F(exitCode)})
	return e
}

// IPythonRun is IPythonRunCellAction(code, thought, security_risk).
func IPythonRun(code, thought string, risk int) Event {
	e := NewEvent(IPythonRunCellAction, SourceAgent, "execute_ipython_cell", code, thought, F(risk))
	lines := strings.Split(code, "\n")
	e.editByReplace = strings.Contains(code, "edit_file_by_replace(")
	e.longCode = len(lines) > 2
	e.alt = fieldHash(0, lines[:min(3, len(lines))])
	return e
}

// IPythonOutput is IPythonRunCellObservation(content, code).
func IPythonOutput(content, code string) Event {
	e := NewEvent(IPythonRunCellObservation, SourceNone, "", content, code)
	e.Content = content
	return e
}

// Error is ErrorObservation(content).
func Error(content string) Event { return NewEvent(ErrorObservation, SourceNone, "", content) }

// Condensation is AgentCondensationObservation(content).
func Condensation(content string) Event {
	return NewEvent(AgentCondensationObservation, SourceNone, "", content)
}

// Null is NullObservation(content).
func Null() Event { return NewEvent(NullObservation, SourceNone, "") }
