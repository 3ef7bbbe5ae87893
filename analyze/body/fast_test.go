package body

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The fast path (fast.go) must give exactly what the tree path gives, for
// every input. These tests run both on the same bytes: a Parser as used in
// production, and one with treeOnly set, the reference.

// outcome is the result of one call, its slices copied (they are valid only
// until the Parser's next call) and its error as text.
type outcome struct {
	Req  Request
	Resp Response
	Err  string
}

func requestOutcome(p *Parser, b []byte) outcome {
	r, err := p.ParseRequest(b)
	r.Prompt = bytes.Clone(r.Prompt)
	return outcome{Req: r, Err: errText(err)}
}

func responseOutcome(p *Parser, b []byte) outcome {
	r, err := p.ParseResponse(b)
	r.Text = bytes.Clone(r.Text)
	return outcome{Resp: r, Err: errText(err)}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// differential runs a body through both paths, as a request and as a
// response, and reports whether the fast path took it as either.
type differential struct {
	fast, tree Parser
	probe      Parser // only asks the fast path whether it takes a body
}

func newDifferential() *differential {
	d := &differential{}
	d.tree.treeOnly = true
	return d
}

// check fails t when the two paths differ on b, and reports whether the fast
// path handled b as a request and as a response.
func (d *differential) check(t testing.TB, b []byte) (fastReq, fastResp bool) {
	t.Helper()
	if got, want := requestOutcome(&d.fast, b), requestOutcome(&d.tree, b); !reflect.DeepEqual(got, want) {
		t.Errorf("request %q:\nfast %+v\ntree %+v", trim(b), got, want)
	}
	if got, want := responseOutcome(&d.fast, b), responseOutcome(&d.tree, b); !reflect.DeepEqual(got, want) {
		t.Errorf("response %q:\nfast %+v\ntree %+v", trim(b), got, want)
	}
	_, fastReq = d.probe.fastRequest(b)
	d.probe.resetOutput()
	if tb := trimLeft(b); len(tb) > 0 && !isEventStream(tb) {
		_, fastResp = d.probe.fastResponse(tb)
	}
	return fastReq, fastResp
}

func trim(b []byte) []byte {
	if len(b) > 300 {
		return append(b[:150:150], append([]byte(" … "), b[len(b)-150:]...)...)
	}
	return b
}

// tricky holds hand-written bodies at the fast path's edges. Those marked
// fast must be taken by the fast path (as a request or a response); the
// others may be left to the tree path. All must give the tree path's result.
var tricky = []struct {
	fast bool
	body string
}{
	// The common shapes.
	{true, `{"model":"gpt-4o","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hi"}]}`},
	{true, `{"messages":[{"content":null,"role":"assistant","tool_calls":[{"function":{"arguments":"{\"q\":\"x\",\"n\":2}","name":"lookup"},"id":"c1","type":"function"}]},{"content":"{\"ok\":1}","role":"tool","tool_call_id":"c1"},{"content":"go on","role":"user"}],"model":"gpt-4o-mini"}`},
	{true, `{"id":"x","object":"chat.completion","model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"Hello"},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":3}}`},
	{true, `{"choices":[{"finish_reason":"tool_calls","index":0,"message":{"content":null,"role":"assistant","tool_calls":[{"function":{"arguments":"{\"id\":7}","name":"get_invoice"},"id":"c","type":"function"}]}}],"id":"x","object":"chat.completion","usage":{"completion_tokens":10,"prompt_tokens":400}}`},
	{true, " \n\t{\"messages\":[{\"role\":\"user\",\"content\":\"ws\"}]} \r\n"},
	// Duplicate members: fastjson's Get finds the first.
	{true, `{"model":"a","model":"b","messages":[{"role":"user","content":"x"}],"messages":[{"role":"user","content":"y"}]}`},
	{true, `{"model":1,"model":"b","stream":false,"stream":true,"messages":[{"role":"user","role":"assistant","content":"x","content":"y"}]}`},
	{true, `{"messages":[{"role":"assistant","tool_calls":[{"function":{"name":"a","name":"b","arguments":"{}","arguments":"[1]"},"function":{"name":"c"}}],"tool_calls":[{"function":{"name":"d"}}]},{"role":"user","content":"q"}]}`},
	{true, `{"messages":[{"role":"user","content":[{"type":"text","type":"image_url","text":"a"},{"text":"b","text":"c","thought":false,"thought":true}]}]}`},
	{true, `{"choices":[{"message":{"content":"a"}}],"choices":[{"message":{"content":"b"}}],"usage":{"prompt_tokens":1,"prompt_tokens":2},"usage":null,"model":"m","model":"n"}`},
	{true, `{"choices":[{"message":"x","message":{"content":"a"},"text":"t"}]}`},
	{true, `{"choices":[{"message":{"content":"a"},"message":"x"}]}`},
	{false, `{"messages":null,"messages":[{"role":"user","content":"x"}]}`},
	// Escapes: the prompt, names, roles and arguments are unescaped as
	// fastjson unescapes them, invalid escapes included.
	{true, `{"messages":[{"role":"user","content":"a\nb\t\"c\" \\ \/ \b\f\r \u00e9 \u20AC \ud83d\ude00 end"}]}`},
	{true, `{"messages":[{"role":"user","content":"lone \ud83d high, \ude00 low, \ud83dx, \ud83d\u0041, \udc00\ud800, \ud83d\uZZZZ, \u12, \uZZZZ, \x \q \u0000 \u001f"}]}`},
	{true, `{"messages":[{"role":"user","content":"\u"}]}`},
	{true, `{"messages":[{"role":"user","content":"\ud800\u"}]}`},
	{true, `{"messages":[{"role":"us\u0065r","content":"escaped role"},{"role":"\u0061ssistant","tool_calls":[{"function":{"name":"n\u00e4me\n","arguments":"{\"k\u00e9y\":\"v\\n\"}"}}]}],"model":"cl\u0061ude-x"}`},
	{true, `{"messages":[{"role":"user","content":[{"type":"te\u0078t","text":"esc\u0061ped type"},"str\u0069ng part"]}]}`},
	{true, `{"choices":[{"message":{"content":"caf\u00e9 \ud83d\ude00","refusal":"no\tway"}}],"model":"gpt-\u0034"}`},
	{true, `{"type":"err\u006fr","choices":[]}`},
	// Raw control characters and invalid UTF-8 pass through, as in fastjson.
	{true, "{\"messages\":[{\"role\":\"user\",\"content\":\"tab\there\nnewline \x00 \xff\xfe\"}]}"},
	// Escaped member names: left to the tree path, whose lookups then depend
	// on their order.
	{false, `{"mod\u0065l":"x","messages":[{"role":"user","content":"a"}]}`},
	{false, `{"messages":[{"r\u006fle":"assistant","role":"user","content":"a"}]}`},
	{false, `{"messages":[{"role":"user","c\u006fntent":"x"}]}`},
	{false, `{"choices":[{"message":{"c\u006fntent":"a"}}]}`},
	// Nulls, and values of unexpected types.
	{true, `{"model":null,"stream":null,"system":null,"tools":null,"messages":[null,1,"s",[],{"role":null,"content":null},{"role":"user","content":null}]}`},
	{true, `{"messages":[{"role":"user","content":{"text":"object content"}},{"role":"user","content":7}]}`},
	{true, `{"messages":[{"role":"assistant","tool_calls":null,"function_call":null,"content":null}]}`},
	{true, `{"messages":[{"role":"assistant","tool_calls":[null,1,"x",[],{},{"function":null},{"function":"f"},{"function":[1]},{"function":{}},{"function":{"name":null,"arguments":null}}]}]}`},
	{true, `{"messages":[{"role":"assistant","tool_calls":{"0":{"function":{"name":"x"}}}}]}`},
	{true, `{"messages":[{"role":"assistant","tool_calls":[{"function":null}]}]}`},
	{true, `{"messages":[{"role":"assistant","tool_calls":[{"function":"f"}]},{"role":"assistant","tool_calls":[{"id":"no function"}]}]}`},
	{true, `{"messages":[{"role":"assistant","function_call":{"name":"legacy","arguments":"{\"b\":1,\"a\":[true,null]}"}},{"role":"assistant","function_call":"x"}]}`},
	{true, `{"messages":[{"role":"assistant","tool_calls":[{"function":{"name":"o","arguments":{"b":[1.5,-2e3],"a":{"z":null,"y":"Txt"}}}},{"function":{"name":"n","arguments":12}},{"function":{"name":"t","arguments":true}},{"function":{"name":"a","arguments":["x"]}}]}]}`},
	{true, `{"messages":[{"role":"assistant","tool_calls":[{"function":{"name":"s","arguments":"not json"}},{"function":{"name":"e","arguments":""}},{"function":{"name":"w","arguments":"  \n"}},{"function":{"name":"d","arguments":"{\"a\":1,\"a\":\"x\"}"}}]}]}`},
	{true, `{"choices":[{"message":{"content":[1,null,{"type":"text"},{"type":"text","text":1},{"type":"output_text","text":"a"},{"type":"refusal","refusal":"r"},{"text":"b","thought":"yes"},{"text":"c","thought":true},"d",{"type":null,"text":"e"},{"type":"","text":"f"}],"refusal":7}}]}`},
	{true, `{"choices":[{"message":{"content":null,"refusal":"I can't"}}]}`},
	{true, `{"choices":[{"message":"not an object","text":"legacy"}]}`},
	{true, `{"choices":[{"text":""}],"usage":{"prompt_tokens":"12","completion_tokens":null}}`},
	{true, `{"choices":[{"text":7}]}`},
	{true, `{"choices":[],"usage":{}}`},
	{true, `{"choices":null}`},
	{true, `{"choices":"x","usage":[1]}`},
	{true, `{"choices":[1,{"message":{"content":"second"}}]}`},
	{true, `{"choices":[[{"message":{"content":"nested"}}]]}`},
	{true, `{"choices":[{"message":{"content":"a"}}],"error":null,"type":"chat"}`},
	{true, `{"choices":[{"message":{"content":"a"}}],"error":{"message":"boom"}}`},
	{true, `{"choices":[{"message":{"content":"a"}}],"error":"boom"}`},
	{true, `{"choices":[{"message":{"content":"a"}}],"type":"error"}`},
	{true, `{"choices":[{"message":{"content":"a"}}],"error":1,"type":7}`},
	// Numbers: usage reads small integers; any other number goes to the tree
	// path (its float fallback, its lax number syntax).
	{true, `{"choices":[],"usage":{"prompt_tokens":-0,"completion_tokens":999999999999999999}}`},
	{true, `{"choices":[],"usage":{"prompt_tokens":0,"completion_tokens":-123456789012345678}}`},
	{false, `{"choices":[],"usage":{"prompt_tokens":12.0,"completion_tokens":1}}`},
	{false, `{"choices":[],"usage":{"prompt_tokens":1e3}}`},
	{false, `{"choices":[],"usage":{"prompt_tokens":1e400}}`},
	{false, `{"choices":[],"usage":{"prompt_tokens":9999999999999999999}}`},
	{false, `{"choices":[],"usage":{"prompt_tokens":99999999999999999999}}`},
	{false, `{"choices":[],"usage":{"prompt_tokens":007}}`},
	{false, `{"choices":[],"usage":{"prompt_tokens":1.5e3,"completion_tokens":-3.5}}`},
	{true, `{"messages":[{"role":"user","content":"x","n":-0.5e-7,"m":[0,1E+2,-1.25e-0]}],"temperature":0.7}`},
	{false, `{"messages":[{"role":"user","content":"x"}],"temperature":NaN}`},
	{false, `{"messages":[{"role":"user","content":"x"}],"temperature":-Inf}`},
	{false, `{"messages":[{"role":"user","content":"x"}],"n":+1}`},
	{false, `{"messages":[{"role":"user","content":"x"}],"n":1.}`},
	{false, `{"messages":[{"role":"user","content":"x"}],"n":.5}`},
	{false, `{"messages":[{"role":"user","content":"x"}],"n":1e}`},
	{false, `{"messages":[{"role":"user","content":"x"}],"n":1-2}`},
	{false, `{"messages":[{"role":"user","content":"x"}],"n":--1}`},
	{false, `{"choices":[],"usage":{"prompt_tokens":nan}}`},
	// Invalid JSON: the tree path's error.
	{false, `{"messages":[{"role":"user","content":"x"}]} x`},
	{false, `{"messages":[{"role":"user","content":"x"}]}}`},
	{false, `{"messages":[{"role":"user","content":"x"}]}{}`},
	{false, `{"messages":[{"role":"user","content":"x"},]}`},
	{false, `{"messages":[{"role":"user","content":"x",}]}`},
	{false, `{"messages":[{"role":"user" "content":"x"}]}`},
	{false, `{"messages":[{"role":"user","content":"x"}],}`},
	{false, `{"messages":[{"role":"user","content":"x"}] "a":1}`},
	{false, `{"messages":[{"role":"user","content":"x"}],"a":tru}`},
	{false, `{"messages":[{"role":"user","content":"x"}],"a":nul}`},
	{false, `{"messages":[{"role":"user","content":"x"}],"a":truex}`},
	{false, `{"messages":[{"role":"user","content":"x"}],"a":[1 2]}`},
	{false, `{"messages":[{"role":"user","content":"x"}],"a":{"b"}}`},
	{false, `{"messages":[{"role":"user","content":"x"}],"a":{1:2}}`},
	{false, `{"messages":[{"role":"user","content":"x\"}]}`},
	{false, `{"messages":[{"role":"user","content":"x\\\"}]}`},
	{false, `{"choices":[{"message":{"content":"a"}}],"x":}`},
	{false, `{"messages":[{"role":"user","content":"x"}],"a":[1}}`},
	{false, `{"messages":[{"role":"user","content":"x"}],"a":{"b":[1]]}`},
	{false, `{"messages":[{"role":"user","content":"x"}],"a":[{"b":1]]}`},
	{false, `{"messages":[{"role":"user","content":"x"}}`},
	{false, "\xef\xbb\xbf{\"messages\":[{\"role\":\"user\",\"content\":\"bom\"}]}"},
	{false, `{"messages":"not an array"}`},
	{false, `{"messages":{"0":{"role":"user"}}}`},
	{false, `[{"messages":[]}]`},
	{false, `"messages"`},
	{false, ``},
	// Other dialects and shapes.
	{true, `{"model":"claude-3","messages":[{"role":"user","content":"by model"}]}`},
	{true, `{"model":"claude-3","messages":[{"role":"developer","content":"openai role wins"},{"role":"user","content":"x"}]}`},
	{true, `{"model":"claude-3","messages":[{"role":"system","content":"s"},{"role":"user","content":"x"}]}`},
	{true, `{"model":"claude-3","messages":[{"role":"user","content":"x"},{"role":"tool","content":"r"}]}`},
	{true, `{"model":"claude-3","messages":[{"role":"user","content":"x"},{"role":"function","content":"r"}]}`},
	{true, `{"model":"claude-3","messages":[{"role":"assistant","tool_calls":null},{"role":"user","content":"tool_calls key wins"}]}`},
	{true, `{"system":"s","messages":[{"role":"user","content":"x"}]}`},
	{true, `{"system":null,"anthropic_version":null,"messages":[{"role":"user","content":"x"}]}`},
	{true, `{"tools":[{"name":"t","input_schema":{}}],"messages":[{"role":"user","content":"x"}]}`},
	{true, `{"tools":[{"type":"function","function":{"name":"t","parameters":{}}},{"input_schema":{}}],"messages":[{"role":"user","content":"x"}]}`},
	{true, `{"tools":[],"messages":[{"role":"user","content":"x"}],"tools":{"0":{"input_schema":1}}}`},
	{true, `{"tools":[1,{"input_schema":null}],"messages":[{"role":"user","content":"x"}]}`},
	{false, `{"tools":{"0":{"input_schema":1}},"messages":[{"role":"user","content":"x"}]}`},
	{true, `{"messages":[{"role":"user","content":"first"},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"out"}]}]}`},
	{true, `{"messages":[{"role":"user","content":[{"type":"tool_result","content":"out"},{"type":"text","text":"and text"}]}]}`},
	{true, `{"messages":[{"role":"user","content":[{"tool_result":{}}]},{"role":"user","content":[{"image_url":{"url":"x"}}]}]}`},
	{true, `{"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"text","text":"ok"},{"type":"tool_use","id":"t","name":"bash","input":{"cmd":"ls","n":1}},{"type":"tool_use","name":"s","input":"{\"a\":2}"},{"type":"tool_use","name":"z"},5]}]}`},
	{true, `{"messages":[{"role":"assistant","tool_calls":[{"function":{"name":"a","arguments":"{}"}}]},{"role":"assistant","content":"no calls"},{"role":"tool","content":"r"},{"role":"assistant","function_call":{"name":"late"}}]}`},
	{true, `{"messages":[{"role":"User","content":"not user"},{"role":"model","content":"x"}]}`},
	{false, `{"contents":[{"role":"user","parts":[{"text":"gemini"}]}]}`},
	{false, `{"messages":[{"role":"user","content":"x"}],"contents":[]}`},
	{false, `{"prompt":"legacy"}`},
	{false, `{"input":"responses"}`},
	{false, `{"model":"m"}`},
	{false, `{"choices":[{"delta":{"content":"chunk"}}]}`},
	{false, `{"choices":{"0":{"delta":{}}}}`},
	{false, `{"candidates":[],"choices":[]}`},
	{false, `{"output":[],"choices":[]}`},
	{false, `{"type":"message","role":"assistant","content":[{"type":"text","text":"anthropic"}]}`},
	{false, "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\n"},
	{false, `[{"choices":[{"delta":{"content":"x"}}]}]`},
}

// deep returns a request whose "meta" member nests n arrays.
func deep(n int) string {
	return `{"messages":[{"role":"user","content":"x"}],"meta":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`
}

func trickyBodies() [][]byte {
	var out [][]byte
	for _, c := range tricky {
		out = append(out, []byte(c.body))
	}
	for _, n := range []int{maxSkipDepth - 1, maxSkipDepth, maxSkipDepth + 1, 299, 300, 301} {
		out = append(out, []byte(deep(n)))
	}
	return out
}

func TestFastPathTricky(t *testing.T) {
	d := newDifferential()
	for _, c := range tricky {
		fr, fs := d.check(t, []byte(c.body))
		if c.fast && !fr && !fs {
			t.Errorf("fast path did not take %q", c.body)
		}
	}
	// Nesting: the fast path follows maxSkipDepth levels in a value it skips,
	// fastjson 300 in all; deeper is an error of the tree path.
	for _, n := range []int{maxSkipDepth - 3, maxSkipDepth - 2, maxSkipDepth + 1, 298, 299, 300} {
		fr, _ := d.check(t, []byte(deep(n)))
		if fr != (n <= maxSkipDepth-2) {
			t.Errorf("depth %d: fast path took it: %v", n, fr)
		}
	}
}

// TestFastPathTruncated checks every prefix of bodies the fast path takes:
// all but the whole body are invalid JSON (or another document) and must
// give the tree path's error or result.
func TestFastPathTruncated(t *testing.T) {
	d := newDifferential()
	for _, c := range tricky {
		if !c.fast {
			continue
		}
		b := []byte(c.body)
		for n := range len(b) {
			d.check(t, b[:n:n])
		}
	}
}

// fixtureBodies returns the JSON bodies of every fixture.
func fixtureBodies(t testing.TB) [][]byte {
	var out [][]byte
	for _, dir := range []string{"request", "response", "stream"} {
		paths, err := filepath.Glob(filepath.Join("testdata", dir, "*.txtar"))
		if err != nil || len(paths) == 0 {
			t.Fatalf("no fixtures in testdata/%s", dir)
		}
		for _, path := range paths {
			a := readArchive(t, path)
			for _, s := range []string{"request", "response", "json", "stream"} {
				if b, ok := a.files[s]; ok {
					out = append(out, b)
				}
			}
		}
	}
	return out
}

func TestFastPathFixtures(t *testing.T) {
	d := newDifferential()
	taken := 0
	for _, b := range fixtureBodies(t) {
		if fr, fs := d.check(t, b); fr || fs {
			taken++
		}
	}
	if taken < 8 {
		t.Errorf("the fast path took only %d fixtures", taken)
	}
	t.Logf("the fast path took %d fixtures", taken)
}

// captureBodies returns the JSON values of the shared captures that hold a
// "messages" or "choices" member, at any depth (bodies stored as JSON text
// included), and the request and response bodies of the HAR captures; nil
// when the captures are absent.
func captureBodies(t testing.TB) [][]byte {
	var out [][]byte
	err := filepath.WalkDir(capturesDir, func(path string, de os.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return err
		}
		switch filepath.Ext(path) {
		case ".har":
			for _, e := range readHAR(t, path) {
				out = append(out, e.request, e.response)
			}
			return nil
		case ".json", ".jsonl":
		default:
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		for {
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				break
			}
			walkJSON(v, func(obj json.RawMessage, keys []string) {
				if slices.Contains(keys, "messages") || slices.Contains(keys, "choices") {
					out = append(out, obj)
				}
			})
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return out
}

// walkJSON calls fn with every object in v and its member names, and walks
// into strings that hold JSON.
func walkJSON(v json.RawMessage, fn func(obj json.RawMessage, keys []string)) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return
	}
	switch v[0] {
	case '{':
		var m map[string]json.RawMessage
		if json.Unmarshal(v, &m) != nil {
			return
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		fn(v, keys)
		for _, k := range keys {
			walkJSON(m[k], fn)
		}
	case '[':
		var a []json.RawMessage
		if json.Unmarshal(v, &a) == nil {
			for _, e := range a {
				walkJSON(e, fn)
			}
		}
	case '"':
		var s string
		if json.Unmarshal(v, &s) == nil && (strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[")) {
			walkJSON(json.RawMessage(s), fn)
		}
	}
}

func TestFastPathCaptures(t *testing.T) {
	if _, err := os.Stat(capturesDir); err != nil {
		t.Skipf("shared captures absent: %v", err)
	}
	d := newDifferential()
	bodies := captureBodies(t)
	reqs, resps := 0, 0
	for _, b := range bodies {
		fr, fs := d.check(t, b)
		if fr {
			reqs++
		}
		if fs {
			resps++
		}
	}
	t.Logf("%d capture bodies: the fast path took %d as requests, %d as responses", len(bodies), reqs, resps)
	if reqs == 0 || resps == 0 {
		t.Errorf("the fast path took %d requests and %d responses of the captures", reqs, resps)
	}
}

// TestFastPathBenchBodies checks the benchmark bodies, which the fast path
// must take.
func TestFastPathBenchBodies(t *testing.T) {
	d := newDifferential()
	for _, bc := range benchBodies() {
		if fr, fs := d.check(t, bc.body); !fr && !fs {
			t.Errorf("%s: the fast path did not take it", bc.name)
		}
	}
}

// FuzzFastPath runs any bytes through both paths as a request and as a
// response, and requires identical results.
func FuzzFastPath(f *testing.F) {
	for _, b := range trickyBodies() {
		f.Add(b)
	}
	for _, b := range fixtureBodies(f) {
		f.Add(b)
	}
	for _, b := range captureBodies(f) {
		f.Add(b)
	}
	for _, bc := range benchBodies() {
		f.Add(bc.body)
	}
	d := newDifferential()
	f.Fuzz(func(t *testing.T, b []byte) {
		d.check(t, b)
	})
}

// fieldTemplates are bodies with three slots, %a %b %c, that
// FuzzFastPathFields fills with raw bytes: the fuzzer then explores escapes,
// numbers and values inside documents that are otherwise well formed.
var fieldTemplates = []string{
	`{"model":"%a","messages":[{"role":"system","content":"%b"},{"role":"user","content":"%c"}]}`,
	`{"messages":[{"role":"%a","content":null,"tool_calls":[{"function":{"name":"%b","arguments":"%c"}}]},{"role":"user","content":[{"type":"text","text":"x"}]}]}`,
	`{"messages":[{"role":"user","content":%a}],"stream":%b,"x":%c}`,
	`{"choices":[{"message":{"content":"%a","refusal":%b}}],"usage":{"prompt_tokens":%c}}`,
	`{"choices":[{"message":{"role":"assistant","tool_calls":[{"function":{"name":"%a","arguments":%b}}]}}],"model":"%c"}`,
	`{%a"messages":[{"role":"user","content":"x"}]%b}%c`,
	`{"messages":[{"role":"assistant","content":[%a]},{"role":"user","content":[%b]}],"tools":%c}`,
	`{"choices":[%a{"message":{%b"content":"x"}}],%c"usage":{"completion_tokens":1}}`,
}

func FuzzFastPathFields(f *testing.F) {
	for i := range fieldTemplates {
		f.Add(uint8(i), []byte(`a\nb`), []byte(`\ud83d\ude00`), []byte(`1`))
	}
	f.Add(uint8(1), []byte(`assistant`), []byte(`n\u00e4me`), []byte(`{\"b\":1,\"a\":[\"X\"]}`))
	f.Add(uint8(2), []byte(`[{"type":"text","text":"a"},"b"]`), []byte(`true`), []byte(`[[{}]]`))
	f.Add(uint8(3), []byte(`x`), []byte(`"r"`), []byte(`-12`))
	f.Add(uint8(4), []byte(`f`), []byte(`{"k":[1.5,null]}`), []byte(`gpt`))
	f.Add(uint8(5), []byte(`"model":"m",`), []byte(`,"stream":true`), []byte(` `))
	f.Add(uint8(6), []byte(`{"type":"tool_use","name":"t","input":{}}`), []byte(`{"type":"tool_result"}`), []byte(`[{"input_schema":{}}]`))
	f.Add(uint8(7), []byte(`1,`), []byte(`"refusal":"no",`), []byte(`"error":null,`))
	d := newDifferential()
	f.Fuzz(func(t *testing.T, tmpl uint8, a, b, c []byte) {
		s := fieldTemplates[int(tmpl)%len(fieldTemplates)]
		s = strings.NewReplacer("%a", string(a), "%b", string(b), "%c", string(c)).Replace(s)
		d.check(t, []byte(s))
	})
}

// TestAppendUnescaped checks the port of fastjson's unescaping on strings
// that hold every escape form, against the tree path's prompt.
func TestAppendUnescaped(t *testing.T) {
	var tree Parser
	tree.treeOnly = true
	for _, s := range []string{
		``, `plain`, `\n\t\r\b\f\/\\\"`, `\u00e9\u00E9\u20ac`, `\ud83d\ude00`, `\ud83d`, `\ud83dx`,
		`\ud83d\u0041`, `\udc00\ud800`, `\ud83d\uZZZZ`, `\ud83d\u`, `\u12`, `\u`, `\uZZZZ`, `\x`,
		`\u0000`, `\uD800\uDC00`, `\uDBFF\uDFFF`, `\uFFFF`, `\u+123`, `\u-123`, `\u_123`, `\u0x12`,
	} {
		r, err := tree.ParseRequest([]byte(`{"messages":[{"role":"user","content":"` + s + `"}]}`))
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if got, want := string(appendUnescaped(nil, []byte(s))), string(r.Prompt); got != want {
			t.Errorf("appendUnescaped(%q) = %q, tree path %q", s, got, want)
		}
	}
}

// ExampleParser_ParseRequest_duplicateKeys shows what the fast path keeps of
// duplicate members: the first, as fastjson's Get.
func ExampleParser_ParseRequest_duplicateKeys() {
	var p Parser
	r, _ := p.ParseRequest([]byte(`{"model":"a","model":"b","messages":[{"role":"user","content":"one","content":"two"}]}`))
	fmt.Printf("%s %q\n", r.Model, r.Prompt)
	// Output: a "one"
}
