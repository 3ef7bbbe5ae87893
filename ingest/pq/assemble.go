package pq

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
	"github.com/valyala/fastjson"

	"github.com/killswitch/killswitch/ingest"
)

// A request or response stored as a nested group (a struct column, lists of
// structs, maps) is turned back into JSON text: members in schema order,
// null members left out, lists as arrays, maps as objects. The values of a
// group come from its leaf columns as (repetition level, definition level,
// value) triples; jnode is the plan that reassembles one row of them.

type jkind uint8

const (
	jLeaf   jkind = iota
	jObject       // a group: one member per field
	jList         // a LIST group or a bare repeated field: an array
	jMap          // a MAP group: an object of key → value
)

type jnode struct {
	kind     jkind
	key      []byte // `"name":` as this node appears in its parent object
	name     string // values mode: the member name key spells
	asTime   bool   // values mode: a timestamp is a time.Time (ValueOptions.Times)
	lastS    string // values mode: the leaf's last text value
	lastV    any    // and it as an any
	path     string // dotted column path, for messages
	nullable bool   // present only when the definition level reaches def
	virtual  bool   // an object flattened into dotted columns: null when every member is
	def      int    // definition level at which the node is present
	rep      int    // jList, jMap: repetition level of the repeated field
	elemDef  int    // jList, jMap: definition level at which the field holds ≥ 1 element
	lo, hi   int    // the node's leaf cursors: assembler.cur[lo:hi]
	kids     []*jnode
	typ      leafType // jLeaf
}

// planner builds jnode trees, numbering leaves in the order the assembler
// will hold their cursors.
type planner struct {
	leaves []*parquet.Column
}

func jsonKey(name string) []byte {
	b := ingest.AppendJSONString(nil, name)
	return append(b, ':')
}

// value plans the value of column c as a member of its parent: a repeated
// column is an array of its content.
func (p *planner) value(c *parquet.Column) (*jnode, error) {
	if c.Repeated() {
		lo := len(p.leaves)
		elem, err := p.content(c, false)
		if err != nil {
			return nil, err
		}
		return &jnode{
			kind: jList, path: pathOf(c),
			def: c.MaxDefinitionLevel() - 1, rep: c.MaxRepetitionLevel(), elemDef: c.MaxDefinitionLevel(),
			lo: lo, hi: len(p.leaves), kids: []*jnode{elem},
		}, nil
	}
	return p.content(c, c.Optional())
}

// content plans column c's own value, ignoring whether c repeats.
func (p *planner) content(c *parquet.Column, nullable bool) (n *jnode, err error) {
	n = &jnode{path: pathOf(c), nullable: nullable, def: c.MaxDefinitionLevel(), lo: len(p.leaves)}
	defer func() {
		if n != nil {
			n.hi = len(p.leaves)
		}
	}()
	if c.Leaf() {
		n.kind, n.typ = jLeaf, leafTypeOf(c)
		if n.typ.logical == lOther || n.typ.logical == lBSON {
			return nil, fmt.Errorf("column %q has type %s, which cannot be written as JSON", n.path, n.typ)
		}
		p.leaves = append(p.leaves, c)
		return n, nil
	}
	kids := c.Columns()
	if len(kids) == 0 {
		return nil, fmt.Errorf("group %q has no fields", n.path)
	}
	lt := c.Type().LogicalType()
	var ann format.LogicalTypeValue
	if lt != nil {
		ann = lt.Value
	}
	switch ann.(type) {
	case *format.ListType:
		if r := kids[0]; len(kids) == 1 && r.Repeated() {
			return p.list(n, c, r)
		}
	case *format.MapType:
		if r := kids[0]; len(kids) == 1 && r.Repeated() && !r.Leaf() && len(r.Columns()) == 2 {
			return p.mapping(n, r)
		}
	}
	n.kind = jObject
	for _, k := range kids {
		kn, err := p.value(k)
		if err != nil {
			return nil, err
		}
		kn.key = jsonKey(k.Name())
		n.kids = append(n.kids, kn)
	}
	return n, nil
}

