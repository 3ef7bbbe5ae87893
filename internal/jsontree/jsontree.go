// Package jsontree reads a small JSON document (a settings or an
// expectation file) into a tree in which every value and every key knows
// where it starts, so that whoever checks the document can name the
// problem's file:line:column and its key ("gs.json:3:12: gateway.rpm:
// want an integer ≥ 1, got 0.5") instead of a decoder's message about Go
// types. It holds no schema: callers walk the tree, and Doc collects their
// errors in file order.
package jsontree

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error is one problem with a document: where it is, the key it concerns,
// and what is wrong.
type Error struct {
	File      string
	Line, Col int    // 1-based; Col counts characters
	Key       string // dotted path of the key ("agents.billing-bot.at_request"); "" for the whole document
	Msg       string
}

func (e *Error) Error() string {
	s := e.File + ":" + strconv.Itoa(e.Line) + ":" + strconv.Itoa(e.Col) + ": "
	if e.Key != "" {
		s += e.Key + ": "
	}
	return s + e.Msg
}

// ErrorList is every problem found in one document, in file order.
type ErrorList []*Error

// Error returns the problems, one per line.
func (l ErrorList) Error() string {
	lines := make([]string, len(l))
	for i, e := range l {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Kind is the JSON type of a node.
type Kind uint8

const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"null", "boolean", "number", "string", "array", "object"}

// String names the kind for a message: "a JSON object".
func (k Kind) String() string { return "a JSON " + kindNames[k] }

// Node is a JSON value with the byte offset where it starts.
type Node struct {
	Kind    Kind
	Off     int
	Str     string      // String
	Num     json.Number // Number
	Bool    bool        // Bool
	Members []Member    // Object, in file order
	Elems   []*Node     // Array
}

// Member is one key of an object.
type Member struct {
	Key string
	Off int // offset of the key
	Val *Node
}

// Has reports whether the object n has the key.
func (n *Node) Has(key string) bool {
	for _, m := range n.Members {
		if m.Key == key {
			return true
		}
	}
	return false
}

// Doc is a document being checked: its name, its bytes and the errors
// found so far.
type Doc struct {
	File string
	Data []byte
	Errs ErrorList
	dec  *json.Decoder
}

// Parse reads data (named file in messages) as one JSON value nested at
// most maxDepth levels (what is the document about, in tooDeep: "not an
// expectation file"). A UTF-8 byte order mark at the start is ignored.
// The returned *Error is a document that is not JSON, or is empty.
func Parse(file string, data []byte, maxDepth int, what string) (*Doc, *Node, *Error) {
	d := &Doc{File: file, Data: data}
	if bytes.HasPrefix(d.Data, []byte("\uFEFF")) {
		// Read as white space, so that positions stay those of the file.
		d.Data = append([]byte("   "), d.Data[3:]...)
	}
	if len(bytes.TrimSpace(d.Data)) == 0 {
		return d, nil, d.ErrAt(0, "", "empty file: want a JSON object")
	}
	// A first pass finds syntax errors with their exact offset, which the
	// token stream below does not report reliably.
	var raw json.RawMessage
	if err := json.Unmarshal(d.Data, &raw); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return d, nil, d.ErrAt(int(se.Offset)-1, "", "not valid JSON: %s", se.Error())
		}
		return d, nil, d.ErrAt(0, "", "not valid JSON: %v", err)
	}
	d.dec = json.NewDecoder(bytes.NewReader(d.Data))
	d.dec.UseNumber()
	n, err := d.value(0, maxDepth, what)
	return d, n, err
}

// Pos returns the 1-based line and column (in characters) of offset off.
func (d *Doc) Pos(off int) (line, col int) {
	off = max(0, min(off, len(d.Data)))
	before := d.Data[:off]
	line = 1 + bytes.Count(before, []byte("\n"))
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	return line, 1 + utf8.RuneCount(before[lineStart:])
}

// ErrAt returns the error at offset off about key.
func (d *Doc) ErrAt(off int, key, format string, args ...any) *Error {
	line, col := d.Pos(off)
	return &Error{File: d.File, Line: line, Col: col, Key: key, Msg: fmt.Sprintf(format, args...)}
}

// Errorf records the error at offset off about key.
func (d *Doc) Errorf(off int, key, format string, args ...any) {
	d.Errs = append(d.Errs, d.ErrAt(off, key, format, args...))
}

