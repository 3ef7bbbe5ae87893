package gateway

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/killswitch/killswitch/analyze/gateway/pyrepr"
)

// chatRequest is a chat body after the validation M22's pydantic model
// (ChatCompletionRequest, lax Python mode, extra keys ignored) applies.
type chatRequest struct {
	Model     string
	Messages  pyrepr.Value // model_dump() of the messages: dicts role, content, name
	MaxTokens *big.Int     // nil: max_tokens was null
	User      string
}

// invalidBody is a body M22 refuses before any decision: Status 422
// (validation) or 500 (a crash inside the guardrail evaluation).
type invalidBody struct {
	Status int
	Msg    string
}

func (e *invalidBody) Error() string { return e.Msg }

const defaultModel = "gpt-4o-mini"

// parseChat validates body as FastAPI + pydantic would. A body json.loads
// refuses is a 422 too (FastAPI answers json_invalid).
func parseChat(body []byte) (*chatRequest, *invalidBody) {
	bad := func(format string, args ...any) (*chatRequest, *invalidBody) {
		return nil, &invalidBody{Status: 422, Msg: fmt.Sprintf(format, args...)}
	}
	v, err := pyrepr.ParseJSON(body)
	if err != nil {
		return bad("request body is not JSON: %v", err)
	}
	if v.Kind != pyrepr.Dict {
		return bad("request body is a %s, not an object", jsonType(&v))
	}
	req := &chatRequest{Model: defaultModel, MaxTokens: big.NewInt(4096)}
	if m, ok := v.Get("model"); ok {
		if m.Kind != pyrepr.Str {
			return bad("model: want a string, got %s", jsonType(m))
		}
		req.Model = m.Text()
	}
	msgs, ok := v.Get("messages")
	if !ok {
		return bad("messages: missing")
	}
	if msgs.Kind != pyrepr.List {
		return bad("messages: want a list, got %s", jsonType(msgs))
	}
	req.Messages = pyrepr.Value{Kind: pyrepr.List, Items: make([]pyrepr.Value, len(msgs.Items))}
	for i := range msgs.Items {
		m := &msgs.Items[i]
		if m.Kind != pyrepr.Dict {
			return bad("messages[%d]: want an object, got %s", i, jsonType(m))
		}
		d := pyrepr.Value{Kind: pyrepr.Dict}
		for _, k := range []string{"role", "content", "name"} {
			f, ok := m.Get(k)
			switch {
			case !ok && k == "name":
				f = &pyrepr.NoneValue
			case !ok:
				return bad("messages[%d].%s: missing", i, k)
			case f.Kind == pyrepr.None && k == "name":
			case f.Kind != pyrepr.Str:
				return bad("messages[%d].%s: want a string, got %s", i, k, jsonType(f))
			}
			d.Keys = append(d.Keys, pyrepr.NewStr(k))
			d.Items = append(d.Items, *f)
		}
		req.Messages.Items[i] = d
	}
	for _, k := range []string{"temperature", "top_p", "presence_penalty", "frequency_penalty"} {
		if f, ok := v.Get(k); ok && f.Kind != pyrepr.None && !laxFloat(f) {
			return bad("%s: want a number, got %s", k, jsonType(f))
		}
	}
	for _, k := range []string{"n", "seed", "max_tokens"} {
		f, ok := v.Get(k)
		if !ok || f.Kind == pyrepr.None {
			if k == "max_tokens" && ok {
				req.MaxTokens = nil
			}
			continue
		}
		n, ok := laxInt(f)
		if !ok {
			return bad("%s: want an integer, got %s", k, jsonType(f))
		}
		if k == "max_tokens" {
			req.MaxTokens = n
		}
	}
	if f, ok := v.Get("stream"); ok && f.Kind != pyrepr.None && !laxBool(f) {
		return bad("stream: want a boolean, got %s", jsonType(f))
	}
	if f, ok := v.Get("stop"); ok && f.Kind != pyrepr.None {
		if f.Kind != pyrepr.List {
			return bad("stop: want a list of strings, got %s", jsonType(f))
		}
		for i := range f.Items {
			if f.Items[i].Kind != pyrepr.Str {
				return bad("stop[%d]: want a string, got %s", i, jsonType(&f.Items[i]))
			}
		}
	}
	if f, ok := v.Get("user"); ok && f.Kind != pyrepr.None {
		if f.Kind != pyrepr.Str {
			return bad("user: want a string, got %s", jsonType(f))
		}
		req.User = f.Text()
	}
	return req, nil
}