// list plans a LIST group c whose repeated field is r, following the
// Parquet rules for legacy two-level lists: a repeated leaf, or a repeated
// group with several fields or named "array" or "<list>_tuple", is itself
// the element; otherwise its single field is.
func (p *planner) list(n *jnode, c, r *parquet.Column) (*jnode, error) {
	n.kind, n.rep, n.elemDef = jList, r.MaxRepetitionLevel(), r.MaxDefinitionLevel()
	var elem *jnode
	var err error
	rk := r.Columns()
	if r.Leaf() || len(rk) != 1 || r.Name() == "array" || r.Name() == c.Name()+"_tuple" {
		elem, err = p.content(r, false)
	} else {
		elem, err = p.value(rk[0])
	}
	if err != nil {
		return nil, err
	}
	n.kids = []*jnode{elem}
	return n, nil
}

// mapping plans a MAP group whose repeated key_value group is r.
func (p *planner) mapping(n *jnode, r *parquet.Column) (*jnode, error) {
	n.kind, n.rep, n.elemDef = jMap, r.MaxRepetitionLevel(), r.MaxDefinitionLevel()
	kv := r.Columns()
	k, err := p.value(kv[0])
	if err != nil {
		return nil, err
	}
	if k.kind != jLeaf {
		return nil, fmt.Errorf("map %q has a key that is not a single value", n.path)
	}
	v, err := p.value(kv[1])
	if err != nil {
		return nil, err
	}
	n.kids = []*jnode{k, v}
	return n, nil
}

// flat plans an object flattened into columns named with dots: the members
// "model", "messages" and "metadata.user" make {"model", "messages",
// "metadata": {"user"}}, in the order the columns first appear.
func (p *planner) flat(path string, members []flatMember) (*jnode, error) {
	n := &jnode{kind: jObject, path: path, virtual: true, lo: len(p.leaves)}
	defer func() { n.hi = len(p.leaves) }()
	type group struct {
		name    string
		members []flatMember
	}
	var groups []*group
	index := map[string]*group{}
	for _, m := range members {
		head, rest, nested := strings.Cut(m.suffix, ".")
		if !nested {
			head, rest = m.suffix, ""
		}
		g := index[head]
		if g == nil {
			g = &group{name: head}
			index[head] = g
			groups = append(groups, g)
		}
		g.members = append(g.members, flatMember{rest, m.col})
	}
	for _, g := range groups {
		var kn *jnode
		var err error
		switch {
		case len(g.members) == 1 && g.members[0].suffix == "":
			kn, err = p.value(g.members[0].col)
		default:
			for _, m := range g.members {
				if m.suffix == "" {
					return nil, fmt.Errorf("column %q is both a value and the prefix of other columns", pathOf(m.col))
				}
			}
			kn, err = p.flat(path+"."+g.name, g.members)
		}
		if err != nil {
			return nil, err
		}
		kn.key = jsonKey(g.name)
		n.kids = append(n.kids, kn)
	}
	return n, nil
}

// errStructure is a row whose repetition and definition levels do not
// match the schema: the file is corrupt.
var errStructure = errors.New("repetition levels do not match the schema")

// assembler writes one row of a jnode tree as JSON. Structural problems
// (a column ending early, levels out of step) are returned as errors and end
// the stream; a bad value (non-UTF-8 text, invalid JSON in a JSON column)
// is written as null, remembered in bad, and the row is still consumed so
// that the next row starts in step.
type assembler struct {
	cur  []*cursor
	out  []byte
	bad  error
	json func([]byte) (any, error) // values mode: ValueOptions.JSON
	pool valuePool                 // values mode: the objects and lists of the row
}

// row writes the node's value for the next row into a.out (reset first)
// and reports whether it is null.
func (a *assembler) row(n *jnode) (null bool, err error) {
	a.out, a.bad = a.out[:0], nil
	if null, err = a.isNull(n); err != nil {
		return false, err
	}
	if null {
		err = a.skip(n)
	} else {
		err = a.write(n)
	}
	if err != nil {
		return false, err
	}
	return null, a.rowEnd(n)
}

