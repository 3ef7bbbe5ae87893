package postgres

import "testing"

func TestRedactDSN(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"postgres://u@/ks?host=/tmp/pg", "postgres://u@/ks?host=/tmp/pg"},
		{"postgres://u:hunter2@h:5432/ks", "postgres://u:xxxxx@h:5432/ks"},
		{"postgresql://u@h/ks?password=hunter2&sslmode=disable", "postgresql://u@h/ks?password=xxxxx&sslmode=disable"},
		{"postgres://u@h/ks?sslpassword=k&sslkey=/k.pem", "postgres://u@h/ks?sslpassword=xxxxx&sslkey=/k.pem"},
		{"host=/tmp/pg user=u password=hunter2 dbname=ks", "host=/tmp/pg user=u password=xxxxx dbname=ks"},
		{"host=/tmp/pg password='a b\\'c' dbname=ks", "host=/tmp/pg password=xxxxx dbname=ks"},
		{"host=h sslpassword = x", "host=h sslpassword = xxxxx"},
	} {
		if got := RedactDSN(c.in); got != c.want {
			t.Errorf("RedactDSN(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, c := range []struct {
		in   string
		want bool
	}{{"postgres://h/db", true}, {"postgresql://h", true}, {"host=/tmp dbname=ks", true}, {"redis://h", false}, {"/tmp/db", false}, {"sqlite:a.db", false}} {
		if got := IsDSN(c.in); got != c.want {
			t.Errorf("IsDSN(%q) = %v", c.in, got)
		}
	}
}
