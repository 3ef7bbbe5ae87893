// Package geminicli is gemini-cli's loop detector, LoopDetectionService,
// re-implemented from the compiled source published in the npm package
// @google/gemini-cli-core 0.61.0 (dist/src/services/loopDetectionService.js,
// wired in by dist/src/core/client.js and core/turn.js), and the
// gemini-cli profile that replays captured traffic through it
// (../shared/PEER-REPLAY.md says how a capture becomes its events).
//
// The service's deterministic checks are here, with the source's
// constants, order of checks and resets: a tool-call cycle of length 1 to
// 5 repeated 5 times at the end of the last 25 calls, and content
// "chanting": a 50-character chunk of streamed text seen 10 times with an
// average gap of at most 250 characters and at most 5 distinct texts
// between occurrences. Its model-based check (after 30 turns of one
// prompt) needs a model and is left out.
package geminicli

import (
	"crypto/sha256"
	"strings"
	"unicode/utf16"
)

// The source's constants.
const (
	ToolCallLoopThreshold = 5    // TOOL_CALL_LOOP_THRESHOLD
	ContentLoopThreshold  = 10   // CONTENT_LOOP_THRESHOLD
	ContentChunkSize      = 50   // CONTENT_CHUNK_SIZE
	MaxHistoryLength      = 5000 // MAX_HISTORY_LENGTH, in UTF-16 code units
	maxCycle              = 5    // cycle lengths 1..5
	historyLen            = maxCycle * ToolCallLoopThreshold
)

// Key is a tool call's key: sha256(name + ":" + JSON.stringify(args)).
type Key [sha256.Size]byte

// LoopType is what a detection found.
type LoopType uint8

const (
	LoopNone LoopType = iota
	LoopToolCalls
	LoopContent
)

func (t LoopType) String() string {
	switch t {
	case LoopToolCalls:
		return "consecutive_identical_tool_calls"
	case LoopContent:
		return "chanting_identical_sentences"
	}
	return "none"
}

// Result is addAndCheck's answer: Count is 0 when the event is not (or
// no longer) part of a detection, else the number of detections since the
// last reset; Type and Cycle say what the latest detection found (Cycle:
// the tool-call cycle's length).
type Result struct {
	Count int
	Type  LoopType
	Cycle int
}

// Service is one LoopDetectionService: the state of one agent's current
// prompt. The zero value is a service right after reset.
type Service struct {
	tools  [historyLen]Key // the last toolN keys, oldest first
	toolN  int
	detail []string // the names of the calls in tools (for explanations)

	content []uint16 // streamContentHistory
	off     int      // units truncated from its front since the last reset
	stats   chunkTable
	lastIdx int // lastContentIndex
	// roll is the hash of the chunk at rollAt when rolled, rollSur the
	// surrogates in it.
	roll            uint64
	rollAt, rollSur int
	rolled          bool
	inCode          bool
	detected        bool // loopDetected
	count           int  // detectedCount
	lastType        LoopType
	lastCyc         int
	// pending is text whose content events were fed to an empty content
	// history, not yet run: no chunk of it can occur 10 times (AddText),
	// so they could not detect, and the history they leave is built only
	// when a later content event reads it. pendingCode is inCode before
	// them.
	pending     string
	pendingCode bool
	u           []uint16 // AddText's line in UTF-16

	// Turns counts turnStarted calls since the last reset.
	Turns int
}

// Reset forgets everything, as reset(promptId) does at a new prompt.
func (s *Service) Reset() {
	stats := s.stats
	stats.reset()
	*s = Service{content: s.content[:0], detail: s.detail[:0], stats: stats, u: s.u}
}

// ClearDetection lets a recovery turn proceed; the count is kept, so the
// next detection is the second.
func (s *Service) ClearDetection() { s.detected = false }

// Count is the number of detections since the last reset.
func (s *Service) Count() int { return s.count }

// TurnStarted is turnStarted without the model-based check.
func (s *Service) TurnStarted() Result {
	if s.detected {
		return s.result()
	}
	s.Turns++
	return Result{}
}

func (s *Service) result() Result { return Result{Count: s.count, Type: s.lastType, Cycle: s.lastCyc} }

// AddToolCall is addAndCheck of a ToolCallRequest event with key k; name
// is kept for explanations only.
func (s *Service) AddToolCall(k Key, name string) Result {
	if s.detected {
		return s.result()
	}
	s.resetContent()
	if c := s.checkToolCall(k, name); c > 0 {
		return s.detect(LoopToolCalls, c)
	}
	return Result{}
}