func jsonType(v *pyrepr.Value) string {
	switch v.Kind {
	case pyrepr.None:
		return "null"
	case pyrepr.Bool:
		return "a boolean"
	case pyrepr.Int, pyrepr.Float:
		return "a number"
	case pyrepr.Str:
		return "a string"
	case pyrepr.List:
		return "a list"
	}
	return "an object"
}

// laxInt is pydantic's lax int: ints, bools, integral finite floats within
// int64, and strings of a Python int literal (sign, digits, single
// underscores between digits, surrounding whitespace) or of an integral
// decimal ("5.0").
func laxInt(v *pyrepr.Value) (*big.Int, bool) {
	switch v.Kind {
	case pyrepr.Int:
		n, ok := new(big.Int).SetString(v.Num, 10)
		return n, ok
	case pyrepr.Bool:
		if v.B {
			return big.NewInt(1), true
		}
		return big.NewInt(0), true
	case pyrepr.Float:
		if v.F != math.Trunc(v.F) || math.IsInf(v.F, 0) || math.Abs(v.F) >= 1<<63 {
			return nil, false
		}
		return big.NewInt(int64(v.F)), true
	case pyrepr.Str:
		s := strings.TrimSpace(v.Text())
		if n, ok := pyIntLiteral(s); ok {
			return n, true
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<63 && strings.ContainsAny(s, ".") {
			return big.NewInt(int64(f)), true
		}
	}
	return nil, false
}

func pyIntLiteral(s string) (*big.Int, bool) {
	t := strings.TrimLeft(s, "+-")
	if len(s)-len(t) > 1 || t == "" || t[0] == '_' || t[len(t)-1] == '_' || strings.Contains(t, "__") {
		return nil, false
	}
	t = strings.ReplaceAll(t, "_", "")
	for _, c := range t {
		if c < '0' || c > '9' {
			return nil, false
		}
	}
	if strings.HasPrefix(s, "-") {
		t = "-" + t
	}
	return new(big.Int).SetString(t, 10)
}

// laxFloat is pydantic's lax float: numbers (a huge int too big for a
// float is refused), bools, and strings float() reads.
func laxFloat(v *pyrepr.Value) bool {
	switch v.Kind {
	case pyrepr.Float, pyrepr.Bool:
		return true
	case pyrepr.Int:
		f, _ := new(big.Float).SetString(v.Num)
		x, _ := f.Float64()
		return !math.IsInf(x, 0)
	case pyrepr.Str:
		s := strings.ToLower(strings.TrimSpace(v.Text()))
		s = strings.TrimLeft(s, "+-")
		switch s {
		case "inf", "infinity", "nan":
			return true
		}
		if strings.Contains(s, "__") || strings.HasPrefix(s, "_") || strings.HasSuffix(s, "_") {
			return false
		}
		_, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
		return err == nil && !strings.ContainsAny(s, "xp")
	}
	return false
}

// laxBool is pydantic's lax bool.
func laxBool(v *pyrepr.Value) bool {
	switch v.Kind {
	case pyrepr.Bool:
		return true
	case pyrepr.Int:
		return v.Num == "0" || v.Num == "1"
	case pyrepr.Float:
		return v.F == 0 || v.F == 1
	case pyrepr.Str:
		switch strings.ToLower(v.Text()) {
		case "0", "off", "f", "false", "n", "no", "1", "on", "t", "true", "y", "yes":
			return true
		}
	}
	return false
}
