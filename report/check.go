package report

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/expect"
)

// Check is the outcome of `killswitch check`: one entry per expectation
// file, in the order the files were found.
type Check struct {
	Files []CheckFile
	// Overrides are the settings given on the command line, as given
	// ("--threshold 12"); they replaced every file's own.
	Overrides []string
	// Update is set when the files were rewritten (--update): Changes
	// say what changed.
	Update bool
}

// CheckFile is one expectation file and what replaying its capture did.
type CheckFile struct {
	Path    string // the expectation file, as found
	Capture string // the capture replayed; "" when none was found
	About   string
	Summary *analyze.Summary // the replay; nil when the file could not be checked
	// Settings describes the settings of the policy replayed, in its own
	// words; "" for the loop detector, described from Summary.
	Settings string
	Results  []expect.Result // one per agent expectation, then one per total
	Err      error           // not nil: the file could not be checked (unusable input)
	Changes  []string        // --update: what was rewritten; nil: nothing
	Created  bool            // --update wrote the file anew (its capture had none)
}

// settingsLine describes the settings f's capture was replayed with.
func (f *CheckFile) settingsLine() string {
	if f.Settings != "" {
		return f.Settings
	}
	return settingsLine(f.Summary)
}

// CheckCounts add up a Check.
type CheckCounts struct {
	Files    int // expectation files
	Results  int // agent expectations and total bounds checked
	Passed   int
	Failed   int
	Unusable int // files that could not be checked
	Updated  int // files rewritten by --update
}

// Counts adds up c.
func (c *Check) Counts() CheckCounts {
	n := CheckCounts{Files: len(c.Files)}
	for _, f := range c.Files {
		if f.Err != nil {
			n.Unusable++
		}
		if len(f.Changes) > 0 {
			n.Updated++
		}
		for _, r := range f.Results {
			n.Results++
			if r.Pass {
				n.Passed++
			} else {
				n.Failed++
			}
		}
	}
	return n
}

// summaryLine is the last line of every check report.
func (c *Check) summaryLine() string {
	n := c.Counts()
	var s string
	switch {
	case n.Failed == 0:
		s = fmt.Sprintf("all %d expectations hold (%s)", n.Results, Plural(n.Files, "file"))
	default:
		s = fmt.Sprintf("%d of %d expectations failed (%s; %d passed)", n.Failed, n.Results, Plural(n.Files, "file"), n.Passed)
	}
	if n.Unusable > 0 {
		s += fmt.Sprintf("; %s could not be checked", Plural(n.Unusable, "file"))
	}
	if c.Update {
		s += fmt.Sprintf("; %s rewritten", Plural(n.Updated, "file"))
	}
	if len(c.Overrides) > 0 {
		s += "; overrides: " + strings.Join(c.Overrides, " ")
	}
	return s
}

func Plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// oneLine returns an agent id fit for a line of text: as it is, or, when
// it holds control characters or bytes that are not UTF-8, quoted with
// Go escapes, so that one expectation stays one line.
func oneLine(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return s
	}
	return strconv.Quote(s)
}

// resultPos is "path:line" for a result, or the path alone.
func resultPos(path string, r expect.Result) string {
	if r.Line > 0 {
		return path + ":" + strconv.Itoa(r.Line)
	}
	return path
}

// CheckText writes one line per expectation — "ok", "FAIL" with the
// reason, or "ERROR" for a file that could not be checked (one line per
// problem) — then the summary. With Update, it first lists each file
// rewritten and what changed, and leaves out the lines that passed.
func CheckText(w io.Writer, c *Check) error {
	if c.Update {
		for _, f := range c.Files {
			if len(f.Changes) == 0 {
				continue
			}
			verb := "updated"
			if f.Created {
				verb = "created"
			}
			fmt.Fprintf(w, "%s %s:\n", verb, f.Path)
			for _, ch := range f.Changes {
				fmt.Fprintf(w, "  %s\n", ch)
			}
		}
	}
	for _, f := range c.Files {
		if f.Err != nil {
			for _, line := range strings.Split(f.Err.Error(), "\n") {
				fmt.Fprintf(w, "ERROR %s\n", line)
			}
			continue
		}
		for _, r := range f.Results {
			switch {
			case !r.Pass:
				fmt.Fprintf(w, "FAIL  %s: %s: %s\n", resultPos(f.Path, r), oneLine(r.Name()), r.Reason)
			case !c.Update:
				fmt.Fprintf(w, "ok    %s: %s: %s\n", resultPos(f.Path, r), oneLine(r.Name()), r.Got)
			}
		}
	}
	_, err := fmt.Fprintf(w, "\ncheck: %s\n", c.summaryLine())
	return err
}

