package body

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/valyala/fastjson"
)

// blockKind says what a streamed content block holds.
type blockKind uint8

const (
	blockOther blockKind = iota // thinking, reasoning, …: not response text
	blockText
	blockCall
)

// block is one content block of a streamed response, keyed by (idx, sub):
// Anthropic (block index, 0); OpenAI chat tool calls (tool-call index, 0) and
// the legacy function_call (-1, 1); Responses (output index, content index),
// with sub -1 for a function_call item.
type block struct {
	idx, sub int
	kind     blockKind
	name     []byte // tool name
	text     []byte // text, or the call's arguments as JSON text
	input    []byte // Anthropic: the input object of content_block_start
}

// streamState is the reassembly state of one streamed response. Everything
// in it is copied out of the event being parsed, as the next event reuses the
// parser's memory.
type streamState struct {
	api     API
	failed  bool // an error event or chunk: the response has no text
	final   bool // Responses: a response.completed event gave the whole response
	model   []byte
	usage   usage
	text    []byte // OpenAI content or legacy text; Gemini text, concatenated
	refusal []byte
	blocks  []block
	data    []byte // the data lines of one event, when there are several
}

func (s *streamState) reset() {
	s.api, s.failed, s.final = APIUnknown, false, false
	s.model = s.model[:0]
	s.usage = usage{}
	s.text = s.text[:0]
	s.refusal = s.refusal[:0]
	s.blocks = s.blocks[:0]
}

func (s *streamState) setAPI(a API) {
	if s.api == APIUnknown {
		s.api = a
	}
}

func (s *streamState) setModel(m []byte) {
	if len(s.model) == 0 {
		s.model = append(s.model, m...)
	}
}

// block returns the block keyed (idx, sub), adding it with kind when absent.
// Buffers of blocks from earlier responses are reused.
func (s *streamState) block(idx, sub int, kind blockKind) *block {
	for i := len(s.blocks) - 1; i >= 0; i-- {
		if b := &s.blocks[i]; b.idx == idx && b.sub == sub {
			return b
		}
	}
	n := len(s.blocks)
	if n < cap(s.blocks) {
		s.blocks = s.blocks[:n+1]
	} else {
		s.blocks = append(s.blocks, block{})
	}
	b := &s.blocks[n]
	b.idx, b.sub, b.kind = idx, sub, kind
	b.name, b.text, b.input = b.name[:0], b.text[:0], b.input[:0]
	return b
}

// eventStream reassembles a text/event-stream body (see the HTML living
// standard, "event stream interpretation"): lines end with "\r\n", "\n" or
// "\r"; a blank line ends an event; "data" lines of one event are joined with
// "\n"; lines starting with ':' are comments; "data: [DONE]" is ignored. An
// event not followed by a blank line at the end of the body still counts.
func (p *Parser) eventStream(b []byte) (Response, error) {
	st := &p.st
	var (
		line, dataLine, ndata int
		first                 []byte
	)
	dispatch := func() error {
		data := first
		if ndata > 1 {
			data = st.data
		}
		ndata = 0
		t := bytes.TrimSpace(data)
		if len(t) == 0 || string(t) == "[DONE]" {
			return nil
		}
		v, err := p.doc.ParseBytes(t)
		if err != nil {
			return fmt.Errorf("event-stream line %d: %w", dataLine, notJSON("data", t))
		}
		if err := p.chunk(v); err != nil {
			return fmt.Errorf("event-stream line %d: %w", dataLine, err)
		}
		return nil
	}
	for len(b) > 0 {
		var l []byte
		l, b = cutLine(b)
		line++
		if len(l) == 0 {
			if ndata > 0 {
				if err := dispatch(); err != nil {
					return Response{}, err
				}
			}
			continue
		}
		if l[0] == ':' {
			continue
		}
		name, value := l, []byte(nil)
		if i := bytes.IndexByte(l, ':'); i >= 0 {
			name, value = l[:i], l[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		if string(name) != "data" {
			continue // event, id, retry: the chunks say what they are
		}
		switch ndata {
		case 0:
			first, dataLine = value, line
		case 1:
			st.data = append(st.data[:0], first...)
			fallthrough
		default:
			st.data = append(st.data, '\n')
			st.data = append(st.data, value...)
		}
		ndata++
	}
	if ndata > 0 {
		if err := dispatch(); err != nil {
			return Response{}, err
		}
	}
	return p.finishStream(), nil
}

// cutLine returns the first line of b, without its terminator ("\r\n", "\n"
// or "\r"), and the rest of b.
func cutLine(b []byte) (line, rest []byte) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		i = len(b)
	}
	if j := bytes.IndexByte(b[:i], '\r'); j >= 0 {
		if j+1 < len(b) && b[j+1] == '\n' {
			return b[:j], b[j+2:]
		}
		return b[:j], b[j+1:]
	}
	if i == len(b) {
		return b, nil
	}
	return b[:i], b[i+1:]
}

