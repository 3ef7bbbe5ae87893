package pq

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"time"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
	"github.com/valyala/fastjson"

	"github.com/killswitch/killswitch/ingest"
)

// Values mode: the rows of chosen top-level columns read straight into Go
// values, with no JSON text written or parsed. A column's value is what
// its member of the row's JSON (Rows.Row) decodes to with encoding/json
// and UseNumber: a string, a json.Number, a bool, a []any, a
// map[string]any (null members left out), or nil for null; a JSON column's
// text is decoded by ValueOptions.JSON. The traversal is the JSON
// writer's (assembler.write), so a file or a row is refused exactly where
// Rows refuses it, with the same messages, and RowErr reports the same bad
// values. A row read with decode false is only checked: its values are
// consumed and nothing is allocated.

// ValueOptions configures a Rows in values mode.
type ValueOptions struct {
	// JSON decodes the text of a column annotated JSON (valid UTF-8 that
	// fastjson accepts); an error makes the value null and is the row's
	// RowErr. Without it such a value is its text.
	JSON func([]byte) (any, error)
	// Times names the top-level leaf columns whose TIMESTAMP and INT96
	// values are returned as a time.Time in UTC instead of RFC 3339 text,
	// when the year is 0 to 9999: the years whose text reads back as the
	// same instant. Other years stay text.
	Times func(column string) bool
}

// OpenValues opens the Parquet file held by r (size bytes) as OpenRows
// does, to read the top-level columns keep accepts as Go values
// (NextValues, Value). Columns returns their names as the row's JSON
// spells them (a name that is not UTF-8 has its bad bytes replaced).
func OpenValues(r io.ReaderAt, size int64, name string, keep func(column string) bool, opt ValueOptions) (*Rows, error) {
	rs, err := OpenRows(r, size, name, keep)
	if err != nil {
		return nil, err
	}
	rs.values, rs.vopt = true, opt
	rs.vals = make([]any, len(rs.tree.kids))
	nameMembers(rs.tree)
	for i, k := range rs.tree.kids {
		rs.cols[i] = keyName(k.key)
		if k.kind == jLeaf && opt.Times != nil && opt.Times(rs.cols[i]) {
			k.asTime = true
		}
	}
	rs.asm.json = opt.JSON
	return rs, nil
}

// nameMembers sets the name of every object member below n.
func nameMembers(n *jnode) {
	for _, k := range n.kids {
		if k.key != nil {
			k.name = keyName(k.key)
		}
		nameMembers(k)
	}
}

// keyName decodes a member name as jsonKey wrote it.
func keyName(key []byte) string {
	var s string
	if err := json.Unmarshal(key[:len(key)-1], &s); err != nil {
		panic("pq: a member name that does not read back: " + err.Error())
	}
	return s
}

// NextValues advances to the next row of a Rows opened by OpenValues,
// building its values when decode is set and only checking them
// otherwise; false at the end of the file or when it turns out to be
// corrupt (see Err).
func (rs *Rows) NextValues(decode bool) (ok bool) {
	if !rs.values {
		panic("pq: NextValues on rows not opened by OpenValues")
	}
	return rs.read(func() error {
		clear(rs.vals)
		rs.asm.pool.reset()
		return rs.asm.rowValues(rs.tree, rs.vals, decode)
	})
}

// Value returns column i's value in the current row (nil when the row
// was only checked). Text values are copies: they stay valid. Objects
// (map[string]any) and lists ([]any) are reused: they are valid until
// the next call to NextValues.
func (rs *Rows) Value(i int) any { return rs.vals[i] }

// valuePool holds the objects and lists of a row's values, reused by the
// next row: a message list costs no map or slice a row once the pool
// has grown to its shape.
type valuePool struct {
	objects []map[string]any
	lists   [][]any
	o, l    int // in use
}

// reset makes every object and list free again; the previous row's
// values must no longer be read.
func (p *valuePool) reset() {
	for _, m := range p.objects[:p.o] {
		clear(m)
	}
	for i := range p.lists[:p.l] {
		clear(p.lists[i][:cap(p.lists[i])])
	}
	p.o, p.l = 0, 0
}

// object returns an empty object.
func (p *valuePool) object() map[string]any {
	if p.o == len(p.objects) {
		p.objects = append(p.objects, map[string]any{})
	}
	p.o++
	return p.objects[p.o-1]
}

// list returns an empty list and its slot; the caller appends to it and
// stores it back in lists[slot].
func (p *valuePool) list() (slot int, list []any) {
	if p.l == len(p.lists) {
		p.lists = append(p.lists, make([]any, 0, 4))
	}
	p.l++
	return p.l - 1, p.lists[p.l-1][:0]
}

// rowValues is row for values mode: each kid of the root object n into
// vals (nil when null).
func (a *assembler) rowValues(n *jnode, vals []any, decode bool) error {
	a.bad = nil
	for i, k := range n.kids {
		if k.kind == jLeaf {
			// A top-level leaf holds one value a row (a repeated leaf is
			// a jList): read it with one cursor step, null or not, as
			// present and value would.
			v, err := a.cur[k.lo].next()
			if err != nil {
				return err
			}
			if !k.nullable || v.DefinitionLevel() >= k.def {
				vals[i] = a.leafValue(k, v, decode)
			}
			continue
		}
		ok, err := a.present(k)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if vals[i], err = a.value(k, decode); err != nil {
			return err
		}
	}
	return a.rowEnd(n)
}

