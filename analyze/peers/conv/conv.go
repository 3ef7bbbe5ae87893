// Package conv turns one captured LLM call into what a peer framework's
// loop detector sees of it (../shared/PEER-REPLAY.md, "Conventions shared
// by the peer profiles"): the new user prompts and the tool results the
// request adds after the agent's last turn, and the text and tool calls of
// the response. It reads OpenAI chat and Anthropic Messages bodies; it does
// no I/O and keeps no state between calls, so records convert in parallel.
package conv

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/valyala/fastjson"
)

// Call is one tool call of a response.
type Call struct {
	ID   string
	Name string // as given (untrimmed)
	// Args is the JSON text the call's arguments parse from: OpenAI's
	// function.arguments string, or Anthropic's input value re-encoded.
	// ArgsString says Args came as an OpenAI arguments string (which may
	// not be JSON at all).
	Args       string
	ArgsString bool
}

// Result is one tool result of a request's tail.
type Result struct {
	ID      string // tool_call_id or tool_use_id
	Text    string // the result's text (text parts joined with "\n")
	IsError bool   // Anthropic's is_error
}

// Turn is what one call adds to the conversation a peer tracks.
type Turn struct {
	// Prompts counts the new user prompts in the request's tail (user
	// messages that are not only tool results); PromptTexts are their
	// texts (text parts joined with "\n").
	Prompts     int
	PromptTexts []string
	// Results are the tool results in the tail, in order.
	Results []Result
	// Fresh says the request holds no assistant message: the first call
	// of a conversation (an agent that keeps no history makes only such
	// calls).
	Fresh bool
	// HasTools says the request has a tools list (Offers reads it).
	HasTools bool
	tools    []byte // the list, pointing into the request
	// Failed says the call produced no answer: a status outside
	// 200..299, or a response without choices (OpenAI) or content
	// (Anthropic). A failed call has no Text and no Calls.
	Failed bool
	// Text is the response's text (the message content, or its text parts
	// joined with no separator); Calls its tool calls, in order.
	Text  string
	Calls []Call
	// NoResponse says the capture holds no response body.
	NoResponse bool
}

// ErrNoMessages is the error of a request body without a messages array.
var ErrNoMessages = errors.New("request has no messages array (peer profiles read OpenAI chat and Anthropic Messages bodies)")

// Converter converts records. It holds parser state: one per goroutine.
// The zero value is ready to use.
type Converter struct {
	// NoTailText leaves the texts of the tail's prompts and tool results
	// out (PromptTexts, Result.Text): for a peer that reads only how many
	// there are.
	NoTailText bool
	// Prompt, when set, is handed each new prompt's text (text parts
	// joined with "\n") instead of PromptTexts keeping a copy: the bytes
	// are the parser's, valid during the call only.
	Prompt    func(text []byte)
	req, resp fastjson.Parser
	pbuf      []byte // Prompt's text of parts
	// tree is the last response body's tree when it parsed as a JSON
	// object as it stands (nil otherwise): Features reads its usage.
	tree *fastjson.Value
	buf  []byte
	tail [][2]int // scanRequest's spans
}

// Convert reads a request body, its response body (empty: none captured)
// and the call's HTTP status. The error is for a request that cannot be
// read; a response that cannot be read counts as a failed call and is
// reported in warn.
func (c *Converter) Convert(req, resp []byte, status int) (t Turn, warn string, err error) {
	c.tree = nil
	if err := c.Request(req, &t); err != nil {
		return t, "", err
	}
	if len(bytes.TrimSpace(resp)) == 0 {
		t.NoResponse = true
		if status < 200 || status > 299 {
			t.Failed = true
		}
		return t, "", nil
	}
	if status < 200 || status > 299 {
		t.Failed = true
		return t, "", nil
	}
	if err := c.Response(resp, &t); err != nil {
		t.Failed, t.Text, t.Calls = true, "", nil
		return t, "response not read, counted as a failed call: " + err.Error(), nil
	}
	return t, "", nil
}

