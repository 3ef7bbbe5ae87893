package report

import (
	"strings"
	"testing"
	"time"
)

// Ticks fall on round UTC times, the step chosen by the span, the first
// label and a new day's naming the date.
func TestTimeTicks(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		start, end string
		step       time.Duration
		labels     string
	}{
		{"2026-03-02T09:00:00Z", "2026-03-02T09:04:51Z", time.Minute, "Mar 2 09:00|09:01|09:02|09:03|09:04"},
		{"2026-03-02T09:00:03Z", "2026-03-02T09:00:41Z", 5 * time.Second, "Mar 2 09:00:05|09:00:10|09:00:15|09:00:20|09:00:25|09:00:30|09:00:35|09:00:40"},
		{"2026-03-02T22:10:00Z", "2026-03-03T03:00:00Z", time.Hour, "Mar 2 23:00|Mar 3 00:00|01:00|02:00|03:00"},
		{"2026-03-02T12:00:00Z", "2026-03-09T00:00:00Z", 24 * time.Hour, "Mar 3|Mar 4|Mar 5|Mar 6|Mar 7|Mar 8|Mar 9"},
		{"2026-03-02T12:00:00+02:00", "2026-03-02T12:30:00+02:00", 5 * time.Minute, "Mar 2 10:00|10:05|10:10|10:15|10:20|10:25|10:30"},
	} {
		ticks, step := TimeTicks(at(c.start), at(c.end), 9)
		var labels []string
		for _, tk := range ticks {
			labels = append(labels, tk.Label)
		}
		if step != c.step || strings.Join(labels, "|") != c.labels {
			t.Errorf("%s – %s: step %v, %q; want %v, %q", c.start, c.end, step, labels, c.step, c.labels)
		}
	}
	if ticks, _ := TimeTicks(at("2026-03-02T09:00:00Z"), at("2026-03-02T09:00:00Z"), 9); ticks != nil {
		t.Errorf("an empty span has ticks %v", ticks)
	}
}
