package expect

import (
	"github.com/killswitch/killswitch/internal/jsontree"
)

// Schema is one policy's part of an expectation file. The policies give
// theirs (package policy collects them) so that this package names none:
//
//   - settings.policy names the policy; a file without it replays the
//     default policy (the first Schema given to Parse);
//   - the loop detector's settings (profile, mode, window, threshold) are
//     accepted only by a policy with LoopSettings, refused by the others
//     (never ignored);
//   - settings.variant is one of Variants (refused without them);
//   - settings.<Policy> is the policy's own settings object, checked by
//     Settings (refused when nil, or when the file replays another policy);
//   - the top-level Sections are the policy's own (refused in a file that
//     replays another policy).
type Schema struct {
	Policy       string
	LoopSettings bool
	Variants     []string // the first is the default
	// Settings checks settings.<Policy>, an object, recording its problems
	// on p (path is "settings.<Policy>").
	Settings func(p *Parser, n *Node, path string)
	Sections []Section
}

// Section is one top-level key of a policy's own.
type Section struct {
	Key string
	// Parse reads the section's value, recording its problems on p.
	Parse func(p *Parser, key string, n *Node) Part
}

// Part is a policy's section as it was read: it says whether it expects
// anything, and renders itself back for Format.
type Part interface {
	// Empty reports whether the section bounds nothing.
	Empty() bool
	// JSON is the value Format writes under the section's key (maps,
	// slices, strings, numbers: what encoding/json renders with sorted
	// keys).
	JSON() any
}

// Node is a JSON value of an expectation file with the offset it starts
// at; Member one key of an object.
type (
	Node   = jsontree.Node
	Member = jsontree.Member
)

// The kinds of a Node.
const (
	KindNull   = jsontree.Null
	KindBool   = jsontree.Bool
	KindNumber = jsontree.Number
	KindString = jsontree.String
	KindArray  = jsontree.Array
	KindObject = jsontree.Object
)

// Parser checks one expectation document, collecting its errors: the
// helpers a Schema reads its sections with.
type Parser struct{ *jsontree.Doc }

// Line is the line (from 1) of the byte offset off.
func (p *Parser) Line(off int) int {
	line, _ := p.Pos(off)
	return line
}

// Str reads a string.
func (p *Parser) Str(n *Node, path string) (string, bool) {
	if n.Kind != KindString {
		p.Errorf(n.Off, path, "want a string, got %s", n.Kind)
		return "", false
	}
	return n.Str, true
}

// ObjectJSON renders the object n back to compact JSON, for a policy's
// settings object; arrays are not kept.
func (p *Parser) ObjectJSON(n *Node, path string) ([]byte, bool) {
	if n.Kind != KindObject {
		p.Errorf(n.Off, path, "want a JSON object, got %s", n.Kind)
		return nil, false
	}
	data, err := settingsJSON(n)
	if err != nil {
		p.Errorf(n.Off, path, "%v", err)
		return nil, false
	}
	return data, true
}
