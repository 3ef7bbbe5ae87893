package dsn

import (
	"errors"
	"testing"
)

func TestURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"redis://localhost:6379/0", "redis://localhost:6379/0"},
		{"redis://u:hunter2@localhost:6379/0", "redis://u:xxxxx@localhost:6379/0"},
		{"redis://:hunter2@localhost", "redis://:xxxxx@localhost"},
		{"unix://limited:pw@/tmp/r.sock", "unix://limited:xxxxx@/tmp/r.sock"},
		{"unix:///tmp/r.sock?db=1&password=hunter2", "unix:///tmp/r.sock?db=1&password=xxxxx"},
		{"unix:///tmp/r.sock?pass%77ord=hunter2", "unix:///tmp/r.sock?pass%77ord=xxxxx"},
		{"postgres://u:p@ss:w@rd@h/db", "postgres://u:xxxxx@h/db"}, // unencoded '@' in the password
		{"postgres://u@h/db?sslmode=disable&sslpassword=s3&password=p", "postgres://u@h/db?sslmode=disable&sslpassword=xxxxx&password=xxxxx"},
		{"postgres://u:pw@h:bad port/db", "postgres://u:xxxxx@h:bad port/db"}, // does not parse
		{"redis://h/0?auth_token=t&Secret=s", "redis://h/0?auth_token=xxxxx&Secret=xxxxx"},
		{"sqlite:/tmp/a.db", "sqlite:/tmp/a.db"},
		{"file:a.db?password", "file:a.db?password=xxxxx"},
	} {
		if got := URL(c.in); got != c.want {
			t.Errorf("URL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestKeyValue(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"host=/tmp/pg user=u password=hunter2 dbname=ks", "host=/tmp/pg user=u password=xxxxx dbname=ks"},
		{"password = 'a b\\'c' dbname=ks", "password = xxxxx dbname=ks"},
		{"user=u password='unterminated", "user=u password=xxxxx"},
		{"PASSWORD=x sslpassword=y", "PASSWORD=xxxxx sslpassword=xxxxx"},
		{"password=a\\ b host=h", "password=xxxxx host=h"},
		{"host=h", "host=h"},
		{"  host=h   port=5432 ", "  host=h   port=5432 "},
		{"password=", "password=xxxxx"},
		{"dangling", "dangling"},
	} {
		if got := KeyValue(c.in); got != c.want {
			t.Errorf("KeyValue(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestErr(t *testing.T) {
	s := "host=/x user=u password='a b\\'c' dbname=ks"
	err := Err(errors.New("cannot connect as u with a b'c to host=/x"), s, KeyValue)
	if got := err.Error(); got != "cannot connect as u with xxxxx to host=/x" {
		t.Errorf("Err = %q", got)
	}
	orig := errors.New("no secret here")
	if Err(orig, s, KeyValue) != orig {
		t.Error("an error without a secret was replaced")
	}
	u := "unix://u:p%40ss@/tmp/s.sock"
	if got := Err(errors.New("auth p@ss failed; p%40ss"), u, URL).Error(); got != "auth xxxxx failed; xxxxx" {
		t.Errorf("Err(URL) = %q", got)
	}
}
