package body

import "bytes"

// The fast path reads the common shapes, an OpenAI chat completions request
// and a non-streamed chat.completion response, straight from the body's
// bytes (scan.go) in one walk, skipping what extraction does not need (the
// system prompt, earlier turns, ids) instead of building fastjson's tree of
// it.
//
// It gives exactly the Request or Response of the tree path (request.go,
// response.go), which stays the reference: fast_test.go runs both on the
// same inputs. Whatever it does not fully understand, it leaves to the tree
// path by returning false: a document fastjson may read differently from a
// strict JSON reader (see scan.go), a body of another dialect, a lone stream
// chunk, a count in usage that is not a small integer. Every value it reads
// is the first member of its name, as fastjson's Get finds it.

// fastState is the fast path's scratch space, reused between calls.
type fastState struct {
	msgs  []chatMsg // the messages of a request
	parts []span    // the text parts of content arrays, strings in the body
	calls []callRef // the tool calls of messages
	tmp   []byte    // one unescaped string, compared or copied at once
	name  []byte    // a tool call's name, unescaped
	args  []byte    // a tool call's arguments text, unescaped
}

func (f *fastState) reset() {
	f.msgs = f.msgs[:0]
	f.parts = f.parts[:0]
	f.calls = f.calls[:0]
}

// chatMsg is what the fast path keeps of one message: its role, the first
// value of each field extraction reads (absent spans when missing), and the
// text parts and calls found in them.
type chatMsg struct {
	role      msgRole
	toolCalls bool // it has a "tool_calls" member, of any value
	blocks    bool // its content holds an Anthropic tool_use block
	content   span
	refusal   span
	parts     [2]int // p.fast.parts[parts[0]:parts[1]]: the text parts of a content array
	calls     [2]int // p.fast.calls[calls[0]:calls[1]]: its tool calls
	toolParts int    // content parts of the tool type (tool output)
}

// msgRole is the role of a message as extraction sees it.
type msgRole uint8

const (
	roleOther     msgRole = iota // any other role, or none
	roleUser                     // "user"
	roleAssistant                // "assistant"
	roleOpenAI                   // "system", "developer", "tool", "function": only OpenAI has them
)

// callRef is one tool call: the spans of its name and arguments values
// (absent when missing).
type callRef struct{ name, args span }

// unquoted returns the string at s in b unescaped: the body's own bytes when
// it holds no escape, else a copy in scratch space valid until the next call.
func (p *Parser) unquoted(b []byte, s span) []byte {
	raw := s.str(b)
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw
	}
	p.fast.tmp = appendUnescaped(p.fast.tmp[:0], raw)
	return p.fast.tmp
}

// unescaped returns the string content raw unescaped: raw itself when it
// holds no escape (most prompts), else a copy in p.prompt, which the
// other scratch strings (tmp, name, args) leave alone until the next call.
func (p *Parser) unescaped(raw []byte) []byte {
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw
	}
	p.prompt = appendUnescaped(p.prompt[:0], raw)
	return p.prompt
}

// isString reports whether the value at s in b is the string want.
func (p *Parser) isString(b []byte, s span, want string) bool {
	return s.kind(b) == '"' && string(p.unquoted(b, s)) == want
}

