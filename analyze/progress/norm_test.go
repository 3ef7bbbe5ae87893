package progress

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/valyala/fastjson"
)

// normTexts are texts that reach every branch of the normalizer: each
// followed word and phrase in upper and lower case, at a token's end and
// cut short, numbers after them, placeholders between them, NUL bytes.
var normTexts = []string{
	"Error: no matches for x at 2026-01-02T03:04:05Z",
	"/bin/bash: line 13053: cd: fastjson/: No such file or directory",
	"sh: 1: javac: not found\nexit code: 1\n<returncode>2</returncode><output></output>",
	"RETURNCODE 0 returncode\t7 ReturnCode: 3 exit status 0 Exit Code 12 exit 550e8400-e29b-41d4-a716-446655440000 code 1",
	"Exception Traceback (most recent call last): TIMED OUT timed 3s out; Timeout after 120ms",
	"did not produce any output. No results. no result, No Output! any 4 output",
	"err! ERR errors Failed failure FATAL panic: denied Invalid unknown unable cannot can't refused ENOENT",
	"not\x00 found no\x00 such n\x00 error\x00 errors\x00x exception\x00 returncod\x00",
	"zsh line 4 dash line #123 bash 12 line sh line 0.41s 14:05 52:60 3.42 seconds 10px 0xdeadbeefcafe",
	"abcdefghijklmnopq errorerrorerror exceptions tracebacks returncodes notfound nosuch",
	"RetryBudget retryBudget 45% 50% attempt 3, 4, 5. offset=200 offset=300 ÉRROR erreur",
	"", " ", "\n\n", "x", "1", "#", "...", "a.b.c:", "no", "not", "exit", "bash",
	// The fast path (tokens): words of 7 to 17 bytes across 8- and
	// 64-byte boundaries, at the text's end (fewer than 16 bytes left),
	// trailing punctuation runs, invalid UTF-8, non-ASCII letters,
	// nothing but separators, upper case, numbers at a block's edge.
	"abcdefg abcdefgh abcdefghi abcdefghij abcdefghijklmnop abcdefghijklmnopq EXCEPTIONS exception. Traceback: RETURNCODE",
	"\xff\xfe\x80 caf\xc3\xa9 \xc3\x89RROR na\xefve \xe2\x80\x94 \xf0\x9f\x98\x80error\xf0\x9f\x98\x80 \xc3 \xe2\x80",
	" \t\n\r\v\f\"'`()[]{}<>,;=|/\\ \"'`()[]{}<>,;=|/\\",
	"end.. done?! ok: a. . .. x.y: what?\nwhy!! ...lead trail...",
	"NOT FOUND No Such File Timed Out EXIT CODE 3 Exit Status 0 ANY OUTPUT No Matches",
	strings.Repeat("x", 63) + " error", strings.Repeat("y", 64) + " not found", strings.Repeat("z", 65) + " 12s",
	strings.Repeat("w ", 31) + "abcdefghijklmnop", strings.Repeat("ab ", 21) + "1234 seconds later",
	strings.Repeat("The build FAILED: exit code 2 after 3.5s; no such file /tmp/x-550e8400. ", 70),
}

// refWords are the words refNormalizer follows (and a few near them):
// each alone, in upper case, and every pair of them followed by a number
// is a text of TestNormalizerReference.
var refWords = []string{"error", "errors", "err", "err!", "failed", "failure", "fatal", "exception", "traceback",
	"panic", "denied", "invalid", "unknown", "unable", "cannot", "can't", "timeout", "refused", "enoent",
	"not", "found", "no", "such", "timed", "out", "results", "matches", "result", "output", "any",
	"bash", "sh", "zsh", "dash", "line", "exit", "code", "status", "returncode", "returncodes", "exceptional", "errs"}

