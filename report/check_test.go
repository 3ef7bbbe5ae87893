package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"strings"
	"testing"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/expect"
	"github.com/killswitch/killswitch/internal/golden"
)

// oddID is an agent id holding what every format must escape: XML and
// HTML markup, quotes, a table separator, emphasis, a control character.
const oddID = "a<b>&\"c\"|d_*\x01"

// sampleCheck is a hand-made check: a file with a failure, a pass and a
// total; a file run under other settings whose odd agent failed; a file
// with two problems in it; a file whose capture is missing.
func sampleCheck() *Check {
	spec := &analyze.Summary{Profile: analyze.ProfileSpec, Mode: analyze.ModeDeactivate, Default: analyze.Settings{Enabled: true, WindowSize: 20, Threshold: 12}}
	gazer := &analyze.Summary{Profile: analyze.ProfileAgentGazer, Mode: analyze.ModeBlock, Default: analyze.Settings{Enabled: true, WindowSize: 30, Threshold: 12}}
	return &Check{
		Overrides: []string{"--threshold 12"},
		Files: []CheckFile{
			{Path: "captures/burn.expect.json", Capture: "captures/burn.jsonl.gz", About: "billing-bot loops on a refund", Summary: spec,
				Results: []expect.Result{
					{Agent: "billing-bot", Line: 4, Got: "killed at request 4 (score 13.0 > 12)", Want: "killed at request 6–8", Reason: "killed at request 4, expected 6–8"},
					{Agent: "report-writer", Line: 9, Pass: true, Got: "not killed (max score 2.0)", Want: "not killed"},
					{Total: "agents_killed", Line: 12, Pass: true, Got: "agents_killed 1", Want: "agents_killed ≤ 1"},
				}},
			{Path: "captures/odd.expect.json", Capture: "captures/odd.har", Summary: gazer,
				Results: []expect.Result{
					{Agent: oddID, Line: 3, Got: "not killed (max score 9.5)", Want: "killed", Reason: "not killed (max score 9.5), expected killed"},
				}},
			{Path: "captures/typo.expect.json", Err: expect.ErrorList{
				{File: "captures/typo.expect.json", Line: 3, Col: 14, Key: "agents.b.at_requst", Msg: `unknown key (want "killed", "at_request" or "kills")`},
				{File: "captures/typo.expect.json", Line: 5, Col: 3, Key: "totals.kills", Msg: "-1 is below 0 (a count)"},
			}},
			{Path: "captures/lost.expect.json", Err: errors.New("captures/lost.expect.json: no capture beside it (looked for lost.jsonl, lost.har and lost.parquet, compressed or not)")},
		},
	}
}

func TestCheckCounts(t *testing.T) {
	// By hand from sampleCheck: 4 results (2 pass, 2 fail), 2 unusable files.
	got := sampleCheck().Counts()
	want := CheckCounts{Files: 4, Results: 4, Passed: 2, Failed: 2, Unusable: 2}
	if got != want {
		t.Errorf("Counts = %+v, want %+v", got, want)
	}
}

func TestCheckGolden(t *testing.T) {
	c := sampleCheck()
	var b bytes.Buffer
	if err := CheckText(&b, c); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/check.txt", b.Bytes())

	b.Reset()
	if err := CheckMarkdown(&b, c); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/check.md", b.Bytes())

	b.Reset()
	if err := JUnit(&b, c); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/junit.xml", b.Bytes())

	// --update: the changes first, no lines for what held.
	c.Update = true
	c.Files[0].Changes = []string{"settings.threshold: 10 → 12", "billing-bot: killed at request 6–8 → killed at request 4–8"}
	c.Files = append(c.Files, CheckFile{Path: "captures/new.expect.json", Capture: "captures/new.jsonl", Created: true,
		Changes: []string{"lookup-bot: killed at request 6 (score 13.0 > 10)"}, Summary: c.Files[0].Summary,
		Results: []expect.Result{{Agent: "lookup-bot", Line: 3, Pass: true, Got: "killed at request 6 (score 13.0 > 10)", Want: "killed at request 6"}}})
	b.Reset()
	if err := CheckText(&b, c); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/check-update.txt", b.Bytes())
}

