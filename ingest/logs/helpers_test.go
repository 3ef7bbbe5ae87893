package logs

import (
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/killswitch/killswitch/ingest"
)

// readAll reads every record of r, checking what every reader promises
// (see checkRecord), and fails on an I/O error.
func readAll(t testing.TB, r ingest.Reader, files ...string) []*ingest.Record {
	t.Helper()
	recs, err := collect(r, files...)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Err(); err != nil {
		t.Fatalf("I/O error: %v", err)
	}
	return recs
}

// collect reads every record of r; the error is a broken promise.
func collect(r ingest.Reader, files ...string) ([]*ingest.Record, error) {
	var recs []*ingest.Record
	for r.Scan() {
		rec := *r.Record()
		rec.CopyInto(nil)
		if err := checkRecord(&rec, files); err != nil {
			return recs, err
		}
		recs = append(recs, &rec)
	}
	return recs, nil
}

// checkRecord checks one record: a malformed item has a *SyntaxError at its
// own position, in one of files, and nothing else; a skip has a reason and
// nothing else; a call has an agent and a JSON request.
func checkRecord(rec *ingest.Record, files []string) error {
	if !slices.Contains(files, rec.Pos.File) {
		return errors.New("record at " + rec.Pos.String() + ": file is none of " + strings.Join(files, ", "))
	}
	switch {
	case rec.Err != nil:
		var se *ingest.SyntaxError
		if !errors.As(rec.Err, &se) {
			return errors.New(rec.Pos.String() + ": Err is not a *SyntaxError: " + rec.Err.Error())
		}
		if se.Pos != rec.Pos {
			return errors.New(rec.Pos.String() + ": error names another position: " + se.Error())
		}
		if rec.Request != nil || rec.Skip != "" || rec.Agent != "" {
			return errors.New(rec.Pos.String() + ": malformed record carries data")
		}
	case rec.Skip != "":
		if rec.Request != nil || rec.Agent != "" {
			return errors.New(rec.Pos.String() + ": skipped record carries data")
		}
	default:
		if rec.Agent == "" {
			return errors.New(rec.Pos.String() + ": record without an agent")
		}
		if rec.Control == nil && !json.Valid(rec.Request) {
			return errors.New(rec.Pos.String() + ": request is not JSON: " + string(rec.Request))
		}
		if rec.TS.Location().String() != "UTC" {
			return errors.New(rec.Pos.String() + ": time not in UTC")
		}
	}
	return nil
}

// calls returns the records that are calls.
func calls(recs []*ingest.Record) []*ingest.Record {
	var out []*ingest.Record
	for _, r := range recs {
		if r.Err == nil && r.Skip == "" {
			out = append(out, r)
		}
	}
	return out
}

type skipCount struct {
	reason string
	n      int
}

// skipCounts counts skips by reason, sorted by reason.
func skipCounts(recs []*ingest.Record) []skipCount {
	var out []skipCount
	for _, r := range recs {
		if r.Skip == "" {
			continue
		}
		i := slices.IndexFunc(out, func(s skipCount) bool { return s.reason == r.Skip })
		if i < 0 {
			out = append(out, skipCount{r.Skip, 0})
			i = len(out) - 1
		}
		out[i].n++
	}
	slices.SortFunc(out, func(a, b skipCount) int { return strings.Compare(a.reason, b.reason) })
	return out
}

// errs returns the messages of the malformed records.
func errs(recs []*ingest.Record) []string {
	var out []string
	for _, r := range recs {
		if r.Err != nil {
			out = append(out, r.Err.Error())
		}
	}
	return out
}

// lastUser returns the text of the last message with role "user" and string
// content in an OpenAI chat request, read with encoding/json: independent
// of this package's writer and of the analyzer.
func lastUser(t testing.TB, req []byte) string {
	t.Helper()
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(req, &body); err != nil {
		t.Fatalf("request %s: %v", req, err)
	}
	for i := len(body.Messages) - 1; i >= 0; i-- {
		m := body.Messages[i]
		if s, ok := m.Content.(string); ok && m.Role == "user" {
			return s
		}
	}
	return ""
}

// answer summarizes a chat completion body: "" for none, "text:…" (first
// 30 bytes) for assistant text, "tools:a,b" for the tool calls it asks for.
func answer(t testing.TB, resp []byte) string {
	t.Helper()
	if resp == nil {
		return ""
	}
	var body struct {
		Error   any `json:"error"`
		Choices []struct {
			Message struct {
				Content   *string `json:"content"`
				ToolCalls []struct {
					Function struct {
						Name string `json:"name"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(resp, &body); err != nil {
		t.Fatalf("response %s: %v", resp, err)
	}
	if body.Error != nil && len(body.Choices) == 0 {
		return "error"
	}
	if len(body.Choices) != 1 {
		t.Fatalf("response %s: want one choice", resp)
	}
	m := body.Choices[0].Message
	if len(m.ToolCalls) > 0 {
		var names []string
		for _, c := range m.ToolCalls {
			names = append(names, c.Function.Name)
		}
		return "tools:" + strings.Join(names, ",")
	}
	if m.Content != nil {
		s := *m.Content
		if len(s) > 30 {
			s = s[:30]
		}
		return "text:" + s
	}
	return "empty"
}

// open returns a reader of format f over s, named name.
func open(t testing.TB, s, name string, f Format, opt Options) ingest.Reader {
	t.Helper()
	r, err := NewReader(strings.NewReader(s), name, f, opt)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// errReader fails after giving its data.
type errReader struct {
	data []byte
	err  error
}

func (e *errReader) Read(p []byte) (int, error) {
	if len(e.data) == 0 {
		return 0, e.err
	}
	n := copy(p, e.data)
	e.data = e.data[n:]
	return n, nil
}

var _ io.Reader = (*errReader)(nil)

var epoch = time.Unix(0, 0).UTC()

var errTest = errors.New("test: disk on fire")
