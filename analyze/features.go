package analyze

import (
	"github.com/valyala/fastjson"

	"github.com/killswitch/killswitch/analyze/body"
	"github.com/killswitch/killswitch/ingest"
)

// Features are what the kill switch takes from one request record: its
// fingerprint and what it cost. Computing them is independent per record,
// so it may run in parallel ahead of the Engine.
type Features struct {
	Entry // prompt hash, response hash (when the capture has a response), tool signature

	TokensIn, TokensOut int64 // from the response's usage, when HasUsage
	HasUsage            bool

	// Ext holds what a profile with its own Detector keeps of the request
	// beyond Entry (nil for the windowed profiles).
	Ext any

	Err  error  // the request cannot be scored (the decision is "skip")
	Warn string // a problem that does not stop scoring (e.g. an unreadable response)
}

// Extractor computes Features for one profile. It holds parser state: use
// one per goroutine.
type Extractor struct {
	profile *Profile
	body    body.Parser     // request and response bodies, and usage
	json    fastjson.Parser // a profile's own JSON parsing (agentgazer)
	// Ext is a profile's own per-goroutine state, created by the profile
	// on first use.
	Ext any
}

// NewExtractor returns an Extractor for profile p.
func NewExtractor(p *Profile) *Extractor { return &Extractor{profile: p.or()} }

// Extract computes the features of a request record. rec must not be a
// control record, a malformed item or a skipped one.
func (x *Extractor) Extract(rec *ingest.Record) Features { return x.profile.Extract(x, rec) }

// Fingerprint shows how the profile sees one input (see Profile.Fingerprint).
func (x *Extractor) Fingerprint(in []byte, asResponse bool) (Fingerprint, error) {
	return x.profile.Fingerprint(x, in, asResponse)
}

// Body returns the extractor's body parser, for profiles defined outside
// this package.
func (x *Extractor) Body() *body.Parser { return &x.body }

// Usage reads the response body of rec for its usage, when the capture has
// one, into f. It is what every profile does with the response besides
// hashing it.
func (x *Extractor) Usage(rec *ingest.Record, f *Features) { x.response(rec, f, false) }

// UsageOf is Usage for a response body the caller has already parsed: v
// is fastjson's tree of the whole body.
func (x *Extractor) UsageOf(v *fastjson.Value, f *Features) {
	if in, out, ok := x.body.UsageOf(v); ok {
		f.TokensIn, f.TokensOut, f.HasUsage = in, out, true
	}
}

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
		f.Response, f.HasResp = hashText(resp.Text)
	}
	if resp.HasUsage {
		f.TokensIn, f.TokensOut, f.HasUsage = resp.TokensIn, resp.TokensOut, true
	}
}
