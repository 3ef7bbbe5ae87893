package conv

import "github.com/killswitch/killswitch/analyze"

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
