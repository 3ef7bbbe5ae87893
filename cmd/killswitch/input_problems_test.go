package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInputProblemsSaidOnce: what a reader cannot use is said in one
// line, never as a message per line of a document, and never exit 0 on
// a capture that holds no request.
func TestInputProblemsSaidOnce(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A pretty-printed document whose first member is "input" (Detect's
	// completion-log key) but that has no "timestamp": refused in one
	// line naming its members, before any record is read.
	doc := write("doc.json", "{\n  \"input\": {\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]},\n  \"output\": \"hello\",\n  \"metadata\": {}\n}\n")
	_, stderr, code := runCLI(t, "", "replay", doc)
	want := "killswitch replay: " + doc + `: not a capture format killswitch reads: a JSON document with members "input", "output", "metadata" that is neither`
	if code != exitUsage || !strings.HasPrefix(stderr, want) || strings.Count(stderr, "\n") != 1 {
		t.Errorf("document: exit %d\n%s\nwant exit 2, one line starting %s", code, stderr, want)
	}
	// A pretty-printed capture record is one record, at its first line.
	capDoc := write("cap.json", "{\n  \"ts\": 1,\n  \"agent\": \"a\",\n  \"request\": {\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}\n}\n")
	out, stderr, code := runCLI(t, "", "replay", "-f", "jsonl", capDoc)
	if code != exitOK || stderr != "" || !strings.Contains(out, `"source":"`+capDoc+`:1"`) || strings.Count(out, "\n") != 1 {
		t.Errorf("capture document: exit %d\n%s%s", code, out, stderr)
	}
	// The same without "ts": one message, not one per line.
	noTS := write("nots.json", "{\n  \"timestamp\": 1,\n  \"agent\": \"a\",\n  \"request\": {}\n}\n")
	_, stderr, code = runCLI(t, "", "replay", noTS)
	if code != exitUsage || !strings.HasPrefix(stderr, noTS+`:1: missing "ts" (looked for "ts"; "timestamp" is read only`) || strings.Count(stderr, "\n") != 2 {
		t.Errorf("document without ts: exit %d\n%s", code, stderr)
	}
	// A byte order mark before the first record is skipped.
	bom := write("bom.jsonl", "\xef\xbb\xbf"+`{"ts":1,"agent":"a","request":{"messages":[{"role":"user","content":"hi"}]}}`+"\n")
	if _, stderr, code := runCLI(t, "", "replay", bom); code != exitOK || stderr != "" {
		t.Errorf("byte order mark: exit %d\n%s", code, stderr)
	}
	// Requests with neither prompt nor response text: counted in one line
	// by replay and by inspect (2 of 3 here: an empty message list, and a
	// body of no known dialect).
	noText := write("notext.jsonl", `{"ts":1,"agent":"a","request":{"messages":[]}}`+"\n"+
		`{"ts":2,"agent":"a","request":{"foo":1}}`+"\n"+
		`{"ts":3,"agent":"a","request":{"messages":[{"role":"user","content":"x"}]}}`+"\n")
	line := "2 of 3 requests have neither prompt nor response text to fingerprint"
	if _, stderr, code := runCLI(t, "", "inspect", noText); code != exitOK || !strings.HasPrefix(stderr, "killswitch inspect: "+noText+": "+line) {
		t.Errorf("inspect: exit %d\n%s\nwant %s", code, stderr, line)
	}
	// replay scores 2 of them (the unknown dialect is skipped, not scored).
	line = "1 of 2 requests have neither prompt nor response text to fingerprint"
	if _, stderr, code := runCLI(t, "", "replay", noText); code != exitOK || !strings.HasPrefix(stderr, "killswitch replay: "+line) {
		t.Errorf("replay: exit %d\n%s\nwant %s", code, stderr, line)
	}
	// inspect exits 2 on a capture without requests, after its report,
	// unless --allow-empty.
	empty := write("empty.jsonl", "")
	out, stderr, code = runCLI(t, "", "inspect", empty)
	if code != exitUsage || !strings.Contains(out, "0 requests") || stderr != "killswitch inspect: "+empty+": no LLM request (0 malformed items, 0 skipped items); --allow-empty accepts it\n" {
		t.Errorf("inspect empty: exit %d\n%s%s", code, out, stderr)
	}
	if _, stderr, code := runCLI(t, "", "inspect", "--allow-empty", empty); code != exitOK || stderr != "" {
		t.Errorf("inspect --allow-empty: exit %d\n%s", code, stderr)
	}
}
