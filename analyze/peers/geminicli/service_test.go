package geminicli

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/killswitch/killswitch/analyze/peers/conv"
)

// The scenarios of gemini-cli 0.61.0's own loopDetectionService.test.js
// (dist/src/services/), rewritten: each test feeds the same events and
// expects what the source's checks give, derived by hand in the comments
// (TOOL_CALL_LOOP_THRESHOLD = 5, CONTENT_LOOP_THRESHOLD = 10,
// CONTENT_CHUNK_SIZE = 50). The tests that exercise the session disable
// switch, the telemetry loggers or the model-based check are left out: the
// profile has none of them.

const (
	toolT    = ToolCallLoopThreshold
	contentT = ContentLoopThreshold
	chunk    = ContentChunkSize
)

func toolKey(t *testing.T, name, args string) Key {
	t.Helper()
	var e extractor
	return e.key(conv.Call{Name: name, Args: args}).key
}

func addTool(s *Service, k Key) int { return s.AddToolCall(k, "t").Count }

func addText(s *Service, text string) int { return s.AddContent(UTF16(nil, text)).Count }

// repetitive is createRepetitiveContent(id, length).
func repetitive(id, length int) string {
	base := "This is a unique sentence, id=" + itoa(id) + ". "
	var sb strings.Builder
	for sb.Len() < length {
		sb.WriteString(base)
	}
	return sb.String()[:length]
}

func itoa(i int) string { return strings.TrimSpace(strings.Repeat(" ", 0) + fmtInt(i)) }

func fmtInt(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return fmtInt(i/10) + string(rune('0'+i%10))
}

// random is generateRandomString, from a seeded source.
func random(r *rand.Rand, n int) string {
	const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[r.IntN(len(chars))]
	}
	return string(b)
}

func TestToolCallLoops(t *testing.T) {
	a := toolKey(t, "testTool", `{"param":"value"}`)

	t.Run("fewer than the threshold", func(t *testing.T) {
		// 4 identical keys: no cycle length k has 5k keys.
		var s Service
		for i := 0; i < toolT-1; i++ {
			if c := addTool(&s, a); c != 0 {
				t.Fatalf("call %d: count %d", i+1, c)
			}
		}
	})
	t.Run("the threshold-th identical call", func(t *testing.T) {
		// The 5th key completes a cycle of 1 repeated 5 times.
		var s Service
		for i := 0; i < toolT-1; i++ {
			addTool(&s, a)
		}
		if c := addTool(&s, a); c != 1 {
			t.Fatalf("count %d, want 1", c)
		}
	})
	t.Run("subsequent identical calls", func(t *testing.T) {
		// After the first detection loopDetected holds: addAndCheck
		// returns the same count without counting again.
		var s Service
		for i := 0; i < toolT; i++ {
			addTool(&s, a)
		}
		if c := addTool(&s, a); c != 1 {
			t.Fatalf("count %d, want 1", c)
		}
	})
	t.Run("different tool calls", func(t *testing.T) {
		// A, B, C three times: the tail never repeats a cycle 5 times.
		var s Service
		keys := []Key{toolKey(t, "testTool", `{"param":"value1"}`), toolKey(t, "testTool", `{"param":"value2"}`), toolKey(t, "anotherTool", `{"param":"value1"}`)}
		for i := 0; i < toolT-2; i++ {
			for _, k := range keys {
				if c := addTool(&s, k); c != 0 {
					t.Fatalf("round %d: count %d", i, c)
				}
			}
		}
	})
	t.Run("other events do not reset the counter", func(t *testing.T) {
		// A thought event is ignored by addAndCheck; the profile never
		// feeds one. 4 calls, then the 5th detects.
		var s Service
		for i := 0; i < toolT-1; i++ {
			addTool(&s, a)
		}
		if c := addTool(&s, a); c != 1 {
			t.Fatalf("count %d, want 1", c)
		}
	})
	cycle := func(t *testing.T, keys []Key, calls, wantAt int) {
		t.Helper()
		var s Service
		at := 0
		for i := 0; i < calls; i++ {
			if c := addTool(&s, keys[i%len(keys)]); c > 0 && at == 0 {
				at = i + 1
			}
		}
		if at != wantAt {
			t.Fatalf("detected at call %d, want %d", at, wantAt)
		}
	}
	ra, rb, rc := toolKey(t, "read_file", `{"file_path":"loop_a.txt"}`), toolKey(t, "read_file", `{"file_path":"loop_b.txt"}`), toolKey(t, "read_file", `{"file_path":"loop_c.txt"}`)
	// A cycle of k needs 5k keys: detected at call 5k (the test only
	// asks for a detection within 15, 20 and 30 calls).
	t.Run("alternating cycle of 2", func(t *testing.T) { cycle(t, []Key{ra, rb}, 15, 10) })
	t.Run("cycle of 3", func(t *testing.T) { cycle(t, []Key{ra, rb, rc}, 20, 15) })
	t.Run("cycle of 5", func(t *testing.T) {
		var keys []Key
		for i := 1; i <= 5; i++ {
			keys = append(keys, toolKey(t, "t", `{"id":`+fmtInt(i)+`}`))
		}
		cycle(t, keys, 30, 25)
	})
	t.Run("alternation broken by a third call", func(t *testing.T) {
		// A B A B C A B A B: at most 4 keys of any cycle at the tail.
		var s Service
		seq := []Key{ra, rb, ra, rb, rc, ra, rb, ra, rb}
		for i, k := range seq {
			if c := addTool(&s, k); c != 0 {
				t.Fatalf("call %d: count %d", i+1, c)
			}
		}
	})
}