// fastRequest is ParseRequest's fast path for OpenAI chat requests (and
// Anthropic Messages requests of the same shape): a document whose first
// "messages" member is an array. It reports false for anything else.
func (p *Parser) fastRequest(raw []byte) (req Request, ok bool) {
	i := skipWS(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return req, false
	}
	var (
		model, stream, system  span
		msgs, tools, anthropic bool
	)
	p.fast.reset()
	m := objectAt(raw, i)
	for name, more := m.next(); more; name, more = m.next() {
		switch string(name) {
		case "messages":
			if msgs {
				m.value()
				break
			}
			msgs = true
			if raw[m.i] != '[' {
				return req, false // an error of the tree path
			}
			if m.i, ok = p.readMessages(raw, m.i); !ok {
				return req, false
			}
		case "model":
			first(&model, m.value())
		case "stream":
			first(&stream, m.value())
		case "system":
			first(&system, m.value())
		case "anthropic_version":
			m.value()
			anthropic = true
		case "tools":
			if tools {
				m.value()
				break
			}
			tools = true
			var schema bool
			if m.i, schema, ok = firstToolHasSchema(raw, m.i); !ok {
				return req, false
			}
			anthropic = anthropic || schema
		case "contents", "prompt", "input":
			return req, false // other dialects: left to the tree path
		default:
			m.value()
		}
	}
	if m.failed || !msgs || skipWS(raw, m.i) != len(raw) {
		return req, false
	}
	if k := system.kind(raw); k != 0 && k != 'n' {
		anthropic = true
	}

	p.calls.reset()
	all := p.fast.msgs
	// Prompt: the last user message that is not only tool output.
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].role != roleUser {
			continue
		}
		text, toolOutput := p.fastContentText(raw, &all[i])
		if toolOutput {
			anthropic = true
			continue
		}
		req.Prompt = text
		break
	}
	// Tool calls: the last run of consecutive assistant messages.
	end := len(all) - 1
	for end >= 0 && all[end].role != roleAssistant {
		end--
	}
	for i := end; i >= 0 && all[i].role == roleAssistant; i-- {
		p.addCalls(raw, &all[i])
		anthropic = anthropic || all[i].blocks
	}

	var modelName []byte
	if model.kind(raw) == '"' {
		modelName = p.unquoted(raw, model)
	}
	switch {
	case anthropic:
		req.API = APIAnthropic
	case p.openAIMessages():
		req.API = APIOpenAIChat
	case bytes.HasPrefix(modelName, []byte("claude")):
		req.API = APIAnthropic
	default:
		req.API = APIOpenAIChat
	}
	req.Model = p.intern(modelName)
	req.Stream = stream.kind(raw) == 't'
	p.finishRequest(&req)
	return req, true
}

// openAIMessages reports whether a message of the request has a role or a
// field only OpenAI has (see chatAPI).
func (p *Parser) openAIMessages() bool {
	for _, m := range p.fast.msgs {
		if m.role == roleOpenAI || m.toolCalls {
			return true
		}
	}
	return false
}

// firstToolHasSchema reads the "tools" value at b[i] and reports whether
// tools.0.input_schema exists (an Anthropic tool) as fastjson's Exists finds
// it. It fails on an object, whose member "0" fastjson would look up.
func firstToolHasSchema(b []byte, i int) (end int, schema, ok bool) {
	switch b[i] {
	case '{':
		return 0, false, false
	case '[':
	default:
		end, ok = skipValue(b, i)
		return end, false, ok
	}
	e := arrayAt(b, i)
	for n := 0; e.next(); n++ {
		if n > 0 || b[e.i] != '{' {
			e.value()
			continue
		}
		m := objectAt(b, e.i)
		for name, more := m.next(); more; name, more = m.next() {
			schema = schema || string(name) == "input_schema"
			m.value()
		}
		if m.failed {
			return 0, false, false
		}
		e.i = m.i
	}
	return e.i, schema, !e.failed
}

// readMessages reads the messages array at b[i] into p.fast and returns the
// index just past it.
func (p *Parser) readMessages(b []byte, i int) (int, bool) {
	e := arrayAt(b, i)
	for e.next() {
		var msg chatMsg
		if b[e.i] != '{' {
			e.value() // not a message: no role, no fields
		} else {
			end, ok := p.readMessage(b, e.i, "tool_result", &msg)
			if !ok {
				return 0, false
			}
			e.i = end
		}
		p.fast.msgs = append(p.fast.msgs, msg)
	}
	return e.i, !e.failed
}

