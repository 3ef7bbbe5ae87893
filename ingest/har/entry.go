package har

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"reflect"
	"strings"

	"github.com/killswitch/killswitch/ingest"
)

// entry is the part of a HAR entry the reader uses. Header values are read
// only for content-encoding and the agent header; cookies are never read.
type entry struct {
	StartedDateTime *string  `json:"startedDateTime"`
	Time            *float64 `json:"time"`
	Request         struct {
		Method   string    `json:"method"`
		URL      string    `json:"url"`
		Headers  []header  `json:"headers"`
		PostData *postData `json:"postData"`
	} `json:"request"`
	Response *struct {
		Status  *int     `json:"status"`
		Headers []header `json:"headers"`
		Content struct {
			Encoding string          `json:"encoding"`
			Text     json.RawMessage `json:"text"`
		} `json:"content"`
	} `json:"response"`
}

type header struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type postData struct {
	Text     json.RawMessage `json:"text"`
	Encoding string          `json:"encoding"` // not in HAR 1.2; some writers add "base64"
}

// headerValue returns the value of the first header named name
// (case-insensitive) and whether there is one.
func headerValue(hs []header, name string) (string, bool) {
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return h.Value, true
		}
	}
	return "", false
}

// entry turns the raw JSON of entry i into a Record.
func (r *Reader) entry(i int64, raw []byte) *ingest.Record {
	pos := entryPos(r.name, i)
	bad := func(format string, args ...any) *ingest.Record {
		return &ingest.Record{Pos: pos, Err: ingest.Errorf(pos, format, args...)}
	}
	if off := invalidUTF8(raw); off >= 0 {
		return bad("invalid UTF-8 at byte %d of the entry", off+1)
	}
	var e entry
	if err := json.Unmarshal(raw, &e); err != nil {
		return bad("%s", unmarshalErr(err))
	}

	method := strings.ToUpper(e.Request.Method)
	if method == "" {
		return bad("request.method is missing")
	}
	if !isToken(method) {
		return bad("request.method is not an HTTP method")
	}
	if e.Request.URL == "" {
		return bad("request.url is missing")
	}
	u, err := url.Parse(e.Request.URL)
	if err != nil {
		// url.Error quotes the whole URL, query keys included: drop it.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return bad("request.url is not a URL: %v", err)
	}
	where := safeURL(u)
	route := agentRoute(u.Path)
	kind := endpointKind(u.Path)
	if method != "POST" || (kind == "" && route.agent == "") {
		return &ingest.Record{Pos: pos, Skip: "not an LLM call: " + method + " " + where}
	}

	if e.Request.PostData == nil {
		return bad("request body is missing (POST %s)", where)
	}
	pd := e.Request.PostData
	ce, _ := headerValue(e.Request.Headers, "Content-Encoding")
	req, err := decodeBody(pd.Text, pd.Encoding, ce, r)
	if err != nil {
		return bad("request body: %v", err)
	}
	if len(req) == 0 {
		return bad("request body is empty (POST %s)", where)
	}
	shape, err := requestShape(req)
	if err != nil {
		return bad("request body is not JSON: %v", err)
	}
	if !shape.llm {
		return &ingest.Record{Pos: pos, Skip: "not an LLM call: " + method + " " + where +
			" (request body has no messages, prompt, input or contents)"}
	}

	rec := &ingest.Record{
		Pos:      pos,
		Request:  req,
		Status:   200,
		Endpoint: u.Path,
		Provider: provider(u, route),
		Model:    shape.model,
	}
	if rec.Model == "" {
		rec.Model = pathModel(u.Path)
	}

	if e.StartedDateTime == nil {
		return bad("startedDateTime is missing")
	}
	ts, err := ingest.ParseTimeString(*e.StartedDateTime)
	if err != nil {
		return bad("startedDateTime: %v", err)
	}
	rec.TS = ts

	if e.Time != nil && *e.Time >= 0 && !math.IsInf(*e.Time, 0) && *e.Time < 1e15 {
		rec.LatencyMS = int64(math.Round(*e.Time))
		rec.HasLatency = true
	}

	// No response, no status, or status 0 (HAR's "no answer": an aborted
	// or blocked request): the breaker counts it as neither outcome.
	rec.NoStatus = e.Response == nil || e.Response.Status == nil || *e.Response.Status == 0
	if resp := e.Response; resp != nil {
		if resp.Status != nil {
			rec.Status = *resp.Status
		}
		ce, _ := headerValue(resp.Headers, "Content-Encoding")
		body, err := decodeBody(resp.Content.Text, resp.Content.Encoding, ce, r)
		if err != nil {
			return bad("response body: %v", err)
		}
		if len(body) > 0 {
			rec.Response = body
		}
	}

	rec.Agent = r.agent(route, e.Request.Headers)
	if r.opt.Agent == "" && route.agent == "" && ingest.LoneSurrogateError(raw) != nil {
		// Somewhere in the entry a string holds a lone surrogate escape (rare:
		// look closer): in the agent header it cannot name an agent.
		if err := r.agentHeaderSurrogate(raw); err != nil {
			return bad("request header %s: %v", r.opt.AgentHeader, err)
		}
	}
	return rec
}

// agentHeaderSurrogate returns the problem of the entry's agent header
// value when it holds a lone UTF-16 surrogate escape (see
// ingest.LoneSurrogateError), or nil.
func (r *Reader) agentHeaderSurrogate(raw []byte) error {
	var e struct {
		Request struct {
			Headers []struct {
				Name  string          `json:"name"`
				Value json.RawMessage `json:"value"`
			} `json:"headers"`
		} `json:"request"`
	}
	if json.Unmarshal(raw, &e) != nil {
		return nil // the entry decoded once already: this cannot fail
	}
	for _, h := range e.Request.Headers {
		if strings.EqualFold(h.Name, r.opt.AgentHeader) {
			return ingest.LoneSurrogateError(h.Value) // the first, as headerValue takes
		}
	}
	return nil
}

