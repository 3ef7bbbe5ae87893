package analyze_test

import (
	"fmt"
	"strings"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
)

// An agent asks the same question seven times and gets the same answer:
// at request k the window holds k−1 similar prompts and k−2 similar
// responses, so the score 3k−5 first passes 10 at request 6.
func ExampleReplay() {
	var capture strings.Builder
	for i := 1; i <= 7; i++ {
		fmt.Fprintf(&capture, `{"ts":"2026-01-02T03:04:%02dZ","agent":"support-bot",`+
			`"request":{"messages":[{"role":"user","content":"Is ticket #%d resolved?"}]},`+
			`"response":{"choices":[{"message":{"role":"assistant","content":"Not yet."}}]}}`+"\n", i, 4000+i)
	}
	src := ingest.NewJSONL(strings.NewReader(capture.String()), "example.jsonl", ingest.JSONLOptions{})
	sum, err := analyze.Replay(src, analyze.NewConfig(), 1, analyze.Hooks{
		Decision: func(d *analyze.Decision) error {
			fmt.Println(strings.TrimSpace(fmt.Sprintf("%d %-7s score %4.1f  %s", d.AgentN, d.Action, d.Score, d.Reason)))
			return nil
		},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(sum.Agents[0].Kills()[0].Alert.Message)
	// Output:
	// 1 forward score  0.0
	// 2 forward score  1.0
	// 3 forward score  4.0
	// 4 forward score  7.0
	// 5 forward score 10.0
	// 6 kill    score 13.0  loop detected: score 13.0 > threshold 10; agent deactivated
	// 7 blocked score  0.0  agent inactive: deactivated by kill_switch at seq 6
	// Kill switch triggered for agent "support-bot"
	// Loop score: 13.0 (threshold: 10)
	// Details: 5 similar prompts, 4 similar responses, 0 repeated tool calls
	// Window size: 20
}
