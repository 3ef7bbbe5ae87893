package agentgazer

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/valyala/fastjson"
)

// parse parses body with a fresh parser, so its strings are still raw.
func parse(t testing.TB, body string) *fastjson.Value {
	t.Helper()
	var p fastjson.Parser
	v, err := p.Parse(body)
	if err != nil {
		t.Fatalf("fastjson.Parse(%q): %v", body, err)
	}
	return v
}

// promptVectors were produced by testdata/oracle.js ("node
// testdata/oracle.js prompt"): JSON.parse(Buffer.toString("utf-8")) of the
// body, the SPEC §4.2 prompt rule, simhash(normalize(prompt)); skip means
// that the rule throws a TypeError in JavaScript (the proxy then skips loop
// detection). Bodies are raw bytes, prompts WTF-8.
var promptVectors = []struct {
	name, body, want string
	hash             uint64
	skip             bool
}{
	{"last user", "{\"messages\":[{\"role\":\"system\",\"content\":\"sys\"},{\"role\":\"user\",\"content\":\"first\"},{\"role\":\"assistant\",\"content\":\"a\"},{\"role\":\"user\",\"content\":\"Hello 42\"}]}", "Hello 42", 0x124af1193d2bc2be, false},
	{"content array ignored", "{\"messages\":[{\"role\":\"user\",\"content\":\"first\"},{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"second\"}]}]}", "first", 0x89cefa196ad7a182, false},
	{"no user: last message", "{\"messages\":[{\"role\":\"system\",\"content\":\"s\"},{\"role\":\"assistant\",\"content\":\"last\"}]}", "last", 0x024185190540c213, false},
	{"no user: last is array", "{\"messages\":[{\"role\":\"system\",\"content\":\"s\"},{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"x\"}]}]}", "", 0xcbf29ce484222325, false},
	{"no user: last content null", "{\"messages\":[{\"role\":\"system\",\"content\":\"s\"},{\"role\":\"assistant\",\"content\":null}]}", "", 0xcbf29ce484222325, false},
	{"only array contents", "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"content\":\"r\"}]}]}", "", 0xcbf29ce484222325, false},
	{"empty messages beat prompt", "{\"messages\":[],\"prompt\":\"p\"}", "", 0xcbf29ce484222325, false},
	{"messages not array", "{\"messages\":\"x\",\"prompt\":\"p\"}", "p", 0xaf63ed4c8602096f, false},
	{"messages null", "{\"messages\":null,\"input\":\"i\"}", "i", 0xaf63e44c8601fa24, false},
	{"prompt not string", "{\"prompt\":[\"a\"],\"input\":\"i\"}", "i", 0xaf63e44c8601fa24, false},
	{"empty prompt string", "{\"prompt\":\"\",\"input\":\"i\"}", "", 0xcbf29ce484222325, false},
	{"input list ignored", "{\"input\":[{\"role\":\"user\",\"content\":\"x\"}]}", "", 0xcbf29ce484222325, false},
	{"empty user content", "{\"messages\":[{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"user\",\"content\":\"\"}]}", "", 0xcbf29ce484222325, false},
	{"role is case sensitive", "{\"messages\":[{\"role\":\"user\",\"content\":\"u\"},{\"role\":\"User\",\"content\":\"U\"}]}", "u", 0xaf63e84c860200f0, false},
	{"content number", "{\"messages\":[{\"role\":\"user\",\"content\":5}]}", "", 0xcbf29ce484222325, false},
	{"message is a string", "{\"messages\":[\"hello\"]}", "", 0xcbf29ce484222325, false},
	{"duplicate content", "{\"messages\":[{\"role\":\"user\",\"content\":\"a\",\"content\":\"b\"}]}", "b", 0xaf63df4c8601f1a5, false},
	{"duplicate prompt", "{\"prompt\":\"a\",\"prompt\":\"b\"}", "b", 0xaf63df4c8601f1a5, false},
	{"duplicate messages", "{\"messages\":[{\"role\":\"user\",\"content\":\"m\"}],\"messages\":\"x\",\"prompt\":\"p\"}", "p", 0xaf63ed4c8602096f, false},
	{"null before user", "{\"messages\":[null,{\"role\":\"user\",\"content\":\"ok\"}]}", "ok", 0x08b05d07b5566bef, false},
	{"null after user", "{\"messages\":[{\"role\":\"user\",\"content\":\"ok\"},null]}", "", 0, true},
	{"null body", "null", "", 0, true},
	{"array body", "[{\"prompt\":\"x\"}]", "", 0xcbf29ce484222325, false},
	{"string body", "\"just text\"", "", 0xcbf29ce484222325, false},
	{"escapes", "{\"messages\":[{\"role\":\"us\\u0065r\",\"content\":\"caf\\u00e9 \\ud83d\\ude00\\n\\t\\\"q\\\" \\/\"}]}", "caf\u00e9 \U0001f600\n\t\"q\" /", 0xf723f41bdec50b90, false},
	{"lone surrogate", "{\"prompt\":\"a\\ud800b\"}", "a\xed\xa0\x80b", 0x74829916f0e0eeb2, false},
	{"lone surrogate then escape", "{\"prompt\":\"\\ud800\\u0041\"}", "\xed\xa0\x80A", 0xe642670a2495cfda, false},
	{"reversed pair", "{\"prompt\":\"\\udc00\\ud800\"}", "\xed\xb0\x80\xed\xa0\x80", 0xf3a2880a2fc383ed, false},
	{"ill-formed bytes", "{\"prompt\":\"a\xe2\x82b\"}", "a\ufffdb", 0x04019316914befd3, false},
	{"responses string input", "{\"model\":\"m\",\"input\":\"Summarize order 42\"}", "Summarize order 42", 0xca929a192567caaa, false},
}