// readMessage reads the message object at b[i] into msg, its text parts and
// calls into p.fast, and returns the index just past it. Content parts of
// type toolType are tool output (see partText).
func (p *Parser) readMessage(b []byte, i int, toolType string, msg *chatMsg) (int, bool) {
	var role, funcCall span
	seenCalls := false
	msg.parts = [2]int{len(p.fast.parts), len(p.fast.parts)}
	msg.calls = [2]int{len(p.fast.calls), len(p.fast.calls)}
	m := objectAt(b, i)
	for name, more := m.next(); more; name, more = m.next() {
		var ok bool
		switch string(name) {
		case "role":
			first(&role, m.value())
		case "content":
			if !msg.content.absent() || b[m.i] != '[' {
				first(&msg.content, m.value())
				break
			}
			start := m.i
			if m.i, ok = p.readContent(b, m.i, toolType, msg); !ok {
				return 0, false
			}
			msg.content = span{start, m.i}
		case "refusal":
			first(&msg.refusal, m.value())
		case "tool_calls":
			msg.toolCalls = true
			if !m.firstOf(&seenCalls, '[') {
				m.value()
				break
			}
			if m.i, ok = p.readToolCalls(b, m.i); !ok {
				return 0, false
			}
		case "function_call":
			first(&funcCall, m.value())
		default:
			m.value()
		}
	}
	if m.failed {
		return 0, false
	}
	if funcCall.kind(b) == '{' {
		if _, ok := p.readCall(b, funcCall.off, "arguments"); !ok {
			return 0, false
		}
	}
	msg.parts[1] = len(p.fast.parts)
	msg.calls[1] = len(p.fast.calls)
	if role.kind(b) == '"' {
		switch string(p.unquoted(b, role)) {
		case "user":
			msg.role = roleUser
		case "assistant":
			msg.role = roleAssistant
		case "system", "developer", "tool", "function":
			msg.role = roleOpenAI
		}
	}
	return m.i, true
}

// readToolCalls reads the tool_calls array at b[i]: a call for each element
// that is an object with a "function" member (one with no name and no
// arguments when that is not an object, as fastjson's Get finds none).
func (p *Parser) readToolCalls(b []byte, i int) (int, bool) {
	e := arrayAt(b, i)
	for e.next() {
		if b[e.i] != '{' {
			e.value()
			continue
		}
		seen := false // a "function" member
		m := objectAt(b, e.i)
		for name, more := m.next(); more; name, more = m.next() {
			if string(name) != "function" || seen {
				m.value()
				continue
			}
			seen = true
			if b[m.i] != '{' {
				m.value()
				p.fast.calls = append(p.fast.calls, callRef{})
				continue
			}
			var ok bool
			if m.i, ok = p.readCall(b, m.i, "arguments"); !ok {
				return 0, false
			}
		}
		if m.failed {
			return 0, false
		}
		e.i = m.i
	}
	return e.i, !e.failed
}

// readCall reads the object at b[i] as a call: its "name" and its argsKey
// member.
func (p *Parser) readCall(b []byte, i int, argsKey string) (int, bool) {
	var v [2]span
	end, ok := fields(b, i, []string{"name", argsKey}, v[:])
	if ok {
		p.fast.calls = append(p.fast.calls, callRef{name: v[0], args: v[1]})
	}
	return end, ok
}

