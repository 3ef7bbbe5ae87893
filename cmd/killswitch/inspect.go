package main

import (
	"fmt"
	"io"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/report"
)

func cmdInspect(e *env, args []string) int {
	fs := newFlags(e, "inspect", "[flags] FILE...",
		"Shows what each capture holds: the format and compression detected, requests, control records,\n"+
			"malformed and skipped items (by reason), agents, time span, body dialects and models, so that you\n"+
			"can see why a file replays the way it does.")
	var in inputOptions
	in.register(fs)
	format := fs.StringP("format", "f", "text", "output: text or json")
	allowEmpty := fs.Bool("allow-empty", false, "exit 0 on a capture without any LLM request (else exit 2, after the report)")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return exitUsage
	}
	if *format != "text" && *format != "json" {
		return errorf(e, "inspect", "unknown --format %q (want text or json)", *format)
	}
	var invs []*analyze.Inventory
	for _, path := range fs.Args() {
		opened, err := openInput(e, path, in, nil)
		if err != nil {
			return errorf(e, "inspect", "%v", err)
		}
		inv := analyze.NewInventory(opened.Name, opened.Format, opened.Compression.String())
		inv.BGZF = opened.BGZF
		for opened.Scan() {
			inv.Add(opened.Record())
		}
		err = opened.Err()
		opened.Close()
		if err != nil {
			return errorf(e, "inspect", "%v", err)
		}
		inv.Finish()
		invs = append(invs, inv)
	}
	err := writeOutput(e, "", func(w io.Writer) error {
		if *format == "json" {
			return report.InspectJSON(w, invs)
		}
		return report.InspectText(w, invs)
	})
	if err != nil {
		return errorf(e, "inspect", "%v", err)
	}
	code := exitOK
	for _, inv := range invs {
		if inv.Requests == 0 && !*allowEmpty {
			fmt.Fprintf(e.stderr, "killswitch inspect: %s: no LLM request (%s, %s); --allow-empty accepts it\n",
				inv.Name, report.Plural(inv.Malformed, "malformed item"), report.Plural(skipped(inv.Skips), "skipped item"))
			code = exitUsage
		} else if inv.NoText > 0 {
			fmt.Fprintf(e.stderr, "killswitch inspect: %s: %s\n", inv.Name, report.TextlessLine(inv.NoText, inv.Requests))
		}
	}
	return code
}