// agent picks the agent id per SPEC §3: the mapping flag, the AgentGazer
// route, the agent header, else "default".
func (r *Reader) agent(route route, hs []header) string {
	if r.opt.Agent != "" {
		return r.opt.Agent
	}
	if route.agent != "" {
		return route.agent
	}
	if v, ok := headerValue(hs, r.opt.AgentHeader); ok {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return "default"
}

// isToken reports whether s is an HTTP token (RFC 9110), as a method is.
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
			strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return len(s) > 0
}

// safeURL renders scheme://host/path for messages: no user info, query or
// fragment, so no key= parameter can leak; the path stays escaped, so an
// escaped '?' in it does not read as a query either.
func safeURL(u *url.URL) string {
	s := u.EscapedPath()
	if s == "" {
		s = "/"
	}
	if u.Host != "" {
		s = u.Host + s
		if u.Scheme != "" {
			s = u.Scheme + "://" + s
		} else {
			s = "//" + s
		}
	}
	return s
}

// route is an AgentGazer proxy route: /agents/{agent}/{provider}[/…].
type route struct{ agent, provider string }

func agentRoute(path string) route {
	rest, ok := strings.CutPrefix(path, "/agents/")
	if !ok {
		return route{}
	}
	agent, rest, ok := strings.Cut(rest, "/")
	if !ok || agent == "" {
		return route{}
	}
	prov, _, _ := strings.Cut(rest, "/")
	if prov == "" {
		return route{}
	}
	return route{agent: agent, provider: strings.ToLower(prov)}
}

// endpointKind classifies an LLM endpoint by its path suffix; "" is none.
func endpointKind(path string) string {
	p := strings.TrimSuffix(path, "/")
	last := p[strings.LastIndexByte(p, '/')+1:]
	switch {
	case strings.HasSuffix(p, "/chat/completions"):
		return "chat"
	case last == "completions":
		return "completions"
	case last == "responses":
		return "responses"
	case last == "messages":
		return "messages"
	case strings.HasSuffix(last, ":generateContent"), strings.HasSuffix(last, ":streamGenerateContent"):
		return "gemini"
	case last == "invoke" && strings.Contains(p, "/model/"):
		return "bedrock" // Anthropic Messages bodies on Amazon Bedrock
	}
	return ""
}

// provider names the upstream API: the AgentGazer route's provider, a
// known host, Gemini by its path, else the host name.
func provider(u *url.URL, rt route) string {
	if rt.provider != "" {
		return rt.provider
	}
	host := strings.ToLower(u.Hostname())
	switch {
	case host == "openai.com" || strings.HasSuffix(host, ".openai.com"):
		return "openai"
	case host == "anthropic.com" || strings.HasSuffix(host, ".anthropic.com"):
		return "anthropic"
	case strings.HasSuffix(host, "together.xyz") || strings.HasSuffix(host, "together.ai"):
		return "together"
	case host == "generativelanguage.googleapis.com" || endpointKind(u.Path) == "gemini":
		return "gemini"
	case strings.HasPrefix(host, "bedrock-runtime.") && strings.HasSuffix(host, ".amazonaws.com"):
		return "bedrock"
	}
	return host
}

// pathModel returns the model named in a Gemini (…/models/NAME:method) or
// Bedrock (…/model/NAME/invoke) path, or "".
func pathModel(path string) string {
	if i := strings.LastIndex(path, "/models/"); i >= 0 {
		name := path[i+len("/models/"):]
		if j := strings.LastIndexByte(name, ':'); j >= 0 && !strings.Contains(name, "/") {
			return name[:j]
		}
	}
	if i := strings.LastIndex(path, "/model/"); i >= 0 {
		if name, ok := strings.CutSuffix(path[i+len("/model/"):], "/invoke"); ok && !strings.Contains(name, "/") {
			return name
		}
	}
	return ""
}

// shape is what the reader needs from a request body.
type shape struct {
	llm   bool   // has messages, prompt, input or contents
	model string // "model" when it is a string
}

// present records that a member exists and is not null, without copying it.
type present bool

func (p *present) UnmarshalJSON(b []byte) error {
	*p = string(b) != "null"
	return nil
}

// maybeString keeps a member's value when it is a string and ignores it
// otherwise.
type maybeString string

func (s *maybeString) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = maybeString(v)
	}
	return nil
}

func requestShape(body []byte) (shape, error) {
	var m struct {
		Model                             maybeString
		Messages, Prompt, Input, Contents present
	}
	if err := json.Unmarshal(body, &m); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) { // valid JSON, not an object
			return shape{}, nil
		}
		return shape{}, syntaxMsg(err)
	}
	return shape{
		llm:   bool(m.Messages || m.Prompt || m.Input || m.Contents),
		model: string(m.Model),
	}, nil
}

// syntaxMsg words a JSON syntax error with its offset; it quotes at most
// one character of the input.
func syntaxMsg(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%s at byte %d", se.Error(), se.Offset)
	}
	return err
}

// unmarshalErr words an error decoding an entry: a type mismatch names the
// field, never its value.
func unmarshalErr(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "entry"
		}
		return fmt.Sprintf("%s is a JSON %s, want %s", field, te.Value, goKind(te.Type))
	}
	return syntaxMsg(err).Error()
}

func goKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int64, reflect.Float64:
		return "a number"
	case reflect.Struct:
		return "an object"
	case reflect.Slice:
		return "an array"
	case reflect.Pointer:
		return goKind(t.Elem())
	}
	return t.String()
}
