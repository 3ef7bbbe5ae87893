package simhash

import (
	"strings"
	"testing"
)

func TestExplore3(t *testing.T) {
	corpus := goDocCorpus(t, 3)
	for _, c := range corpus {
		if c.group == "go:go/ast" || c.group == "go:go/parser" || c.group == "go:internal/routebsd" {
			n := string(Normalize(nil, []byte(c.text)))
			h, _ := simhashOf(fChar(5), n, 0)
			t.Logf("%s %d %d %016x %.60q", c.group, len(c.text), len(n), h, c.text)
			if strings.HasPrefix(c.text, "Package ast") {
				t.Logf("%q", n[:3000])
			}
		}
	}
}
