package sqlite

import "testing"

func TestRedactPath(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"sqlite:/tmp/state.db", "sqlite:/tmp/state.db"},
		{"sqlite:/tmp/a=b.db", "sqlite:/tmp/a=b.db"},
		{"sqlite:file:x.db?_pragma=busy_timeout(5000)&password=p", "sqlite:file:x.db?_pragma=busy_timeout(5000)&password=xxxxx"},
		// another store's target given to the loop policy
		{"postgres://u:hunter2@h/db", "postgres://u:xxxxx@h/db"},
		{"host=/tmp user=u password=hunter2", "host=/tmp user=u password=xxxxx"},
	} {
		if got := RedactPath(c.in); got != c.want {
			t.Errorf("RedactPath(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
