package main

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/valyala/fastjson"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/ingest/pq"
)

// TestFormatsGiveIdenticalDecisions writes the same traffic as JSONL, as
// HAR (plain bodies, Polly.JS gzip chunk arrays, and streamed responses) and
// as Parquet, and requires the same decision records from each (positions
// aside, which name the container: file:line, entries[i], row N).
func TestFormatsGiveIdenticalDecisions(t *testing.T) {
	// The scenario fixtures without control records (HAR cannot carry them).
	// Plus the OpenAI-shaped library fixtures, whose responses ask for tool
	// calls (streamed as argument deltas by index).
	recs := fixtureRecords(t, "scenarios/identical-loop", "scenarios/prompt-only-loop", "scenarios/tool-call-loop",
		"scenarios/numbers-only-loop", "scenarios/healthy", "library/ab-alternation", "library/same-call-same-result",
		"library/same-tool-many-files", "library/short-cycle", "library/polling-no-progress", "library/reask-id-only")

	dir := t.TempDir()
	files := map[string]string{
		"jsonl":        writeJSONL(t, dir, recs),
		"har":          writeHAR(t, dir, "plain.har", recs, harPlain),
		"har-polly":    writeHAR(t, dir, "polly.har", recs, harPollyGzip),
		"har-streamed": writeHAR(t, dir, "streamed.har", recs, harStreamed),
		"parquet":      writeParquet(t, dir, recs),
	}
	for _, profile := range []string{"spec", "agentgazer"} {
		want := decisions(t, files["jsonl"], profile)
		if len(want) != len(recs) {
			t.Fatalf("%s: %d decisions for %d records", profile, len(want), len(recs))
		}
		for _, kind := range []string{"har", "har-polly", "har-streamed", "parquet"} {
			// AgentGazer hashes the raw response body text, so a stream is
			// by design not the same body as its JSON document.
			if profile == "agentgazer" && kind == "har-streamed" {
				continue
			}
			got := decisions(t, files[kind], profile)
			if len(got) != len(want) {
				t.Errorf("%s %s: %d decisions, want %d", profile, kind, len(got), len(want))
				continue
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("%s %s: decision %d differs:\n got %s\nwant %s", profile, kind, i+1, got[i], want[i])
					break
				}
			}
		}
	}
}

// decisions replays file and returns its decision lines without "source".
func decisions(t *testing.T, file, profile string) []string {
	t.Helper()
	out, stderr, code := runCLI(t, "", "replay", "-f", "jsonl", "--profile", profile, file)
	if code != 0 || stderr != "" {
		t.Fatalf("%s: exit %d\n%s", file, code, stderr)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "source")
		b, _ := json.Marshal(m)
		lines = append(lines, string(b))
	}
	return lines
}

func writeJSONL(t *testing.T, dir string, recs []ingest.Record) string {
	var b bytes.Buffer
	for _, r := range recs {
		line := map[string]any{"ts": ingest.FormatTime(r.TS), "agent": r.Agent,
			"request": json.RawMessage(r.Request), "response": json.RawMessage(r.Response)}
		j, _ := json.Marshal(line)
		b.Write(j)
		b.WriteByte('\n')
	}
	p := filepath.Join(dir, "traffic.jsonl")
	os.WriteFile(p, b.Bytes(), 0o644)
	return p
}

func writeParquet(t *testing.T, dir string, recs []ingest.Record) string {
	var b bytes.Buffer
	cp := make([]ingest.Record, len(recs))
	for i, r := range recs {
		cp[i] = ingest.Record{TS: r.TS, Agent: r.Agent, Request: r.Request, Response: r.Response, Status: 200}
	}
	if err := pq.WriteRecords(&b, cp); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "traffic.parquet")
	os.WriteFile(p, b.Bytes(), 0o644)
	return p
}

type harBody func(t *testing.T, resp []byte) (content map[string]any, headers []map[string]string)

func harPlain(t *testing.T, resp []byte) (map[string]any, []map[string]string) {
	return map[string]any{"mimeType": "application/json", "size": len(resp), "text": string(resp)},
		[]map[string]string{{"name": "content-type", "value": "application/json"}}
}