// Err returns the errors recorded, in file order (an ErrorList), or nil.
func (d *Doc) Err() error {
	if len(d.Errs) == 0 {
		return nil
	}
	sort.SliceStable(d.Errs, func(i, j int) bool {
		a, b := d.Errs[i], d.Errs[j]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return d.Errs
}

// token reads the next token and returns the offset where it starts.
func (d *Doc) token() (int, json.Token, error) {
	off := int(d.dec.InputOffset())
	for off < len(d.Data) {
		switch d.Data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
			continue
		}
		break
	}
	tok, err := d.dec.Token()
	return off, tok, err
}

// syntax converts an error of the token stream (the input passed the
// syntax check, so this is not expected) into an Error.
func (d *Doc) syntax(err error) *Error {
	return d.ErrAt(int(d.dec.InputOffset()), "", "not valid JSON: %v", err)
}

// value reads one JSON value (and everything inside it).
func (d *Doc) value(depth, maxDepth int, what string) (*Node, *Error) {
	off, tok, err := d.token()
	if err != nil {
		return nil, d.syntax(err)
	}
	n := &Node{Off: off}
	switch t := tok.(type) {
	case nil:
		n.Kind = Null
	case bool:
		n.Kind, n.Bool = Bool, t
	case json.Number:
		n.Kind, n.Num = Number, t
	case string:
		n.Kind, n.Str = String, t
	case json.Delim:
		if depth >= maxDepth {
			return nil, d.ErrAt(off, "", "nested more than %d levels deep: not %s", maxDepth, what)
		}
		if t == '[' {
			n.Kind = Array
			for d.dec.More() {
				el, e := d.value(depth+1, maxDepth, what)
				if e != nil {
					return nil, e
				}
				n.Elems = append(n.Elems, el)
			}
		} else {
			n.Kind = Object
			for d.dec.More() {
				koff, ktok, err := d.token()
				if err != nil {
					return nil, d.syntax(err)
				}
				key, _ := ktok.(string)
				v, e := d.value(depth+1, maxDepth, what)
				if e != nil {
					return nil, e
				}
				n.Members = append(n.Members, Member{Key: key, Off: koff, Val: v})
			}
		}
		if _, _, err := d.token(); err != nil { // the closing delimiter
			return nil, d.syntax(err)
		}
	}
	return n, nil
}

// Object checks that n is an object whose keys are all in allowed (in the
// order the message lists them; nil allows any) and none repeated, and
// returns the members that passed. path is n's dotted key.
func (d *Doc) Object(n *Node, path string, allowed ...string) []Member {
	if n.Kind != Object {
		d.Errorf(n.Off, path, "want a JSON object, got %s", n.Kind)
		return nil
	}
	seen := map[string]int{}
	var ok []Member
	for _, m := range n.Members {
		kp := Join(path, m.Key)
		if first, dup := seen[m.Key]; dup {
			line, col := d.Pos(first)
			d.Errorf(m.Off, kp, "key given twice (first at %d:%d)", line, col)
			continue
		}
		seen[m.Key] = m.Off
		if allowed != nil && !slices.Contains(allowed, m.Key) {
			d.Errorf(m.Off, kp, "unknown key (want %s)", QuoteList(allowed))
			continue
		}
		ok = append(ok, m)
	}
	return ok
}

// Number returns n as a float64, recording an error about path when it is
// not a finite number.
func (d *Doc) Number(n *Node, path string) (float64, bool) {
	if n.Kind != Number {
		d.Errorf(n.Off, path, "want a number, got %s", n.Kind)
		return 0, false
	}
	f, err := n.Num.Float64()
	if err != nil {
		d.Errorf(n.Off, path, "%s is out of range", n.Num)
		return 0, false
	}
	return f, true
}

// Boolean returns n as a bool, recording an error about path when it is
// not true or false.
func (d *Doc) Boolean(n *Node, path string) (bool, bool) {
	if n.Kind != Bool {
		d.Errorf(n.Off, path, "want true or false, got %s", n.Kind)
		return false, false
	}
	return n.Bool, true
}

// Join is the dotted path of key inside path.
func Join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// QuoteList lists keys for a message: "a", "b" or "c".
func QuoteList(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = strconv.Quote(k)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
