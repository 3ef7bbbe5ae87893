package body

import (
	"bytes"
	"fmt"

	"github.com/valyala/fastjson"
)

// ParseResponse extracts the canonical response text, model and token usage
// of a provider response body: a JSON document, a whole text/event-stream,
// or a JSON array of stream chunks. A streamed body gives exactly the Text,
// model and usage of the equivalent non-streamed body. Text is valid while
// raw is (it may point into it) and until p's next call. An empty body or an error body gives an empty Response and
// no error. The error says what is wrong with the body; callers prefix the
// record position.
func (p *Parser) ParseResponse(raw []byte) (Response, error) {
	p.resetOutput()
	p.st.reset()
	b := trimLeft(raw)
	if len(b) == 0 {
		return Response{}, nil
	}
	if isEventStream(b) {
		return p.eventStream(b)
	}
	if !p.treeOnly {
		if r, ok := p.fastResponse(b); ok {
			return r, nil
		}
		p.resetOutput()
	}
	return p.parseResponseTree(b)
}

// parseResponseTree is ParseResponse on fastjson's tree of the whole body b
// (trimmed, not an event stream): the reference for the fast path, and the
// path of every shape it leaves.
func (p *Parser) parseResponseTree(b []byte) (Response, error) {
	v, err := p.doc.ParseBytes(b)
	if err != nil {
		return Response{}, notJSON("response body", b)
	}
	return p.responseTree(v)
}

// ResponseOf is ParseResponse of a body its caller has already parsed: v
// is fastjson's tree of the whole body, a JSON document (not an event
// stream). It gives what ParseResponse gives for that body, without
// reading it again.
func (p *Parser) ResponseOf(v *fastjson.Value) (Response, error) {
	p.resetOutput()
	p.st.reset()
	return p.responseTree(v)
}

// UsageOf returns the token usage ResponseOf(v) reports (has: it
// reports one), reading only the usage object where the body is one
// completion: an OpenAI chat or legacy completion, a Responses object or
// an Anthropic message, whose text and tool calls do not change it. Any
// other body is read by ResponseOf.
func (p *Parser) UsageOf(v *fastjson.Value) (in, out int64, has bool) {
	if v.Type() == fastjson.TypeObject && !isError(v) && !v.Exists("choices", "0", "delta") &&
		!v.Exists("candidates") && !v.Exists("usageMetadata") && !v.Exists("promptFeedback") {
		var u usage
		switch {
		case v.Exists("choices"):
			u.readOpenAI(v.Get("usage"))
		case v.Exists("output") || string(v.GetStringBytes("object")) == "response":
			u.readResponses(v.Get("usage"))
		case string(v.GetStringBytes("type")) == "message" ||
			(v.Exists("content") && string(v.GetStringBytes("role")) == "assistant"):
			u.readAnthropic(v.Get("usage"))
		default:
			return 0, 0, false // not a response body ResponseOf knows
		}
		var r Response
		u.set(&r)
		return r.TokensIn, r.TokensOut, r.HasUsage
	}
	r, err := p.ResponseOf(v)
	return r.TokensIn, r.TokensOut, err == nil && r.HasUsage
}

// responseTree is parseResponseTree on the parsed tree v.
func (p *Parser) responseTree(v *fastjson.Value) (Response, error) {
	switch v.Type() {
	case fastjson.TypeArray:
		return p.chunkArray(v)
	case fastjson.TypeObject:
	default:
		return Response{}, fmt.Errorf("unknown response body shape: JSON %s", v.Type())
	}
	if isError(v) {
		return Response{}, nil
	}
	var r Response
	var u usage
	switch {
	case v.Exists("choices", "0", "delta"), v.Exists("candidates") || v.Exists("usageMetadata") || v.Exists("promptFeedback"):
		// A lone chat completion chunk, or a Gemini response (which has the
		// same shape streamed or not): a stream of one chunk.
		if err := p.chunk(v); err != nil {
			return Response{}, err
		}
		r = p.finishStream()
		r.Streamed = false
		return r, nil
	case v.Exists("choices"):
		r.API = p.openAIBody(v, &u)
	case v.Exists("output") || string(v.GetStringBytes("object")) == "response":
		r.API = APIOpenAIResponses
		p.responsesBody(v, &u)
	case string(v.GetStringBytes("type")) == "message" ||
		(v.Exists("content") && string(v.GetStringBytes("role")) == "assistant"):
		r.API = APIAnthropic
		p.anthropicBody(v, &u)
	default:
		return Response{}, fmt.Errorf("unknown response body shape: %s", describe(v))
	}
	r.Model = p.intern(v.GetStringBytes("model"))
	u.set(&r)
	r.Text = p.output()
	return r, nil
}

// trimLeft drops leading whitespace and a UTF-8 byte order mark.
func trimLeft(b []byte) []byte {
	b = b[skipWS(b, 0):]
	if bytes.HasPrefix(b, []byte("\xef\xbb\xbf")) {
		b = b[3+skipWS(b[3:], 0):]
	}
	return b
}

// isEventStream reports whether b (left-trimmed) starts like a
// text/event-stream: a comment or a data, event, id or retry field.
func isEventStream(b []byte) bool {
	switch b[0] {
	case ':':
		return true
	case '{', '[':
		return false // JSON, the common case
	}
	for _, f := range [...]string{"data", "event", "id", "retry"} {
		if len(b) > len(f) && string(b[:len(f)]) == f && (b[len(f)] == ':' || b[len(f)] == '\n' || b[len(f)] == '\r') {
			return true
		}
	}
	return false
}

