package sweep

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/killswitch/killswitch/ingest"
	"github.com/valyala/fastjson"
)

// Labels is a labels file: ground truth for sweeps by agent and time range,
// for captures without the label field (SPEC §3). A request takes the
// label of the last entry that names its agent and whose range holds its
// time; the capture's own label, when present, comes first.
type Labels struct {
	Entries []LabelEntry // in file order
	byAgent map[string][]LabelEntry
}

// LabelEntry is one line of a labels file.
type LabelEntry struct {
	Agent string
	// From and To bound the entry's requests by time, both inclusive; an
	// absent bound is open.
	From, To       time.Time
	HasFrom, HasTo bool
	Label          ingest.Label // LabelLoop or LabelLegit
	Pos            ingest.Pos
}

func (e *LabelEntry) holds(ts time.Time) bool {
	return (!e.HasFrom || !ts.Before(e.From)) && (!e.HasTo || !ts.After(e.To))
}

// Lookup returns the label the file gives agent's request at ts, or
// LabelNone.
func (l *Labels) Lookup(agent string, ts time.Time) ingest.Label {
	es := l.byAgent[agent]
	for i := len(es) - 1; i >= 0; i-- {
		if es[i].holds(ts) {
			return es[i].Label
		}
	}
	return ingest.LabelNone
}

// ParseLabels parses a labels file named name. Two forms are accepted:
//
//   - CSV with a header row naming its columns: agent and label required,
//     from and to optional, in any order;
//   - JSONL: one object per line with the keys agent, label and optionally
//     from and to.
//
// label is "loop" or "legit"; from and to are RFC 3339 times or Unix
// seconds/milliseconds (a JSON number or string), empty or null for an
// open bound. The form is sniffed: a file whose first non-blank character
// is "{" is JSONL. Errors name the position ("labels.csv:3: …"); unknown
// columns or keys are errors, so that a typo never passes silently.
func ParseLabels(name string, data []byte) (*Labels, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	t := bytes.TrimLeft(data, " \t\r\n")
	if len(t) == 0 {
		return nil, fmt.Errorf("%s: empty labels file", name)
	}
	var l *Labels
	var err error
	if t[0] == '{' {
		l, err = parseLabelsJSONL(name, data)
	} else {
		l, err = parseLabelsCSV(name, data)
	}
	if err != nil {
		return nil, err
	}
	if len(l.Entries) == 0 {
		return nil, fmt.Errorf("%s: no label entries", name)
	}
	l.byAgent = map[string][]LabelEntry{}
	for _, e := range l.Entries {
		l.byAgent[e.Agent] = append(l.byAgent[e.Agent], e)
	}
	return l, nil
}

// check validates an entry once its fields are read.
func (e *LabelEntry) check() error {
	switch {
	case e.Agent == "":
		return errors.New("empty agent")
	case e.Label == ingest.LabelNone:
		return errors.New(`missing label (want "loop" or "legit")`)
	case e.HasFrom && e.HasTo && e.From.After(e.To):
		return fmt.Errorf("from %s is after to %s", ingest.FormatTime(e.From), ingest.FormatTime(e.To))
	}
	return nil
}