// AddContent is addAndCheck of a Content event with text u (UTF-16).
func (s *Service) AddContent(u []uint16) Result {
	if s.detected {
		return s.result()
	}
	s.materialize()
	if s.checkContent(u) {
		return s.detect(LoopContent, 0)
	}
	return Result{}
}

// AddText is addAndCheck of text's content events, one a line (up to and
// including each "\n"), until one detects a loop: the result of the last
// one fed. noChant says no chunk of text can occur 10 times
// (repeatFinder.CannotChant): fed to an empty content history, its events
// cannot detect, so they are kept pending, and only the code-block state
// its fences leave is taken now (an odd count of "```" flips it, as the
// lines' own counts do).
func (s *Service) AddText(text string, noChant bool) Result {
	if s.detected {
		return s.result()
	}
	if noChant && text != "" && len(s.content) == 0 && s.pending == "" {
		s.pending, s.pendingCode = text, s.inCode
		if strings.Count(text, "```")%2 == 1 {
			s.inCode = !s.inCode
		}
		return Result{}
	}
	s.materialize()
	return s.addLines(text)
}

func (s *Service) addLines(text string) Result {
	var r Result
	for rest := text; rest != "" && r.Count == 0; {
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line = rest[:i+1]
		}
		rest = rest[len(line):]
		s.u = UTF16(s.u[:0], line)
		r = s.AddContent(s.u)
	}
	return r
}

// materialize runs the pending text's content events, as AddText would
// have run them (none detects).
func (s *Service) materialize() {
	if s.pending == "" {
		return
	}
	text := s.pending
	s.pending = ""
	s.inCode = s.pendingCode
	s.addLines(text)
}

func (s *Service) detect(t LoopType, cycle int) Result {
	s.detected = true
	s.count++
	s.lastType, s.lastCyc = t, cycle
	return s.result()
}

// checkToolCall is checkToolCallLoop: it returns the length of the cycle
// the history now ends with, 0 for none.
func (s *Service) checkToolCall(k Key, name string) int {
	if s.toolN == historyLen {
		copy(s.tools[:], s.tools[1:])
		copy(s.detail, s.detail[1:])
		s.detail = s.detail[:historyLen-1]
		s.toolN--
	}
	s.tools[s.toolN] = k
	s.detail = append(s.detail, name)
	s.toolN++
	n := s.toolN
	h := s.tools[:n]
	for c := 1; c <= maxCycle; c++ {
		req := c * ToolCallLoopThreshold
		if n < req {
			continue
		}
		cycle := h[n-c:]
		match := true
		for i := 0; i < req; i++ {
			if h[n-req+i] != cycle[i%c] {
				match = false
				break
			}
		}
		if match {
			return c
		}
	}
	return 0
}

// CycleNames returns the names of the calls of the latest tool-call cycle,
// oldest first.
func (s *Service) CycleNames() []string {
	if s.lastCyc == 0 || len(s.detail) < s.lastCyc {
		return nil
	}
	return s.detail[len(s.detail)-s.lastCyc:]
}

func (s *Service) resetContent() {
	s.pending = ""
	s.content = s.content[:0]
	s.rolled = false
	s.off = 0
	s.stats.reset()
	s.lastIdx = 0
}

// checkContent is checkContentLoop.
func (s *Service) checkContent(u []uint16) bool {
	fences := countFences(u)
	divider := isDivider(u)
	if fences > 0 || breaksContent(u) || divider {
		s.resetContent()
	}
	was := s.inCode
	if fences%2 == 1 {
		s.inCode = !s.inCode
	}
	if was || s.inCode || divider {
		return false
	}
	s.content = append(s.content, u...)
	s.truncate()
	return s.analyze()
}

// truncate is truncateAndUpdate: positions below the new front are
// gone (chunkTable reads them as dropped).
func (s *Service) truncate() {
	if len(s.content) <= MaxHistoryLength {
		return
	}
	cut := len(s.content) - MaxHistoryLength
	s.content = append(s.content[:0], s.content[cut:]...)
	s.lastIdx = max(0, s.lastIdx-cut)
	s.rollAt -= cut
	s.rolled = s.rolled && s.rollAt >= 0
	s.off += cut
}

// analyze is analyzeContentChunksForLoop.
func (s *Service) analyze() bool {
	for s.lastIdx+ContentChunkSize <= len(s.content) {
		if s.chunkLoops() {
			return true
		}
		s.lastIdx++
	}
	return false
}

