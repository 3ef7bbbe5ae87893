package simhash

import (
	"strings"
	"testing"
)

// normCases are the normalization rules with expectations written by hand
// from the package documentation (not produced by the code under test).
var normCases = []struct {
	name, in, want string
}{
	// Case and white space.
	{"empty", "", ""},
	{"white space only", " \t\r\n\v\f\u00a0\u0085\u2028\u2029\u3000 ", ""},
	{"lowercase ascii", "Hello WORLD", "hello world"},
	{"trim", "  hello  ", "hello"},
	{"crlf runs", "a\r\n\r\nb\rc\nd", "a b c d"},
	{"tabs and nbsp", "a\t\tb\u00a0\u00a0c", "a b c"},
	{"unicode spaces", "a\u2028b\u3000c\u202fd\u1680e", "a b c d e"},
	{"lone newline between words", "one\ntwo\tthree", "one two three"},
	{"space before digit and unicode", "a 1 é", "a <NUM> é"},
	{"zero width space is not white space", "a\u200bb", "a\u200bb"},
	{"unicode upper case", "ÄÖÜ STRASSE ΣΑΣ Ωmega", "äöü strasse σασ ωmega"},
	{"dotted capital I", "İSTANBUL", "istanbul"},
	{"kelvin sign", "5 \u212A", "<NUM> k"},

	// Numbers.
	{"order number", "order #12345", "order #<NUM>"},
	{"number inside word", "file_123.txt", "file_<NUM>.txt"},
	{"fraction", "pi is 3.14159.", "pi is <NUM>."},
	{"version", "v1.2.3", "v<NUM>.<NUM>"},
	{"thousands separator", "1,234.50 usd", "<NUM>,<NUM> usd"},
	{"sign stays", "-5 and +7", "-<NUM> and +<NUM>"},
	{"trailing dot is not a fraction", "42.", "<NUM>."},
	{"digits around letters", "abc123def456", "abc<NUM>def<NUM>"},
	{"fullwidth digits are not numbers", "\uff11\uff12", "\uff11\uff12"},

	// Timestamps.
	{"date", "2024-01-15", "<TS>"},
	{"datetime Z", "at 2024-01-15T10:30:00Z.", "at <TS>."},
	{"lowercase t and z", "2024-01-15t10:30:00z", "<TS>"},
	{"fraction and offset", "2024-01-15T10:30:00.123456+05:30", "<TS>"},
	{"offset without colon", "2024-01-15T10:30-0800", "<TS>"},
	{"space separator", "2024-01-15 10:30:00.123456 utc", "<TS> utc"},
	{"hours only is a date", "2024-01-15T10 x", "<TS>t<NUM> x"},
	{"incomplete offset", "2024-01-15T10:30+05", "<TS>+<NUM>"},
	{"zone after date only is not taken", "2024-01-15Z", "<TS>z"},
	{"leftmost number wins", "12024-01-15", "<NUM>-<NUM>-<NUM>"},
	{"date glued to a word", "x2024-01-15", "x<TS>"},
	{"two timestamps differ only in numbers", "2023-12-31 23:59:59 and 1999-01-01T00:00Z", "<TS> and <TS>"},

	// UUIDs.
	{"uuid lower", "id 550e8400-e29b-41d4-a716-446655440000", "id <ID>"},
	{"uuid upper", "ID 550E8400-E29B-41D4-A716-446655440000.", "id <ID>."},
	{"uuid after underscore", "req_550e8400-e29b-41d4-a716-446655440000", "req_<ID>"},
	{"uuid glued before", "x550e8400-e29b-41d4-a716-446655440000", "x<NUM>e<NUM>-e<NUM>b-<NUM>d<NUM>-a<NUM>-<NUM>"},
	{"uuid glued after", "550e8400-e29b-41d4-a716-446655440000x", "<NUM>e<NUM>-e<NUM>b-<NUM>d<NUM>-a<NUM>-<NUM>x"},
	{"uuid starting with a letter", "(deadbeef-0000-4000-8000-00000000abcd)", "(<ID>)"},
	{"uuid short last group", "550e8400-e29b-41d4-a716-44665544000", "<NUM>e<NUM>-e<NUM>b-<NUM>d<NUM>-a<NUM>-<NUM>"},

	// Hex identifiers.
	{"git sha", "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 done", "commit <ID> done"},
	{"16 hex upper", "sha=0123456789ABCDEF", "sha=<ID>"},
	{"0x prefix", "to 0x742d35Cc6634C0532925a3b844Bc454e4438f44e", "to <ID>"},
	{"starts with letters", "abcdef0123456789", "<ID>"},
	{"15 hex is not an id", "0123456789abcde", "<NUM>abcde"},
	{"letters only is not an id", "deadbeefdeadbeef", "deadbeefdeadbeef"},
	{"digits only is a number", "12345678901234567890.5", "<NUM>"},
	{"glued before", "x0123456789abcdef", "x<NUM>abcdef"},
	{"glued after", "0123456789abcdefg", "<NUM>abcdefg"},
	{"kelvin sign is a letter before", "\u212Aabcdef0123456789", "kabcdef<NUM>"},
	{"hyphen is a boundary", "run-0123456789abcdef-2", "run-<ID>-<NUM>"},

	// Invalid UTF-8 and look-alikes.
	{"invalid byte", "a\xffb", "a\ufffdb"},
	{"truncated sequence", "x\xe2\x82", "x\ufffd\ufffd"},
	{"overlong encoding", "\xc0\x80", "\ufffd\ufffd"},
	{"replacement char kept", "\ufffd", "\ufffd"},
	{"placeholder look-alikes are lowercased", "<NUM> <TS> <ID>", "<num> <ts> <id>"},

	// A realistic prompt.
	{"prompt", "Retry 3 of 5 at 2024-06-01T12:00:00Z\r\n(req 7F9C2A1E-0B3D-4C5E-8F6A-9B8C7D6E5F4A, build 9fceb02d0ae598e9)",
		"retry <NUM> of <NUM> at <TS> (req <ID>, build <ID>)"},
}

func TestNormalize(t *testing.T) {
	for _, tc := range normCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(Normalize(nil, []byte(tc.in))); got != tc.want {
				t.Errorf("Normalize(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
			// The reference implementation must agree with the hand-written
			// expectations too, or FuzzHash would be checking against a
			// wrong oracle.
			if got := refNormalize([]byte(tc.in)); got != tc.want {
				t.Errorf("refNormalize(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestNormalizeAppends(t *testing.T) {
	dst := make([]byte, 0, 64)
	dst = append(dst, "prefix:"...)
	got := Normalize(dst, []byte("  A 1  "))
	if string(got) != "prefix:a <NUM>" {
		t.Errorf("Normalize appended %q", got)
	}
	// A prefix ending in a space does not make leading white space count.
	if got := Normalize([]byte("x "), []byte("  y")); string(got) != "x y" {
		t.Errorf("Normalize(\"x \", \"  y\") = %q", got)
	}
}

// TestNormalizeLong checks the streaming boundaries of the scanner: the same
// token sequence repeated past any buffer size normalizes to the repeated
// expectation.
func TestNormalizeLong(t *testing.T) {
	unit := "Order #12345 at 2024-01-15T10:30:00Z id 550E8400-E29B-41D4-A716-446655440000\r\n"
	want := "order #<NUM> at <TS> id <ID>"
	in := strings.Repeat(unit, 200)
	if got := string(Normalize(nil, []byte(in))); got != strings.TrimSpace(strings.Repeat(want+" ", 200)) {
		t.Errorf("Normalize of %d repeats is wrong: %.200q…", 200, got)
	}
}
