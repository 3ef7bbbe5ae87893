// Package agentgazer holds the pure functions of the "agentgazer" profile
// (SPEC §4.2): the text normalization, SimHash, prompt extraction and tool
// signature of the open-source AgentGazer proxy's loop detector (commit
// 28bab4a, Feb 2026), reproduced bit for bit, so that a replay predicts
// exactly what that proxy decided. It does no I/O and keeps no state; the
// window, scoring and enforcement live with the caller.
//
// AgentGazer is TypeScript, so "exact" means JavaScript semantics, which
// this package reimplements on UTF-16 code units:
//
//   - Normalize: five global regular-expression replaces in order (UUID →
//     <ID>; ISO date or timestamp → <TS>, with an upper-case T and Z only; 16+
//     hex digits → <ID>; keyword ids → <ID>; numbers → <NUM>), hand-compiled
//     with JavaScript's backtracking choices and its ASCII-only \b, \d and
//     /i (no Unicode case folding: 'ſ' and the Kelvin sign are not [a-z]);
//     then JavaScript whitespace runs (U+00A0, U+FEFF, U+2028, ... included;
//     U+0085 and U+200B not) → " ", JavaScript toLowerCase (full Unicode:
//     'İ' → "i̇", final sigma as ICU decides it, Unicode 17 mappings that
//     Go's Unicode 15 tables lack) and trim.
//   - SimHash: its own lowercase/collapse/trim (in that order, which is not
//     Normalize's: around U+FEFF a sigma can come out differently), then
//     overlapping 3-unit shingles of the UTF-16 string (an astral character
//     is two units), FNV-1a 64 per code unit, weight 1, strict per-bit
//     majority; a text under 3 units is one feature; SimHash("") is the FNV
//     offset basis 0xcbf29ce484222325.
//   - HashText: the response hash, SimHash(Normalize(raw body text)), with
//     the body bytes decoded as Node's Buffer.toString("utf-8") does.
//   - Prompt and PromptHash: the last user message with string content, else
//     the last message's string content, else ""; without a messages array,
//     prompt then input; property reads as in JavaScript (the last of
//     duplicate keys wins) and strings as JSON.parse decodes them.
//   - ToolSignature: "fn:"/"tool:" entries from the tool definitions with
//     JavaScript's String() of the names, sorted by UTF-16 code units, joined
//     with ",".
//   - Check: the bodies on which AgentGazer's extractors throw (a null body,
//     a null message reached by the search, a tool name that is an object
//     with its own "toString" key); the proxy swallows the exception and
//     neither records nor scores such a request.
//
// Strings handed in and out are WTF-8 (UTF-8 plus the 3-byte form of lone
// surrogates), so that a JSON "\ud800" survives as the single code unit
// JavaScript keeps. The testdata/oracle.js script, run with Node.js, is how
// every expected value in the tests was produced.
//
// # Quirks of AgentGazer that this profile reproduces
//
// Users comparing the two profiles should know these; they are facts about
// AgentGazer, not bugs of this package:
//
//   - Tool-definition false positive: the tool signature comes from the
//     tools the request offers, not from the calls the agent made, so every
//     request of an agent that sends the same tools list repeats the
//     previous ones: 1.5 per past request in the window. At the defaults
//     (window 20, threshold 10) such an agent is killed on its 8th request
//     (7 past × 1.5 = 10.5), even with unrelated prompts and responses.
//     Anthropic-style tool definitions ({"name", "input_schema"}, no
//     "type":"function") do not count at all.
//   - The kill fires when score >= threshold, not when it exceeds it as the
//     documentation says.
//   - The current request is pushed into the window before it is scored: the
//     past is the window without it, at most window_size − 1 entries.
//   - Pattern 4 swallows ordinary words that start with a keyword: "users",
//     "identify", "ids", "messages", "orders", "sessions", "requests",
//     "chats", "threads" all become <id>, as does "chatcmpl" in a response
//     body; "user", "id" alone and "session_x_1" (a trailing underscore part)
//     do not.
//   - A run of 16 or more digits is a hex id (<id>), a shorter one a number.
//   - Every request without prompt text (content-part arrays only, as in
//     Anthropic tool_result turns or images) hashes like "", so all such
//     requests count as similar prompts.
//
// # Known divergences
//
//   - A JSON string that fastjson has already decoded (because some caller
//     read it through fastjson first) is taken as fastjson decoded it, which
//     differs from JSON.parse only for lone surrogates. Call these functions
//     on a freshly parsed body to be exact (see jsvalue.go).
//   - Case mapping follows the Node.js the vectors come from (ICU 78.2,
//     Unicode 17.0). An AgentGazer running on a Node.js with older ICU data
//     lowercases the letters added in Unicode 16 and 17 differently.
//   - Whether a body is JSON at all is the caller's decision: fastjson
//     accepts some bodies that JSON.parse rejects (invalid escapes, raw
//     control characters in strings, NaN) and rejects nesting deeper than
//     300, which JSON.parse accepts.
package agentgazer