// readContent reads the content array at b[i]: its text parts (see
// partText), the number of parts of type toolType, and its Anthropic
// tool_use blocks.
func (p *Parser) readContent(b []byte, i int, toolType string, msg *chatMsg) (int, bool) {
	e := arrayAt(b, i)
	for e.next() {
		switch b[e.i] {
		case '"':
			p.fast.parts = append(p.fast.parts, e.value())
			continue
		case '{':
		default:
			e.value()
			continue
		}
		// The members partText and chatCalls read, and toolType's.
		var v [6]span
		names := []string{"type", "text", "thought", "name", "input", toolType}
		if toolType == "" {
			names = names[:5]
		}
		var ok bool
		if e.i, ok = fields(b, e.i, names, v[:]); !ok {
			return 0, false
		}
		typ, text, thought, name, input, tool := v[0], v[1], v[2], v[3], v[4], !v[5].absent()
		isText, isTool := false, false
		if typ.absent() {
			// A Gemini-style part: text unless it is a thought, or tool
			// output when it holds a member named toolType.
			isTool = tool
			isText = !tool && text.kind(b) == '"' && thought.kind(b) != 't'
		} else {
			var ts []byte // nil when the type is not a string, as in partText
			if typ.kind(b) == '"' {
				ts = p.unquoted(b, typ)
			}
			switch string(ts) {
			case "text", "input_text", "output_text":
				isText = text.kind(b) == '"'
			case toolType:
				isTool = toolType != ""
			}
			if string(ts) == "tool_use" {
				p.fast.calls = append(p.fast.calls, callRef{name, input})
				msg.blocks = true
			}
		}
		if isTool {
			msg.toolParts++
		}
		if isText {
			p.fast.parts = append(p.fast.parts, text)
		}
	}
	return e.i, !e.failed
}

// fastContentText is contentText for a message read by readMessage: the
// text of a string content (the body's own bytes when it holds no escape),
// or of the text parts of a content array joined with "\n", in p.prompt. toolOutput reports an array with no text part and
// at least one part of the tool type.
func (p *Parser) fastContentText(b []byte, msg *chatMsg) (text []byte, toolOutput bool) {
	switch msg.content.kind(b) {
	case '"':
		return p.unescaped(msg.content.str(b)), false
	case '[':
	default:
		return nil, false
	}
	parts := p.fast.parts[msg.parts[0]:msg.parts[1]]
	if len(parts) == 0 {
		return nil, msg.toolParts > 0
	}
	p.prompt = p.prompt[:0]
	for i, s := range parts {
		if i > 0 {
			p.prompt = append(p.prompt, '\n')
		}
		p.prompt = appendUnescaped(p.prompt, s.str(b))
	}
	return p.prompt, false
}

// addCalls adds the tool calls of a message read by readMessage, as
// addCall does.
func (p *Parser) addCalls(b []byte, msg *chatMsg) {
	for _, c := range p.fast.calls[msg.calls[0]:msg.calls[1]] {
		var name []byte
		if c.name.kind(b) == '"' {
			p.fast.name = appendUnescaped(p.fast.name[:0], c.name.str(b))
			name = p.fast.name
		}
		switch c.args.kind(b) {
		case 0, 'n':
			p.addCallJSON(name, nil)
		case '"':
			p.fast.args = appendUnescaped(p.fast.args[:0], c.args.str(b))
			p.addCallJSON(name, p.fast.args)
		default:
			// An object, array, number or boolean: its own text, as JSON
			// text arguments, has the canonical form of the value.
			p.addCallJSON(name, b[c.args.off:c.args.end])
		}
	}
}

