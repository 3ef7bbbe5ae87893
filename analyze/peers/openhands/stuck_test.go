package openhands

import (
	"strconv"
	"strings"
	"testing"
)

// The 21 cases of OpenHands' tests/unit/controller/test_is_stuck.py
// (TestStuckDetector, commit 156d0686), rewritten event for event. The
// expected verdicts are the source test's assertions; each comment says
// which check decides, derived by hand from stuck.py. The
// TestAgentController case (a stuck delegate) is left out: the profile
// replays no delegates.

// The source's helpers: events as the tests build them (most without a
// source).
func msg(content string, src Source) Event { return Message(src, content, false) }
func cmd(command string) Event             { return CmdRun(command, false, "", false, 0) }
func cmdOut(command, content string) Event {
	return CmdOutput(content, command, -1) // exit_code defaults to -1
}
func read(path string) Event { return NewEvent(FileReadAction, SourceNone, "read", path) }
func readOut(content, path string) Event {
	return NewEvent(FileReadObservation, SourceNone, "", content, path)
}
func condensation() Event {
	return Condensation("Trimming prompt to meet context window limitations")
}

const codeSnippet = "\nedit_file_by_replace(\n    'book_store.py',\n    to_replace=\"\"\"def total(basket):\n    if not basket:\n        return 0\n"

const jupyter = "\n[Jupyter current working directory:" + "\n[Jupyter Python interpreter:"

// syntaxErrors is _impl_syntax_error_events.
func syntaxErrors(errMsg string, randomLine bool, incidents int) []Event {
	var h []Event
	for i := 0; i < incidents; i++ {
		h = append(h, IPythonRun(codeSnippet, "", 0))
		extraNumber, extraLine := "42", ""
		if randomLine {
			extraNumber, extraLine = strconv.Itoa((i+1)*10), strings.Repeat("\n", i+1)
		}
		h = append(h, IPythonOutput("  Cell In[1], line "+extraNumber+"\n"+
			"to_replace=\"\"\"def largest(min_factor, max_factor):\n            ^\n"+errMsg+extraLine+jupyter, codeSnippet))
	}
	return h
}

// unterminatedErrors is _impl_unterminated_string_error_events.
func unterminatedErrors(randomLine bool, incidents int) []Event {
	var h []Event
	for i := 0; i < incidents; i++ {
		h = append(h, IPythonRun(codeSnippet, "", 0))
		n := "1"
		if randomLine {
			n = strconv.Itoa((i + 1) * 10)
		}
		h = append(h, IPythonOutput("print(\"  Cell In[1], line "+n+"\nhello\n       ^\nSyntaxError: unterminated string literal (detected at line "+n+")"+jupyter, codeSnippet))
	}
	return h
}

func repeatN(n int, es ...Event) []Event {
	var out []Event
	for i := 0; i < n; i++ {
		out = append(out, es...)
	}
	return out
}

