package docs

import (
	"strings"
	"testing"
)

// Every embedded file is some topic's, every topic renders, and no two
// topics share a name or alias.
func TestTopics(t *testing.T) {
	used := map[string]bool{}
	names := map[string]string{}
	for _, tp := range Topics {
		for _, n := range append([]string{tp.Name}, tp.Aliases...) {
			if prev, ok := names[n]; ok {
				t.Errorf("%q names both %s and %s", n, prev, tp.Name)
			}
			names[n] = tp.Name
		}
		s, err := tp.Text()
		if err != nil {
			t.Errorf("%s: %v", tp.Name, err)
			continue
		}
		if !strings.HasPrefix(s, "#") || len(s) < 200 {
			t.Errorf("%s: %d bytes, starting %.40q", tp.Name, len(s), s)
		}
		used[tp.File] = true
	}
	for _, f := range Files() {
		if !used[f] {
			t.Errorf("%s is no topic's file: killswitch help would never show it", f)
		}
	}
}

func TestSection(t *testing.T) {
	tp, ok := Lookup("exit-codes")
	if !ok {
		t.Fatal("no exit-codes topic")
	}
	s, err := tp.Text()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s, "## Exit status\n") || strings.Contains(s, "\n## ") || !strings.Contains(s, "0 success") {
		t.Errorf("exit-codes section:\n%s", s)
	}
	if _, ok := Lookup("EXIT"); !ok {
		t.Error("lookup is not case-insensitive")
	}
	if _, ok := Lookup("nope"); ok {
		t.Error("found a topic called nope")
	}
}
