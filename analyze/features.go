package analyze

import (
	"errors"

	"github.com/valyala/fastjson"

	"github.com/killswitch/killswitch/analyze/agentgazer"
	"github.com/killswitch/killswitch/analyze/body"
	"github.com/killswitch/killswitch/analyze/simhash"
	"github.com/killswitch/killswitch/ingest"
)

// Features are what the kill switch takes from one request record: its
// fingerprint and what it cost. Computing them is independent per record,
// so it may run in parallel ahead of the Engine.
type Features struct {
	Entry // prompt hash, response hash (when the capture has a response), tool signature

	TokensIn, TokensOut int64 // from the response's usage, when HasUsage
	HasUsage            bool

	Err  error  // the request cannot be scored (the decision is "skip")
	Warn string // a problem that does not stop scoring (e.g. an unreadable response)
}

// Extractor computes Features for one profile. It holds parser state: use
// one per goroutine.
type Extractor struct {
	profile Profile
	body    body.Parser     // spec-profile extraction, and usage for both
	json    fastjson.Parser // agentgazer: the request document
}

// NewExtractor returns an Extractor for profile p.
func NewExtractor(p Profile) *Extractor { return &Extractor{profile: p} }

// Extract computes the features of a request record. rec must not be a
// control record, a malformed item or a skipped one.
func (x *Extractor) Extract(rec *ingest.Record) Features {
	if x.profile == ProfileAgentGazer {
		return x.agentgazer(rec)
	}
	return x.spec(rec)
}

// spec implements SPEC §4.1: the prompt is the last user message, the
// response text is the assistant text plus its tool calls, and the tool
// signature comes from the tool calls of the agent's most recent turn.
func (x *Extractor) spec(rec *ingest.Record) Features {
	var f Features
	req, err := x.body.ParseRequest(rec.Request)
	if err != nil {
		f.Err = err
		return f
	}
	if req.HasPrompt {
		f.Prompt, f.HasPrompt = simhash.Hash(req.Prompt)
	}
	f.ToolSig = req.ToolSig
	x.response(rec, &f, true)
	return f
}

// agentgazer implements SPEC §4.2: prompt and tool signature as AgentGazer
// takes them, and the response hash over the raw response body text.
func (x *Extractor) agentgazer(rec *ingest.Record) Features {
	var f Features
	v, err := x.json.ParseBytes(rec.Request)
	if err != nil {
		f.Err = errNotJSON
		return f
	}
	if err := agentgazer.Check(v); err != nil {
		f.Err = err // AgentGazer's extractors would throw: not recorded, not scored
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

var errNotJSON = errors.New("request body is not JSON: not scored (AgentGazer forwards it unscored)")

// response reads the response body for its usage and, when hash is set,
// hashes its canonical text.
func (x *Extractor) response(rec *ingest.Record, f *Features, hash bool) {
	if len(rec.Response) == 0 {
		return
	}
	resp, err := x.body.ParseResponse(rec.Response)
	if err != nil {
		if hash {
			f.Warn = "response not hashed: " + err.Error()
		}
		return
	}
	if hash && len(resp.Text) > 0 {
		f.Response, f.HasResp = simhash.Hash(resp.Text)
	}
	if resp.HasUsage {
		f.TokensIn, f.TokensOut, f.HasUsage = resp.TokensIn, resp.TokensOut, true
	}
}
