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
	return walkMembers(b, i, func(key []byte, vs int) int {
		ve := skipValue(b, vs)
		if ve < 0 || !fn(key, vs, ve) {
			return -1
		}
		return ve
	}) >= 0
}

// walkMembers calls read with each member of the object at b[i]: its raw
// key and where its value starts; read returns where the value ends (-1:
// stop, the object is not as expected), so that each value is scanned
// once. It returns the index after the object, or -1 when it is not as
// expected.
func walkMembers(b []byte, i int, read func(key []byte, vs int) int) int {
	if i >= len(b) || b[i] != '{' {
		return -1
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return -1
		}
		ke := skipString(b, i)
		if ke < 0 {
			return -1
		}
		key := b[i+1 : ke-1]
		i = skipWS(b, ke)
		if i >= len(b) || b[i] != ':' {
			return -1
		}
		ve := read(key, skipWS(b, i+1))
		if ve < 0 {
			return -1
		}
		i = skipWS(b, ve)
		if i < len(b) && b[i] == ',' {
			i = skipWS(b, i+1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			return i + 1
		}
		return -1
	}
}

// elements calls fn with the span of each element of the array at b[i].
// It returns false when the array is not as expected.
func elements(b []byte, i int, fn func(vs, ve int) bool) bool {
	return walkElements(b, i, func(vs int) int {
		ve := skipValue(b, vs)
		if ve < 0 || !fn(vs, ve) {
			return -1
		}
		return ve
	}) >= 0
}

// walkElements calls read with where each element of the array at b[i]
// starts; read returns where it ends (-1: stop). It returns the index
// after the array, or -1 when it is not as expected.
func walkElements(b []byte, i int, read func(vs int) int) int {
	if i >= len(b) || b[i] != '[' {
		return -1
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1
	}
	for {
		ve := read(i)
		if ve < 0 {
			return -1
		}
		i = skipWS(b, ve)
		if i < len(b) && b[i] == ',' {
			i = skipWS(b, i+1)
			continue
		}
		if i < len(b) && b[i] == ']' {
			return i + 1
		}
		return -1
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
	msgs, good := false, false
	fresh = true
	i := skipWS(b, 0)
	if walkMembers(b, i, func(key []byte, vs int) int {
		switch {
		case bytes.Equal(key, keyMessages) && !msgs:
			// The messages array is read once, element by element.
			msgs = true
			if vs >= len(b) || b[vs] != '[' {
				return -1
			}
			end := walkElements(b, vs, func(es int) int { return scanMessage(b, es, tail, &fresh) })
			good = end >= 0
			return end
		case bytes.Equal(key, keyMessages):
			return -1 // a repeated messages member is for the full parser
		case bytes.Equal(key, keyTools):
			ve := skipValue(b, vs)
			tools = [2]int{vs, ve}
			return ve
		}
		return skipValue(b, vs)
	}) < 0 || !msgs {
		return tools, false, false
	}
	return tools, fresh, good
}

// scanMessage reads the role of the message at b[vs]: an assistant
// message empties the tail, any other joins it. It returns the index
// after the message, or -1 when it is not as expected.
func scanMessage(b []byte, vs int, tail *[][2]int, fresh *bool) int {
	assistant, seen := false, false
	end := walkMembers(b, vs, func(key []byte, rs int) int {
		re := skipValue(b, rs)
		if re >= 0 && bytes.Equal(key, keyRole) && !seen { // the first, as fastjson's Get
			seen = true
			assistant = bytes.Equal(b[rs:re], roleAssitant)
			// An escaped role is for the full parser to read.
			if bytes.IndexByte(b[rs:re], '\\') >= 0 {
				return -1
			}
		}
		return re
	})
	switch {
	case end < 0:
	case assistant:
		*tail, *fresh = (*tail)[:0], false
	default:
		*tail = append(*tail, [2]int{vs, end})
	}
	return end
}

// toolName returns the name of the tool definition at b[vs:ve]
// (function.name, or name), pointing into b; empty when it has none it
// can read.
func toolName(b []byte, vs int) []byte {
	var name []byte
	members(b, vs, func(key []byte, fs, fe int) bool {
		switch string(key) {
		case "function":
			members(b, fs, func(k []byte, ns, ne int) bool {
				if string(k) == "name" && b[ns] == '"' && bytes.IndexByte(b[ns:ne], '\\') < 0 {
					name = b[ns+1 : ne-1]
				}
				return true
			})
		case "name":
			if len(name) == 0 && b[fs] == '"' && bytes.IndexByte(b[fs:fe], '\\') < 0 {
				name = b[fs+1 : fe-1]
			}
		}
		return true
	})
	return name
}
