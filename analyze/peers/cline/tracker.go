// Package cline replays the loop detection of the Cline CLI 3.0.65 (npm
// package cline), as its @cline/core 0.0.86 runs it
// (dist/index.js; source sdk/packages/core/src/runtime/safety/loop-detection.ts
// and runtime/orchestration/session-runtime-orchestrator.ts at cline
// 21cb8d25): every tool call the runtime starts is compared with the
// previous one by tool name and signature (JSON.stringify of its input
// with every object's keys sorted); a soft warning is added to the
// conversation at the 3rd identical call in a row, and at the 5th the
// mistake tracker is forced to its limit, which asks the user (or stops
// the run in yolo mode). The CLI sets soft 3 / hard 5
// (apps/cli/src/runtime/defaults.ts); the library alone leaves it off.
package cline

// Tracker is LoopDetectionTracker's state: the last call's tool name and
// signature, and how many identical calls in a row end with it.
type Tracker struct {
	lastName string
	lastSig  string
	count    int
}

// Verdict is what inspect() returns.
type Verdict int

const (
	OK   Verdict = iota // no repeated call
	Soft                // the soft threshold reached: a recovery notice
	Hard                // the hard threshold reached: stop
)

// Inspect is checkRepeatedToolCall and inspect(): it enters a call and
// returns consecutiveIdenticalCount after it and the verdict at soft and
// hard thresholds.
func (tr *Tracker) Inspect(name, sig string, soft, hard int) (int, Verdict) {
	if name == tr.lastName && sig == tr.lastSig {
		tr.count++
	} else {
		tr.count = 1
	}
	tr.lastName, tr.lastSig = name, sig
	switch {
	case tr.count >= hard:
		return tr.count, Hard
	case tr.count == soft:
		return tr.count, Soft
	}
	return tr.count, OK
}

// Reset is reset(): a new conversation (clearHistory, restore).
func (tr *Tracker) Reset() { *tr = Tracker{} }
