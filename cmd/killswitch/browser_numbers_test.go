package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/killswitch/killswitch/internal/browser"
)

// pageNumbers reads, for a page kind, a few numbers from the DOM a
// browser built of the page and the same numbers from -f json of the
// same run, as "name=value" lines: the browser test wants them equal.
// A page kind without an entry is a test error (every kind is checked).
var pageNumbers = map[string]func(t *testing.T, dom []browser.Element, doc []byte) (fromDOM, fromJSON []string){
	"replay-loop":     loopReplayNumbers,
	"replay-progress": loopReplayNumbers,
	"replay-breaker": func(t *testing.T, dom []browser.Element, doc []byte) (got, want []string) {
		for _, e := range withClass(dom, "figure", "lane") {
			got = append(got, fmt.Sprintf("%s: %s requests, %s errors, %s refused, %s trips", e.Attrs["data-scope"], e.Attrs["data-requests"], e.Attrs["data-errors"], e.Attrs["data-refused"], e.Attrs["data-trips"]))
		}
		for _, e := range withClass(dom, "circle", "trip") {
			got = append(got, fmt.Sprintf("trip %s: rate %s of %s", e.Attrs["data-ts"], e.Attrs["data-rate"], e.Attrs["data-samples"]))
		}
		var j struct {
			Scopes []struct {
				Scope                     string
				Requests, Errors, Refused int
				Trips                     []struct {
					TS        string
					ErrorRate float64 `json:"error_rate"`
					Samples   int
				}
			}
		}
		decode(t, doc, &j)
		var trips []string
		for _, s := range j.Scopes {
			if len(s.Trips) == 0 {
				continue // left out of the lanes
			}
			want = append(want, fmt.Sprintf("%s: %d requests, %d errors, %d refused, %d trips", s.Scope, s.Requests, s.Errors, s.Refused, len(s.Trips)))
			for _, tr := range s.Trips {
				trips = append(trips, fmt.Sprintf("trip %s: rate %s of %d", tr.TS, strconv.FormatFloat(tr.ErrorRate, 'f', -1, 64), tr.Samples))
			}
		}
		return got, append(want, trips...)
	},
	"replay-gateway": func(t *testing.T, dom []browser.Element, doc []byte) (got, want []string) {
		for _, e := range dom {
			if e.Name == "rect" && e.Attrs["data-reason"] != "" {
				got = append(got, e.Attrs["data-reason"]+" "+e.Attrs["data-n"])
			}
			if e.Name == "h2" && strings.HasPrefix(e.Text, "Incidents (") {
				got = append(got, "incidents "+strings.TrimSuffix(strings.TrimPrefix(e.Text, "Incidents ("), ")"))
			}
		}
		var j struct {
			BlockReason map[string]int `json:"block_reason"`
			Incidents   []any
		}
		decode(t, doc, &j)
		for k, n := range j.BlockReason {
			want = append(want, fmt.Sprintf("%s %d", k, n))
		}
		want = append(want, fmt.Sprintf("incidents %d", len(j.Incidents)))
		slices.Sort(got)
		slices.Sort(want)
		return got, want
	},
	"sweep-loop": func(t *testing.T, dom []browser.Element, doc []byte) (got, want []string) {
		var j sweepDoc
		decode(t, doc, &j)
		return heatNumbers(dom), j.heat(t)
	},
	"sweep-profiles": func(t *testing.T, dom []browser.Element, doc []byte) (got, want []string) {
		// The comparison table: healthy agents killed and loop agents
		// killed outside their loop, per profile and setting.
		rows := tableRows(dom, 0)
		col := func(name string) int { return slices.Index(rows[0], name) }
		for _, r := range rows[1:] {
			if r[col("window")] == "none" {
				continue // recommended: none, which the JSON leaves out
			}
			got = append(got, fmt.Sprintf("%s %s: caught %s, healthy killed %s, outside loop %s", r[col("profile")], r[col("setting")], r[col("caught")], r[col("healthy killed")], r[col("outside loop")]))
		}
		var j struct {
			Comparison []struct {
				Profile, Setting string
				Caught           int      `json:"loop_agents_caught"`
				Healthy          int      `json:"legit_agents_killed"`
				FalsePositives   []string `json:"false_positives"`
			}
		}
		decode(t, doc, &j)
		for _, c := range j.Comparison {
			want = append(want, fmt.Sprintf("%s %s: caught %d, healthy killed %d, outside loop %d", c.Profile, c.Setting, c.Caught, c.Healthy, len(c.FalsePositives)-c.Healthy))
		}
		return got, want
	},
	"sweep-breaker": func(t *testing.T, dom []browser.Element, doc []byte) (got, want []string) {
		var j struct {
			Settings []struct {
				Inside  int `json:"trips_in_incidents"`
				Outside int `json:"trips_outside_incidents"`
			}
		}
		decode(t, doc, &j)
		for _, s := range j.Settings {
			want = append(want, fmt.Sprintf("%d in incidents, %d outside", s.Inside, s.Outside))
		}
		for _, e := range withClass(dom, "g", "setting") {
			got = append(got, fmt.Sprintf("%s in incidents, %s outside", e.Attrs["data-gain"], e.Attrs["data-cost"]))
		}
		return got, want
	},
	"sweep-gateway": func(t *testing.T, dom []browser.Element, doc []byte) (got, want []string) {
		var j struct {
			Settings []struct {
				Param      string
				Value      float64
				Refused    int
				NewTenants []string `json:"tenants_newly_refused"`
			}
		}
		decode(t, doc, &j)
		for _, s := range j.Settings {
			want = append(want, fmt.Sprintf("%s %s: %d refused, %d tenants newly hit", s.Param, strconv.FormatFloat(s.Value, 'f', -1, 64), s.Refused, len(s.NewTenants)))
		}
		for _, e := range withClass(dom, "g", "setting") {
			got = append(got, fmt.Sprintf("%s: %s refused, %s tenants newly hit", strings.TrimSuffix(e.Attrs["data-label"], " (base)"), e.Attrs["data-gain"], e.Attrs["data-cost"]))
		}
		return got, want
	},
}

