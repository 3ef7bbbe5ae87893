// Package htmltest reads the HTML reports in tests: every page is
// well-formed XML by design, self-contained (no script, no link, nothing
// fetched), and its charts are SVG elements with data- attributes.
package htmltest

import (
	"bytes"
	"encoding/xml"
	"io"
	"slices"
	"strings"
	"testing"
)

// El is one element of a parsed page, with the chart it sits in.
type El struct {
	Name  string
	Attrs map[string]string
	Chart *El    // the enclosing <svg>, if any
	Title string // the text of its <title> child, if any
}

// Parse reads a page as XML (the HTML reports are well-formed XML by
// design) and returns its elements in document order.
func Parse(t testing.TB, page []byte) []*El {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(page))
	dec.Strict = true
	var out []*El
	var stack []*El
	var svg *El
	var text strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("page is not well-formed: %v", err)
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			e := &El{Name: tk.Name.Local, Attrs: map[string]string{}, Chart: svg}
			for _, a := range tk.Attr {
				e.Attrs[a.Name.Local] = a.Value
			}
			if e.Name == "svg" {
				svg = e
			}
			if e.Name == "script" || e.Name == "link" || e.Name == "img" || e.Name == "iframe" {
				t.Errorf("page has a <%s>: it must be self-contained", e.Name)
			}
			stack = append(stack, e)
			out = append(out, e)
			text.Reset()
		case xml.CharData:
			text.Write(tk)
		case xml.EndElement:
			if stack[len(stack)-1].Name == "svg" {
				svg = nil
			}
			if tk.Name.Local == "title" && len(stack) > 1 {
				stack[len(stack)-2].Title = text.String()
			}
			stack = stack[:len(stack)-1]
		}
	}
	for _, bad := range []string{"src=", "href=", "url(", "@import", "https://", "<script"} {
		if bytes.Contains(page, []byte(bad)) {
			t.Errorf("page contains %q: it must fetch nothing", bad)
		}
	}
	return out
}

// Find returns the elements called name with class among their classes.
func Find(els []*El, name, class string) []*El {
	var out []*El
	for _, e := range els {
		if e.Name == name && slices.Contains(strings.Fields(e.Attrs["class"]), class) {
			out = append(out, e)
		}
	}
	return out
}

// Untitled returns the marks of the page's charts that have no hover
// title: every circle, and every rect, path, polyline, line or g that
// carries data (a data- attribute) but no <title> child.
func Untitled(els []*El) []*El {
	var out []*El
	for _, e := range els {
		if e.Chart == nil || e.Title != "" {
			continue
		}
		mark := e.Name == "circle"
		if slices.Contains([]string{"rect", "path", "polyline", "line", "g"}, e.Name) {
			for a := range e.Attrs {
				mark = mark || strings.HasPrefix(a, "data-")
			}
		}
		if mark {
			out = append(out, e)
		}
	}
	return out
}
