package agentgazer_test

import (
	"fmt"

	"github.com/killswitch/killswitch/analyze/agentgazer"
	"github.com/valyala/fastjson"
)

func ExampleNormalize() {
	fmt.Println(agentgazer.Normalize("Retry #3 for Order-ABC123 at 2024-01-15T10:30:00Z, list users"))
	// Output: retry #<num> for <id> at <ts>, list <id>
}

// The hash below was computed by testdata/oracle.js: simhash(normalize("Check order 12345")).
func ExamplePromptHash() {
	var p fastjson.Parser
	body, _ := p.Parse(`{"messages":[{"role":"user","content":"Check order 12345"}],
		"tools":[{"type":"function","function":{"name":"lookup"}}]}`)
	fmt.Println(agentgazer.Prompt(body))
	fmt.Printf("%016x\n", agentgazer.PromptHash(body))
	fmt.Println(agentgazer.ToolSignature(body))
	fmt.Println(agentgazer.Check(body))
	// Output:
	// Check order 12345
	// c0da9b1924f38a23
	// fn:lookup
	// <nil>
}
