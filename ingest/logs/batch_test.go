package logs

import (
	"strings"
	"testing"

	"errors"
	"github.com/killswitch/killswitch/ingest"
)

func batchRead(t *testing.T, input, output string, opt Options) []*ingest.Record {
	t.Helper()
	var out *strings.Reader
	if output != "" {
		out = strings.NewReader(output)
	}
	var r ingest.Reader
	if out != nil {
		r, _ = NewBatchReader(strings.NewReader(input), "in.jsonl", out, "out.jsonl", opt)
	} else {
		r, _ = NewBatchReader(strings.NewReader(input), "in.jsonl", nil, "", opt)
	}
	return readAll(t, r, "in.jsonl", "out.jsonl")
}

func oaReq(id, extra string) string {
	return `{"custom_id":"` + id + `","method":"POST","url":"/v1/chat/completions","body":{"model":"gpt-4o-mini","messages":[{"role":"user","content":"q ` + id + `"}]` + extra + `}}`
}

func oaOut(id string, created int, status int, extra string) string {
	return `{"id":"batch_req_` + id + `","custom_id":"` + id + `","response":{"status_code":` + itoa(status) +
		`,"request_id":"r","body":{"id":"chatcmpl-` + id + `","object":"chat.completion","created":` + itoa(created) +
		`,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"a ` + id + `"}}]` + extra + `}},"error":null}`
}

