package progress

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/valyala/fastjson"

	"github.com/killswitch/killswitch/analyze/body"
	"github.com/killswitch/killswitch/analyze/simhash"
)

// Features are what the progress detector keeps of one request: hashes and
// a few counts, no bodies. They are computed from the request and response
// bodies alone (Extractor.Extract), independently per record.
//
// A request is one step of the agent: the action it took last (the tool
// calls of the most recent assistant turn in the request's messages), the
// observation that action produced (the tool results and user turns after
// that turn: what is new in this request), and the answer the model gives
// to it (the response).
type Features struct {
	// Act is the churn-normalized hash of the action: the set of tool
	// calls, names and arguments with keys in any order, string arguments
	// with ids and timestamps replaced, numbers exact. 0: no tool call.
	Act uint64
	// ActNames hashes only the names of the calls (the set).
	ActNames uint64
	// ActLabel names the calls for explanations ("read_file", "grep×2").
	ActLabel string
	// Continues: the request carries an earlier turn of the agent (an
	// assistant message): it goes on with a task, it does not start one.
	Continues bool
	// ActBody: an argument of the action is a body it writes (a multi-line
	// text of minBodyWords words or more: an edit, a file, a patch).
	// Applying the same body again cannot progress: it is a no-op, or it
	// stacks a copy, whatever the observation says.
	ActBody bool
	// ActLoose is the action's hash with every number of its arguments
	// one placeholder (0 for a text command); NumSum adds up its integer
	// arguments and NumCount counts them. Two steps whose loose actions
	// and observations are equal and whose sums differ by 1 to NumCount
	// are one poll with its counters moved on (see Detector.Score).
	ActLoose uint64
	NumSum   int64
	NumCount int
	// ActText: the action is a command written in the assistant's text
	// (a SWE-agent command block, a ReAct "Action:"), not tool calls.
	ActText bool

	// Obs is the churn-normalized hash of the observation, with the
	// action's own string arguments (echoed back by tools) replaced. 0: no
	// observation.
	Obs      uint64
	ObsWords int  // tokens in the observation
	ObsErr   bool // the observation says the action failed (is_error, or an error word)
	// ObsEmpty: the observation is empty, or short and says so ("No
	// matches found", "did not produce any output"). An empty answer to a
	// new question is news: it never counts as argument churn.
	ObsEmpty bool
	// ObsEcho: the observation echoes some argument of the action. An
	// error that echoes none is the same whatever the action was.
	ObsEcho bool

	// Ans is the churn-normalized hash of the answer's text (without its
	// tool calls); AnsSim its SimHash (near-duplicates); AnsWords its
	// tokens; AnsCalls the tool calls the answer asks for. HasAns is false
	// when the capture has no usable response. Ans and AnsWords serve the
	// answer signal alone, which compares text answers to short
	// observations: they are 0 when answerCompared says the step is not
	// one (the answer asks for tools, or the observation is long).
	Ans      uint64
	AnsSim   uint64
	AnsWords int
	AnsCalls int
	HasAns   bool

	// Usage of the response, when HasUsage.
	TokensIn, TokensOut int64
	HasUsage            bool
}

// Key is the step's action and observation together: the unit of the
// repeat and cycle signals. 0: the step has neither.
func (f *Features) Key() uint64 {
	if f.Act == 0 && f.Obs == 0 {
		return 0
	}
	return fnvUint(fnvUint(fnvOffset, f.Act), f.Obs) | 1
}

// LooseKey is Key with the action's numbers as placeholders (ActLoose);
// 0 without a loose action.
func (f *Features) LooseKey() uint64 {
	if f.ActLoose == 0 {
		return 0
	}
	return fnvUint(fnvUint(fnvOffset^0x3c, f.ActLoose), f.Obs) | 1
}

