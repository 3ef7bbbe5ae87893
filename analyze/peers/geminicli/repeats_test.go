package geminicli

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// replayEvents feeds ops to two services, one through AddText's pending
// path (CannotChant's answer), one with every line run as it arrives, and
// fails at the first result or state that differs. An op is a text, "\x01"
// (a tool call) or "\x02" (a new prompt); a detection is cleared, as the
// profile clears it.
func replayEvents(t *testing.T, ops []string) {
	t.Helper()
	var fast, slow Service
	var rf repeatFinder
	k := toolKey(t, "t", "{}")
	for i, op := range ops {
		var rf1, rs Result
		switch op {
		case "\x01":
			rf1, rs = fast.AddToolCall(k, "t"), slow.AddToolCall(k, "t")
		case "\x02":
			fast.Reset()
			slow.Reset()
		default:
			rf1, rs = fast.AddText(op, rf.CannotChant(op)), slow.AddText(op, false)
		}
		if rf1 != rs {
			t.Fatalf("op %d (%.40q): pending path %+v, every line run %+v", i, op, rf1, rs)
		}
		if fast.inCode != slow.inCode {
			t.Fatalf("op %d (%.40q): in code %v, want %v", i, op, fast.inCode, slow.inCode)
		}
		fast.ClearDetection()
		slow.ClearDetection()
	}
	fast.materialize()
	if !equalUnits(fast.content, slow.content) || fast.lastIdx != slow.lastIdx || fast.off != slow.off || fast.count != slow.count {
		t.Fatalf("content history: %d units from %d, next %d, count %d; want %d from %d, next %d, count %d",
			len(fast.content), fast.off, fast.lastIdx, fast.count, len(slow.content), slow.off, slow.lastIdx, slow.count)
	}
}

// TestPendingTextAgrees: texts certified by CannotChant are kept pending
// and run only when the next content event reads their history; every
// result and the history itself are those of running each line at once.
// The cases hold chanting in one text (never certified), chanting across
// certified texts (the history is built when the next text comes), code
// blocks whose state outlives a tool call, and surrogates.
func TestPendingTextAgrees(t *testing.T) {
	sentence := "I am done. I will wait for the user.\n" // 37 units
	chant := strings.Repeat("I will now mark the task complete. ", 20)
	cases := map[string][]string{
		"chanting in one text":       {chant},
		"chanting across texts":      {strings.Repeat(sentence, 4), strings.Repeat(sentence, 4), strings.Repeat(sentence, 4)},
		"a tool call drops pending":  {strings.Repeat(sentence, 4), "\x01", strings.Repeat(sentence, 4), strings.Repeat(sentence, 4)},
		"a new prompt drops pending": {strings.Repeat(sentence, 4), "\x02", strings.Repeat(sentence, 4), strings.Repeat(sentence, 4)},
		"a fence outlives a call":    {"Here:\n```go\nx := 1\n", "\x01", strings.Repeat(sentence, 8), "```\n" + chant},
		"surrogates":                 {strings.Repeat("😀 ok ", 40), strings.Repeat("😀 ok ", 40), strings.Repeat("😀 ok ", 40)},
		"invalid UTF-8":              {strings.Repeat("ab\xffcd\xfe ", 30)},
		"after a detection":          {chant, chant, strings.Repeat(sentence, 3)},
	}
	for name, ops := range cases {
		t.Run(name, func(t *testing.T) { replayEvents(t, ops) })
	}
}

// TestCannotChantCertifiesProse: prose without a repeated 40-byte block is
// certified and kept pending (the fast path is taken); a text whose chunk
// occurs 10 times is not.
func TestCannotChantCertifiesProse(t *testing.T) {
	var rf repeatFinder
	r := rand.New(rand.NewPCG(3, 4))
	words := strings.Fields("the agent reads a file and then writes the answer to it before the tests run again on every change")
	var sb strings.Builder
	for sb.Len() < 3000 {
		sb.WriteString(words[r.IntN(len(words))] + " ")
	}
	prose := sb.String()
	if !rf.CannotChant(prose) {
		t.Fatal("prose not certified")
	}
	var s Service
	if r := s.AddText(prose, true); r.Count != 0 || s.pending != prose || len(s.content) != 0 {
		t.Fatalf("prose: %+v, pending %d bytes, history %d units: want it pending", r, len(s.pending), len(s.content))
	}
	for _, text := range []string{
		strings.Repeat("I will now mark the task complete. ", 20),
		strings.Repeat("x", 500),
		strings.Repeat("0123456789", 60),
		strings.Repeat("é", 300),
	} {
		if rf.CannotChant(text) {
			t.Errorf("%.30q… certified", text)
		}
		var s Service
		if s.AddText(text, false).Count == 0 && text[0] == 'I' {
			t.Errorf("%.30q…: no detection", text)
		}
	}
}

// TestCannotChantIsSound: on random texts of few distinct words (many
// repeats, at every distance), a certified text never detects when run
// line by line in a fresh service.
func TestCannotChantIsSound(t *testing.T) {
	var rf repeatFinder
	r := rand.New(rand.NewPCG(5, 6))
	words := []string{"ab", "cd ", "e", "😀", "fgh ", "\n", "```\n", "- ", "ij"}
	certified := 0
	for range 3000 {
		var sb strings.Builder
		n := r.IntN(400)
		for sb.Len() < n {
			sb.WriteString(words[r.IntN(len(words))])
		}
		text := sb.String()
		if !rf.CannotChant(text) {
			continue
		}
		certified++
		var s Service
		if res := s.AddText(text, false); res.Count != 0 {
			t.Fatalf("%q certified, but detects", text)
		}
	}
	if certified < 100 {
		t.Fatalf("%d texts certified of 3000", certified)
	}
}

// FuzzPendingText: any sequence of texts, tool calls and new prompts
// (separated by "\x00") gives the same results through the pending path as
// with every line run at once.
func FuzzPendingText(f *testing.F) {
	sentence := "I am done. I will wait for the user.\n"
	for _, seed := range []string{
		strings.Repeat("I will now mark the task complete. ", 20),
		strings.Repeat(sentence, 4) + "\x00" + strings.Repeat(sentence, 4) + "\x00" + strings.Repeat(sentence, 4),
		"Here:\n```go\nx := 1\n\x00\x01\x00" + strings.Repeat(sentence, 8) + "\x00```\n" + strings.Repeat(sentence, 9),
		strings.Repeat("😀 ok ", 40) + "\x00" + strings.Repeat("😀 ok ", 40),
		strings.Repeat("ab\xffcd\xfe ", 30),
		strings.Repeat("abcdefghi", 60) + "\x00\x02\x00" + strings.Repeat("abcdefghi", 60),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		replayEvents(t, strings.Split(in, "\x00"))
	})
}
