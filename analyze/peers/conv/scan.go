package conv

import (
	"bytes"

	"github.com/killswitch/killswitch/internal/jsonsimd"
)

// The request's fast path: a request body carries the whole
// conversation, of which a peer reads only what follows the last
// assistant message. These scanners find the messages array, its
// elements and their roles without building a tree; only the tail is
// parsed. They do not validate what they skip: anything they do not
// expect sends the body to the full parser, which reports what is wrong.

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string whose quote is at b[i],
// or -1.
func skipString(b []byte, i int) int {
	j := jsonsimd.StringEnd(b[i+1:])
	if j < 0 {
		return -1
	}
	return i + 1 + j + 1
}

// skipValue returns the index after the value at b[i] (no whitespace
// before it), or -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		if jsonsimd.Enabled {
			if n := jsonsimd.SkipContainer(b[i:]); n > 0 {
				return i + n
			}
		}
		depth := 0
		for k := i; k < len(b); k++ {
			switch b[k] {
			case '"':
				if k = skipString(b, k); k < 0 {
					return -1
				}
				k--
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return k + 1
				}
			}
		}
		return -1
	}
	k := i
	for k < len(b) && b[k] != ',' && b[k] != '}' && b[k] != ']' && b[k] != ' ' && b[k] != '\t' && b[k] != '\n' && b[k] != '\r' {
		k++
	}
	if k == i {
		return -1
	}
	return k
}

// members calls fn with each member of the object at b[i]: its raw key
// (between the quotes) and its value's span. It returns false when the
// object is not as expected.
func members(b []byte, i int, fn func(key []byte, vs, ve int) bool) bool {
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		ke := skipString(b, i)
		if ke < 0 {
			return false
		}
		key := b[i+1 : ke-1]
		i = skipWS(b, ke)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		vs := skipWS(b, i+1)
		ve := skipValue(b, vs)
		if ve < 0 || !fn(key, vs, ve) {
			return false
		}
		i = skipWS(b, ve)
		if i < len(b) && b[i] == ',' {
			i = skipWS(b, i+1)
			continue
		}
		return i < len(b) && b[i] == '}'
	}
}

// elements calls fn with the span of each element of the array at b[i].
func elements(b []byte, i int, fn func(vs, ve int) bool) bool {
	if i >= len(b) || b[i] != '[' {
		return false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return true
	}
	for {
		ve := skipValue(b, i)
		if ve < 0 || !fn(i, ve) {
			return false
		}
		i = skipWS(b, ve)
		if i < len(b) && b[i] == ',' {
			i = skipWS(b, i+1)
			continue
		}
		return i < len(b) && b[i] == ']'
	}
}

var (
	keyMessages  = []byte("messages")
	keyTools     = []byte("tools")
	keyRole      = []byte("role")
	roleAssitant = []byte(`"assistant"`)
)

// scanRequest finds the messages array's tail (the elements after the
// last assistant message) and the tools array of a request body; fresh
// says it holds no assistant message. ok is false when the body is not a
// plain object with a messages array.
func scanRequest(b []byte, tail *[][2]int) (tools [2]int, fresh, ok bool) {
	*tail = (*tail)[:0]
	msgs := [2]int{-1, -1}
	i := skipWS(b, 0)
	if !members(b, i, func(key []byte, vs, ve int) bool {
		switch {
		case bytes.Equal(key, keyMessages):
			msgs = [2]int{vs, ve}
		case bytes.Equal(key, keyTools):
			tools = [2]int{vs, ve}
		}
		return true
	}) || msgs[0] < 0 || b[msgs[0]] != '[' {
		return tools, false, false
	}
	fresh = true
	good := elements(b, msgs[0], func(vs, ve int) bool {
		assistant, seen := false, false
		if !members(b, vs, func(key []byte, rs, re int) bool {
			if bytes.Equal(key, keyRole) && !seen { // the first, as fastjson's Get
				seen = true
				assistant = bytes.Equal(b[rs:re], roleAssitant)
				// An escaped role is for the full parser to read.
				return bytes.IndexByte(b[rs:re], '\\') < 0
			}
			return true
		}) {
			return false
		}
		if assistant {
			*tail, fresh = (*tail)[:0], false
		} else {
			*tail = append(*tail, [2]int{vs, ve})
		}
		return true
	})
	return tools, fresh, good
}

// toolName returns the name of the tool definition at b[vs:ve]
// (function.name, or name), "" when it has none it can read.
func toolName(b []byte, vs int) string {
	var name string
	members(b, vs, func(key []byte, fs, fe int) bool {
		switch string(key) {
		case "function":
			members(b, fs, func(k []byte, ns, ne int) bool {
				if string(k) == "name" && b[ns] == '"' && bytes.IndexByte(b[ns:ne], '\\') < 0 {
					name = string(b[ns+1 : ne-1])
				}
				return true
			})
		case "name":
			if name == "" && b[fs] == '"' && bytes.IndexByte(b[fs:fe], '\\') < 0 {
				name = string(b[fs+1 : fe-1])
			}
		}
		return true
	})
	return name
}
