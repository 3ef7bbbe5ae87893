package openhands

import (
	"strings"
	"testing"

	"github.com/killswitch/killswitch/analyze/peers/conv"
)

// TestPromptEvents: a prompt's events, made from the parser's bytes, are
// the events made from its text: the user message and both recalls.
func TestPromptEvents(t *testing.T) {
	for _, text := range []string{"", "go", "fix the bug in é.go\nplease", strings.Repeat("long prompt ", 300)} {
		got := newPrompt([]byte(text))
		want := prompt{msg: Message(SourceUser, text, false),
			firstRecall: NewEvent(RecallAction, SourceUser, "recall", "workspace_context", text, ""),
			recall:      NewEvent(RecallAction, SourceUser, "recall", "knowledge", text, "")}
		if got != want {
			t.Errorf("%.20q: events %+v, want %+v", text, got, want)
		}
	}
}

// TestPromptHook: conv hands each new prompt's text to the hook, string or
// parts, as PromptTexts would hold it; the extractor keeps their events.
func TestPromptHook(t *testing.T) {
	req := `{"messages":[{"role":"user","content":"first"},{"role":"assistant","content":"ok"},` +
		`{"role":"user","content":"again"},{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]}`
	var plain conv.Converter
	var tu conv.Turn
	if err := plain.Request([]byte(req), &tu); err != nil {
		t.Fatal(err)
	}
	var e extractor
	e.conv.Prompt = func(p []byte) { e.prompts = append(e.prompts, newPrompt(p)) }
	var th conv.Turn
	if err := e.conv.Request([]byte(req), &th); err != nil {
		t.Fatal(err)
	}
	if len(tu.PromptTexts) != 2 || th.Prompts != 2 || len(th.PromptTexts) != 0 || len(e.prompts) != 2 {
		t.Fatalf("texts %q, hooked prompts %d (%d texts), events %d", tu.PromptTexts, th.Prompts, len(th.PromptTexts), len(e.prompts))
	}
	for i, text := range tu.PromptTexts {
		if e.prompts[i] != newPrompt([]byte(text)) {
			t.Errorf("prompt %d (%q): events differ", i, text)
		}
	}
}
