package conv

import (
	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
)

// Fingerprint is what a peer profile's fingerprint command shows: how in,
// a response body (asResponse) or a request body, converts. A peer shows
// events, not hashes (why says so); lines adds its own lines for a turn
// that converted (for a response, one that did not fail).
func (c *Converter) Fingerprint(in []byte, asResponse bool, why string, lines func(t *Turn) [][2]string) (analyze.Fingerprint, error) {
	var t Turn
	fp := analyze.Fingerprint{NoHashWhy: why, Source: "request body"}
	if asResponse {
		fp.Source = "response body"
		if err := c.Response(in, &t); err != nil {
			return fp, err
		}
		if t.Failed {
			fp.Lines = append(fp.Lines, [2]string{"events", "none: the response has no answer (a failed call)"})
			return fp, nil
		}
	} else if err := c.Request(in, &t); err != nil {
		return fp, err
	}
	fp.Lines = append(fp.Lines, lines(&t)...)
	return fp, nil
}

// State returns a profile's per-goroutine state kept in x, making it on
// first use.
func State[T any](x *analyze.Extractor) *T {
	e, _ := x.Ext.(*T)
	if e == nil {
		e = new(T)
		x.Ext = e
	}
	return e
}

// Features converts a record into the features a peer profile starts
// from: its token usage, a warning for a response not read, or the error
// of a request that cannot be read (ok false: the features are final).
func (c *Converter) Features(x *analyze.Extractor, rec *ingest.Record) (t Turn, f analyze.Features, ok bool) {
	t, warn, err := c.Convert(rec.Request, rec.Response, rec.Status)
	if err != nil {
		f.Err = err
		return t, f, false
	}
	f.Warn = warn
	if c.tree != nil {
		x.UsageOf(c.tree, &f) // the response as Convert parsed it
	} else {
		x.Usage(rec, &f)
	}
	return t, f, true
}

// Staged is a detector's state that a record changes only once answered:
// Score works on Next, a copy of Cur, and Push keeps it for an answered
// record (a refused one never happened).
type Staged[T any] struct{ Cur, Next T }

// Begin starts scoring a record: Next is Cur.
func (s *Staged[T]) Begin() *T { s.Next = s.Cur; return &s.Next }

// Keep keeps Next when the record was answered.
func (s *Staged[T]) Keep(answered bool) {
	if answered {
		s.Cur = s.Next
	}
}

// StagedDetector is the Push, Resize and Clear of a detector whose state
// is Staged: a record the profile extracted (Features.Ext set) changes it
// when answered; the window size means nothing; an activation starts
// afresh.
type StagedDetector[T any] struct{ Staged[T] }

func (d *StagedDetector[T]) Push(f *analyze.Features, answered bool) {
	if f.Ext != nil {
		d.Keep(answered)
	}
}

func (d *StagedDetector[T]) Resize(int) {}

func (d *StagedDetector[T]) Clear() {
	var zero T
	d.Cur = zero
}
