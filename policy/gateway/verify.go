package gateway

import (
	"bufio"
	"fmt"
	"github.com/spf13/pflag"
	"io"
	"os"

	"github.com/killswitch/killswitch/analyze/gateway"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/ingest/gatewaylog"
	"github.com/killswitch/killswitch/policy"
	"github.com/killswitch/killswitch/report"
)

// verifySummary is verify's help.
const verifySummary = "Reads an export of a live gateway's proxy_calls table (AgenticVerz M22; JSONL, CSV with a header, or\n" +
	"Parquet: created_at, tenant_id, api_key_id, request_json, response_json, status_code, was_blocked,\n" +
	"block_reason, policy_decisions_json), decides every call again through the gateway policy in created_at\n" +
	"order, and reports per call \"verified\" or how the replay differs. Freezes are not in proxy_calls: give\n" +
	"the freeze and unfreeze control records with --controls.\n" +
	"Exit status: 0 done, 1 --fail-on-diff and a call differs or a row could not be read, 2 bad usage or\n" +
	"unreadable input (--strict: a bad row)."

// verifyFlags are verify's flags.
type verifyFlags struct {
	variant, settings, format, inputFormat string
	controls                               []string
	failOnDiff, strict                     bool
}

func newVerify(fs *pflag.FlagSet) policy.Runner {
	f := &verifyFlags{}
	fs.StringVar(&f.variant, "variant", "m22", "gateway variant: m22 (what M22's code does) or spec (what its design promises)")
	fs.StringVar(&f.settings, "settings", "", "gateway settings file (JSON: {\"gateway\": {\"max_cost_cents\": …, …}})")
	fs.StringArrayVar(&f.controls, "controls", nil, "a capture whose freeze/unfreeze control records apply at their time (repeatable; its requests are ignored)")
	fs.StringVarP(&f.format, "format", "f", report.FormatTable, "output: table, markdown or jsonl (one record per call)")
	policy.MarkInput(fs, "settings", "controls")
	fs.StringVar(&f.inputFormat, "input-format", "auto", "export format: auto, jsonl, json (json_agg's array), csv or parquet")
	fs.BoolVar(&f.failOnDiff, "fail-on-diff", false, "exit 1 when any call differs or a row could not be read")
	fs.BoolVar(&f.strict, "strict", false, "a row that cannot be read is unusable input (exit 2)")
	return f
}

// Run is `killswitch verify`: a live gateway's exported proxy_calls
// decided again through the gateway policy, each call verified or its
// difference reported.
func (f *verifyFlags) Run(e *policy.Env) (found bool, err error) {
	switch f.format {
	case report.FormatTable, report.FormatMarkdown, report.FormatJSONL:
	default:
		return false, fmt.Errorf("-f %s is not available (want table, markdown or jsonl)", f.format)
	}
	switch f.inputFormat {
	case "auto", "jsonl", "json", "csv", "parquet":
	default:
		return false, fmt.Errorf("--input-format %s: want auto, jsonl, json (json_agg's array), csv or parquet", f.inputFormat)
	}
	prof, err := gateway.VariantByName(f.variant)
	if err != nil {
		return false, fmt.Errorf("--variant: %v", err)
	}
	cfg := gateway.DefaultConfig(prof)
	if err := loadGatewaySettings(&cfg, f.settings); err != nil {
		return false, err
	}
	var calls []*gatewaylog.Call
	for _, p := range e.Paths {
		cs, err := readExport(e, p, f.inputFormat)
		if err != nil {
			return false, err
		}
		for _, c := range cs {
			if c.Err != nil {
				fmt.Fprintf(e.Stderr, "%v\n", c.Err)
				if f.strict {
					return false, policy.ErrStrict
				}
			}
		}
		calls = append(calls, cs...)
	}
	var ctl []*ingest.Record
	if len(f.controls) > 0 {
		if ctl, err = readControls(e, f.controls, f.strict); err != nil {
			return false, fmt.Errorf("--controls: %v", err)
		}
	}
	v, err := gateway.Verify(cfg, calls, ctl)
	if err != nil {
		return false, err
	}
	err = e.Output(func(w io.Writer) error {
		switch f.format {
		case report.FormatJSONL:
			return VerifyJSONL(w, v)
		case report.FormatMarkdown:
			return VerifyText(w, v, report.TextOptions{Markdown: true})
		}
		return VerifyText(w, v, report.TextOptions{Width: e.Width})
	})
	if err != nil {
		return false, err
	}
	for _, wn := range v.Warnings {
		fmt.Fprintf(e.Stderr, "%s: warning: %s\n", wn.Pos, wn.Msg)
	}
	fmt.Fprintf(e.Stderr, "killswitch verify: %s\n", verifyCounts(v))
	return f.failOnDiff && (v.Differ > 0 || len(v.Bad) > 0), nil
}

// readControls reads the control records of the captures at paths; their
// malformed items are reported (and stop a strict run).
func readControls(e *policy.Env, paths []string, strict bool) ([]*ingest.Record, error) {
	src, closer, err := e.OpenFiles(paths)
	if err != nil {
		return nil, err
	}
	defer closer()
	var ctl []*ingest.Record
	for src.Scan() {
		rec := src.Record()
		if rec.Err != nil {
			fmt.Fprintf(e.Stderr, "%v\n", rec.Err)
			if strict {
				return nil, policy.ErrStrict
			}
			continue
		}
		if rec.Control != nil {
			c := *rec
			ctl = append(ctl, &c)
		}
	}
	return ctl, src.Err()
}

// readExport reads every row of one proxy_calls export ("-" is standard
// input), its format named or sniffed (Parquet magic, a JSON object first,
// else CSV); JSONL and CSV may be compressed.
func readExport(e *policy.Env, path, format string) ([]*gatewaylog.Call, error) {
	var in io.Reader
	name := path
	if path == "-" {
		in, name = e.Stdin, "<stdin>"
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
	switch format {
	case "jsonl":
		rd = gatewaylog.NewJSONL(r, name)
	case "json":
		rd = gatewaylog.NewJSONArray(r, name)
	default:
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