func TestPrompt(t *testing.T) {
	for _, tc := range promptVectors {
		t.Run(tc.name, func(t *testing.T) {
			v := parse(t, tc.body)
			err := Check(v)
			if tc.skip {
				if !errors.Is(err, ErrSkipped) {
					t.Fatalf("Check = %v, want an ErrSkipped error", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Check = %v", err)
			}
			if got := Prompt(v); got != tc.want {
				t.Errorf("Prompt = %q, want %q", got, tc.want)
			}
			if got := PromptHash(v); got != tc.hash {
				t.Errorf("PromptHash = %#016x, want %#016x", got, tc.hash)
			}
			if got := SimHash(Normalize(Prompt(v))); got != tc.hash {
				t.Errorf("SimHash(Normalize(Prompt)) = %#016x, want %#016x", got, tc.hash)
			}
		})
	}
}

// toolVectors were produced by testdata/oracle.js ("node testdata/oracle.js
// tools"): JSON.parse of the body, the SPEC §4.2 tool signature with
// JavaScript template literals and Array.prototype.sort; skip means that
// JavaScript throws (ToPrimitive of an object with its own toString key).
var toolVectors = []struct {
	name, body, want string
	skip             bool
}{
	{"none", "{\"messages\":[]}", "", false},
	{"functions", "{\"functions\":[{\"name\":\"b\"},{\"name\":\"a\",\"parameters\":{}}]}", "fn:a,fn:b", false},
	{"tools", "{\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"search\"}},{\"type\":\"function\",\"function\":{\"name\":\"read\"}}]}", "fn:read,fn:search", false},
	{"openai tool_choice has no top-level name", "{\"tool_choice\":{\"type\":\"function\",\"function\":{\"name\":\"x\"}}}", "", false},
	{"anthropic tool_choice", "{\"tool_choice\":{\"type\":\"tool\",\"name\":\"get_weather\"}}", "tool:get_weather", false},
	{"anthropic tools do not count", "{\"tools\":[{\"name\":\"get_weather\",\"input_schema\":{}}]}", "", false},
	{"duplicates kept", "{\"functions\":[{\"name\":\"a\"}],\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"a\"}}],\"tool_choice\":{\"name\":\"a\"}}", "fn:a,fn:a,tool:a", false},
	{"type must be function", "{\"tools\":[{\"type\":\"Function\",\"function\":{\"name\":\"a\"}},{\"function\":{\"name\":\"b\"}},{\"type\":\"function\",\"name\":\"c\"}]}", "", false},
	{"empty names", "{\"functions\":[{\"name\":\"\"}],\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"\"}}],\"tool_choice\":{\"name\":\"\"}}", "fn:", false},
	{"functions names of any type", "{\"functions\":[{\"name\":null},{\"name\":true},{\"name\":false},{\"name\":0},{\"name\":{}},{\"name\":[\"a\",null,[\"b\",1]]},{\"x\":1},[\"name\"],null,\"name\"]}", "fn:0,fn:[object Object],fn:a,,b,1,fn:false,fn:null,fn:true", false},
	{"tools names truthy only", "{\"tools\":[{\"type\":\"function\",\"function\":{\"name\":0}},{\"type\":\"function\",\"function\":{\"name\":-0}},{\"type\":\"function\",\"function\":{\"name\":5}},{\"type\":\"function\",\"function\":{\"name\":[]}},{\"type\":\"function\",\"function\":{\"name\":{}}},{\"type\":\"function\",\"function\":{\"name\":null}},{\"type\":\"function\",\"function\":{\"name\":false}},{\"type\":\"function\",\"function\":null},{\"type\":\"function\",\"function\":\"f\"},null]}", "fn:,fn:5,fn:[object Object]", false},
	{"numbers", "{\"functions\":[{\"name\":1e21},{\"name\":1e20},{\"name\":0.1},{\"name\":-0},{\"name\":1.5e-7},{\"name\":0.000001},{\"name\":1e400},{\"name\":-1e400},{\"name\":123456789012345678901234},{\"name\":5e-324},{\"name\":1.7976931348623157e308},{\"name\":100},{\"name\":-2.50}]}", "fn:-2.5,fn:-Infinity,fn:0,fn:0.000001,fn:0.1,fn:1.2345678901234569e+23,fn:1.5e-7,fn:1.7976931348623157e+308,fn:100,fn:100000000000000000000,fn:1e+21,fn:5e-324,fn:Infinity", false},
	{"utf-16 sort order", "{\"functions\":[{\"name\":\"\\uff5e\"},{\"name\":\"\\ud83d\\ude00\"},{\"name\":\"a\"},{\"name\":\"B\"},{\"name\":\"\\u00e9\"}]}", "fn:B,fn:a,fn:\u00e9,fn:\U0001f600,fn:\uff5e", false},
	{"tool_choice array or string", "{\"tool_choice\":[\"x\"]}", "", false},
	{"tool_choice string", "{\"tool_choice\":\"auto\"}", "", false},
	{"tool_choice zero", "{\"tool_choice\":{\"name\":0}}", "", false},
	{"functions object", "{\"functions\":{\"name\":\"a\"}}", "", false},
	{"duplicate keys", "{\"functions\":[{\"name\":\"a\",\"name\":\"b\"}],\"tools\":[{\"type\":\"x\",\"type\":\"function\",\"function\":{\"name\":\"c\"}}]}", "fn:b,fn:c", false},
	{"toString key throws", "{\"functions\":[{\"name\":{\"toString\":\"x\"}}]}", "", true},
	{"nested toString key throws", "{\"tools\":[{\"type\":\"function\",\"function\":{\"name\":[1,{\"toString\":1}]}}]}", "", true},
	{"tool_choice toString throws", "{\"tool_choice\":{\"name\":{\"toString\":null,\"valueOf\":1}}}", "", true},
	{"valueOf key alone is fine", "{\"functions\":[{\"name\":{\"valueOf\":1}}]}", "fn:[object Object]", false},
	{"escaped toString key", "{\"functions\":[{\"name\":{\"to\\u0053tring\":1}}]}", "", true},
	{"lone surrogate name", "{\"functions\":[{\"name\":\"\\ud800\"},{\"name\":\"\\ud7ff\"}]}", "fn:\ud7ff,fn:\xed\xa0\x80", false},
	{"array body", "[1]", "", false},
}

func TestToolSignature(t *testing.T) {
	for _, tc := range toolVectors {
		t.Run(tc.name, func(t *testing.T) {
			v := parse(t, tc.body)
			err := Check(v)
			if tc.skip {
				if !errors.Is(err, ErrSkipped) {
					t.Fatalf("Check = %v, want an ErrSkipped error", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Check = %v", err)
			}
			if got := ToolSignature(v); got != tc.want {
				t.Errorf("ToolSignature = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCheckMessages(t *testing.T) {
	tests := []struct {
		body, want string
	}{
		{`null`, "the request body is null: " + ErrSkipped.Error()},
		// The prompt is extracted first, so its error wins.
		{`{"messages":[{"role":"user","content":"x"},null],"functions":[{"name":{"toString":1}}]}`,
			"messages[1] is null: " + ErrSkipped.Error()},
		{`{"functions":[{"name":"a"},{"name":{"toString":1}}],"tool_choice":{"name":{"toString":2}}}`,
			`functions[1].name is an object with its own "toString" key, which JavaScript cannot convert to a string (TypeError): ` + ErrSkipped.Error()},
		{`{"tools":[{"type":"function","function":{"name":[{"toString":1}]}}]}`,
			`tools[0].function.name is an object with its own "toString" key, which JavaScript cannot convert to a string (TypeError): ` + ErrSkipped.Error()},
	}
	for _, tc := range tests {
		err := Check(parse(t, tc.body))
		if err == nil || err.Error() != tc.want {
			t.Errorf("Check(%s) = %v, want %q", tc.body, err, tc.want)
		}
	}
	if err := Check(nil); !errors.Is(err, ErrSkipped) {
		t.Errorf("Check(nil) = %v", err)
	}
	if Prompt(nil) != "" || ToolSignature(nil) != "" || PromptHash(nil) != fnvOffset {
		t.Error("nil request: want empty prompt and signature")
	}
}

// TestRawStringAccess pins how lone surrogates survive: exact while the
// string is still raw in fastjson, fastjson's decoding once something has
// asked fastjson for it (the documented divergence).
func TestRawStringAccess(t *testing.T) {
	if !rawAccess().ok {
		t.Fatal("cannot read fastjson's raw strings: has fastjson.Value changed? lone surrogates are now decoded as fastjson does")
	}
	const body = `{"prompt":"\ud800\u0041"}`
	v := parse(t, body)
	if got, want := Prompt(v), "\xed\xa0\x80A"; got != want {
		t.Errorf("raw: Prompt = %q, want %q (JavaScript: U+D800 then A)", got, want)
	}
	if got := Prompt(v); got != "\xed\xa0\x80A" {
		t.Errorf("Prompt changed the value: second call gave %q", got)
	}
	v.Get("prompt").StringBytes() // fastjson decodes, in place
	if got, want := Prompt(v), "\ufffd"; got != want {
		t.Errorf("decoded by fastjson: Prompt = %q, want %q (fastjson's reading)", got, want)
	}
}

func TestAppendJSONString(t *testing.T) {
	tests := []struct {
		raw  string
		want []uint16
	}{
		{`a\u00e9\n`, []uint16{'a', 0xe9, '\n'}},
		{`\ud83d\ude00`, []uint16{0xd83d, 0xde00}},
		{`\ude00\ud83d`, []uint16{0xde00, 0xd83d}},
		{`\uD800x`, []uint16{0xd800, 'x'}},
		// Not JSON (JSON.parse would reject the body): kept as fastjson keeps them.
		{`\x\u12G4\`, []uint16{'\\', 'x', '\\', 'u', '1', '2', 'G', '4', '\\'}},
		{"\xe2\x82\\n", []uint16{0xfffd, '\n'}},
	}
	for _, tc := range tests {
		if got := appendJSONString(nil, tc.raw); !slicesEqual(got, tc.want) {
			t.Errorf("appendJSONString(%q) = %04X, want %04X", tc.raw, got, tc.want)
		}
	}
}

// TestNumberToString checks ECMAScript Number::toString; the expected
// strings are what Node prints for String(x) (also covered by the "numbers"
// tool vector).
func TestNumberToString(t *testing.T) {
	tests := []struct {
		x    float64
		want string
	}{
		{0, "0"},
		{math.Copysign(0, -1), "0"},
		{1, "1"},
		{-2.5, "-2.5"},
		{100, "100"},
		{0.1, "0.1"},
		{1e20, "100000000000000000000"},
		{1e21, "1e+21"},
		{1.5e21, "1.5e+21"},
		{123456789012345678901234, "1.2345678901234569e+23"},
		{1e-6, "0.000001"},
		{1.5e-6, "0.0000015"},
		{1e-7, "1e-7"},
		{1.5e-7, "1.5e-7"},
		{5e-324, "5e-324"},
		{math.MaxFloat64, "1.7976931348623157e+308"},
		{math.Inf(1), "Infinity"},
		{math.Inf(-1), "-Infinity"},
		{math.NaN(), "NaN"},
		{123.456, "123.456"},
		{9007199254740993, "9007199254740992"},
	}
	for _, tc := range tests {
		if got := NumberToString(tc.x); got != tc.want {
			t.Errorf("NumberToString(%v) = %q, want %q", tc.x, got, tc.want)
		}
	}
}

// FuzzRequest checks that the request extractors never panic on any body
// fastjson accepts, and that they do not change the parsed value.
func FuzzRequest(f *testing.F) {
	for _, tc := range promptVectors {
		f.Add(tc.body)
	}
	for _, tc := range toolVectors {
		f.Add(tc.body)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var p fastjson.Parser
		v, err := p.Parse(body)
		if err != nil {
			return
		}
		// fastjson unescapes object keys in place on any lookup; string
		// values must stay as they are (raw).
		unescapeKeys(v)
		before := v.String()
		prompt, sig, hash := Prompt(v), ToolSignature(v), PromptHash(v)
		_ = Check(v)
		if after := v.String(); after != before {
			t.Fatalf("the extractors changed the value: %s → %s", before, after)
		}
		if Prompt(v) != prompt || ToolSignature(v) != sig || PromptHash(v) != hash {
			t.Fatal("second extraction differs")
		}
		if want := SimHash(Normalize(prompt)); hash != want {
			t.Fatalf("PromptHash = %#x, SimHash(Normalize(Prompt)) = %#x", hash, want)
		}
		if sig != "" && !strings.HasPrefix(sig, "fn:") && !strings.HasPrefix(sig, "tool:") {
			t.Fatalf("ToolSignature = %q", sig)
		}
	})
}

// unescapeKeys makes fastjson unescape every object key under v, without
// touching string values.
func unescapeKeys(v *fastjson.Value) {
	switch kindOf(v) {
	case fastjson.TypeObject:
		o, _ := v.Object()
		o.Visit(func(_ []byte, x *fastjson.Value) { unescapeKeys(x) })
	case fastjson.TypeArray:
		a, _ := v.Array()
		for _, x := range a {
			unescapeKeys(x)
		}
	}
}
