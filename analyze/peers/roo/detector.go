// Package roo replays Roo-Code's loop guards over captured traffic, as
// released in Roo-Code v3.52.1 (the VS Code extension; source at tag
// v3.52.1, commit 67def7214a6165cab2ed76ec9e0984812402c0ac):
// ToolRepetitionDetector (src/core/tools/ToolRepetitionDetector.ts), which
// presentAssistantMessage.ts runs on every complete tool_use block, and
// the consecutive-mistake limit of Task.recursivelyMakeClineRequests
// (src/core/task/Task.ts) as replies without a tool call feed it. Both
// share the limit consecutiveMistakeLimit (DEFAULT_CONSECUTIVE_MISTAKE_LIMIT
// = 3). docs/peers.md says how captured calls become Roo's tool uses and
// what is left out.
package roo

import "crypto/sha256"

// Key is a tool use's identity: the sha256 of Roo's serialization of it
// (see Serialize).
type Key = [sha256.Size]byte

// Repetition is ToolRepetitionDetector's state: the previous tool use and
// how many times in a row it has been repeated since (0 the first time).
type Repetition struct {
	prev    Key
	hasPrev bool
	count   int
}

// Count enters a tool use and returns consecutiveIdenticalToolCallCount
// after it: 0 for a tool use other than the previous one, one more than
// before for the same.
func (r *Repetition) Count(k Key) int {
	if r.hasPrev && r.prev == k {
		r.count++
	} else {
		r.count, r.prev, r.hasPrev = 0, k, true
	}
	return r.count
}

// Check is ToolRepetitionDetector.check with consecutiveIdenticalToolCallLimit
// limit: false when the tool use must not run (the count reached a
// positive limit), after which the detector starts afresh, as the source
// does to let the user guide the model past it.
func (r *Repetition) Check(k Key, limit int) bool {
	if n := r.Count(k); limit > 0 && n >= limit {
		*r = Repetition{}
		return false
	}
	return true
}

// Mistakes is the part of a Task's counters that replies without a tool
// call move: consecutiveNoToolUseCount and consecutiveMistakeCount.
type Mistakes struct {
	noToolUse int
	count     int
}

// Reply enters one answered reply with text or tool uses: one without a
// tool use adds to consecutiveNoToolUseCount, and from the second in a
// row to consecutiveMistakeCount; one with a tool use resets the first
// and, as every tool does when it runs (the capture cannot tell a tool's
// failure from its success), the second.
func (m *Mistakes) Reply(usedTool bool) {
	if usedTool {
		*m = Mistakes{}
		return
	}
	m.noToolUse++
	if m.noToolUse >= 2 {
		m.count++
	}
}

// Count is consecutiveMistakeCount, which the next request compares with
// the limit before it is made.
func (m *Mistakes) Count() int { return m.count }
