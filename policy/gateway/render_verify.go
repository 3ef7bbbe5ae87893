package gateway

import (
	"bufio"
	"fmt"
	"github.com/killswitch/killswitch/report"
	"io"
	"strconv"

	"github.com/killswitch/killswitch/analyze/gateway"
	"github.com/killswitch/killswitch/ingest"
)

// verifyCounts says how many calls were verified and how many differ:
// "1 call, 0 verified, 1 differs, 2 bad rows".
func verifyCounts(v *gateway.Verification) string {
	differ := "differ"
	if v.Differ == 1 {
		differ = "differs"
	}
	return fmt.Sprintf("%s, %d verified, %d %s, %s", report.Plural(v.Calls, "call"), v.Verified, v.Differ, differ, report.Plural(len(v.Bad), "bad row"))
}

// VerifyText renders a gateway verification for a terminal, fitting
// o.Width (Markdown when o.Markdown): the counts, one line per call (verified, or how the replay
// differs), the differences by answer, the rows that could not be read,
// and the control records' warnings.
func VerifyText(w io.Writer, v *gateway.Verification, o report.TextOptions) error {
	md := o.Markdown
	bw := bufio.NewWriter(w)
	title := "Gateway verification — variant " + v.Variant + ": " + verifyCounts(v)
	h := func(s string) {
		if md {
			fmt.Fprintf(bw, "\n## %s\n\n", s)
		} else {
			fmt.Fprintf(bw, "\n%s\n", s)
		}
	}
	if md {
		fmt.Fprintf(bw, "# %s\n", title)
	} else {
		o.Line(bw, title)
	}
	if len(v.Verdicts) > 0 {
		h("Calls")
		rows := make([][]string, 0, len(v.Verdicts))
		for i := range v.Verdicts {
			vd := &v.Verdicts[i]
			verdict := "verified"
			if !vd.Verified() {
				verdict = report.Printable(vd.Diffs[0])
			}
			rows = append(rows, []string{vd.Call.Pos.String(), ingest.FormatTime(vd.Call.Rec.TS), tenantKey(vd.Call.Rec.Tenant, vd.Call.Rec.APIKeyID), strconv.Itoa(vd.Call.Status), verdict})
			for _, d := range vd.Diffs[min(1, len(vd.Diffs)):] {
				rows = append(rows, []string{"", "", "", "", report.Printable(d)})
			}
		}
		// Narrow: which call, what was recorded, the verdict (wrapped).
		report.FitTable{Header: []string{"call", "created_at", "tenant / key", "recorded", "verdict"}, Rows: rows,
			Compact: []int{0, 3, 4}, Every: "-f jsonl"}.Write(bw, o)
	}
	if len(v.ByDiff) > 0 {
		h("Differences by answer (recorded → replayed)")
		writeCounts(bw, v.ByDiff)
	}
	if len(v.Bad) > 0 {
		h("Rows not verified (unreadable)")
		for _, c := range v.Bad {
			o.Line(bw, "- "+report.Printable(c.Err.Error()))
		}
	}
	if len(v.Warnings) > 0 {
		h("Warnings")
		for _, wn := range v.Warnings {
			o.Line(bw, fmt.Sprintf("- %s: %s", wn.Pos, report.Printable(wn.Msg)))
		}
	}
	return bw.Flush()
}

// VerifyJSONL writes one record per row: the calls in replay order
// ({"source", "created_at", "tenant", "api_key_id", "verdict": "verified"
// | "differs", "recorded": {…}, "replayed": {…}, "diffs": […]}), then the
// unreadable rows ({"source", "verdict": "bad_row", "error"}).
func VerifyJSONL(w io.Writer, v *gateway.Verification) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var b []byte
	outcome := func(b []byte, status int, blocked bool, reason string) []byte {
		b = append(b, `{"status_code":`...)
		b = strconv.AppendInt(b, int64(status), 10)
		b = append(b, `,"was_blocked":`...)
		b = strconv.AppendBool(b, blocked)
		b = append(b, `,"block_reason":`...)
		return append(report.AppendNullString(b, reason), '}')
	}
	for i := range v.Verdicts {
		vd := &v.Verdicts[i]
		c, d := vd.Call, &vd.Replayed
		b = append(b[:0], `{"source":`...)
		b = report.AppendString(b, c.Pos.String())
		b = append(b, `,"created_at":`...)
		b = report.AppendString(b, ingest.FormatTime(c.Rec.TS))
		b = append(b, `,"tenant":`...)
		b = report.AppendString(b, c.Rec.Tenant)
		b = append(b, `,"api_key_id":`...)
		b = report.AppendNullString(b, c.Rec.APIKeyID)
		b = append(b, `,"verdict":`...)
		if vd.Verified() {
			b = append(b, `"verified"`...)
		} else {
			b = append(b, `"differs"`...)
		}
		b = append(b, `,"recorded":`...)
		b = outcome(b, c.Status, c.Blocked, c.BlockReason)
		b = append(b, `,"replayed":`...)
		b = outcome(b, d.HTTPStatus, d.Blocked, d.BlockReason)
		b = b[:len(b)-1]
		b = append(b, `,"invalid":`...)
		b = report.AppendNullString(b, d.Invalid)
		b = append(b, `,"cost_estimate_cents":`...)
		if d.HasCost {
			b = appendCents(b, d.CostCents)
		} else {
			b = append(b, "null"...)
		}
		b = append(b, `},"diffs":[`...)
		for j, s := range vd.Diffs {
			if j > 0 {
				b = append(b, ',')
			}
			b = report.AppendString(b, s)
		}
		b = append(b, "]}\n"...)
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	for _, c := range v.Bad {
		b = append(b[:0], `{"source":`...)
		b = report.AppendString(b, c.Pos.String())
		b = append(b, `,"verdict":"bad_row","error":`...)
		b = report.AppendString(b, c.Err.Error())
		b = append(b, "}\n"...)
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}