// chunkArray reassembles a JSON array of stream chunks (Gemini's streamed
// REST answer, or chunks a logger collected).
func (p *Parser) chunkArray(v *fastjson.Value) (Response, error) {
	a, _ := v.Array()
	for i, c := range a {
		if err := p.chunk(c); err != nil {
			return Response{}, fmt.Errorf("response body array element [%d]: %w", i, err)
		}
	}
	return p.finishStream(), nil
}

// chunk folds one stream chunk (an event's data) into the stream state.
func (p *Parser) chunk(v *fastjson.Value) error {
	st := &p.st
	if v.Type() != fastjson.TypeObject {
		return fmt.Errorf("unknown chunk shape: JSON %s", v.Type())
	}
	if typ := v.GetStringBytes("type"); typ != nil {
		p.typedEvent(v, typ)
		return nil
	}
	switch {
	case isError(v):
		st.failed = true
	case v.Exists("choices"):
		p.openAIChunk(v)
	case v.Exists("candidates") || v.Exists("usageMetadata") || v.Exists("promptFeedback"):
		p.geminiChunk(v)
	default:
		return fmt.Errorf("unknown chunk shape: %s", describe(v))
	}
	return nil
}

// typedEvent folds an event that names its type: Anthropic Messages events,
// OpenAI Responses events ("response.…") and error events. Other types
// (ping, …) carry nothing for the response text.
func (p *Parser) typedEvent(v *fastjson.Value, typ []byte) {
	st := &p.st
	switch t := string(typ); t {
	case "error":
		st.failed = true
	case "message_start":
		st.setAPI(APIAnthropic)
		m := v.Get("message")
		st.setModel(m.GetStringBytes("model"))
		st.usage.readAnthropic(m.Get("usage"))
	case "content_block_start":
		st.setAPI(APIAnthropic)
		cb := v.Get("content_block")
		idx := v.GetInt("index")
		switch string(cb.GetStringBytes("type")) {
		case "text":
			b := st.block(idx, 0, blockText)
			b.text = append(b.text[:0], cb.GetStringBytes("text")...)
		case "tool_use":
			b := st.block(idx, 0, blockCall)
			b.name = append(b.name[:0], cb.GetStringBytes("name")...)
			if in := cb.Get("input"); in != nil {
				b.input = in.MarshalTo(b.input[:0])
			}
		default:
			st.block(idx, 0, blockOther)
		}
	case "content_block_delta":
		st.setAPI(APIAnthropic)
		d := v.Get("delta")
		idx := v.GetInt("index")
		switch string(d.GetStringBytes("type")) {
		case "text_delta":
			if b := st.block(idx, 0, blockText); b.kind == blockText {
				b.text = append(b.text, d.GetStringBytes("text")...)
			}
		case "input_json_delta":
			if b := st.block(idx, 0, blockCall); b.kind == blockCall {
				b.text = append(b.text, d.GetStringBytes("partial_json")...)
			}
		}
	case "message_delta":
		st.setAPI(APIAnthropic)
		st.usage.readAnthropic(v.Get("usage"))
	default:
		if bytes.HasPrefix(typ, []byte("response.")) {
			p.responsesEvent(v, t)
		}
	}
}

// responsesEvent folds an OpenAI Responses streaming event. The final
// response.completed (or .incomplete, .failed) event holds the whole response
// object, which is then read exactly as a non-streamed body; the deltas are
// the fallback for a stream cut short.
func (p *Parser) responsesEvent(v *fastjson.Value, t string) {
	st := &p.st
	st.setAPI(APIOpenAIResponses)
	oi := v.GetInt("output_index")
	ci := v.GetInt("content_index")
	switch t {
	case "response.created", "response.in_progress":
		st.setModel(v.GetStringBytes("response", "model"))
	case "response.completed", "response.incomplete", "response.failed":
		r := v.Get("response")
		if r == nil || r.Type() != fastjson.TypeObject {
			return
		}
		if isError(r) {
			st.failed = true
		}
		st.final = true
		p.resetOutput()
		st.model = append(st.model[:0], r.GetStringBytes("model")...)
		st.usage = usage{}
		p.responsesBody(r, &st.usage)
	case "response.output_item.added", "response.output_item.done":
		it := v.Get("item")
		switch string(it.GetStringBytes("type")) {
		case "function_call":
			b := st.block(oi, -1, blockCall)
			b.name = append(b.name[:0], it.GetStringBytes("name")...)
			b.text = append(b.text[:0], it.GetStringBytes("arguments")...)
		case "message":
			if t == "response.output_item.added" {
				return
			}
			for i, part := range it.GetArray("content") {
				p.responsesPart(oi, i, part)
			}
		}
	case "response.content_part.added", "response.content_part.done":
		p.responsesPart(oi, ci, v.Get("part"))
	case "response.output_text.delta", "response.refusal.delta":
		b := st.block(oi, ci, blockText)
		b.text = append(b.text, v.GetStringBytes("delta")...)
	case "response.output_text.done":
		b := st.block(oi, ci, blockText)
		b.text = append(b.text[:0], v.GetStringBytes("text")...)
	case "response.refusal.done":
		b := st.block(oi, ci, blockText)
		b.text = append(b.text[:0], v.GetStringBytes("refusal")...)
	case "response.function_call_arguments.delta":
		b := st.block(oi, -1, blockCall)
		b.text = append(b.text, v.GetStringBytes("delta")...)
	case "response.function_call_arguments.done":
		b := st.block(oi, -1, blockCall)
		if name := v.GetStringBytes("name"); len(name) > 0 {
			b.name = append(b.name[:0], name...)
		}
		b.text = append(b.text[:0], v.GetStringBytes("arguments")...)
	}
}