// Request reads a request body into t: its prompts and tool results,
// and where its tools list is (Turn.Offers reads it). Only the messages
// after the last assistant message are parsed, when the body is a plain
// object; any other body is parsed whole.
func (c *Converter) Request(req []byte, t *Turn) error {
	if len(bytes.TrimSpace(req)) == 0 {
		return errors.New("no request body")
	}
	tools, fresh, ok := scanRequest(req, &c.tail)
	t.Fresh = fresh
	if ok {
		for _, sp := range c.tail {
			m, err := c.req.ParseBytes(req[sp[0]:sp[1]])
			if err != nil {
				ok = false
				break
			}
			c.tailMessage(m, t)
		}
	}
	if !ok {
		*t = Turn{NoResponse: t.NoResponse}
		return c.requestTree(req, t)
	}
	if tools[1] > tools[0] {
		t.HasTools, t.tools = true, req[tools[0]:tools[1]]
	}
	return nil
}

// requestTree reads a request body with the full parser.
func (c *Converter) requestTree(req []byte, t *Turn) error {
	v, err := c.req.ParseBytes(req)
	if err != nil {
		return fmt.Errorf("request body is not JSON: %v", err)
	}
	if v.Type() == fastjson.TypeString {
		// A body captured as a JSON string holding the JSON document.
		if v, err = c.req.ParseBytes(v.GetStringBytes()); err != nil {
			return fmt.Errorf("request body is not JSON: %v", err)
		}
	}
	if v.Type() != fastjson.TypeObject {
		return fmt.Errorf("request body is a JSON %s, not an object", v.Type())
	}
	msgs := v.Get("messages")
	if msgs == nil || msgs.Type() != fastjson.TypeArray {
		return ErrNoMessages
	}
	if tl := v.Get("tools"); tl != nil {
		t.HasTools, t.tools = true, tl.MarshalTo(nil)
	}
	ms, _ := msgs.Array()
	last := -1
	for i, m := range ms {
		if bytes.Equal(m.GetStringBytes("role"), []byte("assistant")) {
			last = i
		}
	}
	t.Fresh = last < 0
	for _, m := range ms[last+1:] {
		c.tailMessage(m, t)
	}
	return nil
}

// tailMessage adds one message of the tail.
func (c *Converter) tailMessage(m *fastjson.Value, t *Turn) {
	switch string(m.GetStringBytes("role")) {
	case "user":
		c.userMessage(m, t)
	case "tool":
		t.Results = append(t.Results, Result{ID: string(m.GetStringBytes("tool_call_id")), Text: c.tailText(m.Get("content"))})
	}
}

// Offers reports whether the request's tools list offers a tool named
// name.
func (t *Turn) Offers(name string) bool {
	found := false
	elements(t.tools, skipWS(t.tools, 0), func(vs, ve int) bool {
		found = found || string(toolName(t.tools, vs)) == name
		return !found
	})
	return found
}

// userMessage adds a user message of the tail: tool results when it
// carries Anthropic tool_result blocks (its text blocks are dropped),
// else a new prompt.
func (c *Converter) userMessage(m *fastjson.Value, t *Turn) {
	results := false
	for _, b := range m.GetArray("content") {
		if bytes.Equal(b.GetStringBytes("type"), []byte("tool_result")) {
			results = true
			t.Results = append(t.Results, Result{ID: string(b.GetStringBytes("tool_use_id")),
				Text: c.tailText(b.Get("content")), IsError: b.GetBool("is_error")})
		}
	}
	if !results {
		t.Prompts++
		switch {
		case c.Prompt != nil:
			c.pbuf = c.appendText(c.pbuf[:0], m.Get("content"), "\n")
			c.Prompt(c.pbuf)
		case !c.NoTailText:
			t.PromptTexts = append(t.PromptTexts, c.text(m.Get("content"), "\n"))
		}
	}
}

