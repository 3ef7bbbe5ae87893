package report

import (
	"strings"
	"testing"

	"github.com/killswitch/killswitch/analyze"
)

// The count columns say what the profile counts: SPEC §1's similar
// prompts, responses and tool calls for spec, the repeated steps by kind
// for progress (which scores steps, not prompts).
func TestTimelineCountColumns(t *testing.T) {
	for _, c := range []struct {
		p    *analyze.Profile
		want string
	}{
		{nil, "prompts|responses|tool calls"},
		{analyze.ProfileSpec, "prompts|responses|tool calls"},
		{analyze.ProfileProgress, "no-action repeats|answer repeats|action repeats"},
	} {
		h := timelineHeaderOf(&analyze.Summary{Profile: c.p})
		if got := strings.Join(h[5:8], "|"); got != c.want || len(h) != len(timelineHeader) {
			t.Errorf("%s: count columns %q, want %q", c.p, got, c.want)
		}
	}
}
