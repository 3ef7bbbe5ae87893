package pq

import (
	"fmt"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// field is a logical field of the capture record (SPEC §3), the name a
// --map flag renames.
type field uint8

const (
	fTS field = iota
	fAgent
	fEvent
	fBy
	fKillSwitch // "kill_switch" as JSON text (a group is read through the three below)
	fKSEnabled
	fKSWindow
	fKSThreshold
	fRequest
	fResponse
	fStatus
	fID
	fProvider
	fEndpoint
	fModel
	fTenant
	fAPIKeyID
	fWorkflow
	fSession
	fLatency
	fTokensIn
	fTokensOut
	fCost
	fLabel
	numFields
)

// fieldNames are the logical names, as in JSONL captures and as the keys of
// Options.Map.
var fieldNames = [numFields]string{
	fTS:          "ts",
	fAgent:       "agent",
	fEvent:       "event",
	fBy:          "by",
	fKillSwitch:  "kill_switch",
	fKSEnabled:   "kill_switch.enabled",
	fKSWindow:    "kill_switch.window_size",
	fKSThreshold: "kill_switch.threshold",
	fRequest:     "request",
	fResponse:    "response",
	fStatus:      "status",
	fID:          "id",
	fProvider:    "provider",
	fEndpoint:    "endpoint",
	fModel:       "model",
	fTenant:      "tenant",
	fAPIKeyID:    "api_key_id",
	fWorkflow:    "workflow",
	fSession:     "session",
	fLatency:     "latency_ms",
	fTokensIn:    "tokens_in",
	fTokensOut:   "tokens_out",
	fCost:        "cost_usd",
	fLabel:       "label",
}

func (f field) String() string { return fieldNames[f] }

// class is what a field's values must convert to.
type class uint8

const (
	clsTime  class = iota // a timestamp
	clsText               // a string
	clsInt                // an integer (status, tokens, window size)
	clsFloat              // a number (latency, cost, threshold)
	clsBool               // true or false
	clsBody               // a body: JSON text, or a group serialized to JSON
)

func classOf(f field) class {
	switch f {
	case fTS:
		return clsTime
	case fRequest, fResponse:
		return clsBody
	case fStatus, fTokensIn, fTokensOut, fKSWindow:
		return clsInt
	case fLatency, fCost, fKSThreshold:
		return clsFloat
	case fKSEnabled:
		return clsBool
	}
	return clsText // includes fKillSwitch: JSON text parsed per row
}

// want says, for error messages, which column types a class accepts.
func (c class) want() string {
	switch c {
	case clsTime:
		return "a TIMESTAMP, DATE or INT96, an INT32/INT64/FLOAT/DOUBLE of Unix seconds or milliseconds, or a string"
	case clsText:
		return "a string (BYTE_ARRAY), a UUID or an integer"
	case clsInt, clsFloat:
		return "an INT32/INT64 (or DECIMAL), a FLOAT/DOUBLE, or a string holding a number"
	case clsBool:
		return "a BOOLEAN or a string \"true\"/\"false\""
	case clsBody:
		return "a string holding JSON text, or a struct (group)"
	}
	return "?"
}

func fieldByName(name string) (field, bool) {
	for f, n := range fieldNames {
		if n == name {
			return field(f), true
		}
	}
	return 0, false
}

// columnName is the column the field is read from: the mapped name, else
// the field's own name. The kill_switch members follow a mapped kill_switch
// ("--map kill_switch=settings" reads settings.threshold).
func columnName(f field, m map[string]string) (name string, mapped bool) {
	if c, ok := m[f.String()]; ok {
		return c, true
	}
	switch f {
	case fKSEnabled, fKSWindow, fKSThreshold:
		if c, ok := m[fKillSwitch.String()]; ok {
			return c + f.String()[len("kill_switch"):], true
		}
	}
	return f.String(), false
}

// lookup finds the column called name below c: a child so named, else a
// path through groups whose names are joined by dots ("metadata.user_id").
// A child literally named with dots wins over a path; children are tried in
// schema order, so the result is deterministic.
func lookup(c *parquet.Column, name string) *parquet.Column {
	kids := c.Columns()
	for _, k := range kids {
		if k.Name() == name {
			return k
		}
	}
	for _, k := range kids {
		if !k.Leaf() && strings.HasPrefix(name, k.Name()+".") {
			if r := lookup(k, name[len(k.Name())+1:]); r != nil {
				return r
			}
		}
	}
	return nil
}

// flatMember is a column holding one member of an object flattened into
// columns named with dots ("request.model", "request.messages").
type flatMember struct {
	suffix string // the name after "request."
	col    *parquet.Column
}

// lookupFlat finds the columns flattened from the object called name: the
// children of c (or of a group on the dotted path) named name + ".member".
func lookupFlat(c *parquet.Column, name string) []flatMember {
	var out []flatMember
	for _, k := range c.Columns() {
		if strings.HasPrefix(k.Name(), name+".") && len(k.Name()) > len(name)+1 {
			out = append(out, flatMember{k.Name()[len(name)+1:], k})
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, k := range c.Columns() {
		if !k.Leaf() && strings.HasPrefix(name, k.Name()+".") {
			if r := lookupFlat(k, name[len(k.Name())+1:]); len(r) > 0 {
				return r
			}
		}
	}
	return nil
}

// pathOf renders a column's path with dots.
func pathOf(c *parquet.Column) string { return strings.Join(c.Path(), ".") }

// leafPaths lists the leaf columns of the file in schema order, for the
// message about a missing column; at most max of them, then a count.
func leafPaths(root *parquet.Column, max int) string {
	var names []string
	n := 0
	var walk func(c *parquet.Column)
	walk = func(c *parquet.Column) {
		for _, k := range c.Columns() {
			if k.Leaf() {
				if n < max {
					names = append(names, pathOf(k))
				}
				n++
			} else {
				walk(k)
			}
		}
	}
	walk(root)
	if n == 0 {
		return "none"
	}
	s := strings.Join(names, ", ")
	if n > max {
		s += fmt.Sprintf(", … (%d more)", n-max)
	}
	return s
}

// underRepeated reports whether c or one of its ancestors repeats: such a
// column holds any number of values per row, not one.
func underRepeated(c *parquet.Column) bool { return c.MaxRepetitionLevel() > 0 }