// value is write for values mode: the value of a node known to be
// present (nil when !decode).
func (a *assembler) value(n *jnode, decode bool) (any, error) {
	switch n.kind {
	case jLeaf:
		v, err := a.cur[n.lo].next()
		if err != nil {
			return nil, err
		}
		return a.leafValue(n, v, decode), nil
	case jObject:
		var o map[string]any
		if decode {
			o = a.pool.object()
		}
		for _, k := range n.kids {
			ok, err := a.present(k)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			v, err := a.value(k, decode)
			if err != nil {
				return nil, err
			}
			if decode {
				o[k.name] = v
			}
		}
		if !decode {
			return nil, nil
		}
		return o, nil
	}
	head := a.cur[n.lo]
	v, ok, err := head.peek()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("column %q: %w", head.path, errChunkEnd)
	}
	var list []any
	var m map[string]any
	slot := -1
	if decode {
		if n.kind == jMap {
			m = a.pool.object()
		} else {
			slot, list = a.pool.list()
		}
	}
	if v.DefinitionLevel() < n.elemDef { // no elements
		if err := a.skip(n); err != nil {
			return nil, err
		}
	} else {
		for {
			if err := a.elementValue(n, decode, &list, m); err != nil {
				return nil, err
			}
			v, ok, err := head.peek()
			if err != nil {
				return nil, err
			}
			if !ok || v.RepetitionLevel() != n.rep {
				break
			}
		}
	}
	switch {
	case !decode:
		return nil, nil
	case n.kind == jMap:
		return m, nil
	}
	a.pool.lists[slot] = list // grown, kept for the next row
	return list, nil
}

// elementValue is element for values mode: one element appended to
// *list, or one key: value pair set in m.
func (a *assembler) elementValue(n *jnode, decode bool, list *[]any, m map[string]any) error {
	if n.kind == jMap {
		key, err := a.mapKey(n.kids[0])
		if err != nil {
			return err
		}
		e, err := a.nullableValue(n.kids[1], decode)
		if err != nil {
			return err
		}
		if decode {
			m[key] = e
		}
		return nil
	}
	e, err := a.nullableValue(n.kids[0], decode)
	if err != nil {
		return err
	}
	if decode {
		*list = append(*list, e)
	}
	return nil
}

// nullableValue is nullable for values mode.
func (a *assembler) nullableValue(n *jnode, decode bool) (any, error) {
	if ok, err := a.present(n); !ok || err != nil {
		return nil, err
	}
	return a.value(n, decode)
}

// leafValue is leaf for values mode: what the JSON leaf writes decodes
// to. Bad values are remembered as leaf remembers them, and are nil.
func (a *assembler) leafValue(n *jnode, v parquet.Value, decode bool) any {
	t := n.typ
	if t.logical == lNull {
		return nil
	}
	switch t.kind {
	case parquet.Boolean:
		return v.Boolean()
	case parquet.Int32, parquet.Int64:
		if !decode {
			return nil
		}
		switch t.logical {
		case lTimestamp, lDate:
			tm, _ := t.time(v)
			if t.logical == lDate {
				return tm.Format(time.DateOnly)
			}
			return a.timeValue(n, tm)
		case lDecimal:
			x := int64(v.Int32())
			if t.kind == parquet.Int64 {
				x = v.Int64()
			}
			return json.Number(appendDecimal(nil, big.NewInt(x), t.scale))
		}
		s, _ := t.text(v)
		return json.Number(s)
	case parquet.Int96:
		tm, err := t.time(v)
		if err != nil {
			a.fail(n, err)
			return nil
		}
		if !decode {
			return nil
		}
		return a.timeValue(n, tm)
	case parquet.Float, parquet.Double:
		if !decode {
			return nil
		}
		var b []byte
		if t.kind == parquet.Float {
			b = appendJSONFloat(a.out[:0], float64(v.Float()), 32)
		} else {
			b = appendJSONFloat(a.out[:0], v.Double(), 64)
		}
		a.out = b
		if string(b) == "null" {
			return nil
		}
		return json.Number(b)
	case parquet.ByteArray, parquet.FixedLenByteArray:
		b := v.ByteArray()
		switch {
		case t.logical == lDecimal:
			if !decode {
				return nil
			}
			return json.Number(appendDecimal(nil, twosComplement(b), t.scale))
		case t.logical == lUUID && len(b) == 16:
			if !decode {
				return nil
			}
			return ingest.FormatUUID(b)
		case !utf8.Valid(b):
			a.fail(n, errNotUTF8)
			return nil
		case t.logical == lJSON:
			if err := fastjson.ValidateBytes(b); err != nil {
				a.fail(n, errors.New("JSON column holds "+ingest.NotJSON(b)))
				return nil
			}
			if !decode {
				return nil
			}
			if a.json == nil {
				return string(b)
			}
			x, err := a.json(b)
			if err != nil {
				a.fail(n, err)
				return nil
			}
			return x
		}
		if !decode {
			return nil
		}
		if n.lastV != nil && n.lastS == string(b) {
			return n.lastV // a text repeated (a role, a kind, a model): not copied again
		}
		n.lastS = string(b)
		n.lastV = n.lastS
		return n.lastV
	}
	a.fail(n, fmt.Errorf("cannot write %s as JSON", t))
	return nil
}

// timeValue returns a timestamp as the JSON leaf writes it (RFC 3339 text),
// or, for a column read as times, as itself when the text would read back
// as the same instant.
func (a *assembler) timeValue(n *jnode, tm time.Time) any {
	if n.asTime && tm.Year() >= 0 && tm.Year() <= 9999 {
		return tm
	}
	return tm.Format(time.RFC3339Nano)
}
