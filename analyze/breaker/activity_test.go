package breaker

import (
	"testing"
	"time"
)

// Agent a answers 10 times, fails 10 times (every 20 s from 10:00:00),
// then trips at its 21st request (10:06:40: 10 errors of 20 samples,
// 50%) and refuses the 4 after it; agent b never trips. By hand, per
// minute from 10:00: a's requests 3,3,3,3,3,3,3,3,1; errors 0,0,0,2,3,3,2,0,0
// (requests 11–20 at 200–380 s); refused 0,…,0,1 (the trip at 400 s),3,1.
func TestActivityOf(t *testing.T) {
	reqs := series("a", 0, 20*time.Second, append(append(repeat(10, 200), repeat(10, 500)...), repeat(5, 200)...)...)
	reqs = append(reqs, series("b", 30*time.Second, time.Minute, repeat(5, 200)...)...)
	// In time order, as the replay hands them over.
	for i := 1; i < len(reqs); i++ {
		for j := i; j > 0 && reqs[j].at < reqs[j-1].at; j-- {
			reqs[j], reqs[j-1] = reqs[j-1], reqs[j]
		}
	}
	ds, res := run(t, NewConfig(), reqs)
	acts := ActivityOf(res, ds)
	if len(acts) != 1 || acts[0].Scope.Scope.Agent != "a" {
		t.Fatalf("activity of %d scopes, want a's alone", len(acts))
	}
	a := acts[0]
	if a.Bucket != time.Minute || a.Rules.Rate != 0.5 || a.Rules.MinSamples != 10 {
		t.Errorf("bucket %v, rules %+v", a.Bucket, a.Rules)
	}
	want := [][3]int{{3, 0, 0}, {3, 0, 0}, {3, 0, 0}, {3, 2, 0}, {3, 3, 0}, {3, 3, 0}, {3, 2, 1}, {3, 0, 3}, {1, 0, 1}}
	if len(a.Buckets) != len(want) {
		t.Fatalf("%d buckets, want %d", len(a.Buckets), len(want))
	}
	var sum [3]int
	for i, b := range a.Buckets {
		got := [3]int{b.Requests, b.Errors, b.Refused}
		if got != want[i] || !b.From.Equal(t0.Add(time.Duration(i)*time.Minute)) {
			t.Errorf("bucket %d: %v from %v, want %v from %v", i, got, b.From, want[i], t0.Add(time.Duration(i)*time.Minute))
		}
		for k := range sum {
			sum[k] += got[k]
		}
	}
	if s := a.Scope; sum != [3]int{s.Requests, s.Errors, s.Refused} {
		t.Errorf("buckets add up to %v, the scope has %d requests, %d errors, %d refused", sum, s.Requests, s.Errors, s.Refused)
	}
	if len(a.Points) != 21 {
		t.Fatalf("%d rate points, want 21 (20 forwarded, the trip)", len(a.Points))
	}
	if p := a.Points[10]; p.N != 11 || p.Samples != 10 || p.Rate != 0 {
		t.Errorf("request 11 read %+v, want 0 errors of 10 samples", p)
	}
	if p := a.Points[20]; !p.Trip || p.N != 21 || p.Samples != 20 || p.Errors != 10 || p.Rate != 0.5 || !p.TS.Equal(t0.Add(400*time.Second)) {
		t.Errorf("the trip: %+v", p)
	}
}
