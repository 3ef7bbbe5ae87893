package report

import (
	"bytes"
	"github.com/killswitch/killswitch/internal/htmltest"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
)

// TestSweepHTML checks the charts of the sweep page of labelled.jsonl over
// the default grid against values derived by hand (analyze/sweep_test.go
// derives every kill point). With no false positive allowed the
// recommended setting is window 10, threshold 14.5, so the charts are at
// window 10 with a threshold line at 14.5, for the agents some threshold
// of window 10 kills: all but healthy. Scores as if never killed, window
// 10 (spec: the 10 entries before the request):
//   - loop-identical: 3 unrelated requests, then identical ones; the k-th
//     identical scores 3m−2 with m = min(k−1, 10): 0 0 0 0 1 4 7 10 13 16
//     19 22 25 28, then 28 (the window is full); killed at request 10
//     (16 > 14.5).
//   - loop-tools: 1.5·min(k−1, 10) for request k; killed at 11 (15).
//   - loop-prompt, fixed-prompt: min(k−1, 10); never above 14.5.
//   - burst: 0 ×6, then the polls 0 1 4 7, then 6, then 0 ×5.
func TestSweepHTML(t *testing.T) {
	cfg := smallGrid()
	cfg.Windows = []int{10, 20, 40}
	cfg.Thresholds = nil
	for th := 4.0; th <= 16; th += 0.5 {
		cfg.Thresholds = append(cfg.Thresholds, th)
	}
	cfg.Series = true
	var b bytes.Buffer
	if err := SweepHTML(&b, sweepFixture(t, "labelled.jsonl", cfg)); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("KILLSWITCH_HTML_OUT") != "" {
		os.WriteFile(os.Getenv("KILLSWITCH_HTML_OUT"), b.Bytes(), 0o644)
	}
	els := htmltest.Parse(t, b.Bytes())

	ramp := func(n, cap int, f func(m int) string) string {
		var s []string
		for k := 1; k <= n; k++ {
			s = append(s, f(min(k-1, cap)))
		}
		return strings.Join(s, " ")
	}
	want := map[string]struct {
		scores string
		kills  string
	}{
		"loop-identical": {"0 0 0 0 1 4 7 10 13 16 19 22 25 28 28 28 28", "10:16"},
		"loop-tools":     {ramp(16, 10, func(m int) string { return sweepNum(1.5 * float64(m)) }), "11:15"},
		"loop-prompt":    {ramp(20, 10, strconv.Itoa), ""},
		"fixed-prompt":   {ramp(20, 10, strconv.Itoa), ""},
		"burst":          {"0 0 0 0 0 0 0 1 4 7 6 0 0 0 0 0", ""},
	}
	charts := htmltest.Find(els, "svg", "score-chart")
	var agents []string
	for _, c := range charts {
		agents = append(agents, c.Attrs["data-agent"])
		if c.Attrs["data-window"] != "10" {
			t.Errorf("%s: window %s, want 10", c.Attrs["data-agent"], c.Attrs["data-window"])
		}
	}
	if !slices.Equal(agents, []string{"burst", "fixed-prompt", "loop-identical", "loop-prompt", "loop-tools"}) {
		t.Fatalf("charts for %v", agents)
	}
	for _, c := range charts {
		name := c.Attrs["data-agent"]
		var scores, kills, thresholds []string
		for _, e := range els {
			if e.Chart != c {
				continue
			}
			switch {
			case e.Name == "path" && e.Attrs["class"] == "score":
				scores = strings.Fields(e.Attrs["data-score"])
			case e.Name == "circle" && e.Attrs["class"] == "kill":
				kills = append(kills, e.Attrs["data-n"]+":"+e.Attrs["data-score"])
			case e.Name == "line" && e.Attrs["class"] == "threshold":
				thresholds = append(thresholds, e.Attrs["data-value"])
			}
		}
		if got := strings.Join(scores, " "); got != want[name].scores {
			t.Errorf("%s: scores\n got %s\nwant %s", name, got, want[name].scores)
		}
		if got := strings.Join(kills, " "); got != want[name].kills {
			t.Errorf("%s: kills %q, want %q", name, got, want[name].kills)
		}
		if !slices.Equal(thresholds, []string{"14.5"}) {
			t.Errorf("%s: threshold lines %v, want [14.5]", name, thresholds)
		}
	}

	// Heat maps: loops caught (late included) and false positives, by
	// hand from the kill points (see analyze/sweep_test.go).
	cells := map[string]string{}
	for _, e := range htmltest.Find(els, "rect", "cell") {
		cells[e.Chart.Attrs["data-metric"]+" "+e.Attrs["data-window"]+" "+e.Attrs["data-threshold"]] = e.Attrs["data-value"]
	}
	if len(cells) != 2*75 {
		t.Errorf("%d heat-map cells, want 150", len(cells))
	}
	for key, v := range map[string]string{
		"caught 10 4": "3", "caught 10 14.5": "2", "caught 10 15": "1", "caught 20 16": "3",
		"false_positives 10 4": "2", "false_positives 10 9.5": "1", "false_positives 10 10": "0", "false_positives 40 16": "1",
	} {
		if cells[key] != v {
			t.Errorf("heat map %s: %q, want %s", key, cells[key], v)
		}
	}
	if n := len(htmltest.Find(els, "rect", "recommended")); n != 2 {
		t.Errorf("%d recommended frames, want one per heat map", n)
	}

	// Precision/recall of window 10 (by hand, analyze/sweep_test.go): 3
	// caught with 2 false positives for t < 7, with 1 for t < 10; then 2
	// caught without any up to 14.5, then 1.
	for _, e := range htmltest.Find(els, "polyline", "pr") {
		if e.Attrs["data-window"] != "10" {
			continue
		}
		var wantP, wantR []string
		for th := 4.0; th <= 16; th += 0.5 {
			switch {
			case th < 7:
				wantP, wantR = append(wantP, "0.6000"), append(wantR, "1.0000")
			case th < 10:
				wantP, wantR = append(wantP, "0.7500"), append(wantR, "1.0000")
			case th < 15:
				wantP, wantR = append(wantP, "1.0000"), append(wantR, "0.6667")
			default:
				wantP, wantR = append(wantP, "1.0000"), append(wantR, "0.3333")
			}
		}
		if !slices.Equal(strings.Fields(e.Attrs["data-precision"]), wantP) || !slices.Equal(strings.Fields(e.Attrs["data-recall"]), wantR) || e.Attrs["data-area"] != "0.9167" {
			t.Errorf("window 10 curve: precision %s recall %s area %s", e.Attrs["data-precision"], e.Attrs["data-recall"], e.Attrs["data-area"])
		}
	}
	if n := len(htmltest.Find(els, "polyline", "pr")); n != 3 {
		t.Errorf("%d curves, want 3", n)
	}
}