// TestBatchOpenAIJoin joins an input with an output written in another
// order. The earliest created is 1711652795 s = 2024-03-28T19:06:35Z
// (date -u -d @1711652795): the anchor of the synthetic clock.
func TestBatchOpenAIJoin(t *testing.T) {
	in := strings.Join([]string{
		oaReq("a", `,"user":"u-1"`),
		"",
		oaReq("b", `,"metadata":{"agent_id":"agent-b","api_key":"sk-SECRET"},"api_key":"sk-SECRET"`),
		oaReq("c", ""),
		`{"custom_id":"e","method":"POST","url":"/v1/embeddings?key=sk-SECRET","body":{"model":"e","input":"x"}}`,
	}, "\n")
	out := strings.Join([]string{
		oaOut("b", 1711652900, 200, ""),
		`{"id":"batch_req_c","custom_id":"c","response":null,"error":{"code":"server_error","message":"boom"}}`,
		oaOut("a", 1711652795, 200, ""),
		oaOut("zz", 1711652000+9000, 200, ""),
		`not json`,
	}, "\n")
	recs := batchRead(t, in, out, Options{})
	var got []string
	for _, r := range recs {
		s := r.Pos.String() + " "
		switch {
		case r.Err != nil:
			s += "ERR " + r.Err.Error()
		case r.Skip != "":
			s += "SKIP " + r.Skip
		default:
			s += ingest.FormatTime(r.TS) + " " + r.Agent + " " + itoa(r.Status) + " " + answer(t, r.Response)
		}
		got = append(got, s)
	}
	want := []string{
		"in.jsonl:1 2024-03-28T19:06:35.000Z u-1 200 text:a a",
		"in.jsonl:3 2024-03-28T19:06:35.001Z agent-b 200 text:a b",
		"in.jsonl:4 2024-03-28T19:06:35.002Z default 500 error",
		"in.jsonl:5 SKIP batch request to /v1/embeddings is not an LLM call",
		"out.jsonl:4 SKIP batch result without a matching request in the input",
		"out.jsonl:5 ERR out.jsonl:5: invalid JSON at byte 2: invalid character 'o' in literal null (expecting 'u')",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, r := range recs {
		if strings.Contains(string(r.Request)+string(r.Response)+r.Skip+r.Endpoint, "SECRET") {
			t.Errorf("%s: a secret leaked: %s", r.Pos, r.Request)
		}
	}
	c := calls(recs)
	if string(c[2].Response) != `{"error":{"code":"server_error","message":"boom"}}` || c[1].ID != "b" || c[1].Endpoint != "/v1/chat/completions" || c[1].Provider != "openai" {
		t.Errorf("%+v", c)
	}
}

// TestBatchAnthropic joins Message Batches requests and results.
func TestBatchAnthropic(t *testing.T) {
	req := func(id, extra string) string {
		return `{"custom_id":"` + id + `","params":{"model":"claude","max_tokens":10,"messages":[{"role":"user","content":"q"}]` + extra + `}}`
	}
	in := strings.Join([]string{req("ok", `,"metadata":{"user_id":"user-7"}`), req("err", ""), req("cancel", ""), req("expire", ""), req("ok", ""), req("odd", "")}, "\n")
	out := strings.Join([]string{
		`{"custom_id":"ok","result":{"type":"succeeded","message":{"id":"msg","type":"message","role":"assistant","content":[{"type":"text","text":"fine"}]}}}`,
		`{"custom_id":"err","result":{"type":"errored","error":{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}}}`,
		`{"custom_id":"cancel","result":{"type":"canceled"}}`,
		`{"custom_id":"expire","result":{"type":"expired"}}`,
		`{"custom_id":"odd","result":{"type":"weird"}}`,
		`{"custom_id":"err","result":{"type":"canceled"}}`,
		`{"custom_id":"x"}`,
	}, "\n")
	recs := batchRead(t, in, out, Options{})
	var got []string
	for _, r := range recs {
		s := r.Pos.String() + " "
		switch {
		case r.Err != nil:
			s += "ERR " + r.Err.Error()
		case r.Skip != "":
			s += "SKIP " + r.Skip
		default:
			s += ingest.FormatTime(r.TS) + " " + r.Agent + " " + itoa(r.Status)
		}
		got = append(got, s)
	}
	want := []string{
		"in.jsonl:1 1970-01-01T00:00:00.000Z user-7 200",
		"in.jsonl:2 1970-01-01T00:00:00.001Z default 429",
		"in.jsonl:3 SKIP batch request canceled: never processed",
		"in.jsonl:4 SKIP batch request expired: never processed",
		`in.jsonl:5 ERR in.jsonl:5: duplicate custom_id "ok" (first at line 1)`,
		`in.jsonl:6 ERR in.jsonl:6: custom_id "odd": result type "weird" at out.jsonl:5 is not succeeded, errored, canceled or expired`,
		`out.jsonl:6 ERR out.jsonl:6: duplicate custom_id "err" (first at out.jsonl:2)`,
		`out.jsonl:7 ERR out.jsonl:7: neither an OpenAI batch output line ("response", "error") nor an Anthropic batch result ("result")`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	c := calls(recs)
	if string(c[0].Response) != `{"content":[{"text":"fine","type":"text"}],"id":"msg","role":"assistant","type":"message"}` ||
		!strings.Contains(string(c[1].Response), `"rate_limit_error"`) || c[0].Endpoint != "/v1/messages" || c[0].Provider != "anthropic" {
		t.Errorf("%s / %s", c[0].Response, c[1].Response)
	}
}

func TestBatchMalformed(t *testing.T) {
	for _, tt := range []struct{ name, in, out, want string }{
		{"no-custom-id", `{"params":{}}`, "", `in.jsonl:1: batch request without a "custom_id" string`},
		{"not-object", `[1]`, "", `in.jsonl:[0]: a batch request is a JSON object, got a number`},
		{"params-not-object", `{"custom_id":"a","params":"x"}`, "", `in.jsonl:1: "params": want an object, got a string`},
		{"body-not-object", `{"custom_id":"a","url":"/v1/chat/completions","body":[1]}`, "", `in.jsonl:1: "body": want an object, got an array`},
		{"get", `{"custom_id":"a","method":"GET","url":"/v1/models","body":{}}`, "", `in.jsonl:1: "method": batch requests are POST, got "GET"`},
		{"neither", `{"custom_id":"a","x":1}`, "", `in.jsonl:1: neither an OpenAI batch request ("custom_id", "method", "url", "body") nor an Anthropic one ("custom_id", "params")`},
		{"truncated", `{"custom_id":"a","params":{`, "", `in.jsonl:1: truncated JSON: the value ends after 27 bytes`},
		{"other-api", `{"custom_id":"a","params":{}}`, `{"custom_id":"a","response":{"status_code":200,"body":{}}}`,
			`in.jsonl:1: custom_id "a": the result at out.jsonl:1 is for the other batch API`},
		{"output-not-object", `{"custom_id":"a","params":{}}`, `"x"`, `out.jsonl:1: a batch result is a JSON object, got a string`},
		{"output-no-id", `{"custom_id":"a","params":{}}`, `{"result":{}}`, `out.jsonl:1: batch result without a "custom_id" string`},
		{"invalid-utf8", "{\"custom_id\":\"\xff\",\"params\":{}}", "", `in.jsonl:1: invalid UTF-8 at byte 15`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			recs := batchRead(t, tt.in, tt.out, Options{})
			e := errs(recs)
			if len(e) == 0 || e[0] != tt.want {
				t.Errorf("errors %q, want %q first", e, tt.want)
			}
		})
	}
}

// TestBatchAgent checks the agent sources and the mapping flag.
func TestBatchAgent(t *testing.T) {
	recs := batchRead(t, oaReq("a", `,"user":"u"`)+"\n"+oaReq("b", ""), "", Options{Agent: "flag"})
	for _, r := range recs {
		if r.Agent != "flag" {
			t.Errorf("%s: agent %q", r.Pos, r.Agent)
		}
	}
	// custom_id never names the agent.
	recs = batchRead(t, oaReq("agent-7-req-1", ""), "", Options{})
	if recs[0].Agent != "default" || !recs[0].TS.Equal(epoch) || recs[0].Response != nil || recs[0].Status != 200 {
		t.Errorf("%+v", recs[0])
	}
}

// TestBatchIOError: an unreadable output file ends the stream with its
// error, named by the line it struck; an unreadable input likewise.
func TestBatchIOError(t *testing.T) {
	boom := &errReader{data: []byte(oaOut("a", 1, 200, "") + "\n"), err: errTest}
	r, _ := NewBatchReader(strings.NewReader(oaReq("a", "")), "in", boom, "out", Options{})
	for r.Scan() {
	}
	if err := r.Err(); !errors.Is(err, errTest) || !strings.HasPrefix(err.Error(), "out:2: ") {
		t.Errorf("err %v", err)
	}
	r, _ = NewBatchReader(&errReader{data: []byte(oaReq("a", "") + "\n"), err: errTest}, "in", nil, "", Options{})
	n := 0
	for r.Scan() {
		n++
	}
	if err := r.Err(); !errors.Is(err, errTest) || !strings.HasPrefix(err.Error(), "in:2: ") || n != 1 {
		t.Errorf("err %v after %d records", r.Err(), n)
	}
}
