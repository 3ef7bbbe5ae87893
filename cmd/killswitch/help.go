package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/killswitch/killswitch/docs"
)

// cmdHelp prints the reference offline: without a topic the usage and the
// list of topics; with one, its Markdown as it is in docs/; with a
// command's name, that command's flags.
func cmdHelp(e *env, args []string) int {
	if len(args) == 0 {
		usage(e.stdout)
		fmt.Fprint(e.stdout, "\nHelp topics (killswitch help TOPIC):\n")
		listTopics(e.stdout)
		return exitOK
	}
	if len(args) > 1 {
		return errorf(e, "help", "one topic at a time, got %d: %s", len(args), strings.Join(args, " "))
	}
	if t, ok := docs.Lookup(args[0]); ok {
		s, err := t.Text()
		if err != nil {
			return errorf(e, "help", "%v", err)
		}
		io.WriteString(e.stdout, s)
		return exitOK
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(&env{stdin: e.stdin, stdout: e.stdout, stderr: e.stdout, getenv: e.getenv}, []string{"--help"})
		}
	}
	fmt.Fprintf(e.stderr, "killswitch help: no topic or command %q; the topics are:\n", args[0])
	listTopics(e.stderr)
	return exitUsage
}

func listTopics(w io.Writer) {
	for _, t := range docs.Topics {
		fmt.Fprintf(w, "  %-13s %s\n", t.Name, t.Summary)
	}
}

func helpTopicNames() string {
	names := make([]string, len(docs.Topics))
	for i, t := range docs.Topics {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}
