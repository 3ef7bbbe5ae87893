package analyze

import "github.com/killswitch/killswitch/ingest"

// A Policy is one enforcement state machine: the loop kill switch, an
// error-rate circuit breaker, a gateway's freezes and guardrails. The
// Engine owns what they share — replay order, sequence numbers, per-agent
// timelines and totals, bad input, warnings — and a policy says what a
// record does to its subjects' state and what verdict follows, like an
// http.Handler under the server loop.
//
// Several policies run in one replay in a stated order (Config.Policies),
// as a gateway stacks them: each sees every record; for a request, the
// Decision arrives holding what the policies before it decided, and a
// policy whose request is already refused only observes it (it may count
// it, it never forwards it again). A policy keys its state on whatever
// subject it chooses from the record (agent; tenant + agent + workflow;
// tenant; API key): see Subject.
//
// The sweep evaluates a policy through the same state machine (for the
// loop kill switch, LoopAgent), never a copy of it.
type Policy interface {
	// Name is the policy's name on the command line (--policy).
	Name() string
	// Control applies a control record at its time.
	Control(rec *ingest.Record, fx *Effects)
	// Decide decides one request with its features. The record's bodies
	// are valid only during the call (the replay reuses their memory for
	// later records): a policy that keeps any of their bytes copies them.
	Decide(rec *ingest.Record, f *Features, d *Decision, fx *Effects)
}

// Effects collect what a step changed besides the decision: the state
// transitions it caused and the warnings it met, in order. The engine
// reports them.
type Effects struct {
	Transitions []Transition
	Warnings    []string
}

// Subject is what a policy may key its state on: the fields of a record
// that name who sent it.
type Subject struct {
	Tenant, Agent, Workflow, APIKey string
}

// SubjectOf returns the record's subject. A record without a workflow is
// workflow "default".
func SubjectOf(rec *ingest.Record) Subject {
	w := rec.Workflow
	if w == "" {
		w = "default"
	}
	return Subject{Tenant: rec.Tenant, Agent: rec.Agent, Workflow: w, APIKey: rec.APIKeyID}
}
