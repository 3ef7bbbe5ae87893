package logs

import "fmt"

// otelSpansFast decodes the spans of an OTLP document as spansStd does,
// in one walk over the raw bytes and without a tree of the whole
// document: each span's members but its attributes become trees, and its
// attribute list goes straight into the attribute map (the common
// {"key", "value": {"stringValue"}} without a map per entry). Where a
// member repeats, the last one counts, as in the map spansStd reads.
// valid says the strict scanner has already read raw. It returns false
// for anything but a well-formed OTLP document (a syntax error, a member
// of the wrong type, a malformed span or attribute), which spansStd then
// reads and reports as before: a document it takes holds no problem.
func otelSpansFast(raw []byte, valid bool) ([]*span, bool) {
	if !fastJSON {
		return nil, false
	}
	b := raw
	if !valid {
		if invalidUTF8(raw) >= 0 {
			return nil, false
		}
		i := skipSpace(raw, 0)
		end := strictValue(raw, i, 0)
		if end < 0 || skipSpace(raw, end) != len(raw) {
			return nil, false
		}
		b = raw[i:end]
	}
	if len(b) == 0 || b[0] != '{' {
		return nil, false
	}
	w := otlpWalk{b: b, ok: true}
	var camel, snake []*span
	hasCamel := false
	eachMember(b, 0, func(k []byte, i int) int {
		switch string(k) {
		case "resourceSpans":
			hasCamel = true
			camel, i = w.resourceSpans(i, "resourceSpans")
			return i
		case "resource_spans":
			snake, i = w.resourceSpans(i, "resource_spans")
			return i
		}
		return validEnd(b, i)
	})
	if !hasCamel {
		camel = snake
	}
	if !w.ok || (camel == nil && !w.sawList) {
		return nil, false
	}
	return camel, true
}

// otlpWalk walks one valid OTLP document; ok turns false at the first
// thing the fast path leaves to spansStd.
type otlpWalk struct {
	b       []byte
	ok      bool
	sawList bool // a resource span list was read (it may hold no span)
}

// resourceSpans reads the list at b[i] under key; it returns the spans
// (non-nil when the list is) and the list's end.
func (w *otlpWalk) resourceSpans(i int, key string) ([]*span, int) {
	b := w.b
	if b[i] != '[' {
		w.ok = false
		return nil, validEnd(b, i)
	}
	w.sawList = true
	spans := []*span{}
	end := eachElem(b, i, func(ri, i int) int {
		if !w.ok || b[i] != '{' {
			w.ok = false
			return validEnd(b, i)
		}
		res := obj{}
		var scope, lib []*span
		hasScope := false
		end := eachMember(b, i, func(k []byte, i int) int {
			switch string(k) {
			case "resource":
				res = obj{}
				if b[i] != '{' {
					return validEnd(b, i)
				}
				return eachMember(b, i, func(k []byte, i int) int {
					if string(k) != "attributes" {
						return validEnd(b, i)
					}
					var end int
					res, end = w.attributes(i)
					return end
				})
			case "scopeSpans":
				hasScope = true
				scope, i = w.scopeSpans(i)
				return i
			case "instrumentationLibrarySpans":
				lib, i = w.scopeSpans(i)
				return i
			}
			return validEnd(b, i)
		})
		ssKey := "scopeSpans"
		if !hasScope {
			ssKey, scope = "instrumentationLibrarySpans", lib
		}
		rp := fmt.Sprintf("%s[%d]", key, ri)
		for _, s := range scope {
			s.res, s.path = res, fmt.Sprintf("%s.%s%s", rp, ssKey, s.path)
		}
		spans = append(spans, scope...)
		return end
	})
	return spans, end
}

// scopeSpans reads a scope span list; the spans' paths are relative to it
// ("[si].spans[pi]").
func (w *otlpWalk) scopeSpans(i int) ([]*span, int) {
	b := w.b
	if b[i] != '[' {
		return nil, validEnd(b, i)
	}
	var spans []*span
	end := eachElem(b, i, func(si, i int) int {
		if b[i] != '{' {
			return validEnd(b, i)
		}
		var list []*span
		end := eachMember(b, i, func(k []byte, i int) int {
			if string(k) != "spans" {
				return validEnd(b, i)
			}
			list = nil
			if b[i] != '[' {
				return validEnd(b, i)
			}
			return eachElem(b, i, func(pi, i int) int {
				s, end := w.span(i)
				if s != nil {
					s.path = fmt.Sprintf("[%d].spans[%d]", si, pi)
					list = append(list, s)
				}
				return end
			})
		})
		spans = append(spans, list...)
		return end
	})
	return spans, end
}

// span reads one span: every member but "attributes" as a tree into s.o,
// the attributes into s.attrs.
func (w *otlpWalk) span(i int) (*span, int) {
	b := w.b
	if !w.ok || b[i] != '{' {
		w.ok = false
		return nil, validEnd(b, i)
	}
	s := &span{o: obj{}, attrs: obj{}}
	end := eachMember(b, i, func(k []byte, i int) int {
		if string(k) == "attributes" {
			var end int
			s.attrs, end = w.attributes(i)
			return end
		}
		p := treeParser{b: b}
		v, ok := p.value(i, 1)
		if !ok {
			w.ok = false
			return validEnd(b, i)
		}
		s.o[string(k)] = v
		return p.i
	})
	s.parent = str(s.o["parentSpanId"])
	return s, end
}

// attributes reads an OTLP attribute list as attributes does; null is
// empty.
func (w *otlpWalk) attributes(i int) (obj, int) {
	b := w.b
	a := obj{}
	if b[i] != '[' {
		if b[i] != 'n' { // null
			w.ok = false
		}
		return a, validEnd(b, i)
	}
	end := eachElem(b, i, func(_, i int) int {
		if !w.ok || b[i] != '{' {
			w.ok = false
			return validEnd(b, i)
		}
		var key string
		var val any
		hasKey := false
		end := eachMember(b, i, func(k []byte, i int) int {
			switch string(k) {
			case "key":
				end := validEnd(b, i)
				if hasKey = b[i] == '"'; hasKey {
					key = validString(b[i:end])
				}
				return end
			case "value":
				var end int
				val, end = w.anyValue(i)
				return end
			}
			return validEnd(b, i)
		})
		if !hasKey {
			w.ok = false
		}
		a[key] = val
		return end
	})
	return a, end
}

// anyValue reads an AnyValue as anyValue does: a stringValue string
// (the last member of that name) directly, anything else through its
// tree.
func (w *otlpWalk) anyValue(i int) (any, int) {
	b := w.b
	end := validEnd(b, i)
	if b[i] != '{' {
		if b[i] != 'n' { // null
			w.ok = false
		}
		return nil, end
	}
	var sv []byte
	eachMember(b, i, func(k []byte, i int) int {
		end := validEnd(b, i)
		if string(k) == "stringValue" {
			sv = b[i:end]
		}
		return end
	})
	if sv != nil && sv[0] == '"' {
		return validString(sv), end
	}
	tree, ok := fastTree(b[i:end])
	if !ok {
		w.ok = false
		return nil, end
	}
	v, err := anyValue(tree, 0)
	if err != nil {
		w.ok = false
	}
	return v, end
}