// CheckMarkdown writes a summary fit for a pull-request comment: a
// headline, the failures and unusable files in a table, the expectations
// that held folded away, and the settings each file ran with.
func CheckMarkdown(w io.Writer, c *Check) error {
	n := c.Counts()
	icon := "✅"
	if n.Failed > 0 || n.Unusable > 0 {
		icon = "❌"
	}
	fmt.Fprintf(w, "### %s killswitch check: %s\n\n", icon, c.summaryLine())
	header := []string{"", "expectation", "agent", "result"}
	var bad [][]string
	for _, f := range c.Files {
		if f.Err != nil {
			for _, line := range strings.Split(f.Err.Error(), "\n") {
				bad = append(bad, []string{"⚠️ unusable", code(f.Path), "", mdEscape(strings.TrimSpace(strings.TrimPrefix(line, f.Path+":")))})
			}
			continue
		}
		for _, r := range f.Results {
			if !r.Pass {
				bad = append(bad, []string{"❌ fail", code(resultPos(f.Path, r)), mdEscape(oneLine(r.Name())), mdEscape(r.Reason)})
			}
		}
	}
	if len(bad) > 0 {
		mdTable(w, header, bad)
		fmt.Fprintln(w)
	}
	if c.Update && n.Updated > 0 {
		fmt.Fprintf(w, "**Rewritten (--update):**\n\n")
		for _, f := range c.Files {
			if len(f.Changes) == 0 {
				continue
			}
			fmt.Fprintf(w, "- %s: %s\n", code(f.Path), mdEscape(strings.Join(f.Changes, "; ")))
		}
		fmt.Fprintln(w)
	}
	if n.Passed > 0 {
		var good [][]string
		for _, f := range c.Files {
			for _, r := range f.Results {
				if r.Pass {
					good = append(good, []string{"✅", code(resultPos(f.Path, r)), mdEscape(oneLine(r.Name())), mdEscape(r.Got)})
				}
			}
		}
		fmt.Fprintf(w, "<details><summary>%s held</summary>\n\n", Plural(n.Passed, "expectation"))
		mdTable(w, header, good)
		fmt.Fprint(w, "\n</details>\n\n")
	}
	fmt.Fprintln(w, "<details><summary>Settings</summary>")
	fmt.Fprintln(w)
	for _, f := range c.Files {
		if f.Summary == nil {
			continue
		}
		fmt.Fprintf(w, "- %s — %s; capture %s\n", code(f.Path), mdEscape(f.settingsLine()), code(f.Capture))
	}
	_, err := fmt.Fprint(w, "\n</details>\n")
	return err
}

func mdTable(w io.Writer, header []string, rows [][]string) {
	mdRow(w, header)
	seps := make([]string, len(header))
	for i := range seps {
		seps[i] = "---"
	}
	fmt.Fprintf(w, "|%s|\n", strings.Join(seps, "|"))
	for _, r := range rows {
		mdRow(w, r)
	}
}

// code renders s as inline Markdown code (backticks in s are replaced so
// the span cannot end early).
func code(s string) string { return "`" + strings.ReplaceAll(s, "`", "'") + "`" }

// mdEscape keeps Markdown from reading text (an agent id, a message) as
// markup: HTML tags and entities, emphasis, code spans. Table cells also
// go through mdRow, which escapes "|" and line breaks.
func mdEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "*", `\*`, "_", `\_`, "`", "\\`").Replace(s)
}

// CheckAnnotations writes a GitHub Actions workflow command
// (`::error file=…,line=…::message`) for every expectation that failed and
// every problem of a file that could not be checked, so that they show on
// the pull request beside the file. Nothing is written when all hold.
func CheckAnnotations(w io.Writer, c *Check) error {
	for _, f := range c.Files {
		if f.Err != nil {
			var list expect.ErrorList
			if !errors.As(f.Err, &list) {
				if err := ghCommand(w, "error", f.Path, 0, 0, "killswitch check: unusable input", f.Err.Error()); err != nil {
					return err
				}
				continue
			}
			for _, e := range list {
				msg := e.Msg
				if e.Key != "" {
					msg = e.Key + ": " + msg
				}
				if err := ghCommand(w, "error", e.File, e.Line, e.Col, "killswitch check: unusable expectation file", msg); err != nil {
					return err
				}
			}
			continue
		}
		for _, r := range f.Results {
			if r.Pass {
				continue
			}
			name := oneLine(r.Name())
			if err := ghCommand(w, "error", f.Path, r.Line, 0, "killswitch check: "+name, name+": "+r.Reason); err != nil {
				return err
			}
		}
	}
	return nil
}

// ghCommand writes one workflow command. Property values escape %, CR, LF,
// ':' and ','; the message escapes %, CR and LF (GitHub's rules).
func ghCommand(w io.Writer, cmd, file string, line, col int, title, msg string) error {
	props := "file=" + ghProp(file)
	if line > 0 {
		props += ",line=" + strconv.Itoa(line)
	}
	if col > 0 {
		props += ",col=" + strconv.Itoa(col)
	}
	props += ",title=" + ghProp(title)
	_, err := fmt.Fprintf(w, "::%s %s::%s\n", cmd, props, ghData(msg))
	return err
}

func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func ghProp(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