// ChurnKey is the tool names and the observation: the unit of the
// argument-churn signal (the arguments change, the result does not). 0 when
// the step has no tool call, or its observation is a trivial success
// ("ok") that many different calls share.
//
// An error that echoes nothing of the action is the same error whatever
// the action: its churn key is the observation alone, so that changing
// commands (or tools) answered by one unchanged error add up.
func (f *Features) ChurnKey() uint64 {
	if f.Act == 0 || f.ObsEmpty || (!f.ObsErr && f.ObsWords < minWords) {
		return 0
	}
	if f.ObsErr && !f.ObsEcho {
		return fnvUint(fnvOffset^0xa5, f.Obs) | 1
	}
	return fnvUint(fnvUint(fnvOffset^0x5a, f.ActNames), f.Obs) | 1
}

// minWords is the length below which an observation or an answer is a
// short token ("ok", "WAIT", "positive") that healthy traffic repeats.
const minWords = 4

// Extractor computes Features. It holds parser state: one per goroutine.
// The zero value is ready to use.
type Extractor struct {
	doc  fastjson.Parser
	aux  fastjson.Parser
	body body.Parser

	norm, argNorm normalizer
	obsParts      [][]byte // the observation's texts, pointing into doc or scratch
	toolPart      []bool   // obsParts[i] is tool output (only tool output can say "error")
	inTool        bool
	isErr         bool
	args          []byte // the action's string arguments, back to back
	argSpans      []int  // their ends in args
	callHashes    []uint64
	looseHashes   []uint64 // the calls' hashes with numbers as one placeholder (tool calls only)
	numSum        int64    // the integers of the calls' arguments, added up
	numCount      int      // how many there were
	nameHashes    []uint64
	label         []byte
	labels        [8]string
	next          int
	echo, echo2   []byte // an observation with echoed arguments replaced (unecho's two buffers)
	text          []byte // concatenation scratch
	atext         []byte // an assistant's text parts, joined
	hasBody       bool   // an argument of the action is a body (noteBody)
	textCmd       bool   // the action is a text command: args holds it whole, then its words
	msgs          []body.Message
	tail          []byte // the newest messages of a chat request, as one JSON array
	// treeOnly parses every request with fastjson, whole (tests hold the
	// fast path of chat requests to it).
	treeOnly bool
}

// ErrNoBody is the error of a record without a request body.
var ErrNoBody = errors.New("no request body")

// Extract computes the features of one request and its response (resp may
// be empty: no response captured). The error is for a request body that
// cannot be read; an unreadable response leaves HasAns false.
func (x *Extractor) Extract(req, resp []byte) (Features, error) {
	var f Features
	if err := x.request(req, &f, nil); err != nil {
		return f, err
	}
	x.response(resp, &f, false)
	return f, nil
}

// answerCompared reports whether the answer signal can compare a step's
// answer: it asks for no tool and the observation it answers is short
// (fewer than 2 × minWords words). Detector.Push keeps an answer only then.
func answerCompared(f *Features) bool { return f.AnsCalls == 0 && f.ObsWords < 2*minWords }

// response reads the answer. Its exact hash and words are computed only
// when answerCompared, or always with all (Describe).
func (x *Extractor) response(resp []byte, f *Features, all bool) {
	if len(bytes.TrimSpace(resp)) == 0 {
		return
	}
	r, err := x.body.ParseResponse(resp)
	if err != nil {
		return
	}
	if r.HasUsage {
		f.TokensIn, f.TokensOut, f.HasUsage = r.TokensIn, r.TokensOut, true
	}
	text, calls := splitCalls(r.Text)
	f.AnsCalls = calls
	if len(text) == 0 && calls == 0 {
		return
	}
	f.HasAns = true
	f.AnsSim, _ = simhash.Hash(text)
	if !all && !answerCompared(f) {
		return
	}
	x.norm.reset()
	x.norm.add(text)
	f.Ans, f.AnsWords = x.norm.h, x.norm.words
}