func TestContentLoops(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 1))
	run := func(t *testing.T, events []string) (int, int) {
		t.Helper()
		var s Service
		for i, e := range events {
			if c := addText(&s, e); c > 0 {
				return i + 1, c
			}
		}
		return 0, 0
	}
	repeat := func(s string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = s
		}
		return out
	}
	rep := repetitive(1, chunk)
	cases := []struct {
		name   string
		events []string
		at     int // the event that detects; 0: none
	}{
		// 1000 random 10-character strings: no 50-character chunk
		// comes back.
		{"random content", func() []string {
			var ev []string
			for i := 0; i < 1000; i++ {
				ev = append(ev, random(r, 10))
			}
			return ev
		}(), 0},
		// A 50-character event 10 times: the chunk at 0, 50, …, 450
		// recurs every 50 characters; the 10th occurrence arrives with
		// the 10th event (average gap 50 ≤ 250, one period).
		{"a chunk repeating consecutively", repeat(rep, contentT), 10},
		// One event of 15 "- …/services/N\n" lines: "- " is not a list
		// item to [*-+], so the text is analysed, but the chunks that
		// recur have a different text between occurrences each time
		// (the numbers differ): more than 5 periods.
		{"a list with a long shared prefix", []string{func() string {
			var sb strings.Builder
			for i := 0; i < 15; i++ {
				sb.WriteString("- projects/my-google-cloud-project-12345/locations/us-central1/services/" + fmtInt(i) + "\n")
			}
			return sb.String()
		}()}, 0},
		// The chunk recurs every 550 characters: the average gap of
		// its last 10 occurrences is 550 > 250.
		{"repetitions far apart", func() []string {
			var ev []string
			for i := 0; i < contentT; i++ {
				ev = append(ev, rep, random(r, 500))
			}
			return ev
		}(), 0},
		// A 150-character pattern is the 33-character sentence 4.5
		// times: the first chunk (0..50) recurs at 33, 66 and 99 in each
		// event (132 runs into the next event's start), so at 0, 33,
		// 66, 99, 150, 183, 216, 249, 300, 333: the 10th ends at 383,
		// inside event 3; average gap 37, periods of 33 and 51
		// characters (2 ≤ 5). The source's test asks for a detection
		// within 12 events.
		{"a ~150-character pattern", repeat(repetitive(1, 150), contentT+2), 3},
		// A pattern of L ≥ 50 characters with no repetition inside: the
		// first chunk recurs every L; its 10th occurrence starts at 9L
		// and ends at 9L + 50 ≤ 10L, inside the 10th event.
		{"the first user-provided example", repeat("I will not output any text.\n  I will just end the turn.\n  I am done.\n  I will not do anything else.\n  I will wait for the user's next command.\n", contentT+5), 10},
		// 104 characters: as above, the 10th event (936..986).
		{"the second user-provided example", repeat("I have added all the requested logs and verified the test file. I will now mark the task as complete.\n  ", contentT+5), 10},
		// 18 characters: the first chunk (0..50) recurs every 18; its
		// 10th occurrence ends at 9·18 + 50 = 212, inside event 12
		// (198..216).
		{"alternating short phrases", repeat("Thinking... Done. ", contentT*3), 12},
		// 75 characters: the first chunk's 10th occurrence ends at
		// 9·75 + 50 = 725, inside event 10 (675..750).
		{"repeated thought processes", repeat("I need to check the file. The file does not exist. I will create the file. ", contentT+5), 10},
		// "```\n" opens a code block: nothing after it is analysed.
		{"repetition inside a code block", append(append([]string{"```\n"}, repeat(rep, contentT)...), "\n```"), 0},
		// 8 events outside, then a fence (reset, into the block): the
		// rest is inside.
		{"transition into a code block", append(append(repeat(rep, contentT-2), "```javascript\n"), repeat(rep, contentT)...), 0},
		{"already inside a code block", append([]string{"Here is some code:\n```\n"}, repeat(rep, contentT+5)...), 0},
		// Normal text, enter (fence 1), 5 inside, leave (fence 2: the
		// event that leaves is not analysed), enter again.
		{"several fence transitions", append(append([]string{"Normal text ", "```\n"}, repeat(rep, 5)...), "```\n", "```python\n"), 0},
		// A closed block, then 10 repetitions outside it: the last
		// fence reset the tracking, the 10th repetition detects (event
		// 3 + 10).
		{"repetition outside a code block", append([]string{"```", "\nsome code\n", "```"}, repeat(rep, contentT)...), 13},
		{"several code blocks, no loop", []string{"```\ncode1\n```", "\nsome text\n", "```\ncode2\n```"}, 0},
		{"code blocks then looping text", append([]string{"```", "\ncode1\n", "```"}, repeat(rep, contentT)...), 13},
		{"a long code block with repeating tokens", append(append([]string{"```\n"}, repeat("for (let i = 0; i < 10; i++) { console.log(i); }", 20)...), "\n```"), 0},
		// 9 repetitions, then a fence: reset and inside a block.
		{"a code fence resets", append(append(repeat(rep, contentT-1), "```"), repeat(rep, contentT)...), 0},
		// 9 repetitions, a table row (reset), then 9: one short.
		{"a table resets", append(append(repeat(rep, contentT-1), "| Column 1 | Column 2 |"), repeat(rep, contentT-1)...), 0},
		{"a list item resets", append(append(repeat(rep, contentT-1), "* List item"), repeat(rep, contentT-1)...), 0},
		{"a heading resets", append(append(repeat(rep, contentT-1), "## Heading"), repeat(rep, contentT-1)...), 0},
		{"a blockquote resets", append(append(repeat(rep, contentT-1), "> Quote text"), repeat(rep, contentT-1)...), 0},
		// Without the reset, 9 + 1 + 9 events would have reached 10
		// occurrences: the control case for the four tests above.
		{"plain text does not reset", append(append(repeat(rep, contentT-1), "plain words"), repeat(rep, contentT-1)...), 11},
		// The empty event: nothing to analyse.
		{"empty content", []string{""}, 0},
		// 50 dashes is a divider: reset, never analysed.
		{"divider content", repeat(strings.Repeat("-", chunk), contentT+5), 0},
		{"box-drawing dividers", repeat(strings.Repeat("╭─", chunk/2), contentT+5), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			at, count := run(t, c.events)
			if at != c.at || (at > 0 && count != 1) {
				t.Fatalf("detected at event %d (count %d), want %d", at, count, c.at)
			}
		})
	}
	// The reset tests' variants: each format after 9 repetitions, then
	// 9 repetitions of new content.
	formats := []string{"* Bullet item", "- Dash item", "+ Plus item", "1. Numbered item", "42. Another numbered item",
		"| Column 1 | Column 2 |", "|---|---|", "|++|++|", "+---+---+",
		"# H1 Heading", "## H2 Heading", "### H3 Heading", "#### H4 Heading", "##### H5 Heading", "###### H6 Heading"}
	for i, f := range formats {
		t.Run("reset by "+f, func(t *testing.T) {
			ev := append(append(repeat(rep, contentT-1), "\n"+f), repeat(repetitive(i+100, chunk), contentT-1)...)
			if at, _ := run(t, ev); at != 0 {
				t.Fatalf("detected at event %d", at)
			}
		})
	}
}

