package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/killswitch/killswitch/analyze"
)

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"billing-bot":         "billing-bot",
		"évaluateur-日本":       "évaluateur-日本",
		"a\x1b[2Jb":           `a\x1b[2Jb`,
		"nul\x00":             `nul\x00`,
		"two\nlines\ttab":     `two\nlines\ttab`,
		"del\x7f":             `del\x7f`,
		"c1\u009b":            `c1\u009b`,
		"bad\xffutf8":         `bad\xffutf8`,
		"replacement\uFFFDok": "replacement\uFFFDok",
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}

// Control characters in an agent id reach no text format raw (#15 item 9).
func TestTextFormatsEscapeControls(t *testing.T) {
	s := &analyze.Summary{Agents: []*analyze.AgentSummary{{Agent: "evil\x1b[2J\x00bot\nx", Requests: 1, First: time.Unix(0, 0), Last: time.Unix(0, 0)}}}
	for name, render := range map[string]func(*bytes.Buffer) error{
		"table":    func(b *bytes.Buffer) error { return TimelineTable(b, s) },
		"markdown": func(b *bytes.Buffer) error { return TimelineMarkdown(b, s) },
		"csv":      func(b *bytes.Buffer) error { return TimelineCSV(b, s) },
	} {
		var b bytes.Buffer
		if err := render(&b); err != nil {
			t.Fatal(err)
		}
		if strings.ContainsAny(b.String(), "\x1b\x00") || !strings.Contains(b.String(), `evil\x1b[2J\x00bot\nx`) {
			t.Errorf("%s:\n%q", name, b.String())
		}
	}
}