// splitCalls separates the canonical response text of package body into
// the assistant's text and the number of tool-call lines it ends with
// (each "name({…})" or "name(\"…\")").
func splitCalls(t []byte) (text []byte, calls int) {
	// A call line ends with ')': without one, the text is not searched
	// for its last line (an answer in prose has no newline to find).
	for len(t) > 0 && t[len(t)-1] == ')' {
		i := bytes.LastIndexByte(t, '\n')
		line := t[i+1:]
		if !isCallLine(line) {
			break
		}
		calls++
		if i < 0 {
			return nil, calls
		}
		t = t[:i]
	}
	return t, calls
}

func isCallLine(l []byte) bool {
	p := bytes.IndexByte(l, '(')
	if p <= 0 || len(l) < p+3 || l[len(l)-1] != ')' {
		return false
	}
	if c := l[p+1]; c != '{' && c != '"' {
		return false
	}
	for _, c := range l[:p] {
		if c == ' ' || c == '\t' {
			return false
		}
	}
	return true
}

// request reads the action and the observation of a request body. When
// show is non-nil, the normalized observation is appended to it.
func (x *Extractor) request(raw []byte, f *Features, show *[]byte) error {
	x.argNorm.keepCase = true
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ErrNoBody
	}
	x.obsParts, x.toolPart, x.isErr, x.inTool = x.obsParts[:0], x.toolPart[:0], false, false
	x.args, x.argSpans = x.args[:0], x.argSpans[:0]
	x.callHashes, x.nameHashes, x.looseHashes, x.label = x.callHashes[:0], x.nameHashes[:0], x.looseHashes[:0], x.label[:0]
	x.numSum, x.numCount = 0, 0
	x.hasBody, x.textCmd = false, false
	if x.treeOnly || !x.chatTail(raw, f) {
		if err := x.tree(raw, f); err != nil {
			return err
		}
	}
	x.finishAction(f)
	x.finishObs(f, show)
	return nil
}

// tree reads a request body parsed whole with fastjson.
func (x *Extractor) tree(raw []byte, f *Features) error {
	v, err := x.doc.ParseBytes(raw)
	if err != nil {
		return fmt.Errorf("request body is not JSON")
	}
	if v.Type() != fastjson.TypeObject {
		return fmt.Errorf("request body is a JSON %s, not an object", v.Type())
	}
	switch {
	case v.Exists("messages"):
		x.chat(v.GetArray("messages"), f)
	case v.Exists("contents"):
		x.gemini(v.GetArray("contents"), f)
	case v.Exists("input") && v.Get("input").Type() == fastjson.TypeArray:
		x.responses(v.GetArray("input"), f)
	default:
		for _, k := range []string{"prompt", "input"} {
			if p := v.Get(k); p != nil {
				x.legacy(p)
				break
			}
		}
	}
	return nil
}

// chatTail reads a chat request (a first "messages" member that is an
// array) without parsing all of it: body.ChatMessages finds the messages
// and their roles in place, and only the agent's last turns and what came
// after them, the part Extract reads, are parsed with fastjson. The system
// prompt and the earlier turns, most of a long conversation's bytes, are
// only skipped. It reports false, having read nothing, when ChatMessages
// cannot vouch for the body: tree reads it then.
func (x *Extractor) chatTail(raw []byte, f *Features) bool {
	msgs, ok := body.ChatMessages(raw, x.msgs[:0])
	x.msgs = msgs
	if !ok {
		return false
	}
	end := len(msgs)
	for end > 0 && !msgs[end-1].Assistant {
		end--
	}
	start := end
	for start > 0 && msgs[start-1].Assistant {
		start--
	}
	x.tail = append(x.tail[:0], '[')
	for i, m := range msgs[start:] {
		if i > 0 {
			x.tail = append(x.tail, ',')
		}
		x.tail = append(x.tail, m.Raw...)
	}
	x.tail = append(x.tail, ']')
	v, err := x.doc.ParseBytes(x.tail)
	if err != nil {
		return false // ChatMessages vouched for each message: not reached
	}
	x.chatRun(v.GetArray(), end-start, end > 0, f)
	return true
}