// The chunks' hashes: a polynomial over the 50 code units in base
// rollBase (mod 2⁶⁴), rolled from one position to the next, then mixed
// (fmix64, a bijection) for the table. A window holding a surrogate is
// hashed directly as its sha256 sees it: a surrogate without its pair in
// the chunk is U+FFFD there.
const rollBase = 0x9e3779b97f4a7c15

var rollTop = func() uint64 { // rollBase^49
	p := uint64(1)
	for range ContentChunkSize - 1 {
		p *= rollBase
	}
	return p
}()

func isSurrogate(u uint16) bool { return u >= 0xd800 && u < 0xe000 }

// hash returns the hash of the chunk at i.
func (s *Service) hash(i int) uint64 {
	c := s.content
	switch {
	case s.rolled && s.rollAt == i-1:
		out, in := c[i-1], c[i+ContentChunkSize-1]
		s.roll = (s.roll-uint64(out)*rollTop)*rollBase + uint64(in)
		if isSurrogate(out) {
			s.rollSur--
		}
		if isSurrogate(in) {
			s.rollSur++
		}
	case !s.rolled || s.rollAt != i:
		s.roll, s.rollSur = 0, 0
		for _, u := range c[i : i+ContentChunkSize] {
			s.roll = s.roll*rollBase + uint64(u)
			if isSurrogate(u) {
				s.rollSur++
			}
		}
	}
	s.rollAt, s.rolled = i, true
	h := s.roll
	if s.rollSur > 0 {
		h = 0
		w := c[i : i+ContentChunkSize]
		for j := 0; j < len(w); j++ {
			u := w[j]
			if isSurrogate(u) {
				paired := (u < 0xdc00 && j+1 < len(w) && w[j+1] >= 0xdc00 && w[j+1] < 0xe000) ||
					(u >= 0xdc00 && j > 0 && w[j-1] >= 0xd800 && w[j-1] < 0xdc00)
				if !paired {
					u = 0xfffd
				}
			}
			h = h*rollBase + uint64(u)
		}
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}

// chunkLoops is isLoopDetectedForChunk for the chunk at lastIdx. Two
// chunks whose 64-bit hashes collide are taken for one whose content
// differs (the source compares the content of a sha256 match the same way).
func (s *Service) chunkLoops() bool {
	h := s.hash(s.lastIdx)
	sl, head := s.stats.head(h, s.off)
	if head < 0 {
		s.stats.push(sl, h, s.lastIdx+s.off, -1, s.off)
		return false
	}
	// Every live position of a chunk holds the same units: the newest
	// stands for the first.
	if !s.sameChunk(s.lastIdx, s.stats.nodes[head].pos-s.off) {
		return false
	}
	s.stats.push(sl, h, s.lastIdx+s.off, head, s.off)
	var recent [ContentLoopThreshold]int
	n := 0
	for nd := int32(len(s.stats.nodes) - 1); nd >= 0 && n < ContentLoopThreshold; nd = s.stats.nodes[nd].prev {
		p := s.stats.nodes[nd].pos - s.off
		if p < 0 {
			break
		}
		recent[ContentLoopThreshold-1-n] = p
		n++
	}
	if n < ContentLoopThreshold {
		return false
	}
	total := recent[ContentLoopThreshold-1] - recent[0]
	if float64(total)/float64(ContentLoopThreshold-1) > ContentChunkSize*5 {
		return false
	}
	// The texts between consecutive occurrences: a loop has few.
	distinct := 0
	for i := 0; i < ContentLoopThreshold-1; i++ {
		seen := false
		for j := 0; j < i && !seen; j++ {
			seen = equalUnits(s.content[recent[i]:recent[i+1]], s.content[recent[j]:recent[j+1]])
		}
		if !seen {
			distinct++
		}
	}
	return distinct <= ContentLoopThreshold/2
}

func equalUnits(a, b []uint16) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// sameChunk is isActualContentMatch: the code units at i and at j agree.
func (s *Service) sameChunk(i, j int) bool {
	return equalUnits(s.content[i:i+ContentChunkSize], s.content[j:min(j+ContentChunkSize, len(s.content))])
}

// UTF16 converts s to UTF-16 code units, as a JavaScript string holds it
// (bytes that are not UTF-8 as U+FFFD).
func UTF16(dst []uint16, s string) []uint16 {
	for _, r := range s {
		dst = utf16.AppendRune(dst, r)
	}
	return dst
}