func parseLabelsCSV(name string, data []byte) (*Labels, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.TrimLeadingSpace = true
	r.ReuseRecord = true
	pos := func() ingest.Pos {
		line, _ := r.FieldPos(0)
		return ingest.Pos{File: name, Kind: ingest.PosLine, N: int64(line)}
	}
	csvErr := func(err error) error {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			p := ingest.Pos{File: name, Kind: ingest.PosLine, N: int64(pe.Line)}
			return ingest.Errorf(p, "CSV: %v", pe.Err)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	head, err := r.Read()
	if err != nil {
		return nil, csvErr(err)
	}
	col := map[string]int{"agent": -1, "label": -1, "from": -1, "to": -1}
	for i, h := range head {
		h = strings.ToLower(strings.TrimSpace(h))
		j, ok := col[h]
		switch {
		case !ok:
			return nil, ingest.Errorf(pos(), "unknown column %q in the header (want agent, label, from, to)", h)
		case j >= 0:
			return nil, ingest.Errorf(pos(), "column %q named twice in the header", h)
		}
		col[h] = i
	}
	if col["agent"] < 0 || col["label"] < 0 {
		return nil, ingest.Errorf(pos(), "the header must name the columns agent and label (and optionally from, to)")
	}
	l := &Labels{}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return l, nil
		}
		if err != nil {
			return nil, csvErr(err)
		}
		p := pos()
		e := LabelEntry{Agent: strings.TrimSpace(rec[col["agent"]]), Pos: p}
		if e.Label, err = ingest.ParseLabel(strings.TrimSpace(rec[col["label"]])); err != nil {
			return nil, ingest.Errorf(p, "label: %v", err)
		}
		for _, b := range []struct {
			name string
			t    *time.Time
			has  *bool
		}{{"from", &e.From, &e.HasFrom}, {"to", &e.To, &e.HasTo}} {
			i := col[b.name]
			if i < 0 || strings.TrimSpace(rec[i]) == "" {
				continue
			}
			if *b.t, err = ingest.ParseTimeString(rec[i]); err != nil {
				return nil, ingest.Errorf(p, "%s: %v", b.name, err)
			}
			*b.has = true
		}
		if err := e.check(); err != nil {
			return nil, ingest.Errorf(p, "%v", err)
		}
		l.Entries = append(l.Entries, e)
	}
}

func parseLabelsJSONL(name string, data []byte) (*Labels, error) {
	l := &Labels{}
	var par fastjson.Parser
	for n, line := range bytes.Split(data, []byte("\n")) {
		p := ingest.Pos{File: name, Kind: ingest.PosLine, N: int64(n + 1)}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		v, err := par.ParseBytes(line)
		if err != nil {
			return nil, ingest.Errorf(p, "not JSON: %s", ingest.NotJSON(line))
		}
		o, err := v.Object()
		if err != nil {
			return nil, ingest.Errorf(p, "want a JSON object with agent, label, from, to")
		}
		e := LabelEntry{Pos: p}
		var ferr error
		o.Visit(func(k []byte, v *fastjson.Value) {
			if ferr != nil {
				return
			}
			key := string(k)
			switch key {
			case "agent":
				ferr = jsonString(v, &e.Agent)
			case "label":
				var s string
				if ferr = jsonString(v, &s); ferr == nil {
					e.Label, ferr = ingest.ParseLabel(s)
					if ferr == nil && e.Label == ingest.LabelNone {
						ferr = errors.New(`want "loop" or "legit"`)
					}
				}
			case "from":
				ferr = jsonTime(v, &e.From, &e.HasFrom)
			case "to":
				ferr = jsonTime(v, &e.To, &e.HasTo)
			default:
				ferr = errors.New("unknown key (want agent, label, from, to)")
			}
			if ferr != nil {
				ferr = fmt.Errorf("%q: %v", key, ferr)
			}
		})
		if ferr != nil {
			return nil, ingest.Errorf(p, "%v", ferr)
		}
		if err := e.check(); err != nil {
			return nil, ingest.Errorf(p, "%v", err)
		}
		l.Entries = append(l.Entries, e)
	}
	return l, nil
}

func jsonString(v *fastjson.Value, dst *string) error {
	b, err := v.StringBytes()
	if err != nil {
		return fmt.Errorf("want a string, got %s", v.Type())
	}
	*dst = string(b)
	return nil
}

func jsonTime(v *fastjson.Value, dst *time.Time, has *bool) error {
	var err error
	switch v.Type() {
	case fastjson.TypeNull:
		return nil
	case fastjson.TypeString:
		*dst, err = ingest.ParseTimeString(string(v.GetStringBytes()))
	case fastjson.TypeNumber:
		*dst, err = ingest.UnixNumber(v.GetFloat64())
	default:
		return fmt.Errorf("want a time (RFC 3339 string or Unix number), got %s", v.Type())
	}
	*has = err == nil
	return err
}
