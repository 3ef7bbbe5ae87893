package progress

import (
	"bytes"
	"strconv"
)

// Description is how the detector sees one input: what the fingerprint
// command shows.
type Description struct {
	Source     string // "text", "request body", "response body"
	Text       string // the observation (request) or answer text (response), parts joined by newlines
	Normalized string // its churn-normalized form: what is compared
	Hash       uint64 // the observation's or answer's hash; 0 when there is none
	Action     string // the calls of the action (request bodies)
	Lines      [][2]string
}

// Describe shows what Extract compares for a request body, a response body
// (asResponse) or a plain text (taken as an observation).
func (x *Extractor) Describe(in []byte, asResponse bool) (Description, error) {
	var d Description
	trimmed := bytes.TrimSpace(in)
	switch {
	case asResponse:
		d.Source = "response body"
		var f Features
		x.response(in, &f, true)
		r, err := x.body.ParseResponse(in)
		if err != nil {
			return d, err
		}
		text, calls := splitCalls(r.Text)
		d.Text = string(text)
		x.norm.reset()
		x.norm.show, x.norm.out = true, nil
		x.norm.add(text)
		d.Normalized = string(bytes.TrimSpace(x.norm.out))
		x.norm.show, x.norm.out = false, nil
		d.Hash = f.Ans
		d.Lines = append(d.Lines, [2]string{"answer words", strconv.Itoa(f.AnsWords)}, [2]string{"tool calls asked", strconv.Itoa(calls)})
		return d, nil
	case len(trimmed) > 0 && trimmed[0] == '{':
		d.Source = "request body"
		var f Features
		var show []byte
		if err := x.request(trimmed, &f, &show); err != nil {
			return d, err
		}
		var parts [][]byte
		for _, p := range x.obsParts {
			parts = append(parts, p)
		}
		d.Text = string(bytes.Join(parts, []byte("\n")))
		d.Normalized = string(bytes.TrimSpace(show))
		d.Hash, d.Action = f.Obs, f.ActLabel
		d.Lines = append(d.Lines,
			[2]string{"action", orNone(f.ActLabel)},
			[2]string{"action hash", hex(f.Act)},
			[2]string{"observation words", strconv.Itoa(f.ObsWords)},
			[2]string{"observation is an error", strconv.FormatBool(f.ObsErr)},
			[2]string{"step key", hex(f.Key())})
		return d, nil
	}
	d.Source = "text"
	d.Text = string(in)
	x.norm.reset()
	x.norm.show, x.norm.out = true, nil
	x.norm.add(in)
	d.Normalized = string(bytes.TrimSpace(x.norm.out))
	if d.Normalized != "" {
		d.Hash = x.norm.h | 1 // as Extract hashes an observation
	}
	d.Lines = append(d.Lines, [2]string{"is an error", strconv.FormatBool(x.norm.errs)})
	x.norm.show, x.norm.out = false, nil
	return d, nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func hex(v uint64) string {
	if v == 0 {
		return "(none)"
	}
	return strconv.FormatUint(v, 16)
}
