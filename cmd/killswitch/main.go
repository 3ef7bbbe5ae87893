// Command killswitch replays captured LLM traffic through an AI-agent kill
// switch and reports what it would have done. See README.md.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}