// harPollyGzip stores the body as Polly.JS does: gzip-compressed, as a JSON
// array of base64 chunks.
func harPollyGzip(t *testing.T, resp []byte) (map[string]any, []map[string]string) {
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(resp)
	w.Close()
	var chunks []string
	for b := z.Bytes(); len(b) > 0; {
		n := min(len(b), 37)
		chunks = append(chunks, base64.StdEncoding.EncodeToString(b[:n]))
		b = b[n:]
	}
	text, _ := json.Marshal(chunks)
	return map[string]any{"mimeType": "application/json", "size": len(resp), "encoding": "base64", "text": string(text)},
		[]map[string]string{{"name": "content-type", "value": "application/json"}, {"name": "content-encoding", "value": "gzip"}}
}

// harStreamed turns an OpenAI chat completion into the event stream the
// API sends with "stream": true: the content in small deltas, tool calls
// by index with their arguments split, then usage and [DONE].
func harStreamed(t *testing.T, resp []byte) (map[string]any, []map[string]string) {
	v, err := fastjson.ParseBytes(resp)
	if err != nil {
		t.Fatal(err)
	}
	msg := v.Get("choices", "0", "message")
	var sse strings.Builder
	event := func(delta map[string]any, finish any, usage any) {
		chunk := map[string]any{"id": string(v.GetStringBytes("id")), "object": "chat.completion.chunk",
			"model":   string(v.GetStringBytes("model")),
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		if usage != nil {
			chunk["choices"] = []any{}
			chunk["usage"] = usage
		}
		j, _ := json.Marshal(chunk)
		sse.WriteString("data: " + string(j) + "\n\n")
	}
	event(map[string]any{"role": "assistant", "content": ""}, nil, nil)
	content := string(msg.GetStringBytes("content"))
	for len(content) > 0 {
		n := min(len(content), 7)
		event(map[string]any{"content": content[:n]}, nil, nil)
		content = content[n:]
	}
	for i, tc := range msg.GetArray("tool_calls") {
		args := string(tc.GetStringBytes("function", "arguments"))
		event(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": string(tc.GetStringBytes("id")), "type": "function",
			"function": map[string]any{"name": string(tc.GetStringBytes("function", "name")), "arguments": ""}}}}, nil, nil)
		for len(args) > 0 {
			n := min(len(args), 5)
			event(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": args[:n]}}}}, nil, nil)
			args = args[n:]
		}
	}
	event(map[string]any{}, string(v.GetStringBytes("choices", "0", "finish_reason")), nil)
	var usage any
	json.Unmarshal(v.Get("usage").MarshalTo(nil), &usage)
	event(nil, nil, usage)
	sse.WriteString("data: [DONE]\n\n")
	return map[string]any{"mimeType": "text/event-stream", "size": sse.Len(), "text": sse.String()},
		[]map[string]string{{"name": "content-type", "value": "text/event-stream"}}
}

// writeHAR writes recs as a HAR 1.2 log; the agent rides in the AgentGazer
// route of the URL.
func writeHAR(t *testing.T, dir, name string, recs []ingest.Record, body harBody) string {
	var entries []any
	for _, r := range recs {
		content, headers := body(t, r.Response)
		entries = append(entries, map[string]any{
			"startedDateTime": ingest.FormatTime(r.TS),
			"time":            812,
			"request": map[string]any{"method": "POST", "url": "https://gateway.example/agents/" + r.Agent + "/openai/v1/chat/completions",
				"httpVersion": "HTTP/1.1", "headers": []map[string]string{{"name": "content-type", "value": "application/json"}, {"name": "authorization", "value": "Bearer sk-test"}},
				"postData": map[string]any{"mimeType": "application/json", "text": string(r.Request)}},
			"response": map[string]any{"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": headers, "content": content},
		})
	}
	doc, _ := json.Marshal(map[string]any{"log": map[string]any{"version": "1.2", "creator": map[string]string{"name": "killswitch-test", "version": "1"}, "entries": entries}})
	p := filepath.Join(dir, name)
	os.WriteFile(p, doc, 0o644)
	return p
}

// fixtureRecords reads fixtures/NAME.jsonl for each name, every record
// copied out of the reader's buffers, sorted by time (stable).
func fixtureRecords(t *testing.T, names ...string) []ingest.Record {
	t.Helper()
	var recs []ingest.Record
	for _, name := range names {
		f, err := os.Open(filepath.Join("fixtures", name+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		r := ingest.NewJSONL(f, name, ingest.JSONLOptions{})
		for r.Scan() {
			rec := *r.Record()
			if rec.Err != nil {
				t.Fatal(rec.Err)
			}
			rec.CopyInto(nil)
			recs = append(recs, rec)
		}
		f.Close()
	}
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].TS.Before(recs[j].TS) })
	return recs
}