// responsesPart sets the text of content part ci of output item oi from a
// complete part object (output_text or refusal).
func (p *Parser) responsesPart(oi, ci int, part *fastjson.Value) {
	var s []byte
	switch string(part.GetStringBytes("type")) {
	case "output_text":
		s = part.GetStringBytes("text")
	case "refusal":
		s = part.GetStringBytes("refusal")
	default:
		return
	}
	b := p.st.block(oi, ci, blockText)
	b.text = append(b.text[:0], s...)
}

// openAIChunk folds an OpenAI chat completion chunk (choices[].delta) or
// legacy completion chunk (choices[].text) of choice 0. Tool-call deltas are
// merged by index: the name from the first delta that has one, the
// arguments concatenated. Compatibles that send both delta and text (Together)
// are read from the delta.
func (p *Parser) openAIChunk(v *fastjson.Value) {
	st := &p.st
	st.setModel(v.GetStringBytes("model"))
	if u := v.Get("usage"); u != nil && u.Type() == fastjson.TypeObject {
		st.usage.readOpenAI(u)
	}
	for _, c := range v.GetArray("choices") {
		if c.GetInt("index") != 0 {
			continue
		}
		d := c.Get("delta")
		if d == nil || d.Type() != fastjson.TypeObject {
			if t := c.GetStringBytes("text"); t != nil {
				st.setAPI(APILegacy)
				st.text = append(st.text, t...)
			}
			continue
		}
		if o := string(v.GetStringBytes("object")); o == "text_completion" || o == "completion.chunk" {
			st.setAPI(APILegacy) // Together's completion chunks carry a delta too
		}
		st.setAPI(APIOpenAIChat)
		st.text = append(st.text, d.GetStringBytes("content")...)
		st.refusal = append(st.refusal, d.GetStringBytes("refusal")...)
		for i, tc := range d.GetArray("tool_calls") {
			idx := i // a delta without index: its position
			if tc.Exists("index") {
				idx = tc.GetInt("index")
			}
			p.callDelta(st.block(idx, 0, blockCall), tc.Get("function"))
		}
		if f := d.Get("function_call"); f != nil && f.Type() == fastjson.TypeObject {
			p.callDelta(st.block(-1, 1, blockCall), f)
		}
	}
}

// callDelta merges one OpenAI function delta {name, arguments} into b.
func (p *Parser) callDelta(b *block, f *fastjson.Value) {
	if f == nil {
		return
	}
	if name := f.GetStringBytes("name"); len(b.name) == 0 {
		b.name = append(b.name, name...)
	}
	switch a := f.Get("arguments"); {
	case a == nil:
	case a.Type() == fastjson.TypeString:
		s, _ := a.StringBytes()
		b.text = append(b.text, s...)
	case a.Type() == fastjson.TypeObject:
		// Some compatibles send the whole arguments object at once.
		b.text = a.MarshalTo(b.text[:0])
	}
}

// geminiChunk folds one Gemini GenerateContentResponse: the text parts of
// candidates[0] are concatenated (streaming splits one text across chunks),
// thought parts skipped, functionCall parts added whole; usageMetadata is
// cumulative, so the last one wins.
func (p *Parser) geminiChunk(v *fastjson.Value) {
	st := &p.st
	st.setAPI(APIGemini)
	st.setModel(v.GetStringBytes("modelVersion"))
	st.usage.readGemini(v.Get("usageMetadata"))
	cands := v.GetArray("candidates")
	if len(cands) == 0 {
		return
	}
	for _, part := range cands[0].GetArray("content", "parts") {
		if fc := part.Get("functionCall"); fc != nil {
			p.addCall(fc.GetStringBytes("name"), fc.Get("args"))
			continue
		}
		if s, ok, _ := partText(part, ""); ok {
			st.text = append(st.text, s...)
		}
	}
}

// finishStream turns the stream state into the Response: text parts in
// order, then the calls.
func (p *Parser) finishStream() Response {
	st := &p.st
	r := Response{API: st.api, Model: p.intern(st.model), Streamed: true}
	st.usage.set(&r)
	if st.failed {
		return r
	}
	if !st.final {
		p.text.add(st.text)
		p.text.add(st.refusal)
		slices.SortStableFunc(st.blocks, func(a, b block) int {
			if a.idx != b.idx {
				return cmpInt(a.idx, b.idx)
			}
			return cmpInt(a.sub, b.sub)
		})
		for i := range st.blocks {
			b := &st.blocks[i]
			switch b.kind {
			case blockText:
				p.text.add(b.text)
			case blockCall:
				args := b.text
				if len(bytes.TrimSpace(args)) == 0 {
					args = b.input
				}
				p.addCallJSON(b.name, args)
			}
		}
	}
	r.Text = p.output()
	return r
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
