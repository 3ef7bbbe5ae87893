package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/report"
)

// TestToolAgentNote: when spec killed tool-using agents on their
// unchanged task, the timeline says so in one line and names the profile
// to try; with none, or with a profile that suggests nothing, it says
// nothing.
func TestToolAgentNote(t *testing.T) {
	for _, tt := range []struct {
		profile *analyze.Profile
		n       int
		want    bool
	}{
		{analyze.ProfileSpec, 8, true},
		{analyze.ProfileSpec, 0, false},
		{analyze.ProfileProgress, 8, false},
	} {
		s := &analyze.Summary{Profile: tt.profile, Default: analyze.DefaultSettings, ToolAgentKills: tt.n}
		s.Totals.Kills = 23
		var b bytes.Buffer
		if err := report.TimelineTable(&b, s); err != nil {
			t.Fatal(err)
		}
		out := strings.Join(strings.Fields(b.String()), " ") // the table wraps long lines
		got := strings.Contains(out, "note: 8 of 23 kills scored a last user message that stayed the same while the tool calls changed")
		if got != tt.want || got != strings.Contains(out, "--profile progress compares what each step adds") {
			t.Errorf("%s, %d tool-agent kills: note shown %v, want %v:\n%s", tt.profile, tt.n, got, tt.want, b.String())
		}
	}
}
