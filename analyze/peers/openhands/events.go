package openhands

import (
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

// fieldHash hashes a tag and fields (each length-prefixed) to 128 bits:
// two 64-bit lanes, each a multiply-xorshift over 8-byte words, seeded
// apart. Only equality is asked of it: events whose fields differ get the
// same hash with a chance of about 2⁻¹²⁸ per pair.
func fieldHash(tag byte, fields []string) [16]byte {
	h := newHasher(tag)
	for _, f := range fields {
		addField(&h, f)
	}
	return h.sum()
}

// hasher is fieldHash's state, for fields given one at a time (as bytes
// or strings: the same bytes hash the same).
type hasher struct{ h1, h2 uint64 }

func newHasher(tag byte) hasher {
	return hasher{uint64(0x243f6a8885a308d3) ^ uint64(tag), uint64(0x13198a2e03707344) ^ uint64(tag)<<8}
}

func (h *hasher) mix(w uint64) {
	h.h1 = (h.h1^w)*0x9e3779b97f4a7c15 ^ (h.h1 >> 29)
	h.h2 = (h.h2^w^(w>>31))*0xbf58476d1ce4e5b9 ^ (h.h2 >> 32)
}

// addField adds one field, length-prefixed.
func addField[T string | []byte](h *hasher, f T) {
	h.mix(uint64(len(f)))
	n := len(f)
	k := 0
	for ; k+8 <= n; k += 8 {
		h.mix(uint64(f[k]) | uint64(f[k+1])<<8 | uint64(f[k+2])<<16 | uint64(f[k+3])<<24 |
			uint64(f[k+4])<<32 | uint64(f[k+5])<<40 | uint64(f[k+6])<<48 | uint64(f[k+7])<<56)
	}
	var w uint64
	for s := 0; k < n; k, s = k+1, s+8 {
		w |= uint64(f[k]) << s
	}
	h.mix(w)
}

func (h *hasher) sum() [16]byte {
	x1, x2 := fmix(h.h1), fmix(h.h2^h.h1)
	var out [16]byte
	for b := 0; b < 8; b++ {
		out[b], out[8+b] = byte(x1>>(8*b)), byte(x2>>(8*b))
	}
	return out
}

func fmix(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	return h ^ h>>33
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