func TestCheckAllHold(t *testing.T) {
	c := &Check{Files: []CheckFile{{Path: "a.expect.json", Capture: "a.jsonl",
		Summary: &analyze.Summary{Default: analyze.DefaultSettings},
		Results: []expect.Result{{Agent: "x", Line: 2, Pass: true, Got: "not killed (max score 0.0)", Want: "not killed"}}}}}
	var text, md, ann bytes.Buffer
	CheckText(&text, c)
	CheckMarkdown(&md, c)
	CheckAnnotations(&ann, c)
	if want := "ok    a.expect.json:2: x: not killed (max score 0.0)\n\ncheck: all 1 expectations hold (1 file)\n"; text.String() != want {
		t.Errorf("text =\n%s\nwant\n%s", text.String(), want)
	}
	if !strings.HasPrefix(md.String(), "### ✅ killswitch check: all 1 expectations hold (1 file)\n") || strings.Contains(md.String(), "❌") {
		t.Errorf("markdown =\n%s", md.String())
	}
	if ann.Len() != 0 {
		t.Errorf("annotations when all hold:\n%s", ann.String())
	}
}

func TestCheckAnnotations(t *testing.T) {
	var b bytes.Buffer
	if err := CheckAnnotations(&b, sampleCheck()); err != nil {
		t.Fatal(err)
	}
	// By hand from GitHub's escaping rules: in properties % : , CR LF are
	// escaped (%25 %3A %2C %0D %0A), in the message % CR LF.
	want := strings.Join([]string{
		"::error file=captures/burn.expect.json,line=4,title=killswitch check%3A billing-bot::billing-bot: killed at request 4, expected 6–8",
		"::error file=captures/odd.expect.json,line=3,title=killswitch check%3A \"a<b>&\\\"c\\\"|d_*\\x01\"::\"a<b>&\\\"c\\\"|d_*\\x01\": not killed (max score 9.5), expected killed",
		"::error file=captures/typo.expect.json,line=3,col=14,title=killswitch check%3A unusable expectation file::agents.b.at_requst: unknown key (want \"killed\", \"at_request\" or \"kills\")",
		"::error file=captures/typo.expect.json,line=5,col=3,title=killswitch check%3A unusable expectation file::totals.kills: -1 is below 0 (a count)",
		"::error file=captures/lost.expect.json,title=killswitch check%3A unusable input::captures/lost.expect.json: no capture beside it (looked for lost.jsonl, lost.har and lost.parquet, compressed or not)",
	}, "\n") + "\n"
	if b.String() != want {
		t.Errorf("annotations =\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	ghCommand(&b, "error", "a,b:c%.json", 1, 0, "t", "50% done\r\nnext")
	if want := "::error file=a%2Cb%3Ac%25.json,line=1,title=t::50%25 done%0D%0Anext\n"; b.String() != want {
		t.Errorf("escaping: %q, want %q", b.String(), want)
	}
}

// JUnit shapes for reading the report back, written apart from the
// package's own so that a mistake in one does not hide in the other.
type readSuites struct {
	XMLName  xml.Name    `xml:"testsuites"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Suites   []readSuite `xml:"testsuite"`
}

type readSuite struct {
	Name     string     `xml:"name,attr"`
	Tests    int        `xml:"tests,attr"`
	Failures int        `xml:"failures,attr"`
	Errors   int        `xml:"errors,attr"`
	Props    []readProp `xml:"properties>property"`
	Cases    []readCase `xml:"testcase"`
}

type readProp struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type readCase struct {
	Name      string     `xml:"name,attr"`
	Classname string     `xml:"classname,attr"`
	File      string     `xml:"file,attr"`
	Line      int        `xml:"line,attr"`
	Failure   *readIssue `xml:"failure"`
	Error     *readIssue `xml:"error"`
	SystemOut string     `xml:"system-out"`
}

type readIssue struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// TestJUnitParses reads the report back with a strict XML decoder (it
// rejects characters XML cannot hold) and checks every count against the
// testcases themselves, and the failures' messages against sampleCheck.
func TestJUnitParses(t *testing.T) {
	var b bytes.Buffer
	if err := JUnit(&b, sampleCheck()); err != nil {
		t.Fatal(err)
	}
	var r readSuites
	dec := xml.NewDecoder(bytes.NewReader(b.Bytes()))
	dec.Strict = true
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("the report is not well-formed XML: %v\n%s", err, b.String())
	}
	cases, failures, errs := 0, 0, 0
	for _, s := range r.Suites {
		sf, se := 0, 0
		for _, c := range s.Cases {
			if c.Failure != nil {
				sf++
			}
			if c.Error != nil {
				se++
			}
			if c.Failure != nil && c.Error != nil {
				t.Errorf("%s: both failure and error", c.Name)
			}
		}
		if s.Tests != len(s.Cases) || s.Failures != sf || s.Errors != se {
			t.Errorf("suite %s: tests %d failures %d errors %d, but %d cases, %d failures, %d errors",
				s.Name, s.Tests, s.Failures, s.Errors, len(s.Cases), sf, se)
		}
		cases, failures, errs = cases+len(s.Cases), failures+sf, errs+se
	}
	if r.Tests != cases || r.Failures != failures || r.Errors != errs {
		t.Errorf("testsuites: tests %d failures %d errors %d, but %d cases, %d failures, %d errors",
			r.Tests, r.Failures, r.Errors, cases, failures, errs)
	}
	// sampleCheck: 4 results + 2 unusable files, 2 failures, 2 errors.
	if cases != 6 || failures != 2 || errs != 2 || len(r.Suites) != 4 {
		t.Errorf("%d suites, %d cases, %d failures, %d errors; want 4, 6, 2, 2", len(r.Suites), cases, failures, errs)
	}

	burn := r.Suites[0]
	if burn.Name != "captures/burn.expect.json" || len(burn.Cases) != 3 {
		t.Fatalf("first suite %+v", burn)
	}
	wantProps := []readProp{{"capture", "captures/burn.jsonl.gz"},
		{"settings", "profile spec, mode deactivate, window 20, threshold 12 (score > threshold fires)"},
		{"about", "billing-bot loops on a refund"}}
	if len(burn.Props) != len(wantProps) {
		t.Errorf("properties %+v, want %+v", burn.Props, wantProps)
	} else {
		for i := range wantProps {
			if burn.Props[i] != wantProps[i] {
				t.Errorf("property %d = %+v, want %+v", i, burn.Props[i], wantProps[i])
			}
		}
	}
	f := burn.Cases[0]
	if f.Name != "billing-bot" || f.Classname != "captures/burn" || f.File != "captures/burn.expect.json" || f.Line != 4 ||
		f.Failure == nil || f.Failure.Message != "billing-bot: killed at request 4, expected 6–8" || f.Failure.Type != "regression" ||
		!strings.Contains(f.Failure.Text, "expected: killed at request 6–8\ngot: killed at request 4 (score 13.0 > 12)\n") {
		t.Errorf("failing case %+v %+v", f, f.Failure)
	}
	if p := burn.Cases[1]; p.Name != "report-writer" || p.Failure != nil || p.SystemOut != "not killed (max score 2.0)" {
		t.Errorf("passing case %+v", p)
	}
	if tot := burn.Cases[2]; tot.Name != "totals.agents_killed" || tot.Line != 12 {
		t.Errorf("total case %+v", tot)
	}
	// The control character became U+FFFD; the markup came back as text.
	odd := r.Suites[1].Cases[0]
	cleanID := strings.ReplaceAll(oddID, "\x01", "\uFFFD")
	if odd.Name != cleanID || odd.Failure == nil || odd.Failure.Message != cleanID+": not killed (max score 9.5), expected killed" {
		t.Errorf("odd case %q %+v", odd.Name, odd.Failure)
	}
	typo := r.Suites[2].Cases[0]
	if typo.Name != "expectation file" || typo.Error == nil || typo.Error.Type != "unusable" ||
		typo.Error.Message != `captures/typo.expect.json:3:14: agents.b.at_requst: unknown key (want "killed", "at_request" or "kills")` ||
		strings.Count(typo.Error.Text, "\n") != 1 {
		t.Errorf("unusable case %+v %+v", typo, typo.Error)
	}
}

func TestXMLText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain é 😀", "plain é 😀"},
		{"tab\tnl\ncr\r", "tab\tnl\ncr\r"},
		{"nul\x00 bell\x07 esc\x1b", "nul\uFFFD bell\uFFFD esc\uFFFD"},
		{"bad utf8 \xff", "bad utf8 \uFFFD"},
		{"\uFFFE\uFFFF", "\uFFFD\uFFFD"},
	}
	for _, tc := range tests {
		if got := xmlText(tc.in); got != tc.want {
			t.Errorf("xmlText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
