package breaker

import (
	"fmt"
	"time"

	"github.com/valyala/fastjson"
)

// ErrorBody reports whether a response body is an error document (an
// object whose "error" is not null), which the breaker counts as an error
// whatever the status: for a replay that reads bodies in one place and
// decides in another.
func ErrorBody(p *fastjson.Parser, resp []byte) bool { return errorBody(p, resp) }

// KeyStem is the stem of the scope's Redis keys, [tenant:T:]stats:AGENT:WORKFLOW.
// Scopes with the same stem are one breaker (see SharedKeys): a replay
// split into parts keeps each stem's records in one part.
func KeyStem(s Scope) string { return fmt.Sprintf(keyBase(s), "stats") }

// FinishAt is Finish for one part of a replay split by KeyStem: end is the
// last time of the whole capture (of a request, or of a breaker_open or
// breaker_close record), at which every breaker's open state and counters
// are read, as the single replay reads them. A part's own Start and End
// are its records'; Merge takes the earliest and the latest.
func (b *Breaker) FinishAt(end time.Time) *Result {
	last := b.end
	if end.After(b.end) {
		b.end = end
	}
	res := b.Finish()
	res.End = last
	return res
}

// ResultAt is Result for one part of a replay split by KeyStem (see
// FinishAt).
func (p *Policy) ResultAt(end time.Time) *Result {
	if p.result == nil {
		p.result = p.b.FinishAt(end)
	}
	return p.result
}

// Merge joins the results of replays over parts of a capture split by
// KeyStem, each finished by FinishAt at the capture's end and with its
// sequence numbers (Trip.Seq) already those of the whole replay, into the
// result one replay of the whole capture yields. cfg is the parts'
// configuration. Shared lists the parts' shared scopes part after part: a
// caller whose parts interleave in time puts it in the order the scopes
// were first seen. The parts' scope timelines are shared with the result.
func Merge(cfg Config, parts []*Result) *Result {
	res := &Result{Config: cfg}
	noStatus := map[string]int{}
	for _, p := range parts {
		res.Scopes = append(res.Scopes, p.Scopes...)
		res.Shared = append(res.Shared, p.Shared...)
		if !p.Start.IsZero() && (res.Start.IsZero() || p.Start.Before(res.Start)) {
			res.Start = p.Start
		}
		if p.End.After(res.End) {
			res.End = p.End
		}
		for _, f := range p.NoStatus {
			noStatus[f.File] += f.N
		}
	}
	res.total(noStatus)
	return res
}