func cat(parts ...[]Event) []Event {
	var out []Event
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestIsStuck(t *testing.T) {
	user := func(c string) Event { return msg(c, SourceUser) }
	lsLoop := func(n int) []Event { return repeatN(n, cmd("ls"), cmdOut("ls", "")) }
	pattern := []Event{cmd("ls"), cmdOut("ls", "file1.txt\nfile2.txt"), read("file1.txt"), readOut("File content", "file1.txt")}
	cases := []struct {
		name     string
		history  []Event
		headless bool
		want     string // the loop type; "" for not stuck
	}{
		// A user message and its null observation are filtered out:
		// 2 events left, fewer than 3.
		{"history too short", []Event{user("Hello"), Null(), cmd("ls"), cmdOut("ls", "file1.txt\nfile2.txt")}, true, ""},

		// test_interactive_mode_resets_after_user_message, step by
		// step: 4 × (ls, output) is scenario 1 in both modes…
		{"interactive: 4 repeats, headless", lsLoop(4), true, LoopActionObservation},
		{"interactive: 4 repeats, interactive", lsLoop(4), false, LoopActionObservation},
		// …a user message: interactive mode sees nothing after it,
		// headless mode filters it out and still sees the 4 repeats…
		{"interactive: after a user message", cat(lsLoop(4), []Event{user("Hello")}), false, ""},
		{"interactive: after a user message, headless", cat(lsLoop(4), []Event{user("Hello")}), true, LoopActionObservation},
		// …2 more: only 2 actions and 2 observations after it…
		{"interactive: 2 more", cat(lsLoop(4), []Event{user("Hello")}, lsLoop(2)), false, ""},
		// …2 more: 4 after it, stuck again.
		{"interactive: 4 more", cat(lsLoop(4), []Event{user("Hello")}, lsLoop(4)), false, LoopActionObservation},

		// test_is_stuck_repeating_action_observation: the agent's
		// "Hello" (no source: kept) and 2 × ls; the user's "Done" is
		// filtered: 3 actions (ls, ls, Hello) are not all equal…
		{"repeating action/observation: 2", cat([]Event{msg("Hello", SourceNone), Null()}, lsLoop(2), []Event{user("Done"), Null()}), true, ""},
		// …3 × ls: the 4th action back is Hello…
		{"repeating action/observation: 3", cat([]Event{msg("Hello", SourceNone), Null()}, lsLoop(2), []Event{user("Done"), Null()}, lsLoop(1)), true, ""},
		// …4 × ls with equal outputs: scenario 1.
		{"repeating action/observation: 4", cat([]Event{msg("Hello", SourceNone), Null()}, lsLoop(2), []Event{user("Done"), Null()}, lsLoop(2)), true, LoopActionObservation},

		// Scenario 1 fails (the error texts differ); the last 3 actions
		// are equal and their 3 observations errors: scenario 2.
		{"repeating action/error", []Event{msg("Hello", SourceNone), Null(),
			cmd("invalid_command"), Error("Command not found"),
			cmd("invalid_command"), Error("Command still not found or another error"),
			user("Done"), Null(),
			cmd("invalid_command"), Error("Different error"),
			cmd("invalid_command"), Error("Command not found")}, true, LoopActionError},

		// 4 equal edit_file_by_replace cells; outputs identical
		// ("line 42"): scenario 1 already (4 equal observations).
		{"invalid syntax error", syntaxErrors(invalid, false, 4), true, LoopActionObservation},
		// Random line numbers: the outputs differ (no scenario 1), the
		// first lines differ: not consistent (scenario 2 fails).
		{"invalid syntax error, random lines", syntaxErrors(invalid, true, 4), true, ""},
		{"invalid syntax error, only three, random lines", syntaxErrors(invalid, true, 3), true, ""},
		{"incomplete input error", syntaxErrors(incomplete, false, 4), true, LoopActionObservation},
		{"incomplete input error, random lines", syntaxErrors(incomplete, true, 4), true, ""},
		// Unterminated string literal with varying line numbers: the
		// error lines differ.
		{"unterminated string, random lines", unterminatedErrors(true, 4), true, ""},
		// Two incidents: only 2 actions.
		{"unterminated string, two incidents", unterminatedErrors(false, 2), true, ""},
		{"unterminated string", unterminatedErrors(false, 4), true, LoopActionObservation},
		// The error is not on the third line from the end (output
		// follows it) and the outputs differ: no check holds.
		{"syntax error not at the end", []Event{
			IPythonRun(`print("hello`, "", 0), IPythonOutput("print(\"hello\n       ^\nSyntaxError: unterminated string literal (detected at line 1)\nThis is some additional output", `print("hello`),
			IPythonRun(`print("hello`, "", 0), IPythonOutput("print(\"hello\n       ^\nSyntaxError: unterminated string literal (detected at line 1)\nToo much output here on and on", `print("hello`),
			IPythonRun(`print("hello`, "", 0), IPythonOutput("print(\"hello\n       ^\nSyntaxError: unterminated string literal (detected at line 3)\nEnough", `print("hello`),
			IPythonRun(`print("hello`, "", 0), IPythonOutput("print(\"hello\n       ^\nSyntaxError: unterminated string literal (detected at line 2)\nLast line of output", `print("hello`),
		}, true, ""},

		// (ls, read file1) three times, a user message in between
		// (filtered): scenario 4.
		{"action/observation pattern", cat([]Event{user("Come on"), Null()}, pattern, pattern, []Event{user("Come on"), Null()}, pattern), true, LoopPattern},
		// ls, read file1, pwd, read file2, pwd, read file2: the
		// alternation breaks at the oldest pair.
		{"not stuck", cat([]Event{msg("Hello", SourceNone), Null(), cmd("ls"), cmdOut("ls", "file1.txt\nfile2.txt"),
			read("file1.txt"), readOut("File content", "file1.txt")},
			repeatN(2, cmd("pwd"), cmdOut("pwd", "/home/user"), read("file2.txt"), readOut("Another file content", "file2.txt"))[:4],
			[]Event{user("Done"), Null()},
			repeatN(1, cmd("pwd"), cmdOut("pwd", "/home/user"), read("file2.txt"), readOut("Another file content", "file2.txt"))), true, ""},

		// Three equal agent messages after the command, no
		// observation between them: scenario 3.
		{"monologue", monologueHistory(false), true, LoopMonologue},
		// An observation between the last three: not a monologue.
		{"monologue broken by an observation", monologueHistory(true), true, ""},

		// 10 condensation observations in a row: scenario 5.
		{"context window loop", cat([]Event{user("Hello"), Null()}, repeatN(10, condensation())), true, LoopContextWindow},
		// Commands between every two: scenario 5 fails; the actions
		// (ls 0, ls 1…) differ.
		{"context window with other events", cwWithOthers(), true, ""},
		{"context window, nine", cat([]Event{user("Hello"), Null()}, repeatN(9, condensation())), true, ""},
		// User messages between them are filtered out in headless mode.
		{"context window with user messages", cwWithUsers(), true, LoopContextWindow},
		// Condensations, then a user message: headless sees them…
		{"context window before a user message, headless", cat(repeatN(10, condensation()), []Event{user("Please continue"), Null()}), true, LoopContextWindow},
		// …interactive mode only what follows the user message.
		{"context window before a user message, interactive", cat(repeatN(10, condensation()), []Event{user("Please continue"), Null()}), false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, stuck := IsStuck(c.history, c.headless)
			if stuck != (c.want != "") || a.LoopType != c.want {
				t.Fatalf("stuck %v (%q), want %q", stuck, a.LoopType, c.want)
			}
		})
	}
}

