package agentgazer

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// normalizeVectors were produced by testdata/oracle.js ("node
// testdata/oracle.js normalize", Node v20.20.2), which runs the SPEC §4.2
// normalization with JavaScript's own RegExp, toLowerCase and trim. Inputs
// and outputs are WTF-8 ("\xed\xa0\xbd" is the lone surrogate U+D83D).
var normalizeVectors = []struct {
	name, in, want string
}{
	{"uuid", "id: 550e8400-e29b-41d4-a716-446655440000", "id: <id>"},
	{"uuid upper", "550E8400-E29B-41D4-A716-446655440000", "<id>"},
	{"uuid mixed", "ref 550e8400-E29B-41d4-A716-446655440000.", "ref <id>."},
	{"uuid braces", "{550e8400-e29b-41d4-a716-446655440000}", "{<id>}"},
	{"uuid glued prefix", "x550e8400-e29b-41d4-a716-446655440000", "x550e8400-e29b-41d4-a716-<num>"},
	{"uuid glued suffix", "550e8400-e29b-41d4-a716-446655440000x", "550e8400-e29b-41d4-a716-446655440000x"},
	{"uuid then underscore", "550e8400-e29b-41d4-a716-446655440000_1", "550e8400-e29b-41d4-a716-446655440000_1"},
	{"uuid then dash number", "550e8400-e29b-41d4-a716-446655440000-1234", "<id>-<num>"},
	{"uuid short last group", "550e8400-e29b-41d4-a716-44665544000", "550e8400-e29b-41d4-a716-<num>"},
	{"uuid after keyword", "msg-550e8400-e29b-41d4-a716-446655440000", "msg-<id>"},
	{"date", "due 2024-01-15.", "due <ts>."},
	{"date time Z", "at 2024-01-15T10:30:00Z ok", "at <ts> ok"},
	{"date time fraction", "2024-01-15T10:30:00.123456Z", "<ts>"},
	{"date time offset colon", "2024-01-15T10:30:00+05:30", "<ts>"},
	{"date time offset no colon", "2024-01-15T10:30:00-0800", "<ts>"},
	{"date time no zone", "2024-01-15T10:30:00 then", "<ts> then"},
	{"lower t", "2024-01-15t10:30:00Z", "<num>-<num>-15t10:<num>:00z"},
	{"lower z", "2024-01-15T10:30:00z", "<num>-<num>-15t10:<num>:00z"},
	{"Z then letter", "2024-01-15T10:30:00Zabc", "<num>-<num>-15t10:<num>:00zabc"},
	{"offset then digit", "2024-01-15T10:30:00.5+05:301", "<ts>+<num>:<num>"},
	{"offset no colon then digit", "2024-01-15T10:30:00+05301", "<ts>+<num>"},
	{"short offset", "2024-01-15T10:30:00+05:3", "<ts>+<num>:<num>"},
	{"no seconds", "2024-01-15T10:30", "<num>-<num>-15t10:<num>"},
	{"fraction no digits", "2024-01-15T10:30:00.Z", "<ts>.z"},
	{"five digit year", "20240-01-15", "<num>-<num>-<num>"},
	{"one digit month", "2024-1-15", "<num>-<num>-<num>"},
	{"date underscore", "2024-01-15_x", "<num>-<num>-15_x"},
	{"date glued digit", "2024-01-150", "<num>-<num>-<num>"},
	{"keyword then date", "ID-2024-01-15", "id-<ts>"},
	{"hex 16", "sha deadbeefdeadbeef", "sha <id>"},
	{"hex 15", "deadbeefdeadbee", "deadbeefdeadbee"},
	{"hex upper", "DEADBEEFDEADBEEF0", "<id>"},
	{"hex then g", "deadbeefdeadbeefg", "deadbeefdeadbeefg"},
	{"hex 64", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "<id>"},
	{"0x prefix", "0x1234567890abcdef", "0x1234567890abcdef"},
	{"16 digits are hex", "1234567890123456", "<id>"},
	{"15 digits are a number", "123456789012345", "<num>"},
	{"user_42", "user_42", "<id>"},
	{"user-42", "user-42 done", "<id> done"},
	{"user42", "User42", "<id>"},
	{"USER_42", "USER_42", "<id>"},
	{"users", "list users", "list <id>"},
	{"identify", "identify the ids", "<id> the <id>"},
	{"order-abc123", "order-abc123", "<id>"},
	{"Order_ABC", "Order_ABC", "<id>"},
	{"session then underscore", "session_x_1", "session_x_1"},
	{"msg id", "msg_01XYZabc", "<id>"},
	{"message", "message-9 messages", "<id> <id>"},
	{"chat", "chat123 chatcmpl-abc123", "<id> <id>-abc123"},
	{"thread", "thread_abc", "<id>"},
	{"request id", "request-id request_id_7", "<id> request_id_7"},
	{"bare keywords", "user id order_ user_", "user id order_ user_"},
	{"keyword inside word", "superuser_1", "superuser_1"},
	{"keyword then dash word", "user-42-x user_42_x", "<id>-x user_42_x"},
	{"placeholder text", "<ID> ID_1 <NUM>", "<id> <id> <num>"},
	{"long s", "u\u017fer_1 \u017fession_2", "u\u017fer_1 \u017fession_2"},
	{"kelvin", "id_\u212a id\u212a", "id_k idk"},
	{"order #12345", "order #12345", "order #<num>"},
	{"decimal", "pi is 3.14", "pi is <num>"},
	{"dotted", "3.14.15", "<num>.<num>"},
	{"number then letter", "1.5a", "<num>.5a"},
	{"version", "v1.2", "v1.<num>"},
	{"thousands", "1,000", "<num>,<num>"},
	{"negative", "-5", "-<num>"},
	{"ordinal", "42nd", "42nd"},
	{"trailing dot", "1.", "<num>."},
	{"leading dot", ".5", ".<num>"},
	{"exponent", "1e10", "1e10"},
	{"page", "page 42 of 100", "page <num> of <num>"},
	{"underscore number", "x_1", "x_1"},
	{"fullwidth digits", "\uff11\uff12\uff13", "\uff11\uff12\uff13"},
	{"math digit", "\U0001d7d8", "\U0001d7d8"},
	{"nbsp", "a\u00a0\u00a0b", "a b"},
	{"line separator", "a\u2028b", "a b"},
	{"bom", "\ufeffa\ufeffb\ufeff", "a b"},
	{"spaces tabs newlines", "  a \t\r\n b\x0b\x0cc  ", "a b c"},
	{"ideographic space", "a\u3000b", "a b"},
	{"not whitespace", "a\u0085b\u180ec\u200bd", "a\u0085b\u180ec\u200bd"},
	{"dotted capital I", "\u0130stanbul", "i\u0307stanbul"},
	{"final sigma word", "\u039f\u0394\u03a5\u03a3\u03a3\u0395\u03a5\u03a3", "\u03bf\u03b4\u03c5\u03c3\u03c3\u03b5\u03c5\u03c2"},
	{"sigma alone", "\u03a3", "\u03c3"},
	{"sigma initial", "\u03a3\u0391", "\u03c3\u03b1"},
	{"sigma final then dot", "\u0391\u03a3.", "\u03b1\u03c2."},
	{"sigma apostrophe", "\u0391\u03a3'\u0392", "\u03b1\u03c3'\u03b2"},
	{"sigma combining mark", "\u0391\u03a3\u0301", "\u03b1\u03c2\u0301"},
	{"sigma before bom", "\u0391\u03a3\ufeff\u0392", "\u03b1\u03c2 \u03b2"},
	{"sigma after digit", "1\u03a3", "<num>\u03c3"},
	{"sigma after lone surrogate", "\u0391\xed\xb0\x80\u03a3", "\u03b1\xed\xb0\x80\u03c3"},
	{"special lowercase", "\u1e9e \u2126 \u212a \u212b \u01c5 \u1f88 \u216b \u24b6 \uff21", "\u00df \u03c9 k \u00e5 \u01c6 \u1f80 \u217b \u24d0 \uff41"},
	{"astral lowercase", "\U00010400\U0001e900", "\U00010428\U0001e922"},
	{"unicode 16 lowercase", "\u1c89 \ua7cb \ua7dc \U00010d50", "\u1c8a \u0264 \u019b \U00010d70"},
	{"emoji", "\U0001f600 2024-01-15 user_\U0001f600 42\U0001f600", "\U0001f600 <ts> user_\U0001f600 <num>\U0001f600"},
	{"emoji word", "a\U0001f600b 7", "a\U0001f600b <num>"},
	{"lone surrogates", "\xed\xa0\xbd 42 \xed\xb8\x80x", "\xed\xa0\xbd <num> \xed\xb8\x80x"},
	{"empty", "", ""},
	{"only spaces", " \u00a0\ufeff ", ""},
	{"mixed", "Retry #3 for Order-ABC123 at 2024-01-15T10:30:00Z (trace 0123456789abcdef0123)", "retry #<num> for <id> at <ts> (trace <id>)"},
}

