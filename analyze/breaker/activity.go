package breaker

import (
	"time"
)

// Activity is one breaker's requests over the capture, for the chart an
// operator looks at first: the error rate it read before each request it
// decided against its threshold, and its requests, errors and refusals
// per Bucket.
type Activity struct {
	Scope   *ScopeResult
	Rules   Rules       // the scope's: Rate is the threshold
	Points  []RatePoint // one per request the breaker read its counters for (not refused while open), in order
	Bucket  time.Duration
	Buckets []Bucket // from the capture's start truncated to Bucket, to its end; empty ones included
}

// RatePoint is the error rate a breaker read before one request.
type RatePoint struct {
	TS      time.Time
	N       int // the request's number in its scope (1-based)
	Rate    float64
	Samples int
	Errors  int
	Trip    bool // the request tripped the breaker
}

// Bucket counts one scope's requests in [From, From+Bucket): requests
// decided, forwarded requests whose outcome was an error, and requests
// refused (the trips included).
type Bucket struct {
	From                      time.Time
	Requests, Errors, Refused int
}

// activityBuckets are the bucket sizes an Activity may take, shortest
// first: per minute unless the capture is too long for it.
var activityBuckets = []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour, 6 * time.Hour, 24 * time.Hour, 7 * 24 * time.Hour}

// MaxBuckets bounds the buckets of an Activity: the shortest of
// activityBuckets that covers the capture in at most MaxBuckets.
const MaxBuckets = 120

// ActivityOf returns the activity of each scope of res that was ever
// open (tripped, or opened by an operator), in res.Scopes' order, from
// the decisions of the same replay; the scopes that never opened are
// left out. A scope that shares another's Redis keys is counted under
// that one, as in res.
func ActivityOf(res *Result, ds []Decision) []Activity {
	idx := map[Scope]int{}
	var out []Activity
	for _, s := range res.Scopes {
		opened := len(s.Trips) > 0
		for _, m := range s.Manual {
			opened = opened || m.Open
		}
		if !opened {
			continue
		}
		idx[s.Scope] = len(out)
		out = append(out, Activity{Scope: s, Rules: res.Config.RulesFor(s.Scope.Agent)})
	}
	if len(out) == 0 {
		return nil
	}
	for _, sh := range res.Shared {
		if i, ok := idx[sh.With]; ok {
			idx[sh.Scope] = i
		}
	}
	var bucket time.Duration
	var origin time.Time
	for _, b := range activityBuckets {
		bucket, origin = b, res.Start.Truncate(b)
		if int64(res.End.Sub(origin)/b)+1 <= MaxBuckets {
			break
		}
	}
	n := int(res.End.Sub(origin)/bucket) + 1
	for i := range out {
		out[i].Bucket = bucket
		out[i].Buckets = make([]Bucket, n)
		for j := range out[i].Buckets {
			out[i].Buckets[j].From = origin.Add(time.Duration(j) * bucket)
		}
	}
	for k := range ds {
		d := &ds[k]
		i, ok := idx[d.Scope]
		if !ok {
			continue
		}
		a := &out[i]
		b := &a.Buckets[min(max(int(d.TS.Sub(origin)/bucket), 0), n-1)]
		b.Requests++
		switch {
		case d.Action != ActionForward:
			b.Refused++
		case d.Counted && d.Error:
			b.Errors++
		}
		if d.Action != ActionBlocked && res.Config.RulesFor(d.Scope.Agent).Enabled {
			a.Points = append(a.Points, RatePoint{TS: d.TS, N: d.ScopeN, Rate: d.ErrorRate, Samples: d.Samples, Errors: d.Errors, Trip: d.Action == ActionTrip})
		}
	}
	return out
}
