package har_test

import (
	"fmt"
	"strings"

	"github.com/killswitch/killswitch/ingest/har"
)

func ExampleNewReader() {
	const doc = `{"log":{"version":"1.2","entries":[
	 {"startedDateTime":"2025-06-09T21:46:34.311Z","time":812,
	  "request":{"method":"POST","url":"http://localhost:4000/agents/planner/openai/v1/chat/completions",
	   "headers":[{"name":"Authorization","value":"Bearer sk-never-shown"}],
	   "postData":{"mimeType":"application/json","text":"{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"}},
	  "response":{"status":200,"headers":[],"content":{"mimeType":"application/json","text":"{\"choices\":[]}"}}},
	 {"startedDateTime":"2025-06-09T21:46:35Z","time":20,
	  "request":{"method":"GET","url":"https://api.openai.com/v1/models?key=never-shown","headers":[]},
	  "response":{"status":200,"headers":[],"content":{"text":"{}"}}},
	 {"startedDateTime":"yesterday","time":20,
	  "request":{"method":"POST","url":"https://api.anthropic.com/v1/messages","headers":[],
	   "postData":{"text":"{\"messages\":[]}"}},
	  "response":{"status":200,"headers":[],"content":{"text":"{}"}}}
	]}}`
	r := har.NewReader(strings.NewReader(doc), "run.har", har.Options{})
	for r.Scan() {
		rec := r.Record()
		switch {
		case rec.Err != nil:
			fmt.Println("malformed:", rec.Err)
		case rec.Skip != "":
			fmt.Printf("%s: skipped: %s\n", rec.Pos, rec.Skip)
		default:
			fmt.Printf("%s: %s agent=%s provider=%s model=%s status=%d latency=%dms\n",
				rec.Pos, rec.TS.Format("15:04:05.000"), rec.Agent, rec.Provider, rec.Model, rec.Status, rec.LatencyMS)
		}
	}
	if err := r.Err(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// run.har:entries[0]: 21:46:34.311 agent=planner provider=openai model=gpt-4o status=200 latency=812ms
	// run.har:entries[1]: skipped: not an LLM call: GET https://api.openai.com/v1/models
	// malformed: run.har:entries[2]: startedDateTime: unparsable timestamp: a string of 9 characters where a time was expected (want RFC 3339 or Unix seconds/milliseconds)
}