// tailText is the text of a tool result ("" under NoTailText).
func (c *Converter) tailText(v *fastjson.Value) string {
	if c.NoTailText {
		return ""
	}
	return c.text(v, "\n")
}

// text returns a content value's text: a string, or the text of its parts
// joined with sep.
func (c *Converter) text(v *fastjson.Value, sep string) string {
	if v != nil && v.Type() == fastjson.TypeString {
		return string(v.GetStringBytes())
	}
	return string(c.appendText(nil, v, sep))
}

// appendText appends text's result to dst.
func (c *Converter) appendText(dst []byte, v *fastjson.Value, sep string) []byte {
	if v == nil {
		return dst
	}
	switch v.Type() {
	case fastjson.TypeString:
		return append(dst, v.GetStringBytes()...)
	case fastjson.TypeArray:
		n := 0
		for _, p := range v.GetArray() {
			var s []byte
			switch {
			case p.Type() == fastjson.TypeString:
				s = p.GetStringBytes()
			case p.Get("text") != nil:
				s = p.GetStringBytes("text")
			default:
				continue
			}
			if n > 0 {
				dst = append(dst, sep...)
			}
			dst = append(dst, s...)
			n++
		}
	}
	return dst
}

// Response reads a response body (of a call that succeeded) into t: its
// text and tool calls, or Failed when it has no answer.
func (c *Converter) Response(resp []byte, t *Turn) error {
	v, err := c.resp.ParseBytes(resp)
	if err != nil {
		if b := bytes.TrimSpace(resp); len(b) > 0 && b[0] != '{' && b[0] != '[' && b[0] != '"' {
			return errors.New("the body is not a JSON document (an event stream is not read by peer profiles)")
		}
		return fmt.Errorf("response body is not JSON: %v", err)
	}
	if v.Type() == fastjson.TypeString {
		if v, err = c.resp.ParseBytes(v.GetStringBytes()); err != nil {
			return fmt.Errorf("response body is not JSON: %v", err)
		}
	} else if v.Type() == fastjson.TypeObject {
		c.tree = v
	}
	if v.Type() != fastjson.TypeObject {
		return fmt.Errorf("response body is a JSON %s, not an object", v.Type())
	}
	if ch := v.Get("choices"); ch != nil {
		choices := v.GetArray("choices")
		if len(choices) == 0 {
			t.Failed = true
			return nil
		}
		m := choices[0].Get("message")
		if m == nil {
			t.Failed = true
			return nil
		}
		t.Text = c.text(m.Get("content"), "")
		for _, tc := range m.GetArray("tool_calls") {
			f := tc.Get("function")
			call := Call{ID: string(tc.GetStringBytes("id")), Name: string(f.GetStringBytes("name")), ArgsString: true}
			if a := f.Get("arguments"); a != nil {
				if a.Type() == fastjson.TypeString {
					call.Args = string(a.GetStringBytes())
				} else {
					// Some gateways log parsed arguments.
					c.buf = a.MarshalTo(c.buf[:0])
					call.Args, call.ArgsString = string(c.buf), false
				}
			}
			t.Calls = append(t.Calls, call)
		}
		return nil
	}
	content := v.Get("content")
	if content == nil || content.Type() != fastjson.TypeArray {
		t.Failed = true
		return nil
	}
	var sb strings.Builder
	for _, b := range content.GetArray() {
		switch string(b.GetStringBytes("type")) {
		case "text":
			sb.Write(b.GetStringBytes("text"))
		case "tool_use":
			call := Call{ID: string(b.GetStringBytes("id")), Name: string(b.GetStringBytes("name"))}
			if in := b.Get("input"); in != nil {
				c.buf = in.MarshalTo(c.buf[:0])
				call.Args = string(c.buf)
			}
			t.Calls = append(t.Calls, call)
		}
	}
	t.Text = sb.String()
	return nil
}
