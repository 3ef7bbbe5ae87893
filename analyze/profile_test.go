package analyze_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/killswitch/killswitch/analyze"
	_ "github.com/killswitch/killswitch/analyze/peers" // the peer profiles too
	"github.com/killswitch/killswitch/ingest"
)

// TestFingerprintAgreesWithReplay holds the fingerprint command to the
// replay's extraction: for every request body of the fixtures, under every
// profile, the hash it shows is the prompt hash the replay scores, and a
// body the replay does not score gets no hash.
func TestFingerprintAgreesWithReplay(t *testing.T) {
	files, _ := filepath.Glob("../fixtures/*/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	bodies := [][]byte{
		// AgentGazer throws on a null message after the user turn: replay
		// skips it, and fingerprint once hashed it anyway.
		[]byte(`{"model":"m","messages":[{"role":"user","content":"hello there"},null]}`),
		[]byte(`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"parts"}]}]}`),
		[]byte(`{"model":"m","messages":[]}`),
	}
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		r := ingest.NewJSONL(f, file, ingest.JSONLOptions{})
		for r.Scan() {
			// A body that is not a JSON object is, to fingerprint, a
			// prompt given as text: only bodies are compared.
			if rec := r.Record(); rec.Err == nil && rec.Control == nil && rec.Skip == "" && json.Valid(rec.Request) && rec.Request[0] == '{' {
				bodies = append(bodies, append([]byte(nil), rec.Request...))
			}
		}
		f.Close()
	}
	for _, p := range analyze.Profiles() {
		x := analyze.NewExtractor(p)
		for i, b := range bodies {
			feat := x.Extract(&ingest.Record{Request: b})
			fp, err := x.Fingerprint(b, false)
			switch {
			case feat.Err != nil:
				if err == nil && fp.HasHash {
					t.Errorf("%s: body %d: replay skips it (%v), fingerprint hashes it", p, i, feat.Err)
				}
			case err != nil:
				t.Errorf("%s: body %d: replay scores it, fingerprint fails: %v", p, i, err)
			case fp.HasHash != feat.HasPrompt || (fp.HasHash && fp.Hash != feat.Prompt) || fp.ToolSig != feat.ToolSig:
				t.Errorf("%s: body %d: fingerprint %016x/%v %q, replay %016x/%v %q", p, i,
					fp.Hash, fp.HasHash, fp.ToolSig, feat.Prompt, feat.HasPrompt, feat.ToolSig)
			}
		}
	}
	if len(bodies) < 100 {
		t.Fatalf("only %d bodies", len(bodies))
	}
}

// TestProfileRegistry: every registered profile is found by its name, and
// an unknown name lists them.
func TestProfileRegistry(t *testing.T) {
	for _, p := range analyze.Profiles() {
		got, err := analyze.ParseProfile(p.Name)
		if err != nil || got != p {
			t.Errorf("ParseProfile(%q) = %v, %v", p.Name, got, err)
		}
	}
	if _, err := analyze.ParseProfile("nope"); err == nil {
		t.Error("unknown profile accepted")
	}
}
