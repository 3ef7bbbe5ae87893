package logs_test

import (
	"fmt"
	"strings"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/ingest/logs"
)

// A Langfuse trace export: the GENERATION is a call, in its framework's
// shape; the SPAN is counted as skipped; the agent is the trace's session.
func ExampleNewReader() {
	doc := `{"trace": {"id": "t1", "sessionId": "support-bot"},
 "observations": [
  {"type": "SPAN", "name": "agent run", "startTime": "2025-06-01T10:00:00Z"},
  {"type": "GENERATION", "model": "gpt-4o", "startTime": "2025-06-01T10:00:01.5Z",
   "input": "{\"messages\": [{\"role\": \"user\", \"content\": \"Where is order 123?\"}]}",
   "output": "It ships today.", "usageDetails": {"input": 12, "output": 5}}
 ]}`
	f, ok := logs.Detect([]byte(doc))
	fmt.Println("format:", f, ok)
	r, _ := logs.NewReader(strings.NewReader(doc), "trace.json", f, logs.Options{})
	for r.Scan() {
		rec := r.Record()
		switch {
		case rec.Err != nil:
			fmt.Println(rec.Err)
		case rec.Skip != "":
			fmt.Printf("%s: skipped: %s\n", rec.Pos, rec.Skip)
		default:
			fmt.Printf("%s: %s %s %d+%d tokens\n  request  %s\n  response %s\n", rec.Pos, ingest.FormatTime(rec.TS),
				rec.Agent, rec.TokensIn, rec.TokensOut, rec.Request, rec.Response)
		}
	}
	// Output:
	// format: langfuse true
	// trace.json:observations[0]: skipped: observation type SPAN is not an LLM call
	// trace.json:observations[1]: 2025-06-01T10:00:01.500Z support-bot 12+5 tokens
	//   request  {"model":"gpt-4o","messages":[{"role":"user","content":"Where is order 123?"}]}
	//   response {"object":"chat.completion","model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"It ships today."}}]}
}