func role(m *fastjson.Value) string { return string(m.GetStringBytes("role")) }

// lastRun returns the bounds [start, end) of the last run of items for
// which isAgent holds; start = end = 0 when there is none (everything is
// new).
func lastRun(items []*fastjson.Value, isAgent func(*fastjson.Value) bool) (start, end int) {
	end = len(items)
	for end > 0 && !isAgent(items[end-1]) {
		end--
	}
	start = end
	for start > 0 && isAgent(items[start-1]) {
		start--
	}
	return start, end
}

// chat reads OpenAI chat completions and Anthropic Messages.
func (x *Extractor) chat(msgs []*fastjson.Value, f *Features) {
	start, end := lastRun(msgs, func(m *fastjson.Value) bool { return role(m) == "assistant" })
	x.chatRun(msgs[start:], end-start, end > 0, f)
}

// chatRun reads the messages from the agent's last run of turns on: the
// first n are that run (none when the agent has not spoken), the rest came
// after it. continues: the request carries a turn of the agent.
func (x *Extractor) chatRun(msgs []*fastjson.Value, n int, continues bool, f *Features) {
	f.Continues = continues
	for _, m := range msgs[:n] {
		for _, tc := range m.GetArray("tool_calls") {
			if fn := tc.Get("function"); fn != nil {
				x.call(fn.GetStringBytes("name"), fn.Get("arguments"))
			}
		}
		if fn := m.Get("function_call"); fn != nil && fn.Type() == fastjson.TypeObject {
			x.call(fn.GetStringBytes("name"), fn.Get("arguments"))
		}
		for _, b := range m.GetArray("content") {
			if string(b.GetStringBytes("type")) == "tool_use" {
				x.call(b.GetStringBytes("name"), b.Get("input"))
			}
		}
	}
	// No tool call: the action may be a command in the text, and then the
	// user turns after it are what the command printed.
	textAct := false
	if len(x.callHashes) == 0 && n > 0 {
		if cmd := textCommand(x.assistantText(msgs[n-1].Get("content"))); cmd != nil {
			x.textCall(cmd)
			textAct = true
			f.ActText = true
		}
	}
	for _, m := range msgs[n:] {
		switch role(m) {
		case "system", "developer":
			continue
		case "tool", "function":
			x.inTool = true
		case "user":
			x.inTool = textAct
		}
		x.content(m.Get("content"))
		x.inTool = false
	}
}

// assistantText returns an assistant message's text: its string content,
// or its text parts joined by newlines (in scratch memory, valid until the
// next call).
func (x *Extractor) assistantText(c *fastjson.Value) []byte {
	if c == nil {
		return nil
	}
	if c.Type() == fastjson.TypeString {
		s, _ := c.StringBytes()
		return s
	}
	x.atext = x.atext[:0]
	for _, p := range c.GetArray() {
		if string(p.GetStringBytes("type")) == "text" {
			if len(x.atext) > 0 {
				x.atext = append(x.atext, '\n')
			}
			x.atext = append(x.atext, p.GetStringBytes("text")...)
		}
	}
	return x.atext
}

// content adds the texts of a message content: a string, or an array of
// parts (text, tool_result with its own content and is_error).
func (x *Extractor) content(c *fastjson.Value) {
	if c == nil {
		return
	}
	switch c.Type() {
	case fastjson.TypeString:
		s, _ := c.StringBytes()
		x.addPart(s)
	case fastjson.TypeArray:
		a, _ := c.Array()
		for _, p := range a {
			x.part(p)
		}
	case fastjson.TypeObject:
		x.part(c)
	}
}

