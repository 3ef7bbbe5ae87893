package progress

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/killswitch/killswitch/analyze/body"
	"github.com/killswitch/killswitch/ingest"
)

// TestChatTail holds the fast path of chat requests (chatTail: the newest
// messages parsed alone) to the tree path (the whole body parsed with
// fastjson) on every request of the progress fixtures, the examples and,
// when ../shared is present, the real trajectories and captures: the same
// features, or the same error. It also checks that the fast path served
// most of them.
func TestChatTail(t *testing.T) {
	var paths []string
	for _, g := range []string{"../../fixtures/progress/*.jsonl", "../../fixtures/progress/rules/*.jsonl",
		"../../fixtures/scenarios/*.jsonl", "../../fixtures/library/*.jsonl",
		"../../../shared/trajectories/*.jsonl.gz", "../../../shared/captures/*/*.jsonl"} {
		m, _ := filepath.Glob(g)
		paths = append(paths, m...)
	}
	var fast, tree Extractor
	tree.treeOnly = true
	n, served := 0, 0
	for _, p := range paths {
		for _, rec := range records(t, p) {
			a, errA := fast.Extract(rec.Request, rec.Response)
			b, errB := tree.Extract(rec.Request, rec.Response)
			if (errA == nil) != (errB == nil) || a != b {
				t.Fatalf("%s: fast path %+v %v, tree %+v %v", rec.Pos, a, errA, b, errB)
			}
			n++
			if _, ok := body.ChatMessages(bytes.TrimSpace(rec.Request), nil); ok {
				served++
			}
		}
	}
	if n < 1000 || served < n/2 {
		t.Fatalf("%d requests, %d by the fast path", n, served)
	}
	t.Logf("%d requests, %d by the fast path", n, served)
}

// records reads a JSONL capture (gzip undone) into records that own their
// bodies.
func records(t *testing.T, path string) []ingest.Record {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Ext(path) == ".gz" {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	var out []ingest.Record
	r := ingest.NewJSONL(bytes.NewReader(data), path, ingest.JSONLOptions{})
	for r.Scan() {
		rec := *r.Record()
		if rec.Err != nil || rec.Control != nil || rec.Skip != "" {
			continue
		}
		rec.Request, rec.Response = bytes.Clone(rec.Request), bytes.Clone(rec.Response)
		out = append(out, rec)
	}
	return out
}
