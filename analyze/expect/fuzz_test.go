package expect

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: Parse (with the tests' schemas: the loop detector and a
// policy with variants, settings and a section) never panics; what it rejects is an ErrorList of
// positioned errors; what it accepts formats back to a file that parses to
// the same expectation.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		issueExample,
		`{"agents": {"a": {"killed": true, "at_request": 7, "kills": 2}}}`,
		`{"totals": {"kills": {"min": 1}, "agents": 3}}`,
		`{"agents": {"a": {"killed": tru}}}`,                                       // regression: bad literal
		`{"agents": {"a": {"killed": true, "at_requst": 3}}}`,                      // regression: typo
		`{"totals": {"kills": 1, "kills": 2}}`,                                     // regression: repeated key
		`{"settings": {"window": 1e400, "threshold": -0}, "totals": {"kills": 0}}`, // regression: huge number
		"\uFEFF{\"totals\": {\"kills\": 0}}",                                       // regression: byte order mark
		"{\"agents\": {\"\xff\": {\"killed\": false}}}",                            // regression: invalid UTF-8 key
		`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`,
		"",
		`{"settings": {"policy": "quota", "variant": "soft", "quota": {"limit": 1, "x": {"a": 5}}}, "users": {"u": {"throttled": true, "at_request": {"min": 1}}}}`,
	} {
		f.Add([]byte(seed))
	}
	files, _ := filepath.Glob("../../fixtures/*/*.expect.json")
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := Parse("fuzz.json", data, testSchemas...)
		if err != nil {
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error %v is not a non-empty ErrorList", err)
			}
			for _, x := range list {
				if x.File != "fuzz.json" || x.Line < 1 || x.Col < 1 || x.Msg == "" {
					t.Fatalf("bad error %+v", x)
				}
			}
			return
		}
		out, err := Format(e)
		if err != nil {
			t.Fatalf("Format of a parsed expectation: %v", err)
		}
		back, err := Parse("fuzz.json", out, testSchemas...)
		if err != nil {
			t.Fatalf("Format's output does not parse: %v\n%s", err, out)
		}
		if !equalIgnoringLines(back, e) {
			t.Fatalf("round trip changed it:\n%s\n%s", dump(e), dump(back))
		}
	})
}

// BenchmarkParse measures parsing the issue's example expectation.
func BenchmarkParse(b *testing.B) {
	data := []byte(issueExample)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse("bench.json", data); err != nil {
			b.Fatal(err)
		}
	}
}