func TestNormalize(t *testing.T) {
	for _, tc := range normalizeVectors {
		t.Run(tc.name, func(t *testing.T) {
			if got := Normalize(tc.in); got != tc.want {
				t.Errorf("Normalize(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestNormalizeDiffersFromGo pins the places where the obvious Go
// translation (regexp with (?i), strings.ToLower, strings.Fields/TrimSpace)
// would be wrong; the expected values are hand-derived from the JavaScript
// rules and agree with the oracle rows above.
func TestNormalizeDiffersFromGo(t *testing.T) {
	tests := []struct {
		in, want, why string
	}{
		{"u\u017fer_1", "u\u017fer_1", "(?i)user would match the long s ſ; JavaScript /i without /u does not"},
		{"id_\u212a", "id_k", "(?i)[a-z0-9]+ would match the Kelvin sign; JavaScript lowercases it to k after matching"},
		{"\u0130D_1", "i\u0307d_1", "İ is not [a-z]; it lowercases to i + U+0307 (strings.ToLower gives i)"},
		{"\u0391\u03a3", "\u03b1\u03c2", "final sigma (strings.ToLower gives σ)"},
		{"a\u0085b", "a\u0085b", "U+0085 is not JavaScript whitespace (unicode.IsSpace says it is)"},
		{"a\ufeffb", "a b", "U+FEFF is JavaScript whitespace (unicode.IsSpace says it is not)"},
		{"2024-01-15t10:30:00", "<num>-<num>-15t10:<num>:<num>", "the T must be upper case"},
	}
	for _, tc := range tests {
		if got := Normalize(tc.in); got != tc.want {
			t.Errorf("Normalize(%q) = %q, want %q: %s", tc.in, got, tc.want, tc.why)
		}
	}
}

// referencePatterns are the five AgentGazer patterns for Go's regexp, with
// /i spelled out as ASCII classes. Go's regexp picks the same leftmost-first
// match as a backtracking engine, and its \b is ASCII, so on a byte string
// in which every non-ASCII code unit is replaced by a byte no pattern can
// match (0x00), ReplaceAllString is JavaScript's s.replace(re, rep) with /g.
var referencePatterns = [len(passes)]*regexp.Regexp{
	regexp.MustCompile(`\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b`),
	regexp.MustCompile(`\b[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:?[0-9]{2})?)?\b`),
	regexp.MustCompile(`\b[0-9a-fA-F]{16,}\b`),
	regexp.MustCompile(`\b([iI][dD]|[uU][sS][eE][rR]|[oO][rR][dD][eE][rR]|[sS][eE][sS][sS][iI][oO][nN]|[rR][eE][qQ][uU][eE][sS][tT]|[mM][sS][gG]|[mM][eE][sS][sS][aA][gG][eE]|[cC][hH][aA][tT]|[tT][hH][rR][eE][aA][dD])[_-]?[a-zA-Z0-9]+\b`),
	regexp.MustCompile(`\b[0-9]+(\.[0-9]+)?\b`),
}

// asciiView maps code units to bytes, non-ASCII units to 0x00.
func asciiView(u []uint16) string {
	b := make([]byte, len(u))
	for i, c := range u {
		if c < 0x80 {
			b[i] = byte(c)
		}
	}
	return string(b)
}

// checkPasses runs every pass on s and compares it with referencePatterns.
func checkPasses(t *testing.T, s string) {
	t.Helper()
	u := appendUnits(nil, s, true)
	for i := range passes {
		out, changed := passes[i].replaceAll(nil, u)
		if !changed {
			out = u
		}
		want := referencePatterns[i].ReplaceAllString(asciiView(u), asciiView(passes[i].rep))
		if got := asciiView(out); got != want {
			t.Fatalf("pass %d on %q:\n got %q\nwant %q", i+1, asciiView(u), got, want)
		}
		u = out
	}
}

func TestPassesAgainstRegexp(t *testing.T) {
	for _, tc := range normalizeVectors {
		checkPasses(t, tc.in)
	}
	// Deterministic pseudo-random strings over an alphabet rich in the
	// patterns' pieces.
	pieces := []string{
		"0", "1", "2", "9", "12", "2024", "-", "-", ":", ".", "+", "_", " ", "T", "Z", "t", "z",
		"a", "b", "f", "A", "F", "g", "x", "é", "😀", "id", "ID", "user", "Order", "msg", "message",
		"chat", "thread", "session", "request", "deadbeef", "0123456789abcdef", "550e8400",
		"2024-01-15", "T10:30:00", ".123", "+05:30", "-0800", "<ID>", "\u017f", "\u212a",
	}
	seed := uint64(1)
	next := func(n int) int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int(seed>>33) % n
	}
	for range 20000 {
		var b strings.Builder
		for range 1 + next(12) {
			b.WriteString(pieces[next(len(pieces))])
		}
		checkPasses(t, b.String())
	}
}

// FuzzNormalize checks that Normalize never panics, that each hand-compiled
// pass agrees with Go's regexp, and that the output has the shape of a
// normalized text.
func FuzzNormalize(f *testing.F) {
	for _, tc := range normalizeVectors {
		f.Add(tc.in)
	}
	f.Add("\xed\xa0\x80\xed\xb0\x80") // encoded surrogate pair
	f.Add("\xe2\x82\xff\xf0\x9f")     // ill-formed bytes
	f.Add("2024-01-15T10:30:00.5+05:301 user_42_x 1.5a")
	f.Fuzz(func(t *testing.T, s string) {
		checkPasses(t, s)
		got := Normalize(s)
		if strings.HasPrefix(got, " ") || strings.HasSuffix(got, " ") || strings.Contains(got, "  ") {
			t.Errorf("Normalize(%q) = %q: untrimmed or uncollapsed", s, got)
		}
		u := appendUnits(nil, got, true)
		for _, c := range u {
			if c != ' ' && isSpace(c) || c >= 'A' && c <= 'Z' {
				t.Fatalf("Normalize(%q) = %q: holds %U", s, got, c)
			}
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Errorf("Normalize(%q) = %q: not valid UTF-8", s, got)
		}
		// The WTF-8 output reads back as the same units.
		if back := wtf8String(u); back != got {
			t.Errorf("WTF-8 round trip of %q gave %q", got, back)
		}
	})
}