// rowEnd checks that every leaf of n stands at the start of the next row.
func (a *assembler) rowEnd(n *jnode) error {
	for _, c := range a.cur[n.lo:n.hi] {
		if c.i < c.n { // the next value is decoded already
			if c.buf[c.i].RepetitionLevel() != 0 {
				return fmt.Errorf("column %q: %w", c.path, errStructure)
			}
			continue
		}
		v, ok, err := c.peek()
		if err != nil {
			return err
		}
		if ok && v.RepetitionLevel() != 0 {
			return fmt.Errorf("column %q: %w", c.path, errStructure)
		}
	}
	return nil
}

// present reports whether node n has a value in the row; a null one is
// consumed.
func (a *assembler) present(n *jnode) (bool, error) {
	null, err := a.isNull(n)
	if err != nil || !null {
		return !null, err
	}
	return false, a.skip(n)
}

func (a *assembler) isNull(n *jnode) (bool, error) {
	if n.virtual {
		for _, k := range n.kids {
			null, err := a.isNull(k)
			if err != nil || !null {
				return false, err
			}
		}
		return true, nil
	}
	if !n.nullable {
		return false, nil
	}
	v, ok, err := a.cur[n.lo].peek()
	if err != nil {
		return false, err
	}
	if !ok {
		return false, fmt.Errorf("column %q: %w", a.cur[n.lo].path, errChunkEnd)
	}
	return v.DefinitionLevel() < n.def, nil
}

// skip consumes a null or empty node: one triple from each of its leaves.
func (a *assembler) skip(n *jnode) error {
	for _, c := range a.cur[n.lo:n.hi] {
		if _, err := c.next(); err != nil {
			return err
		}
	}
	return nil
}

// write writes a node known to be present.
func (a *assembler) write(n *jnode) error {
	switch n.kind {
	case jLeaf:
		v, err := a.cur[n.lo].next()
		if err != nil {
			return err
		}
		a.leaf(n, v)
		return nil
	case jObject:
		a.out = append(a.out, '{')
		first := true
		for _, k := range n.kids {
			ok, err := a.present(k)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			if !first {
				a.out = append(a.out, ',')
			}
			first = false
			a.out = append(a.out, k.key...)
			if err := a.write(k); err != nil {
				return err
			}
		}
		a.out = append(a.out, '}')
		return nil
	}
	open, close := byte('['), byte(']')
	if n.kind == jMap {
		open, close = '{', '}'
	}
	head := a.cur[n.lo]
	v, ok, err := head.peek()
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("column %q: %w", head.path, errChunkEnd)
	}
	if v.DefinitionLevel() < n.elemDef { // no elements
		a.out = append(a.out, open, close)
		return a.skip(n)
	}
	a.out = append(a.out, open)
	for i := 0; ; i++ {
		if i > 0 {
			a.out = append(a.out, ',')
		}
		if err := a.element(n); err != nil {
			return err
		}
		v, ok, err := head.peek()
		if err != nil {
			return err
		}
		if !ok || v.RepetitionLevel() != n.rep {
			break
		}
	}
	a.out = append(a.out, close)
	return nil
}

// element writes one element of a list, or one key: value pair of a map.
func (a *assembler) element(n *jnode) error {
	if n.kind == jMap {
		s, err := a.mapKey(n.kids[0])
		if err != nil {
			return err
		}
		a.out = ingest.AppendJSONString(a.out, s)
		a.out = append(a.out, ':')
		return a.nullable(n.kids[1])
	}
	return a.nullable(n.kids[0])
}

// mapKey reads the key k of a map entry as text: "" when null (a JSON
// member name cannot be null) or bad.
func (a *assembler) mapKey(k *jnode) (string, error) {
	if ok, err := a.present(k); !ok || err != nil {
		return "", err
	}
	v, err := a.cur[k.lo].next()
	if err != nil {
		return "", err
	}
	s, err := k.typ.text(v)
	if err != nil {
		a.fail(k, err)
	}
	return s, nil
}

