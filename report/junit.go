package report

import (
	"encoding/xml"
	"io"
	"strings"
)

// JUnit XML shapes (the de-facto schema CI systems read: testsuites →
// testsuite → testcase with failure or error). No time attributes: the
// report holds nothing from the clock, so the same check writes the same
// bytes.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string           `xml:"name,attr"`
	Tests      int              `xml:"tests,attr"`
	Failures   int              `xml:"failures,attr"`
	Errors     int              `xml:"errors,attr"`
	Properties *junitProperties `xml:"properties,omitempty"`
	Cases      []junitCase      `xml:"testcase"`
}

type junitProperties struct {
	Props []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	SystemOut *junitText    `xml:"system-out,omitempty"`
}

type junitText struct {
	Text string `xml:",cdata"`
}

// xmlText returns s with every character XML 1.0 cannot hold (control
// characters; invalid UTF-8 reads as U+FFFD already) replaced by U+FFFD:
// character data is written as CDATA, which encoding/xml does not escape.
func xmlText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r',
			r >= 0x20 && r <= 0xD7FF,
			r >= 0xE000 && r <= 0xFFFD,
			r >= 0x10000 && r <= 0x10FFFF:
			return r
		}
		return '\uFFFD'
	}, s)
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",cdata"`
}

// JUnit writes c as a JUnit XML report: one testsuite per expectation
// file (named by its path, with the capture, settings and about as
// properties), one testcase per agent expectation and per total bound
// (named by the agent id or "totals.KEY"). A failure's message names the
// agent and the reason ("billing-bot: killed at request 4, expected 6–8");
// its text says what was expected and what happened. A file that could
// not be checked is one testcase "expectation file" with an error.
func JUnit(w io.Writer, c *Check) error {
	n := c.Counts()
	out := junitSuites{Name: "killswitch check", Tests: n.Results + n.Unusable, Failures: n.Failed, Errors: n.Unusable}
	for _, f := range c.Files {
		class := strings.TrimSuffix(f.Path, ".expect.json")
		s := junitSuite{Name: f.Path}
		var props []junitProperty
		if f.Capture != "" {
			props = append(props, junitProperty{"capture", f.Capture})
		}
		if f.Summary != nil {
			props = append(props, junitProperty{"settings", f.settingsLine()})
		}
		if f.About != "" {
			props = append(props, junitProperty{"about", f.About})
		}
		if len(props) > 0 {
			s.Properties = &junitProperties{props}
		}
		if f.Err != nil {
			msg := f.Err.Error()
			first, _, _ := strings.Cut(msg, "\n")
			s.Tests, s.Errors = 1, 1
			s.Cases = []junitCase{{Name: "expectation file", Classname: class, File: f.Path,
				Error: &junitProblem{Message: first, Type: "unusable", Text: xmlText(msg)}}}
			out.Suites = append(out.Suites, s)
			continue
		}
		for _, r := range f.Results {
			tc := junitCase{Name: r.Name(), Classname: class, File: f.Path, Line: r.Line}
			s.Tests++
			if r.Pass {
				tc.SystemOut = &junitText{xmlText(r.Got)}
			} else {
				s.Failures++
				tc.Failure = &junitProblem{Message: r.Name() + ": " + r.Reason, Type: "regression",
					Text: xmlText("expected: " + r.Want + "\ngot: " + r.Got + "\ncapture: " + f.Capture + "\nsettings: " + f.settingsLine())}
			}
			s.Cases = append(s.Cases, tc)
		}
		out.Suites = append(out.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
