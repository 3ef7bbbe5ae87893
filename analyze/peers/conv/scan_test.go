package conv

import (
	"reflect"
	"testing"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/internal/jsonsimd"
)

// TestScanPaths: the request scan finds the same tail with AVX-512's
// container skipping and with the byte loop, and the same as the full
// parser.
func TestScanPaths(t *testing.T) {
	bodies := []string{
		`{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":[{"type":"text","text":"a [b] {c}"}]},{"role":"assistant","tool_calls":[{"id":"1","function":{"name":"f","arguments":"{\"x\":[1,{\"y\":\"]\"}]}"}}]},{"role":"tool","tool_call_id":"1","content":"out \"q\" \\"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"x":{"type":"array"}}}}}]}`,
		`{"messages":[{"content":"first","role":"user"},{"content":[{"type":"tool_use","id":"t","name":"bash","input":{"command":"ls"}}],"role":"assistant"},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"a.txt"}]},{"role":"user","content":"next"}]}`,
		`{"messages":[{"role":"assistant","role":"user","content":"two roles: the first counts"},{"role":"user","content":"x"}]}`,
		`{"messages":[{"role":"assistant","content":null,"nested":{"role":"assistant","deep":[[[{}]]]}},{"role":"tool","content":"r"}]}`,
		`{"messages":[{"role":"system","content":"s"},{"role":"user","content":"a conversation's first call"}]}`,
	}
	fresh := []bool{false, false, false, false, true} // no assistant message
	was := jsonsimd.Enabled
	defer func() { jsonsimd.Enabled = was }()
	for i, b := range bodies {
		var turns [2]Turn
		for k, simd := range []bool{false, true} {
			jsonsimd.Enabled = simd && was
			var c Converter
			if err := c.Request([]byte(b), &turns[k]); err != nil {
				t.Fatalf("body %d: %v", i, err)
			}
			turns[k].tools = nil
		}
		var tree Turn
		var c Converter
		if err := c.requestTree([]byte(b), &tree); err != nil {
			t.Fatal(err)
		}
		tree.tools = nil
		if !reflect.DeepEqual(turns[0], turns[1]) || !reflect.DeepEqual(turns[0], tree) {
			t.Errorf("body %d: byte loop %+v, AVX-512 %+v, full parser %+v", i, turns[0], turns[1], tree)
		}
		if turns[0].Fresh != fresh[i] {
			t.Errorf("body %d: Fresh %v, want %v", i, turns[0].Fresh, fresh[i])
		}
		if len(turns[0].Results)+turns[0].Prompts == 0 {
			t.Errorf("body %d: empty tail", i)
		}
	}
}

// TestUsageOfTheParsedResponse: the usage a peer reads from the response
// Convert parsed is what Extractor.Usage reads from the body, for every
// response shape (OpenAI, Anthropic with cache tokens, Responses, Gemini,
// an error body, a stream, a body wrapped in a JSON string, a failed call).
func TestUsageOfTheParsedResponse(t *testing.T) {
	req := []byte(`{"messages":[{"role":"user","content":"hi"}]}`)
	for _, c := range []struct {
		resp   string
		status int
	}{
		{`{"choices":[{"message":{"role":"assistant","content":"a"}}],"usage":{"prompt_tokens":12,"completion_tokens":5}}`, 200},
		{`{"type":"message","role":"assistant","content":[{"type":"text","text":"a"}],"usage":{"input_tokens":3,"cache_creation_input_tokens":100,"cache_read_input_tokens":7,"output_tokens":9}}`, 200},
		{`{"object":"response","output":[{"type":"message","content":[{"type":"output_text","text":"a"}]}],"usage":{"input_tokens":4,"output_tokens":2}}`, 200},
		{`{"candidates":[{"content":{"parts":[{"text":"a"}]}}],"usageMetadata":{"promptTokenCount":8,"candidatesTokenCount":3,"thoughtsTokenCount":2}}`, 200},
		{`{"error":{"message":"overloaded"},"usage":{"prompt_tokens":1}}`, 200},
		{"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}],\"usage\":{\"prompt_tokens\":2,\"completion_tokens\":1}}\n\n", 200},
		{`"{\"choices\":[{\"message\":{\"content\":\"a\"}}],\"usage\":{\"prompt_tokens\":6,\"completion_tokens\":1}}"`, 200},
		{`{"choices":[],"usage":{"prompt_tokens":6,"completion_tokens":0}}`, 200},
		{`{"error":{"message":"prompt is too long"}}`, 400},
	} {
		rec := ingest.Record{Request: req, Response: []byte(c.resp), Status: c.status}
		x := analyze.NewExtractor(nil)
		var cv Converter
		_, got, ok := cv.Features(x, &rec)
		var want analyze.Features
		x.Usage(&rec, &want)
		if !ok || got.HasUsage != want.HasUsage || got.TokensIn != want.TokensIn || got.TokensOut != want.TokensOut {
			t.Errorf("%.60s: usage %v %d/%d, Extractor.Usage %v %d/%d", c.resp, got.HasUsage, got.TokensIn, got.TokensOut, want.HasUsage, want.TokensIn, want.TokensOut)
		}
	}
}
