package geminicli

import (
	"testing"

	"github.com/killswitch/killswitch/analyze/peers/conv"
)

// TestArgsString: a call's arguments string becomes what
// JSON.stringify(JSON.parse(arguments) || {}) gives (the raw string when
// it does not parse). The expected values were printed by Node.js v20
// (try { v = JSON.parse(s) } catch { v = s }; JSON.stringify(v || {})):
// key order with array-index keys first and a repeated key's first
// position, Number's toString, and the escapes JSON.stringify makes.
func TestArgsString(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"a":1.0,"b":[1e21,1e-7,123456789012345678901234,-0,0.1,5e-324,1.7976931348623157e308,1e400]}`, `{"a":1,"b":[1e+21,1e-7,1.2345678901234569e+23,0,0.1,5e-324,1.7976931348623157e+308,null]}`},
		{`{"b":1,"a":2,"b":3}`, `{"b":3,"a":2}`},
		{`{"10":1,"2":2,"x":3,"01":4,"4294967295":5,"4294967294":6}`, `{"2":2,"10":1,"4294967294":6,"x":3,"01":4,"4294967295":5}`},
		{`{"s":"\u0001\u001f \" \\ \/ \ud800 \udc00x \ud83d\ude00 é \u2028"}`, "{\"s\":\"\\u0001\\u001f \\\" \\\\ / \\ud800 \\udc00x \U0001F600 \u00e9 \u2028\"}"},
		{`not json`, `"not json"`},
		{``, `{}`},
		{`0`, `{}`},
		{`null`, `{}`},
		{`false`, `{}`},
		{`""`, `{}`},
		{`"str"`, `"str"`},
		{`[1, 2 ,3]`, `[1,2,3]`},
		{` {"a" : [ ] } `, `{"a":[]}`},
		{`{"a":1,}`, `"{\"a\":1,}"`},
		{`[01]`, `"[01]"`},
		{`1.`, `"1."`},
		{`{"a":true}`, `{"a":true}`},
		{`{"k":"\u00e9\u00E9"}`, `{"k":"éé"}`},
		{`NaN`, `"NaN"`},
		{`{"a":1} x`, `"{\"a\":1} x"`},
		{`123.456e-10`, `1.23456e-8`},
		{`-1.5E+3`, `-1500`},
		{`1e-6`, `0.000001`},
		{`1e-7`, `1e-7`},
		{`999999999999999999999`, `1e+21`},
		{`0.000001`, `0.000001`},
	}
	for _, c := range cases {
		if got := argsString(conv.Call{Args: c.in, ArgsString: true}); got != c.want {
			t.Errorf("%q: got %s, want %s", c.in, got, c.want)
		}
	}
}
