package all_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/killswitch/killswitch/analyze/expect"
	_ "github.com/killswitch/killswitch/analyze/peers" // the peer profiles, as the command registers them
	"github.com/killswitch/killswitch/policy"
	_ "github.com/killswitch/killswitch/policy/all"
)

// TestFixtureExpectationsRoundTrip reads every expectation file of the
// fixtures with the registered policies' schemas: each parses, and what
// Format writes of it parses back to the same. The files fixtures/gen
// writes, and those written by hand in its form (canonical below), format
// back to exactly their bytes, so that --update rewrites nothing it does
// not change.
func TestFixtureExpectationsRoundTrip(t *testing.T) {
	canonical := map[string]bool{"scenarios": true, "library": true, "gateway": true, "peers": true, "progress": true, "sweep": true}
	files, _ := filepath.Glob("../../fixtures/*/*.expect.json")
	if len(files) == 0 {
		t.Fatal("no fixtures found")
	}
	policies := map[string]int{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		e, err := expect.Parse(f, data, policy.Schemas()...)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		name := "loop"
		if e.Settings.Policy != nil {
			name = *e.Settings.Policy
		}
		policies[name]++
		if e.About == "" {
			t.Errorf("%s: no about", f)
		}
		got, err := expect.Format(e)
		if err != nil {
			t.Errorf("%s: Format: %v", f, err)
			continue
		}
		back, err := expect.Parse(f, got, policy.Schemas()...)
		if err != nil {
			t.Errorf("%s: Format's output does not parse: %v\n%s", f, err, got)
			continue
		}
		if again, _ := expect.Format(back); !bytes.Equal(again, got) {
			t.Errorf("%s: Format(Parse(Format)) differs:\n%s\n%s", f, got, again)
		}
		if canonical[filepath.Base(filepath.Dir(f))] && !bytes.Equal(got, data) {
			t.Errorf("%s: Format differs:\n%s", f, got)
		}
	}
	for _, p := range policy.All() {
		if p.Check != nil && policies[p.Name] == 0 {
			t.Errorf("no fixture expectation replays the %s", p.Name)
		}
	}
}
