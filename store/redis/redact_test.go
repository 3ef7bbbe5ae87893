package redis

import "testing"

func TestRedactURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"redis://localhost:6379/0", "redis://localhost:6379/0"},
		{"redis://u:hunter2@localhost:6379/0", "redis://u:xxxxx@localhost:6379/0"},
		{"rediss://:hunter2@h:6380", "rediss://:xxxxx@h:6380"},
		{"unix://limited:pw@/tmp/r.sock?db=2", "unix://limited:xxxxx@/tmp/r.sock?db=2"},
		{"unix:///tmp/r.sock?password=hunter2&db=1", "unix:///tmp/r.sock?password=xxxxx&db=1"},
		{"redis://u:hun%2Fter@h/0?protocol=3", "redis://u:xxxxx@h/0?protocol=3"},
	} {
		if got := RedactURL(c.in); got != c.want {
			t.Errorf("RedactURL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