// isError reports whether a response body or chunk is an error: it has a
// non-null "error" object or string, or it is {"type":"error"}.
func isError(v *fastjson.Value) bool {
	if e := v.Get("error"); e != nil && (e.Type() == fastjson.TypeObject || e.Type() == fastjson.TypeString) {
		return true
	}
	return string(v.GetStringBytes("type")) == "error"
}

// usage is token counts as reported, before they are summed into a Response
// (see the package doc).
type usage struct {
	in, cacheWrite, cacheRead int64 // prompt tokens; Anthropic's cache tokens
	out, thoughts             int64 // generated tokens; Gemini's thoughts
	has                       bool
}

func (u *usage) set(r *Response) {
	if !u.has {
		return
	}
	r.HasUsage = true
	r.TokensIn = u.in + u.cacheWrite + u.cacheRead
	r.TokensOut = u.out + u.thoughts
}

// read overrides the counts from the fields of the usage object o that are
// present, naming them in key order: in, cacheWrite, cacheRead, out, thoughts
// ("" for a count this provider does not have).
func (u *usage) read(o *fastjson.Value, in, cacheWrite, cacheRead, out, thoughts string) {
	if o == nil || o.Type() != fastjson.TypeObject {
		return
	}
	u.has = true
	readInt(&u.in, o, in)
	readInt(&u.cacheWrite, o, cacheWrite)
	readInt(&u.cacheRead, o, cacheRead)
	readInt(&u.out, o, out)
	readInt(&u.thoughts, o, thoughts)
}

// readInt sets *dst to the number o[key] when it is present.
func readInt(dst *int64, o *fastjson.Value, key string) {
	if key == "" {
		return
	}
	v := o.Get(key)
	if v == nil || v.Type() != fastjson.TypeNumber {
		return
	}
	if n, err := v.Int64(); err == nil {
		*dst = n
	} else if f, err := v.Float64(); err == nil && f >= -1e18 && f <= 1e18 {
		*dst = int64(f)
	}
}

func (u *usage) readOpenAI(o *fastjson.Value) {
	u.read(o, "prompt_tokens", "", "", "completion_tokens", "")
}

func (u *usage) readResponses(o *fastjson.Value) {
	u.read(o, "input_tokens", "", "", "output_tokens", "")
}

func (u *usage) readAnthropic(o *fastjson.Value) {
	u.read(o, "input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens", "")
}

func (u *usage) readGemini(o *fastjson.Value) {
	u.read(o, "promptTokenCount", "", "", "candidatesTokenCount", "thoughtsTokenCount")
}

// openAIBody reads an OpenAI chat completion (choices[0].message) or legacy
// completion (choices[0].text).
func (p *Parser) openAIBody(v *fastjson.Value, u *usage) API {
	u.readOpenAI(v.Get("usage"))
	choices := v.GetArray("choices")
	if len(choices) == 0 {
		return APIOpenAIChat
	}
	c := choices[0]
	if m := c.Get("message"); m != nil && m.Type() == fastjson.TypeObject {
		p.addContent(m.Get("content"))
		p.text.add(m.GetStringBytes("refusal"))
		p.chatCalls(m)
		return APIOpenAIChat
	}
	if t := c.GetStringBytes("text"); t != nil {
		p.text.add(t)
		return APILegacy
	}
	return APIOpenAIChat
}

// addContent adds the text of an assistant message content: a string, or
// each text part of a content array.
func (p *Parser) addContent(c *fastjson.Value) {
	if c == nil {
		return
	}
	switch c.Type() {
	case fastjson.TypeString:
		s, _ := c.StringBytes()
		p.text.add(s)
	case fastjson.TypeArray:
		a, _ := c.Array()
		for _, part := range a {
			if s, ok, _ := partText(part, ""); ok {
				p.text.add(s)
			}
		}
	}
}

// responsesBody reads an OpenAI Responses object: output[] items of type
// message (output_text and refusal parts) and function_call.
func (p *Parser) responsesBody(v *fastjson.Value, u *usage) {
	u.readResponses(v.Get("usage"))
	for _, it := range v.GetArray("output") {
		switch string(it.GetStringBytes("type")) {
		case "message":
			for _, part := range it.GetArray("content") {
				switch string(part.GetStringBytes("type")) {
				case "output_text":
					p.text.add(part.GetStringBytes("text"))
				case "refusal":
					p.text.add(part.GetStringBytes("refusal"))
				}
			}
		case "function_call":
			p.addCall(it.GetStringBytes("name"), it.Get("arguments"))
		}
	}
}

// anthropicBody reads an Anthropic message: content[] text and tool_use
// blocks (thinking blocks are not response text).
func (p *Parser) anthropicBody(v *fastjson.Value, u *usage) {
	u.readAnthropic(v.Get("usage"))
	for _, b := range v.GetArray("content") {
		switch string(b.GetStringBytes("type")) {
		case "text":
			p.text.add(b.GetStringBytes("text"))
		case "tool_use":
			p.addCall(b.GetStringBytes("name"), b.Get("input"))
		}
	}
}
