package breaker

import (
	"testing"
	"time"
)

// #28 item 4: agent "a:b" in workflow "c" and agent "a" in workflow "b:c"
// have the same Redis keys (tenant:t:stats:a:b:c:*), so the live handler
// counts them as one breaker. Alternating 5 errors of each: with
// min_samples 10 and rate 0.5, the 11th request (the second scope's 6th)
// sees 10 errors and trips; as two breakers neither would have 10
// samples. One scope in the result, one set of keys, one Shared entry.
func TestScopesWithOneKeyShareABreaker(t *testing.T) {
	var reqs []req
	for i := 0; i < 6; i++ {
		reqs = append(reqs,
			req{at: time.Duration(2*i) * time.Second, tenant: "t", agent: "a:b", workflow: "c", status: 500},
			req{at: time.Duration(2*i+1) * time.Second, tenant: "t", agent: "a", workflow: "b:c", status: 500})
	}
	ds, res := run(t, NewConfig(), reqs)
	if ds[10].Action != ActionTrip || ds[10].Scope != (Scope{"t", "a:b", "c"}) || ds[10].ScopeN != 11 {
		t.Errorf("request 11: %v of %v (scope request %d), want a trip of t/a:b/c at 11", ds[10].Action, ds[10].Scope, ds[10].ScopeN)
	}
	if ds[11].Action != ActionBlocked {
		t.Errorf("request 12 (t/a/b:c): %v, want blocked by the shared breaker", ds[11].Action)
	}
	if len(res.Scopes) != 1 || res.Scopes[0].Scope != (Scope{"t", "a:b", "c"}) || res.Scopes[0].Requests != 12 {
		t.Fatalf("scopes %+v, want one (t/a:b/c) with 12 requests", res.Scopes)
	}
	want := SharedKeys{Key: "tenant:t:stats:a:b:c", Scope: Scope{"t", "a", "b:c"}, With: Scope{"t", "a:b", "c"}}
	if len(res.Shared) != 1 || res.Shared[0].Key != want.Key || res.Shared[0].Scope != want.Scope || res.Shared[0].With != want.With || res.Shared[0].Source.N != 2 {
		t.Errorf("Shared %+v, want once %+v at b.jsonl:2", res.Shared, want)
	}
	keys := res.RedisKeys()
	if len(keys) != 1 || len(keys[0]) != 2 || keys[0][0].Key != "tenant:t:killswitch:a:b:c:active" || keys[0][1].Key != "tenant:t:stats:a:b:c:error" || keys[0][1].Value != "10" {
		t.Errorf("keys %+v, want the active flag and 10 errors, once", keys)
	}
	// Distinct keys stay distinct: another tenant, or no colon games.
	_, res = run(t, NewConfig(), []req{{tenant: "t", agent: "a", workflow: "b"}, {tenant: "u", agent: "a", workflow: "b"}, {tenant: "t", agent: "a:b"}})
	if len(res.Scopes) != 3 || len(res.Shared) != 0 {
		t.Errorf("%d scopes, shared %+v; want 3 and none", len(res.Scopes), res.Shared)
	}
}
