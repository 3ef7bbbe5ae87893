package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/valyala/fastjson"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/agentgazer"
	"github.com/killswitch/killswitch/analyze/body"
	"github.com/killswitch/killswitch/analyze/simhash"
	"github.com/killswitch/killswitch/report"
)

// fingerprintResult is what the fingerprint command shows for one input.
type fingerprintResult struct {
	source     string // "text" or "request body (API)" or "response body (API)"
	prompt     string
	normalized string
	hash       uint64
	hasHash    bool
	toolSig    string
}

func cmdFingerprint(e *env, args []string) int {
	fs := newFlags(e, "fingerprint", "[flags] [TEXT | -] [TEXT2 | -]",
		"Shows how the kill switch sees one prompt: the text it extracts (when the input is a provider\n"+
			"request body), the normalized form and the 64-bit SimHash. With two inputs it also prints their\n"+
			"Hamming distance and whether they count as similar. - (or no argument) reads standard input.")
	profileName := fs.String("profile", "spec", "detector profile: spec or agentgazer")
	asResponse := fs.Bool("response", false, "treat the input as a provider response body (hash its response text)")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	profile, err := analyze.ParseProfile(*profileName)
	if err != nil {
		return errorf(e, "fingerprint", "%v", err)
	}
	inputs := fs.Args()
	if len(inputs) == 0 {
		inputs = []string{"-"}
	}
	if len(inputs) > 2 {
		return errorf(e, "fingerprint", "at most two inputs, got %d", len(inputs))
	}
	var results []fingerprintResult
	stdinUsed := false
	for _, in := range inputs {
		text := []byte(in)
		if in == "-" {
			if stdinUsed {
				return errorf(e, "fingerprint", "standard input named twice")
			}
			stdinUsed = true
			if text, err = io.ReadAll(e.stdin); err != nil {
				return errorf(e, "fingerprint", "reading standard input: %v", err)
			}
		}
		r, err := fingerprintOne(profile, text, *asResponse)
		if err != nil {
			return errorf(e, "fingerprint", "%v", err)
		}
		results = append(results, r)
	}
	w := e.stdout
	fmt.Fprintf(w, "profile: %s\n", profile)
	for i, r := range results {
		if len(results) > 1 {
			fmt.Fprintf(w, "\n[%d]\n", i+1)
		}
		fmt.Fprintf(w, "source:     %s\n", r.source)
		if r.source != "text" {
			fmt.Fprintf(w, "prompt:     %s\n", quoteLine(r.prompt))
		}
		fmt.Fprintf(w, "normalized: %s\n", quoteLine(r.normalized))
		if r.hasHash {
			fmt.Fprintf(w, "simhash:    %s\n", report.Hash(r.hash))
		} else {
			fmt.Fprintf(w, "simhash:    none (no text: never counts as similar)\n")
		}
		if r.toolSig != "" {
			fmt.Fprintf(w, "tool sig:   %s\n", quoteLine(r.toolSig))
		}
	}
	if len(results) == 2 {
		a, b := results[0], results[1]
		if a.hasHash && b.hasHash {
			d := analyze.Distance(a.hash, b.hash)
			verdict := "similar"
			if d > analyze.SimilarDistance {
				verdict = "not similar"
			}
			fmt.Fprintf(w, "\ndistance: %d bits: %s (similar means at most %d bits)\n", d, verdict, analyze.SimilarDistance)
		} else {
			fmt.Fprintf(w, "\ndistance: none (an input without a hash is never similar)\n")
		}
	}
	return exitOK
}

func quoteLine(s string) string {
	b := report.AppendString(nil, s)
	return string(b)
}

// fingerprintOne extracts and hashes one input the way the replay does.
func fingerprintOne(p analyze.Profile, in []byte, asResponse bool) (fingerprintResult, error) {
	var r fingerprintResult
	trimmed := bytes.TrimSpace(in)
	isJSON := len(trimmed) > 0 && trimmed[0] == '{' && fastjson.ValidateBytes(trimmed) == nil
	isSSE := bytes.HasPrefix(trimmed, []byte("data:")) || bytes.HasPrefix(trimmed, []byte("event:"))
	text := string(in)
	r.source = "text"
	switch {
	case asResponse && p == analyze.ProfileAgentGazer:
		r.source = "response body (raw text, as AgentGazer hashes it)"
	case asResponse:
		var parser body.Parser
		resp, err := parser.ParseResponse(in)
		if err != nil {
			return r, err
		}
		r.source = "response body"
		text = string(resp.Text)
		r.prompt = text
	case isJSON && p == analyze.ProfileAgentGazer:
		v, _ := fastjson.ParseBytes(trimmed)
		r.source = "request body"
		text = agentgazer.Prompt(v)
		r.prompt = text
		r.toolSig = agentgazer.ToolSignature(v)
	case isJSON:
		var parser body.Parser
		req, err := parser.ParseRequest(trimmed)
		if err != nil {
			return r, err
		}
		r.source = "request body (" + req.API.String() + ")"
		text = string(req.Prompt)
		r.prompt = text
		r.toolSig = req.ToolSig
		if !req.HasPrompt {
			r.source += ", no user prompt"
			return r, nil
		}
	case isSSE && !asResponse:
		return r, fmt.Errorf("input looks like an event stream: add --response to hash it as a response body")
	}
	if p == analyze.ProfileAgentGazer {
		r.normalized = agentgazer.Normalize(text)
		r.hash, r.hasHash = agentgazer.SimHash(r.normalized), true
		return r, nil
	}
	r.normalized = string(simhash.Normalize(nil, []byte(text)))
	r.hash, r.hasHash = simhash.Hash([]byte(text))
	return r, nil
}