func (x *Extractor) part(p *fastjson.Value) {
	switch p.Type() {
	case fastjson.TypeString:
		s, _ := p.StringBytes()
		x.addPart(s)
		return
	case fastjson.TypeObject:
	default:
		return
	}
	switch string(p.GetStringBytes("type")) {
	case "tool_result":
		if p.GetBool("is_error") {
			x.isErr = true
		}
		was := x.inTool
		x.inTool = true
		x.content(p.Get("content"))
		x.inTool = was
		return
	case "image", "image_url", "input_image", "document", "file", "input_file", "input_audio":
		return
	}
	if t := p.Get("text"); t != nil && t.Type() == fastjson.TypeString && !p.GetBool("thought") {
		s, _ := t.StringBytes()
		x.addPart(s)
	}
	if fr := p.Get("functionResponse"); fr != nil {
		was := x.inTool
		x.inTool = true
		x.value(fr.Get("response"))
		x.inTool = was
	}
}

// value adds a JSON value as observation text: a string as itself,
// anything else as its JSON text.
func (x *Extractor) value(v *fastjson.Value) {
	if v == nil {
		return
	}
	if v.Type() == fastjson.TypeString {
		s, _ := v.StringBytes()
		x.addPart(s)
		return
	}
	x.text = v.MarshalTo(x.text[:0])
	x.addPart(bytes.Clone(x.text))
}

func (x *Extractor) addPart(s []byte) {
	x.obsParts = append(x.obsParts, s)
	x.toolPart = append(x.toolPart, x.inTool)
}

// gemini reads generateContent: role "model" turns with functionCall
// parts; after them, user turns with text and functionResponse parts.
func (x *Extractor) gemini(contents []*fastjson.Value, f *Features) {
	start, end := lastRun(contents, func(c *fastjson.Value) bool { return role(c) == "model" })
	f.Continues = end > 0
	for _, c := range contents[start:end] {
		for _, p := range c.GetArray("parts") {
			if fc := p.Get("functionCall"); fc != nil {
				x.call(fc.GetStringBytes("name"), fc.Get("args"))
			}
		}
	}
	for _, c := range contents[end:] {
		x.content(c.Get("parts"))
	}
}

// responses reads an OpenAI Responses input list: assistant-side items
// (assistant messages, reasoning, *_call) form the agent's turns; after
// the last run come *_output items and user messages.
func (x *Extractor) responses(items []*fastjson.Value, f *Features) {
	start, end := lastRun(items, assistantItem)
	f.Continues = end > 0
	for _, it := range items[start:end] {
		if string(it.GetStringBytes("type")) == "function_call" {
			x.call(it.GetStringBytes("name"), it.Get("arguments"))
		}
	}
	for _, it := range items[end:] {
		if r := role(it); r == "system" || r == "developer" {
			continue
		}
		if o := it.Get("output"); o != nil {
			x.inTool = true
			x.value(o)
			x.inTool = false
			continue
		}
		x.content(it.Get("content"))
	}
}

func assistantItem(it *fastjson.Value) bool {
	if role(it) == "assistant" {
		return true
	}
	t := it.GetStringBytes("type")
	return string(t) == "reasoning" || (bytes.HasSuffix(t, []byte("_call")))
}

// legacy reads a completions prompt (a string or an array of strings).
func (x *Extractor) legacy(p *fastjson.Value) {
	switch p.Type() {
	case fastjson.TypeString:
		s, _ := p.StringBytes()
		x.addPart(s)
	case fastjson.TypeArray:
		a, _ := p.Array()
		for _, e := range a {
			if e.Type() == fastjson.TypeString {
				s, _ := e.StringBytes()
				x.addPart(s)
			}
		}
	}
}

