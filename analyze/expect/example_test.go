package expect_test

import (
	"fmt"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/expect"
)

func ExampleParse() {
	_, err := expect.Parse("burn.expect.json", []byte(`{"agents": {"billing-bot": {"killed": true, "at_requst": 6}}}`))
	fmt.Println(err)
	// Output:
	// burn.expect.json:1:45: agents.billing-bot.at_requst: unknown key (want "killed", "at_request" or "kills")
}

func ExampleCompare() {
	e, _ := expect.Parse("burn.expect.json", []byte(`{"agents": {
  "billing-bot": {"killed": true, "at_request": {"min": 6, "max": 8}},
  "report-writer": {"killed": false}}}`))
	// What a replay found (normally analyze.Replay's summary).
	s := &analyze.Summary{Agents: []*analyze.AgentSummary{
		{Agent: "billing-bot", Requests: 12, Extra: &analyze.AgentExtra{Kills: []analyze.Kill{{AgentN: 4, Score: 13, Threshold: 10, Action: analyze.ActionKill}}}},
		{Agent: "report-writer", Requests: 30, MaxScore: 3},
	}}
	for _, r := range expect.Compare(e, s, nil) {
		if r.Pass {
			fmt.Printf("ok   line %d %s: %s\n", r.Line, r.Name(), r.Got)
		} else {
			fmt.Printf("FAIL line %d %s: %s\n", r.Line, r.Name(), r.Reason)
		}
	}
	// Output:
	// FAIL line 2 billing-bot: killed at request 4, expected 6–8
	// ok   line 3 report-writer: not killed (max score 3.0)
}