func monologueHistory(observation bool) []Event {
	doing := "I'm doing well, thanks for asking."
	h := []Event{msg("Hi there!", SourceUser), msg("Hi there!", SourceAgent), msg("How are you?", SourceUser),
		CmdRun("echo 42", false, "I'm not stuck, he's stuck", false, 0),
		msg(doing, SourceAgent), msg(doing, SourceAgent), msg(doing, SourceAgent)}
	if observation {
		h = append(h, CmdOutput("OK, I was stuck, but no more.", "storybook", 0), msg(doing, SourceAgent), msg(doing, SourceAgent))
	}
	return h
}

func cwWithOthers() []Event {
	h := []Event{msg("Hello", SourceUser), Null()}
	for i := 0; i < 10; i++ {
		h = append(h, condensation())
		if i < 9 {
			s := strconv.Itoa(i)
			h = append(h, cmd("ls "+s), cmdOut("ls "+s, "file1.txt\nfile2.txt"))
			if i%2 == 0 {
				h = append(h, read("file"+s+".txt"), readOut("File content "+s, "file"+s+".txt"))
			}
		}
	}
	return h
}

func cwWithUsers() []Event {
	h := []Event{msg("Hello", SourceUser), Null()}
	for i := 0; i < 10; i++ {
		h = append(h, condensation())
		if i < 9 {
			h = append(h, msg("Please continue "+strconv.Itoa(i), SourceUser), Null())
		}
	}
	return h
}