// call adds one tool call of the action: its hash (name and arguments)
// and its string arguments (for echo removal).
func (x *Extractor) call(name []byte, args *fastjson.Value) {
	if args != nil && args.Type() == fastjson.TypeString {
		s, _ := args.StringBytes()
		if t := bytes.TrimSpace(s); len(t) > 0 {
			if v, err := x.aux.ParseBytes(t); err == nil {
				args = v
			}
		} else {
			args = nil
		}
	}
	h := fnvBytes(fnvOffset, name)
	x.nameHashes = append(x.nameHashes, h|1)
	h = fnvByte(h, '(')
	l := h
	if args != nil {
		e, el := x.argHash(args)
		h, l = fnvUint(h, e), fnvUint(l, el)
	}
	x.callHashes = append(x.callHashes, h|1)
	x.looseHashes = append(x.looseHashes, l|1)
	if len(x.label) < 80 {
		if len(x.label) > 0 {
			x.label = append(x.label, ", "...)
		}
		x.label = append(x.label, name...)
	}
}

// argHash hashes a JSON value: objects independently of member order,
// strings churn-normalized, numbers and literals exactly. loose is the
// same hash with every number one placeholder, and the integers met are
// added up in x.numSum and counted in x.numCount: a poll whose only
// change is a counter (attempt 3, 4, 5) has one loose hash.
func (x *Extractor) argHash(v *fastjson.Value) (exact, loose uint64) {
	switch v.Type() {
	case fastjson.TypeObject:
		o, _ := v.Object()
		var sum, lsum uint64
		o.Visit(func(k []byte, m *fastjson.Value) {
			e, l := x.argHash(m)
			kh := fnvBytes(fnvOffset, k)
			sum += fnvUint(kh, e)
			lsum += fnvUint(kh, l)
		})
		return fnvUint(fnvByte(fnvOffset, '{'), sum), fnvUint(fnvByte(fnvOffset, '{'), lsum)
	case fastjson.TypeArray:
		a, _ := v.Array()
		h := fnvByte(fnvOffset, '[')
		l := h
		for _, e := range a {
			eh, el := x.argHash(e)
			h, l = fnvUint(h, eh), fnvUint(l, el)
		}
		return h, l
	case fastjson.TypeString:
		s, _ := v.StringBytes()
		if len(s) >= 3 {
			x.args = append(x.args, s...)
			x.argSpans = append(x.argSpans, len(x.args))
		}
		x.argNorm.reset()
		x.argNorm.add(s)
		x.noteBody(s, x.argNorm.words)
		return x.argNorm.h, x.argNorm.h
	case fastjson.TypeNumber:
		if n, err := v.Int64(); err == nil && n > -maxCounter && n < maxCounter {
			x.numSum += n
			x.numCount++
		}
		return fnvBytes(fnvByte(fnvOffset, '#'), v.MarshalTo(x.text[:0])), fnvByte(fnvOffset, '#')
	}
	h := fnvBytes(fnvByte(fnvOffset, '#'), v.MarshalTo(x.text[:0]))
	return h, h
}

// maxCounter bounds the integers added up as counters (larger ones are
// ids or times, and their sums could overflow).
const maxCounter = 1 << 40

// noteBody notes an argument that is a body: content the action writes
// (an edit's new text, a file, a patch, a heredoc), not a path or a query.
func (x *Extractor) noteBody(s []byte, words int) {
	if words >= minBodyWords && bytes.IndexByte(s, '\n') >= 0 {
		x.hasBody = true
	}
}

// minBodyWords is the fewest words of a multi-line argument that is a
// body.
const minBodyWords = 8

// finishAction combines the calls into the action's hashes, as sets.
func (x *Extractor) finishAction(f *Features) {
	if len(x.callHashes) == 0 {
		return
	}
	f.Act, f.ActNames = setHash(x.callHashes), setHash(x.nameHashes)
	if len(x.looseHashes) == len(x.callHashes) {
		f.ActLoose, f.NumSum, f.NumCount = setHash(x.looseHashes), x.numSum, x.numCount
	}
	f.ActBody = x.hasBody
	f.ActLabel = x.intern(x.label)
}

