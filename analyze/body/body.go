// Package body extracts what the spec profile (SPEC §4.1) needs from provider
// request and response bodies: the prompt (text of the last user message),
// the tool-call signature of the agent's most recent turn, the canonical
// response text (assistant text plus the tool calls it asks for), the model
// and the token usage.
//
// It understands OpenAI chat completions, OpenAI Responses, Anthropic
// Messages, legacy completions (prompt / input) and Gemini generateContent,
// and reassembles streamed responses (a whole text/event-stream body, or a
// JSON array of chunks) into exactly the Response the non-streamed body gives.
//
// The functions are pure: no I/O, no clock, no global state. They run on the
// replay hot path, so they reuse the buffers of a Parser; a Parser is not
// safe for concurrent use (use one per goroutine). The common shapes, an
// OpenAI chat request and a non-streamed chat completion, are read straight
// from the body's bytes without building a tree (fast.go); every other body,
// and any of those the fast path is not sure of, is parsed with
// github.com/valyala/fastjson (the tree path, request.go and response.go),
// the reference the fast path gives exactly the results of.
//
// # Choices the spec leaves open (documented in README, spec profile)
//
//   - Prompt: the last message with role "user". Anthropic user turns that
//     hold tool_result blocks and no text are tool output and are skipped, and
//     so are Gemini user turns holding only functionResponse parts. The text
//     parts of a content array (OpenAI/Anthropic "text", Responses
//     "input_text", Gemini {text}) are joined with "\n"; other parts (images,
//     files, audio) are ignored. The last user message found is the prompt
//     even when it has no text: then HasPrompt is false and the request has
//     no prompt hash.
//   - Legacy prompt: a string, or an array of strings joined with "\n" (a
//     batch is one request, and all of it is text the caller sent; nothing in
//     it is earlier history). Arrays of token ids have no text. "prompt" wins
//     over "input" when both are present.
//   - Turn: the most recent turn of the agent is the last run of consecutive
//     assistant messages (OpenAI, Anthropic; role "model" for Gemini), or in
//     a Responses input list the last run of consecutive assistant-side items
//     (assistant messages, reasoning and *_call items; *_output items and
//     other roles end a run). Its tool calls are OpenAI tool_calls and legacy
//     function_call, Anthropic tool_use blocks, Responses function_call items
//     and Gemini functionCall parts.
//   - Call canonical form: name(args) where args is the arguments parsed as
//     JSON and rewritten with object keys sorted (recursively), string values
//     passed through simhash.Normalize, every number replaced by <NUM>, and
//     strings and keys JSON-escaped (so no canonical call holds a newline).
//     Arguments that are not JSON become a quoted normalized string; empty
//     arguments are {}. The tool name is kept as sent (escaped).
//   - Signature: the turn's canonical calls as a set (sorted, duplicates
//     dropped) joined with "\n". One turn counts once however many calls it
//     holds.
//   - Response text: the assistant's text parts (one per content block,
//     message part or output item, empty ones skipped) joined with "\n",
//     then each canonical call it asks for on its own line (sorted, no
//     duplicates). Gemini text parts are concatenated without separator, as
//     its streaming splits one text across chunks. Thinking/reasoning blocks
//     are not response text. A refusal counts as assistant text.
//   - Usage: TokensIn is every prompt token the provider processed, so it is
//     comparable across providers: OpenAI prompt_tokens and Responses
//     input_tokens already include cached tokens, so Anthropic's input_tokens
//     is summed with cache_creation_input_tokens and cache_read_input_tokens.
//     TokensOut is every generated token billed as output: OpenAI
//     completion_tokens and Anthropic output_tokens include reasoning, so
//     Gemini's candidatesTokenCount is summed with thoughtsTokenCount.
//   - Error bodies (a non-null "error" object or string, an Anthropic
//     {"type":"error"} body, an error event in a stream) have no response
//     text and are not an error of this package. An empty body has no text.
package body

import "github.com/valyala/fastjson"

// API is the provider body dialect a request or response was read as.
// It is informational (reports, debugging): extraction does not depend on it.
type API uint8

const (
	APIUnknown         API = iota
	APIOpenAIChat          // OpenAI chat completions (and compatibles: Together, LiteLLM, …)
	APIOpenAIResponses     // OpenAI Responses API
	APIAnthropic           // Anthropic Messages
	APILegacy              // legacy completions: prompt / input
	APIGemini              // Gemini generateContent
)

// String returns the API's short name: "openai-chat", "openai-responses",
// "anthropic", "legacy", "gemini" or "unknown".
func (a API) String() string {
	switch a {
	case APIOpenAIChat:
		return "openai-chat"
	case APIOpenAIResponses:
		return "openai-responses"
	case APIAnthropic:
		return "anthropic"
	case APILegacy:
		return "legacy"
	case APIGemini:
		return "gemini"
	}
	return "unknown"
}

// Request is what the spec profile takes from a provider request body.
type Request struct {
	API API

	// Prompt is the text of the last user message, unnormalized. It points
	// into the body or the Parser's memory: valid while the body is and
	// until the Parser's next call.
	Prompt []byte
	// HasPrompt is false when the request has no prompt text at all; such a
	// request has no prompt hash and never counts as similar (SPEC §4.1).
	HasPrompt bool

	// ToolSig is the canonical signature of the tool calls of the agent's most
	// recent turn in the request; "" when that turn called no tool.
	ToolSig string

	Model  string // the "model" field; "" when absent (Gemini puts it in the URL)
	Stream bool   // the "stream" field
}

// Response is what the spec profile takes from a provider response body.
type Response struct {
	API API

	// Text is the canonical response text: assistant text, then the tool calls
	// it asks for. Empty means the response has no hash. It points into the
	// body or the Parser's memory: valid while the body is and until the
	// Parser's next call.
	Text []byte

	Model string // the model that answered ("modelVersion" for Gemini)

	// TokensIn and TokensOut count tokens as the provider reports them (see
	// the package doc for what is summed); meaningful only when HasUsage.
	TokensIn, TokensOut int64
	HasUsage            bool

	// Streamed is true when the body was a stream of chunks: a
	// text/event-stream, or a JSON array of chunks.
	Streamed bool
}

// Parser extracts Requests and Responses, reusing its buffers between calls.
// The zero value is ready to use. A Parser is not safe for concurrent use;
// the slices in its results are valid until its next call.
type Parser struct {
	doc fastjson.Parser // the body, or one event of a stream
	aux fastjson.Parser // tool-call arguments given as JSON text

	fast  fastState // the fast path's scratch space (fast.go)
	canon canonicalizer
	calls callSet
	text  textParts

	prompt []byte // joined prompt parts
	sig    []byte // joined signature

	st streamState

	interned [8]string // recently returned strings, to avoid allocating them again
	next     int

	treeOnly bool // tests: parse every body with the tree path, the fast path's reference
}

// intern returns b as a string, reusing a recently returned equal string so
// that the repeated models and signatures of a replay do not allocate.
func (p *Parser) intern(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	for _, s := range p.interned {
		if s == string(b) {
			return s
		}
	}
	s := string(b)
	p.interned[p.next] = s
	p.next = (p.next + 1) % len(p.interned)
	return s
}
