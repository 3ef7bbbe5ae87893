package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/killswitch/killswitch/analyze/gateway"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/ingest/gatewaylog"
	"github.com/killswitch/killswitch/report"
)

// cmdVerify is `killswitch verify`: a live gateway's exported proxy_calls
// decided again through the gateway policy, each call verified or its
// difference reported.
func cmdVerify(e *env, args []string) int {
	fs := newFlags(e, "verify", "[flags] EXPORT...",
		"Reads an export of a live gateway's proxy_calls table (AgenticVerz M22; JSONL, CSV with a header, or\n"+
			"Parquet: created_at, tenant_id, api_key_id, request_json, response_json, status_code, was_blocked,\n"+
			"block_reason, policy_decisions_json), decides every call again through the gateway policy in created_at\n"+
			"order, and reports per call \"verified\" or how the replay differs. Freezes are not in proxy_calls: give\n"+
			"the freeze and unfreeze control records with --controls.\n"+
			"Exit status: 0 done, 1 --fail-on-diff and a call differs or a row could not be read, 2 bad usage or\n"+
			"unreadable input (--strict: a bad row).")
	profile := fs.String("profile", "m22", "gateway profile: m22 (what M22's code does) or spec (what its design promises)")
	settings := fs.String("settings", "", "gateway settings file (JSON: {\"gateway\": {\"max_cost_cents\": …, …}})")
	var controls []string
	fs.StringArrayVar(&controls, "controls", nil, "a capture whose freeze/unfreeze control records apply at their time (repeatable; its requests are ignored)")
	format := fs.StringP("format", "f", report.FormatTable, "output: table, markdown or jsonl (one record per call)")
	output := fs.StringP("output", "o", "", "write the report to this file (atomically) instead of standard output")
	markOutput(fs, "output")
	markInput(fs, "settings", "controls")
	inputFormat := fs.String("input-format", "auto", "export format: auto, jsonl, csv or parquet")
	failOnDiff := fs.Bool("fail-on-diff", false, "exit 1 when any call differs or a row could not be read")
	strict := fs.Bool("strict", false, "a row that cannot be read is unusable input (exit 2)")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return exitUsage
	}
	if err := guardFiles(fs); err != nil {
		return errorf(e, "verify", "%v", err)
	}
	switch *format {
	case report.FormatTable, report.FormatMarkdown, report.FormatJSONL:
	default:
		return errorf(e, "verify", "-f %s is not available (want table, markdown or jsonl)", *format)
	}
	switch *inputFormat {
	case "auto", "jsonl", "csv", "parquet":
	default:
		return errorf(e, "verify", "--input-format %s: want auto, jsonl, csv or parquet", *inputFormat)
	}
	prof, err := gateway.ProfileByName(*profile)
	if err != nil {
		return errorf(e, "verify", "--profile: %v", err)
	}
	cfg := gateway.DefaultConfig(prof)
	if err := loadGatewaySettings(&cfg, *settings); err != nil {
		return errorf(e, "verify", "%v", err)
	}
	var calls []*gatewaylog.Call
	for _, p := range fs.Args() {
		cs, err := readExport(e, p, *inputFormat)
		if err != nil {
			return errorf(e, "verify", "%v", err)
		}
		for _, c := range cs {
			if c.Err != nil {
				fmt.Fprintf(e.stderr, "%v\n", c.Err)
				if *strict {
					return errorf(e, "verify", "%v", errStrict)
				}
			}
		}
		calls = append(calls, cs...)
	}
	var ctl []*ingest.Record
	if len(controls) > 0 {
		set, err := openAll(e, controls, inputOptions{format: "auto", agentHeader: "X-Agent-Id"})
		if err != nil {
			return errorf(e, "verify", "--controls: %v", err)
		}
		problem := reportProblem(e, *strict, false)
		for set.src.Scan() {
			rec := set.src.Record()
			if rec.Err != nil {
				if err := problem(rec, ""); err != nil {
					set.close()
					return errorf(e, "verify", "--controls: %v", err)
				}
				continue
			}
			if rec.Control != nil {
				c := *rec
				ctl = append(ctl, &c)
			}
		}
		err = set.src.Err()
		set.close()
		if err != nil {
			return errorf(e, "verify", "--controls: %v", err)
		}
	}
	v, err := gateway.Verify(cfg, calls, ctl)
	if err != nil {
		return errorf(e, "verify", "%v", err)
	}
	err = writeOutput(e, *output, func(w io.Writer) error {
		switch *format {
		case report.FormatJSONL:
			return report.VerifyJSONL(w, v)
		case report.FormatMarkdown:
			return report.VerifyText(w, v, report.TextOptions{Markdown: true})
		}
		return report.VerifyText(w, v, report.TextOptions{Width: termWidth(e, *output)})
	})
	if err != nil {
		return errorf(e, "verify", "%v", err)
	}
	for _, wn := range v.Warnings {
		fmt.Fprintf(e.stderr, "%s: warning: %s\n", wn.Pos, wn.Msg)
	}
	fmt.Fprintf(e.stderr, "killswitch verify: %d calls, %d verified, %d differ, %d bad rows\n", v.Calls, v.Verified, v.Differ, len(v.Bad))
	if *failOnDiff && (v.Differ > 0 || len(v.Bad) > 0) {
		return exitFound
	}
	return exitOK
}

// readExport reads every row of one proxy_calls export ("-" is standard
// input), its format named or sniffed (Parquet magic, a JSON object first,
// else CSV); JSONL and CSV may be compressed.
func readExport(e *env, path, format string) ([]*gatewaylog.Call, error) {
	var in io.Reader
	name := path
	if path == "-" {
		in, name = e.stdin, "<stdin>"
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return nil, err
		}
		if st.IsDir() {
			return nil, fmt.Errorf("%s is a directory", path)
		}
		head := make([]byte, 4)
		n, _ := f.ReadAt(head, 0)
		if format == "parquet" || (format == "auto" && gatewaylog.Sniff(head[:n]) == "parquet") {
			pr, err := gatewaylog.NewParquet(f, st.Size(), name)
			if err != nil {
				return nil, err
			}
			return gatewaylog.ReadAll(pr)
		}
		in = f
	}
	if format == "parquet" {
		return nil, fmt.Errorf("%s: Parquet cannot be read from standard input", name)
	}
	r, _, closeDec, err := ingest.Decompress(in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer closeDec()
	if format == "auto" {
		br, ok := r.(*bufio.Reader)
		if !ok {
			br = bufio.NewReaderSize(r, 1<<16)
			r = br
		}
		head, _ := br.Peek(512)
		format = gatewaylog.Sniff(head)
		if format == "parquet" {
			return nil, fmt.Errorf("%s: a compressed Parquet file: decompress it first", name)
		}
	}
	var rd gatewaylog.Reader
	if format == "jsonl" {
		rd = gatewaylog.NewJSONL(r, name)
	} else {
		rd = gatewaylog.NewCSV(r, name)
	}
	calls, err := gatewaylog.ReadAll(rd)
	if err != nil {
		return nil, err
	}
	if len(calls) == 0 {
		return nil, fmt.Errorf("%s: no rows", name)
	}
	return calls, nil
}