// setHash hashes a set: sorted, duplicates dropped.
func setHash(hs []uint64) uint64 {
	for i := 1; i < len(hs); i++ { // insertion sort: a turn has few calls
		for j := i; j > 0 && hs[j] < hs[j-1]; j-- {
			hs[j], hs[j-1] = hs[j-1], hs[j]
		}
	}
	h := uint64(fnvOffset)
	for i, v := range hs {
		if i > 0 && v == hs[i-1] {
			continue
		}
		h = fnvUint(h, v)
	}
	return h | 1
}

// finishObs hashes the observation, replacing the action's string
// arguments where the tool echoes them.
func (x *Extractor) finishObs(f *Features, show *[]byte) {
	if len(x.obsParts) == 0 {
		return
	}
	x.norm.reset()
	if show != nil {
		x.norm.show, x.norm.out = true, (*show)[:0]
		defer func() { *show, x.norm.show, x.norm.out = x.norm.out, false, nil }()
	}
	errs, empty, blank := false, false, true
	for i, p := range x.obsParts {
		x.norm.errs, x.norm.empty = false, false
		u := x.unecho(p)
		f.ObsEcho = f.ObsEcho || len(u) != len(p) || (len(u) > 0 && &u[0] != &p[0])
		x.norm.add(u)
		errs = errs || (x.toolPart[i] && x.norm.errs)
		empty = empty || x.norm.empty
		blank = blank && blankOutput(u)
	}
	f.Obs, f.ObsWords = x.norm.h|1, x.norm.words
	f.ObsErr = x.isErr || errs
	f.ObsEmpty = f.ObsWords == 0 || blank || (empty && f.ObsWords <= maxEmptyWords)
}

// blankOutput reports whether a tool output holds nothing but markup and
// an exit status: "<returncode>1</returncode>\n<output>\n</output>" is a
// command that printed nothing (a search that found nothing).
func blankOutput(p []byte) bool {
	for len(p) > 0 {
		switch c := p[0]; {
		case c == '<':
			j := bytes.IndexByte(p, '>')
			if j < 0 || j > 40 || bytes.ContainsAny(p[1:j], " \n<") {
				return false
			}
			p = p[j+1:]
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || isDigit(c):
			p = p[1:]
		default:
			return false
		}
	}
	return true
}

// maxEmptyWords is the longest observation that a phrase like "no
// matches" makes empty: the phrase and a shell's or an editor's status
// lines around it.
const maxEmptyWords = 24

// unecho returns p with every string argument of the action (3 bytes or
// longer) replaced by a placeholder word.
func (x *Extractor) unecho(p []byte) []byte {
	if len(x.argSpans) == 0 {
		return p
	}
	out := p
	in := 0 // out is p (0), x.echo (1) or x.echo2 (2)
	start := 0
	for i, end := range x.argSpans {
		a := x.args[start:end]
		start = end
		if !bytes.Contains(out, a) {
			continue
		}
		// Replace into the buffer out does not use (the two take turns),
		// so that no replacement allocates once they have grown.
		dst := x.echo[:0]
		if in == 1 {
			dst = x.echo2[:0]
		}
		rest := out
		for {
			i := bytes.Index(rest, a)
			if i < 0 {
				break
			}
			dst = append(append(dst, rest[:i]...), " ARG "...)
			rest = rest[i+len(a):]
		}
		dst = append(dst, rest...)
		if in == 1 {
			x.echo2, in = dst, 2
		} else {
			x.echo, in = dst, 1
		}
		out = dst
		if i == 0 && x.textCmd {
			// The whole text command was echoed (a shell prints the
			// command line): its words went with it.
			break
		}
	}
	return out
}

// intern returns b as a string, reusing a recent equal one.
func (x *Extractor) intern(b []byte) string {
	for _, s := range x.labels {
		if s == string(b) {
			return s
		}
	}
	s := string(b)
	x.labels[x.next] = s
	x.next = (x.next + 1) % len(x.labels)
	return s
}
