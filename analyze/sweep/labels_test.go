package sweep_test

import (
	"strings"
	"testing"
	"time"

	"github.com/killswitch/killswitch/analyze/sweep"
	"github.com/killswitch/killswitch/ingest"
)

func at(s string) time.Time {
	t, err := ingest.ParseTimeString(s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestParseLabels(t *testing.T) {
	// Every form says the same: bot-a is healthy, except 10:00–10:05 (both
	// ends included) when it looped; bot-b looped from 11:00 on.
	const want = "bot-a@09:59:59=legit bot-a@10:00:00=loop bot-a@10:05:00=loop bot-a@10:05:01=legit bot-b@10:59:59= bot-b@11:00:00=loop bot-c@10:00:00="
	for _, tt := range []struct{ name, data string }{
		{"plain.csv", "agent,from,to,label\nbot-a,,,legit\nbot-a,2026-01-02T10:00:00Z,2026-01-02T10:05:00Z,loop\nbot-b,2026-01-02T11:00:00Z,,loop\n"},
		{"reordered.csv", "\xef\xbb\xbfLabel, Agent, To, From\r\nlegit,bot-a,,\r\nloop,bot-a,2026-01-02T10:05:00Z,2026-01-02T10:00:00Z\r\nloop,bot-b,,2026-01-02 11:00:00\r\n"},
		{"no-range.csv", "agent,label,from\nbot-a,legit,\nbot-b,loop,1767351600\nbot-a,loop,2026-01-02T10:00:00Z\nbot-a,legit,2026-01-02T10:05:00.001Z\n"},
		{"labels.jsonl", `{"agent": "bot-a", "label": "legit"}` + "\n\n" +
			`{"agent": "bot-a", "label": "loop", "from": "2026-01-02T10:00:00Z", "to": 1767348300000}` + "\n" +
			`{"agent": "bot-b", "label": "loop", "from": 1767351600, "to": null}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l, err := sweep.ParseLabels(tt.name, []byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, q := range strings.Fields(want) {
				agent, rest, _ := strings.Cut(q, "@")
				clock, _, _ := strings.Cut(rest, "=")
				got = append(got, agent+"@"+clock+"="+l.Lookup(agent, at("2026-01-02T"+clock+"Z")).String())
			}
			if g := strings.Join(got, " "); g != want {
				t.Errorf("lookups\n got %s\nwant %s", g, want)
			}
		})
	}
}

func TestParseLabelsErrors(t *testing.T) {
	for _, tt := range []struct{ data, want string }{
		{"", "l.csv: empty labels file"},
		{"  \n", "l.csv: empty labels file"},
		{"agent,label\n", "l.csv: no label entries"},
		{"agent,lable\nx,loop\n", `l.csv:1: unknown column "lable" in the header`},
		{"agent,label,agent\n", `l.csv:1: column "agent" named twice`},
		{"agent,from\n", "l.csv:1: the header must name the columns agent and label"},
		{"agent,label\nx,loop\ny,maybe\n", `l.csv:3: label: a string of 5 characters is neither "loop" nor "legit"`},
		{"agent,label\nx,\n", `l.csv:2: missing label`},
		{"agent,label\n,loop\n", "l.csv:2: empty agent"},
		{"agent,label\nx,loop,extra\n", "l.csv:2: CSV: wrong number of fields"},
		{"agent,label\n\"x,loop\n", "l.csv:2: CSV: extraneous or missing \" in quoted-field"},
		{"agent,label,from\nx,loop,yesterday\n", `l.csv:2: from: unparsable timestamp: a string of 9 characters where a time was expected`},
		{"agent,label,from,to\nx,loop,2026-01-02T10:00:00Z,2026-01-02T09:00:00Z\n", "l.csv:2: from 2026-01-02T10:00:00.000Z is after to 2026-01-02T09:00:00.000Z"},
		{`{"agent": "x", "label": "loop"}` + "\n{nope}\n", "l.csv:2: not JSON"},
		{`{"agent": "x", "label": "loop", "note": "?"}`, `l.csv:1: "note": unknown key`},
		{`{"agent": 7, "label": "loop"}`, `l.csv:1: "agent": want a string, got number`},
		{`{"agent": "x"}`, `l.csv:1: missing label`},
		{`{"agent": "x", "label": ""}`, `l.csv:1: "label": want "loop" or "legit"`},
		{`{"agent": "x", "label": "loop", "from": true}`, `l.csv:1: "from": want a time`},
		{`{"agent": "x", "label": "loop", "to": -5}`, `l.csv:1: "to": timestamp -5 is not a Unix time`},
		{`{"agent": "x", "label": "loop"}` + "\n[1]\n", "l.csv:2: want a JSON object"},
	} {
		_, err := sweep.ParseLabels("l.csv", []byte(tt.data))
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %q", tt.data, err, tt.want)
		}
	}
}

// FuzzParseLabels: never panics; whatever parses is well formed.
func FuzzParseLabels(f *testing.F) {
	for _, s := range []string{
		"agent,from,to,label\nbot,,,legit\nbot,2026-01-02T10:00:00Z,2026-01-02T10:05:00Z,loop\n",
		"\xef\xbb\xbfagent,label\r\nbot,loop\r\n",
		`{"agent": "bot", "label": "loop", "from": 1767348000, "to": "2026-01-02T10:05:00Z"}`,
		"agent,label\n\"bot\"\"x\",loop\n",
		`{"agent": "bot", "label": "loop", "from": 1e300}`,
		"agent,label,from\nbot,loop,99999999999999999999\n",
		"{",
		"agent,label\nbot",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := sweep.ParseLabels("f", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f:") {
				t.Errorf("error without position: %v", err)
			}
			return
		}
		for _, e := range l.Entries {
			if e.Agent == "" || e.Label == ingest.LabelNone || (e.HasFrom && e.HasTo && e.From.After(e.To)) {
				t.Errorf("bad entry %+v", e)
			}
		}
	})
}