// nullable writes a node's value or null.
func (a *assembler) nullable(n *jnode) error {
	null, err := a.isNull(n)
	if err != nil {
		return err
	}
	if null {
		a.out = append(a.out, "null"...)
		return a.skip(n)
	}
	return a.write(n)
}

func (a *assembler) fail(n *jnode, err error) {
	if a.bad == nil {
		a.bad = fmt.Errorf("column %q: %w", n.path, err)
	}
}

// leaf writes one value as JSON.
func (a *assembler) leaf(n *jnode, v parquet.Value) {
	t := n.typ
	if t.logical == lNull {
		a.out = append(a.out, "null"...)
		return
	}
	switch t.kind {
	case parquet.Boolean:
		a.out = strconv.AppendBool(a.out, v.Boolean())
	case parquet.Int32, parquet.Int64:
		switch t.logical {
		case lTimestamp, lDate:
			tm, _ := t.time(v)
			a.out = append(a.out, '"')
			if t.logical == lDate {
				a.out = tm.AppendFormat(a.out, time.DateOnly)
			} else {
				a.out = tm.AppendFormat(a.out, time.RFC3339Nano)
			}
			a.out = append(a.out, '"')
		case lDecimal:
			x := int64(v.Int32())
			if t.kind == parquet.Int64 {
				x = v.Int64()
			}
			a.out = appendDecimal(a.out, big.NewInt(x), t.scale)
		default:
			s, _ := t.text(v)
			a.out = append(a.out, s...)
		}
	case parquet.Int96:
		tm, err := t.time(v)
		if err != nil {
			a.fail(n, err)
			a.out = append(a.out, "null"...)
			return
		}
		a.out = append(a.out, '"')
		a.out = tm.AppendFormat(a.out, time.RFC3339Nano)
		a.out = append(a.out, '"')
	case parquet.Float:
		a.out = appendJSONFloat(a.out, float64(v.Float()), 32)
	case parquet.Double:
		a.out = appendJSONFloat(a.out, v.Double(), 64)
	case parquet.ByteArray, parquet.FixedLenByteArray:
		b := v.ByteArray()
		switch {
		case t.logical == lDecimal:
			a.out = appendDecimal(a.out, twosComplement(b), t.scale)
		case t.logical == lUUID && len(b) == 16:
			a.out = ingest.AppendJSONString(a.out, ingest.FormatUUID(b))
		case !utf8.Valid(b):
			a.fail(n, errNotUTF8)
			a.out = append(a.out, "null"...)
		case t.logical == lJSON:
			if err := fastjson.ValidateBytes(b); err != nil {
				a.fail(n, errors.New("JSON column holds "+ingest.NotJSON(b)))
				a.out = append(a.out, "null"...)
				return
			}
			a.out = append(a.out, b...)
		default:
			a.out = ingest.AppendJSONString(a.out, unsafeString(b))
		}
	default:
		a.fail(n, fmt.Errorf("cannot write %s as JSON", t))
		a.out = append(a.out, "null"...)
	}
}

// appendDecimal writes unscaled × 10^-scale as a JSON number.
func appendDecimal(b []byte, unscaled *big.Int, scale int32) []byte {
	s := unscaled.String()
	if scale <= 0 {
		b = append(b, s...)
		for i := int32(0); i < -scale && s != "0"; i++ {
			b = append(b, '0')
		}
		return b
	}
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
		b = append(b, '-')
	}
	if len(s) <= int(scale) {
		s = strings.Repeat("0", int(scale)-len(s)+1) + s
	}
	point := len(s) - int(scale)
	return append(append(append(b, s[:point]...), '.'), s[point:]...)
}

// appendJSONFloat writes f the way encoding/json does; NaN and infinities,
// which JSON cannot hold, become null.
func appendJSONFloat(b []byte, f float64, bits int) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	abs := math.Abs(f)
	fmt := byte('f')
	if abs != 0 && (bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21)) {
		fmt = 'e'
	}
	b = strconv.AppendFloat(b, f, fmt, -1, bits)
	if fmt == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// unsafeString views b as a string for the length of a call that copies it.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