// fastResponse is ParseResponse's fast path for a non-streamed OpenAI chat
// completion (or legacy completion): a document whose first "choices" member
// is an array. b is the trimmed body, not an event stream. It reports false
// for anything else; the caller then resets p's output.
func (p *Parser) fastResponse(b []byte) (r Response, ok bool) {
	if b[0] != '{' {
		return r, false
	}
	var (
		errv, typ, model span
		choices, counts  bool // a "choices" member; a "usage" member
		c                choice
		u                usage
	)
	p.fast.reset()
	m := objectAt(b, 0)
	for name, more := m.next(); more; name, more = m.next() {
		switch string(name) {
		case "choices":
			switch {
			case choices:
				m.value()
			case b[m.i] == '[':
				choices = true
				if m.i, ok = p.readChoices(b, m.i, &c); !ok {
					return r, false
				}
			case b[m.i] == '{':
				return r, false // choices.0 would name a member
			default:
				choices = true
				m.value()
			}
		case "error":
			first(&errv, m.value())
		case "type":
			first(&typ, m.value())
		case "usage":
			if !m.firstOf(&counts, '{') {
				m.value()
				break
			}
			u.has = true
			if m.i, ok = fastUsage(b, m.i, &u); !ok {
				return r, false
			}
		case "model":
			first(&model, m.value())
		case "candidates", "usageMetadata", "promptFeedback", "output":
			return r, false // other dialects: left to the tree path
		default:
			m.value()
		}
	}
	if m.failed || !choices || skipWS(b, m.i) != len(b) {
		return r, false
	}
	if k := errv.kind(b); k == '{' || k == '"' || p.isString(b, typ, "error") {
		return Response{}, true // an error body (isError)
	}

	r.API = APIOpenAIChat
	var whole []byte // the text, when it is one string without escapes and nothing more
	switch {
	case c.message:
		switch c.msg.content.kind(b) {
		case '"':
			s := c.msg.content.str(b)
			if len(s) > 0 && c.msg.refusal.kind(b) != '"' && c.msg.calls[0] == c.msg.calls[1] &&
				bytes.IndexByte(s, '\\') < 0 {
				whole = s // the body's own bytes: no copy
				break
			}
			p.text.add(p.unquoted(b, c.msg.content))
		case '[':
			for _, s := range p.fast.parts[c.msg.parts[0]:c.msg.parts[1]] {
				p.text.add(p.unquoted(b, s))
			}
		}
		if c.msg.refusal.kind(b) == '"' {
			p.text.add(p.unquoted(b, c.msg.refusal))
		}
		p.addCalls(b, &c.msg)
	case c.text.kind(b) == '"':
		p.text.add(p.unquoted(b, c.text))
		r.API = APILegacy
	}
	if model.kind(b) == '"' {
		r.Model = p.intern(p.unquoted(b, model))
	}
	u.set(&r)
	r.Text = p.output()
	if whole != nil {
		r.Text = whole
	}
	return r, true
}

// choice is what the fast path keeps of choices[0] of a response.
type choice struct {
	message bool    // its first "message" member is an object, read into msg
	msg     chatMsg // the message's fields
	text    span    // its first "text" member (a legacy completion)
}

// readChoices reads the choices array at b[i], keeping the first element in
// c, and returns the index just past it.
func (p *Parser) readChoices(b []byte, i int, c *choice) (int, bool) {
	e := arrayAt(b, i)
	for n := 0; e.next(); n++ {
		if n > 0 || b[e.i] != '{' {
			e.value() // not choices[0], or not an object: no message, no text
			continue
		}
		seen := false // a "message" member
		m := objectAt(b, e.i)
		for name, more := m.next(); more; name, more = m.next() {
			switch string(name) {
			case "delta":
				return 0, false // a lone stream chunk
			case "message":
				if !m.firstOf(&seen, '{') {
					m.value()
					break
				}
				c.message = true
				var ok bool
				if m.i, ok = p.readMessage(b, m.i, "", &c.msg); !ok {
					return 0, false
				}
			case "text":
				first(&c.text, m.value())
			default:
				m.value()
			}
		}
		if m.failed {
			return 0, false
		}
		e.i = m.i
	}
	return e.i, !e.failed
}

// fastUsage reads OpenAI's usage object at b[i] like readOpenAI and returns
// the index just past it. It reports false for a count that is a number but
// not a small integer (readInt's float fallback is left to the tree path).
func fastUsage(b []byte, i int, u *usage) (int, bool) {
	var v [2]span
	end, ok := fields(b, i, []string{"prompt_tokens", "completion_tokens"}, v[:])
	return end, ok && fastInt(b, v[0], &u.in) && fastInt(b, v[1], &u.out)
}

// fastInt is readInt for the value at s: it sets *dst when s is a number,
// and reports false for a number smallInt does not read.
func fastInt(b []byte, s span, dst *int64) bool {
	if k := s.kind(b); k != '-' && (k < '0' || k > '9') {
		return true // absent, or not a number
	}
	n, ok := smallInt(b, s)
	if ok {
		*dst = n
	}
	return ok
}