// TestNormalizerReference holds the normalizer to refNormalizer, the
// straightforward version it replaced: the same hash, words, error and
// empty flags, and the same shown text, for the texts above, for every
// string of the progress fixtures and, when ../shared is present, of the
// real trajectories, with and without keepCase.
func TestNormalizerReference(t *testing.T) {
	texts := append([]string(nil), normTexts...)
	for _, a := range refWords {
		texts = append(texts, a, strings.ToUpper(a))
		for _, b := range refWords {
			texts = append(texts, a+" "+b+" 1")
		}
	}
	paths, _ := filepath.Glob("../../fixtures/progress/*.jsonl")
	rules, _ := filepath.Glob("../../fixtures/progress/rules/*.jsonl")
	shared, _ := filepath.Glob("../../../shared/trajectories/*.jsonl.gz")
	for _, p := range append(append(paths, rules...), shared...) {
		texts = append(texts, jsonStrings(t, p)...)
	}
	if len(texts) < 1000 {
		t.Fatalf("only %d texts: are the fixtures there?", len(texts))
	}
	for _, keepCase := range []bool{false, true} {
		for i := 0; i < len(texts); i++ {
			compareNormalizers(t, keepCase, []byte(texts[i]))
			if i+1 < len(texts) {
				compareNormalizers(t, keepCase, []byte(texts[i]), []byte(texts[i+1]))
			}
		}
	}
	t.Logf("%d texts", len(texts))
}

// FuzzNormalizer: the normalizer and refNormalizer agree on any bytes.
func FuzzNormalizer(f *testing.F) {
	for _, s := range normTexts {
		f.Add([]byte(s), []byte("exit code 1"), false)
	}
	f.Add([]byte("Not"), []byte("found"), true)
	f.Fuzz(func(t *testing.T, a, b []byte, keepCase bool) {
		compareNormalizers(t, keepCase, a, b)
	})
}

// compareNormalizers feeds parts to both normalizers, shown and not.
func compareNormalizers(t *testing.T, keepCase bool, parts ...[]byte) {
	t.Helper()
	for _, show := range []bool{false, true} {
		var n normalizer
		var r refNormalizer
		n.reset()
		r.reset()
		n.keepCase, r.keepCase = keepCase, keepCase
		n.show, r.show = show, show
		for _, p := range parts {
			n.add(p)
			r.add(p)
			if n.h != r.h || n.words != r.words || n.errs != r.errs || n.empty != r.empty || n.shell != r.shell ||
				n.exit != r.exit || !bytes.Equal(n.out, r.out) {
				t.Fatalf("keepCase %v, show %v, parts %q: got h %x words %d errs %v empty %v shell %d exit %v %q, "+
					"want h %x words %d errs %v empty %v shell %d exit %v %q", keepCase, show, parts,
					n.h, n.words, n.errs, n.empty, n.shell, n.exit, n.out, r.h, r.words, r.errs, r.empty, r.shell, r.exit, r.out)
			}
		}
	}
}

// jsonStrings returns every distinct string value of a JSONL capture's lines (and
// of the request and response bodies they hold as strings), gzip undone.
func jsonStrings(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if filepath.Ext(path) == ".gz" {
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	}
	var out []string
	seen := map[string]bool{} // a request repeats its history: each text once
	var p fastjson.Parser
	var walk func(v *fastjson.Value)
	walk = func(v *fastjson.Value) {
		switch v.Type() {
		case fastjson.TypeString:
			s := v.GetStringBytes()
			if seen[string(s)] {
				return
			}
			seen[string(s)] = true
			out = append(out, string(s))
			if len(s) > 0 && (s[0] == '{' || s[0] == '[') {
				var q fastjson.Parser
				if w, err := q.ParseBytes(s); err == nil {
					walk(w)
				}
			}
		case fastjson.TypeArray:
			for _, e := range v.GetArray() {
				walk(e)
			}
		case fastjson.TypeObject:
			v.GetObject().Visit(func(_ []byte, e *fastjson.Value) { walk(e) })
		}
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if v, err := p.ParseBytes(sc.Bytes()); err == nil {
			walk(v)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}