// TestTimelineHTML: the replay page of labelled.jsonl at the defaults
// (window 20, threshold 10). loop-identical scores 0 0 0 0 1 4 7 10 13 and
// is killed at request 9 (13 > 10); requests 10–17 are refused. healthy's
// 10th request is not JSON: skipped, so it has no point on the line.
func TestTimelineHTML(t *testing.T) {
	data, err := os.ReadFile("../fixtures/sweep/labelled.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	col := analyze.NewSeriesCollector()
	sum, err := analyze.Replay(ingest.NewJSONL(bytes.NewReader(data), "labelled.jsonl", ingest.JSONLOptions{}), analyze.NewConfig(), 1,
		analyze.Hooks{Decision: col.Decision})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := TimelineHTML(&b, sum, col.Series, TableOptions{}); err != nil {
		t.Fatal(err)
	}
	els := htmltest.Parse(t, b.Bytes())
	var order []string
	got := map[string]map[string]string{}
	for _, c := range htmltest.Find(els, "svg", "score-chart") {
		name := c.Attrs["data-agent"]
		order = append(order, name)
		got[name] = map[string]string{}
		for _, e := range els {
			if e.Chart != c {
				continue
			}
			switch {
			case e.Name == "path" && e.Attrs["class"] == "score":
				got[name]["n"], got[name]["score"] = e.Attrs["data-n"], e.Attrs["data-score"]
			case e.Name == "circle" && e.Attrs["class"] == "kill":
				got[name]["kill"] = e.Attrs["data-n"] + ":" + e.Attrs["data-score"]
			case e.Name == "rect" && e.Attrs["class"] == "refused":
				got[name]["refused"] = e.Attrs["data-start"] + "-" + e.Attrs["data-end"]
			case e.Name == "line" && e.Attrs["class"] == "threshold":
				got[name]["threshold"] = e.Attrs["data-value"]
			}
		}
	}
	// Killed agents first (by name), then the others by highest score.
	if want := []string{"fixed-prompt", "loop-identical", "loop-prompt", "loop-tools", "burst", "healthy"}; !slices.Equal(order, want) {
		t.Errorf("chart order %v, want %v", order, want)
	}
	li := got["loop-identical"]
	if li["n"] != "1 2 3 4 5 6 7 8 9" || li["score"] != "0 0 0 0 1 4 7 10 13" || li["kill"] != "9:13" || li["refused"] != "10-17" || li["threshold"] != "10" {
		t.Errorf("loop-identical chart %v", li)
	}
	if h := got["healthy"]; h["n"] != "1 2 3 4 5 6 7 8 9 11 12 13 14 15 16 17 18 19 20" || h["kill"] != "" {
		t.Errorf("healthy chart %v", h)
	}
}

// A long name in a left-aligned column is cut by the page's style with an
// ellipsis and kept whole in the cell's title; a short one is as it was.
func TestHTMLRowLongNames(t *testing.T) {
	long := strings.Repeat("agent-", 10) + "end"
	var d HTMLDoc
	htmlRow(&d, []string{long, "12"}, false, 0)
	htmlRow(&d, []string{"short", "3"}, false, 0)
	want := `<tr><td class="l" title="` + long + `">` + long + `</td><td>12</td></tr>` + "\n" +
		`<tr><td class="l">short</td><td>3</td></tr>` + "\n"
	if d.String() != want {
		t.Errorf("got %s\nwant %s", d.String(), want)
	}
}
