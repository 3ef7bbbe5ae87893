package analyze

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/valyala/fastjson"

	"github.com/killswitch/killswitch/analyze/agentgazer"
	"github.com/killswitch/killswitch/analyze/simhash"
	"github.com/killswitch/killswitch/ingest"
)

// The built-in profiles.
var (
	// ProfileSpec is faithful to SPEC §1 with documented choices (§4.1).
	ProfileSpec = &Profile{
		Name:        "spec",
		About:       "faithful to SPEC §1: last user message, response text, the tool calls made",
		Extract:     specExtract,
		Fingerprint: specFingerprint,
		Defaults:    DefaultSettings,
		// SweepThresholds: around the default 10, by halves.
		SweepThresholds: "4:16:0.5",
		ToolAgentHint:   "progress",
	}
	// ProfileAgentGazer is bit-exact with the AgentGazer proxy (§4.2).
	ProfileAgentGazer = &Profile{
		Name:        "agentgazer",
		About:       "bit-exact with the AgentGazer proxy",
		Inclusive:   true,
		PastLen:     func(n int) int { return n - 1 }, // its window includes the request
		Extract:     agentgazerExtract,
		Fingerprint: agentgazerFingerprint,
		Defaults:    DefaultSettings,
		// SweepThresholds: around the default 10, by halves.
		SweepThresholds: "4:16:0.5",
	}
)

func init() {
	RegisterProfile(ProfileSpec)
	RegisterProfile(ProfileAgentGazer)
}

func hashText(b []byte) (uint64, bool) { return simhash.Hash(b) }

// specExtract implements SPEC §4.1: the prompt is the last user message,
// the response text is the assistant text plus its tool calls, and the tool
// signature comes from the tool calls of the agent's most recent turn.
func specExtract(x *Extractor, rec *ingest.Record) Features {
	var f Features
	req, err := x.body.ParseRequest(rec.Request)
	if err != nil {
		f.Err = err
		return f
	}
	if req.HasPrompt {
		f.Prompt, f.HasPrompt = hashText(req.Prompt)
	}
	f.ToolSig = req.ToolSig
	x.response(rec, &f, true)
	return f
}

// agentgazerExtract implements SPEC §4.2: prompt and tool signature as
// AgentGazer takes them, and the response hash over the raw response body
// text.
func agentgazerExtract(x *Extractor, rec *ingest.Record) Features {
	var f Features
	v, err := agentgazerRequest(x, rec.Request)
	if err != nil {
		f.Err = err
		return f
	}
	f.Prompt, f.HasPrompt = agentgazer.SimHash(agentgazer.Normalize(agentgazer.Prompt(v))), true
	f.ToolSig = agentgazer.ToolSignature(v)
	if rec.Response != nil {
		f.Response, f.HasResp = agentgazer.HashText(string(rec.Response)), true
	}
	x.response(rec, &f, false)
	return f
}

// agentgazerRequest parses a request body as AgentGazer does, failing
// where its extractors would throw (such a request is not recorded, not
// scored).
func agentgazerRequest(x *Extractor, b []byte) (*fastjson.Value, error) {
	v, err := x.json.ParseBytes(b)
	if err != nil {
		return nil, errNotJSON
	}
	if err := agentgazer.Check(v); err != nil {
		return nil, err
	}
	return v, nil
}

var errNotJSON = errors.New("request body is not JSON: not scored (AgentGazer forwards it unscored)")

// inputKind classifies a fingerprint input.
func inputKind(in []byte, asResponse bool) (trimmed []byte, isJSON bool, err error) {
	trimmed = bytes.TrimSpace(in)
	isJSON = len(trimmed) > 0 && trimmed[0] == '{' && fastjson.ValidateBytes(trimmed) == nil
	isSSE := bytes.HasPrefix(trimmed, []byte("data:")) || bytes.HasPrefix(trimmed, []byte("event:"))
	if isSSE && !asResponse && !isJSON {
		return trimmed, false, fmt.Errorf("input looks like an event stream: add --response to hash it as a response body")
	}
	return trimmed, isJSON, nil
}

const noTextWhy = "no text: never counts as similar"

func specFingerprint(x *Extractor, in []byte, asResponse bool) (Fingerprint, error) {
	r := Fingerprint{Source: "text"}
	trimmed, isJSON, err := inputKind(in, asResponse)
	if err != nil {
		return r, err
	}
	text := in
	switch {
	case asResponse:
		resp, err := x.body.ParseResponse(in)
		if err != nil {
			return r, err
		}
		r.Source = "response body"
		text = resp.Text
		r.Prompt = string(text)
	case isJSON:
		// The replay's own extraction: what it hashes is what is shown.
		f := specExtract(x, &ingest.Record{Request: trimmed})
		if f.Err != nil {
			return r, f.Err
		}
		req, _ := x.body.ParseRequest(trimmed)
		r.Source = "request body (" + req.API.String() + ")"
		r.Prompt = string(req.Prompt)
		r.ToolSig = f.ToolSig
		if !f.HasPrompt {
			r.Source += ", no user prompt"
			r.NoHashWhy = noTextWhy
			return r, nil
		}
		r.Normalized = string(simhash.Normalize(nil, req.Prompt))
		r.Hash, r.HasHash = f.Prompt, true
		return r, nil
	}
	r.Normalized = string(simhash.Normalize(nil, text))
	r.Hash, r.HasHash = hashText(text)
	if !r.HasHash {
		r.NoHashWhy = noTextWhy
	}
	return r, nil
}

func agentgazerFingerprint(x *Extractor, in []byte, asResponse bool) (Fingerprint, error) {
	r := Fingerprint{Source: "text"}
	trimmed, isJSON, err := inputKind(in, asResponse)
	if err != nil {
		return r, err
	}
	text := string(in)
	switch {
	case asResponse:
		r.Source = "response body (raw text, as AgentGazer hashes it)"
		r.Normalized = agentgazer.Normalize(text)
		r.Hash, r.HasHash = agentgazer.HashText(text), true // the replay's response hash
		return r, nil
	case isJSON:
		r.Source = "request body"
		// The replay's own extraction: a body AgentGazer would throw on is
		// not scored, and the fingerprint says so instead of hashing it.
		f := agentgazerExtract(x, &ingest.Record{Request: trimmed})
		if f.Err != nil {
			r.NoHashWhy = "not scored: " + f.Err.Error()
			return r, nil
		}
		v, _ := agentgazerRequest(x, trimmed)
		text = agentgazer.Prompt(v)
		r.Prompt = text
		r.ToolSig = f.ToolSig
		r.Normalized = agentgazer.Normalize(text)
		r.Hash, r.HasHash = f.Prompt, true
		return r, nil
	}
	r.Normalized = agentgazer.Normalize(text)
	r.Hash, r.HasHash = agentgazer.SimHash(r.Normalized), true
	return r, nil
}

// ProfileUsage extracts nothing but the response's usage (tokens): the
// features of a replay whose policies do not detect loops (the error-rate
// breaker, the gateway), so that they do not pay for normalizing and
// hashing. It is not registered: --profile does not offer it.
var ProfileUsage = &Profile{
	Name: "usage",
	Extract: func(x *Extractor, rec *ingest.Record) Features {
		var f Features
		x.response(rec, &f, false)
		return f
	},
	Fingerprint: func(x *Extractor, in []byte, asResponse bool) (Fingerprint, error) {
		return Fingerprint{Source: "text", NoHashWhy: "this replay does not fingerprint"}, nil
	},
	Defaults: DefaultSettings,
}
