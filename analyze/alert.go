package analyze

import "fmt"

// AlertFor builds the alert the live system sends when the kill switch fires
// for agent (SPEC §4.2): rule type kill_switch and its message text.
func AlertFor(agent string, k Kill) Alert {
	return Alert{
		AgentID:  agent,
		RuleType: "kill_switch",
		Message: fmt.Sprintf("Kill switch triggered for agent \"%s\"\nLoop score: %.1f (threshold: %s)\nDetails: %d similar prompts, %d similar responses, %d repeated tool calls\nWindow size: %d",
			agent, k.Score, fmtNum(k.Threshold), k.Counts.SimilarPrompts, k.Counts.SimilarResponses, k.Counts.RepeatedToolCalls, k.Window),
		Timestamp: k.TS,
	}
}