// loopReplayNumbers: the agents killed (the table's total row) and each
// charted agent's kills (request numbers).
func loopReplayNumbers(t *testing.T, dom []browser.Element, doc []byte) (got, want []string) {
	for i, e := range dom {
		if e.Name == "td" && strings.HasPrefix(e.Text, "total: ") && i+2 < len(dom) {
			got = append(got, "agents killed "+strings.TrimSuffix(dom[i+2].Text, " killed"))
		}
	}
	agent := ""
	kills := map[string][]string{}
	var order []string
	for _, e := range dom {
		if e.Name == "svg" && e.Attrs["class"] == "score-chart" {
			agent = e.Attrs["data-agent"]
			order = append(order, agent)
			kills[agent] = []string{}
		}
		if e.Name == "circle" && e.Attrs["class"] == "kill" {
			kills[agent] = append(kills[agent], e.Attrs["data-n"])
		}
	}
	for _, a := range order {
		got = append(got, a+" killed at "+strings.Join(kills[a], ","))
	}
	var j struct {
		Totals struct {
			AgentsKilled int `json:"agents_killed"`
		}
		Agents []struct {
			Agent string
			Kills []struct {
				AgentRequest int `json:"agent_request"`
			}
		}
	}
	decode(t, doc, &j)
	want = append(want, fmt.Sprintf("agents killed %d", j.Totals.AgentsKilled))
	byAgent := map[string][]string{}
	for _, a := range j.Agents {
		byAgent[a.Agent] = []string{}
		for _, k := range a.Kills {
			byAgent[a.Agent] = append(byAgent[a.Agent], strconv.Itoa(k.AgentRequest))
		}
	}
	for _, a := range order { // the charted agents, in the page's order
		want = append(want, a+" killed at "+strings.Join(byAgent[a], ","))
	}
	if len(order) == 0 {
		t.Error("the page charts no agent")
	}
	return got, want
}

type sweepDoc struct {
	Truth struct {
		Unknown int `json:"unknown_agents"`
	}
	Configs []struct {
		Window         int
		Threshold      float64
		Caught         int      `json:"loop_agents_caught"`
		FalsePositives []string `json:"false_positives"`
		Likely         []string `json:"likely_false_positives"`
	}
}

// heat is each cell of the two heat maps from the JSON: loops caught
// (with full ground truth, the catches are the labelled ones) and false
// positives (certain and likely).
func (j *sweepDoc) heat(t *testing.T) []string {
	if j.Truth.Unknown > 0 {
		t.Fatal("the fixture has agents without ground truth: the caught heat map adds the heuristic's loops, which -f json does not list")
	}
	var out []string
	for _, c := range j.Configs {
		out = append(out, fmt.Sprintf("caught %d/%s: %d", c.Window, strconv.FormatFloat(c.Threshold, 'f', -1, 64), c.Caught))
	}
	for _, c := range j.Configs {
		out = append(out, fmt.Sprintf("false_positives %d/%s: %d", c.Window, strconv.FormatFloat(c.Threshold, 'f', -1, 64), len(c.FalsePositives)+len(c.Likely)))
	}
	return out
}

// heatNumbers reads the heat maps' cells, map by map.
func heatNumbers(dom []browser.Element) []string {
	var out []string
	metric := ""
	for _, e := range dom {
		if e.Name == "svg" && strings.Contains(e.Attrs["class"], "heatmap") {
			metric = e.Attrs["data-metric"]
		}
		if e.Name == "rect" && e.Attrs["class"] == "cell" {
			out = append(out, fmt.Sprintf("%s %s/%s: %s", metric, e.Attrs["data-window"], e.Attrs["data-threshold"], e.Attrs["data-value"]))
		}
	}
	return out
}

// tableRows returns the header and the rows' cells of the n-th table.
func tableRows(dom []browser.Element, n int) [][]string {
	var rows [][]string
	table := -1
	for _, e := range dom {
		switch {
		case e.Name == "table":
			table++
		case table != n:
		case e.Name == "tr":
			rows = append(rows, nil)
		case (e.Name == "th" || e.Name == "td") && len(rows) > 0:
			rows[len(rows)-1] = append(rows[len(rows)-1], e.Text)
		}
	}
	return rows
}

func withClass(dom []browser.Element, name, class string) []browser.Element {
	var out []browser.Element
	for _, e := range dom {
		if e.Name == name && slices.Contains(strings.Fields(e.Attrs["class"]), class) {
			out = append(out, e)
		}
	}
	return out
}

func decode(t *testing.T, doc []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(doc, v); err != nil {
		t.Fatalf("-f json: %v", err)
	}
}
