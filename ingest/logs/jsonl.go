package logs

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/internal/jsonsimd"
)

// newJSONL reads capture records and per-call completion logs. JSONL input
// goes straight to ingest.NewJSONL (which streams it and tells the two
// shapes apart line by line); JSON documents (pretty-printed completion
// logs, or a top-level array of records) are compacted one by one into a
// line for ingest.NewJSONL, and the record takes the document's position.
func newJSONL(r io.Reader, name string, opt Options) ingest.Reader {
	s := newSource(r, name, opt.MaxValue)
	s.decide()
	jopt := ingest.JSONLOptions{Agent: opt.Agent, MaxLine: opt.MaxValue}
	if s.mode == modeLines && !s.done {
		if head, _ := s.br.Peek(len(bom)); bytes.Equal(head, bom) {
			s.br.Discard(len(bom))
		}
		return ingest.NewJSONL(s.br, name, jopt)
	}
	s.reuse = true // convert copies what it keeps of a unit
	c := &docJSONL{src: s, opt: jopt}
	return &reader{src: s, conv: c.convert}
}

type docJSONL struct {
	src *source
	opt ingest.JSONLOptions
	buf bytes.Buffer
	rd  bytes.Reader
}

// compact reports whether b holds no JSON white space outside its strings
// and no line break at all: what json.Compact would leave as it is, and
// one line to the JSONL reader. Strings are skipped by jsonsimd.StringEnd.
func compact(b []byte) bool {
	if bytes.IndexByte(b, '\n') >= 0 {
		return false
	}
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case ' ', '\t', '\r':
			return false
		case '"':
			k := jsonsimd.StringEnd(b[i+1:])
			if k < 0 {
				return false
			}
			i += k + 1 // the closing quote
		}
	}
	return true
}

func (c *docJSONL) convert(u unit) []*ingest.Record {
	pos := c.src.pos(u, "")
	var in io.Reader
	if compact(u.raw) {
		// Already one line as JSONL holds it (an item of `jq -cs`
		// output): read as it is, where the JSONL reader checks it.
		c.rd.Reset(u.raw)
		in = &c.rd
	} else {
		c.buf.Reset()
		if err := json.Compact(&c.buf, u.raw); err != nil {
			return []*ingest.Record{bad(pos, "%v", jsonError(err))}
		}
		in = &c.buf
	}
	jr := ingest.NewJSONL(in, c.src.name, c.opt)
	if !jr.Scan() {
		if err := jr.Err(); err != nil {
			return []*ingest.Record{bad(pos, "%v", err)}
		}
		return []*ingest.Record{bad(pos, "empty document")}
	}
	rec := *jr.Record()
	rec.CopyInto(nil)
	rec.Pos = pos
	if se, ok := rec.Err.(*ingest.SyntaxError); ok {
		e := *se
		e.Pos = pos
		rec.Err = &e
	}
	return []*ingest.Record{&rec}
}
