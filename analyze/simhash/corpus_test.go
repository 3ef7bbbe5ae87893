package simhash

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// corpusText is one text of the measurement corpus; texts of the same group
// come from the same source (one Go package, or the captures) and are not
// paired as "unrelated".
type corpusText struct {
	group string
	text  string
}

// goroot returns the Go installation whose documentation feeds the corpus:
// the one `go env GOROOT` names, else the one this test was built with.
func goroot() string {
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		if r := strings.TrimSpace(string(out)); r != "" {
			return r
		}
	}
	return runtime.GOROOT() //nolint:staticcheck // fallback when go is not on PATH
}

// goDocCorpus builds up to perPkg texts of 1–4 KB from the comments of each
// standard-library package (GOROOT/src minus cmd, vendor, testdata and tests):
// the // comment lines of the package's files in name order, cut at white
// space into chunks whose lengths a seeded PRNG draws from [1024, 4096].
func goDocCorpus(t testing.TB, perPkg int) []corpusText {
	root := goroot()
	src := filepath.Join(root, "src")
	if root == "" {
		t.Skip("no GOROOT: the Go documentation corpus is absent")
	}
	if _, err := os.Stat(src); err != nil {
		t.Skipf("GOROOT sources absent (%v): the Go documentation corpus is absent", err)
	}
	byDir := map[string][]string{}
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if name == "testdata" || name == "vendor" || p == filepath.Join(src, "cmd") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			byDir[filepath.Dir(p)] = append(byDir[filepath.Dir(p)], p)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walking %s: %v", src, err)
	}
	dirs := make([]string, 0, len(byDir))
	for d := range byDir {
		dirs = append(dirs, d)
	}
	slices.Sort(dirs)
	rng := rand.New(rand.NewPCG(1, 2))
	var out []corpusText
	for _, d := range dirs {
		files := byDir[d]
		slices.Sort(files)
		var doc strings.Builder
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatalf("reading %s: %v", f, err)
			}
			commentLines(&doc, data)
		}
		rel, _ := filepath.Rel(src, d)
		for _, c := range chunks(doc.String(), rng, perPkg) {
			out = append(out, corpusText{group: "go:" + rel, text: c})
		}
	}
	return out
}

// commentLines appends the text of the // comment lines of a Go file to b,
// one line each, skipping directives such as //go:build and licence lines.
func commentLines(b *strings.Builder, data []byte) {
	for line := range bytes.Lines(data) {
		line = bytes.TrimSpace(line)
		text, ok := bytes.CutPrefix(line, []byte("//"))
		if !ok || (len(text) > 0 && text[0] != ' ' && text[0] != '\t') {
			continue
		}
		text = bytes.TrimSpace(text)
		if isBoilerplate(text) {
			continue
		}
		b.Write(text)
		b.WriteByte('\n')
	}
}

// isBoilerplate reports whether a comment line belongs to the licence header
// or generator banner that most Go files repeat verbatim: texts made of them
// would be duplicates, not unrelated texts.
func isBoilerplate(line []byte) bool {
	for _, s := range []string{"Copyright", "governed by a BSD-style", "LICENSE file", "DO NOT EDIT"} {
		if bytes.Contains(line, []byte(s)) {
			return true
		}
	}
	return false
}

// chunks cuts s into at most n pieces of 1024–4096 bytes, each cut at white
// space after the drawn length.
func chunks(s string, rng *rand.Rand, n int) []string {
	var out []string
	for len(out) < n {
		want := 1024 + rng.IntN(3073)
		if len(s) < want {
			break
		}
		cut := want
		for cut > 1024 && s[cut] != ' ' && s[cut] != '\n' {
			cut--
		}
		out = append(out, strings.TrimSpace(s[:cut]))
		s = s[cut:]
	}
	return out
}

// capturePrompts returns the distinct user-message texts of at least 1 KB in
// the shared captures, cut to at most 4 KB at white space. It finds them by a
// generic walk of every JSON value (JSON inside JSON strings included): an
// object with "role": "user" and string content or text parts. It returns nil
// when the captures are absent.
func capturePrompts(t testing.TB) []corpusText {
	dir := filepath.Join("..", "..", "..", "shared", "captures")
	if _, err := os.Stat(dir); err != nil {
		t.Logf("captures absent (%v): corpus without captured prompts", err)
		return nil
	}
	seen := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var docs [][]byte
		if strings.HasSuffix(p, ".jsonl") {
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(nil, 1<<26)
			for sc.Scan() {
				docs = append(docs, slices.Clone(sc.Bytes()))
			}
		} else if strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".har") {
			docs = append(docs, data)
		}
		for _, doc := range docs {
			var v any
			if json.Unmarshal(doc, &v) == nil {
				userTexts(v, seen)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walking %s: %v", dir, err)
	}
	var out []corpusText
	for s := range seen {
		if len(s) < 1024 {
			continue
		}
		if len(s) > 4096 {
			cut := 4096
			for cut > 1024 && s[cut] != ' ' && s[cut] != '\n' {
				cut--
			}
			s = s[:cut]
		}
		out = append(out, corpusText{group: "captures", text: s})
	}
	slices.SortFunc(out, func(a, b corpusText) int { return strings.Compare(a.text, b.text) })
	return out
}

// userTexts adds the user-message texts found anywhere in v to seen.
func userTexts(v any, seen map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		if role, _ := x["role"].(string); role == "user" {
			switch c := x["content"].(type) {
			case string:
				seen[c] = true
			case []any:
				var parts []string
				for _, p := range c {
					if m, ok := p.(map[string]any); ok {
						if s, ok := m["text"].(string); ok {
							parts = append(parts, s)
						}
					}
				}
				if len(parts) > 0 {
					seen[strings.Join(parts, "\n")] = true
				}
			}
		}
		for _, e := range x {
			userTexts(e, seen)
		}
	case []any:
		for _, e := range x {
			userTexts(e, seen)
		}
	case string:
		s := strings.TrimSpace(x)
		if len(s) > 1 && (s[0] == '{' || s[0] == '[') && utf8.ValidString(s) {
			var inner any
			if json.Unmarshal([]byte(s), &inner) == nil {
				userTexts(inner, seen)
			}
		}
	}
}