func TestStrikes(t *testing.T) {
	a := toolKey(t, "testTool", `{"param":"value"}`)
	// Detection 1 at the 5th call; after clearDetection the next call
	// still ends a cycle of 1 (the history is kept): detection 2.
	var s Service
	for i := 0; i < toolT; i++ {
		addTool(&s, a)
	}
	if c := addTool(&s, a); c != 1 {
		t.Fatalf("first strike: count %d", c)
	}
	s.ClearDetection()
	if c := addTool(&s, a); c != 2 {
		t.Fatalf("second strike: count %d, want 2", c)
	}
	// A recovery turn with new content does not detect.
	var r Service
	for i := 0; i < toolT; i++ {
		addTool(&r, a)
	}
	r.ClearDetection()
	if c := addText(&r, "Recovery text"); c != 0 {
		t.Fatalf("recovery: count %d", c)
	}
}

func TestToolCallResetsContent(t *testing.T) {
	// 9 events of "Some content." (13 characters: 117, no complete
	// chunk repeats 10 times), a tool call (reset), then fresh content.
	var s Service
	for i := 0; i < 9; i++ {
		addText(&s, "Some content.")
	}
	addTool(&s, toolKey(t, "testTool", `{"param":"value"}`))
	if len(s.content) != 0 || s.stats.used != 0 {
		t.Fatalf("content tracking kept: %d units, %d chunks", len(s.content), s.stats.used)
	}
	if c := addText(&s, "Fresh content."); c != 0 {
		t.Fatalf("count %d", c)
	}
}
