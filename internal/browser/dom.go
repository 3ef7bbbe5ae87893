package browser

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"path/filepath"
	"slices"
	"strings"
)

// DOM loads the page at path (a local file) in a headless Chromium and
// returns the document as the browser built it (--dump-dom): what a
// reader's browser made of the markup, serialized as HTML.
func DOM(ctx context.Context, chromium, path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	stdout, _, err := chromiumRuns.run(ctx, chromium,
		func(dir string) []string {
			return append(slices.Clone(quiet), "--user-data-dir="+filepath.Join(dir, "profile"), "--dump-dom", "file://"+abs)
		},
		func(stdout, _ []byte) bool { return bytes.HasSuffix(bytes.TrimSpace(stdout), []byte("</html>")) },
		nil)
	if err != nil {
		return "", fmt.Errorf("--dump-dom: %v", err)
	}
	return string(stdout), nil
}

// Element is one start tag of a serialized document: its name, its
// attributes (values unescaped), and the text that follows it up to the
// next tag (unescaped, trimmed).
type Element struct {
	Name  string
	Attrs map[string]string
	Text  string
}

// Elements reads the start tags of a document serialized as HTML (as
// DOM returns it), in order. It knows what the serializer writes: quoted
// attribute values (in which '>' may stand unescaped), comments, and
// text; it is no general HTML parser.
func Elements(doc string) []Element {
	var out []Element
	for i := 0; i < len(doc); {
		lt := strings.IndexByte(doc[i:], '<')
		if lt < 0 {
			break
		}
		i += lt
		if strings.HasPrefix(doc[i:], "<!--") {
			end := strings.Index(doc[i:], "-->")
			if end < 0 {
				break
			}
			i += end + 3
			continue
		}
		if i+1 >= len(doc) || !isLetter(doc[i+1]) {
			i++
			continue
		}
		j := i + 1
		for j < len(doc) && (isLetter(doc[j]) || doc[j] >= '0' && doc[j] <= '9' || doc[j] == '-') {
			j++
		}
		e := Element{Name: strings.ToLower(doc[i+1 : j]), Attrs: map[string]string{}}
		// Attributes up to the closing '>', quote-aware.
		for j < len(doc) && doc[j] != '>' {
			if doc[j] == ' ' || doc[j] == '\n' || doc[j] == '\t' || doc[j] == '/' {
				j++
				continue
			}
			k := j
			for k < len(doc) && doc[k] != '=' && doc[k] != ' ' && doc[k] != '>' && doc[k] != '/' {
				k++
			}
			name := doc[j:k]
			val := ""
			if k < len(doc) && doc[k] == '=' && k+1 < len(doc) && (doc[k+1] == '"' || doc[k+1] == '\'') {
				q := doc[k+1]
				end := strings.IndexByte(doc[k+2:], q)
				if end < 0 {
					return out
				}
				val = html.UnescapeString(doc[k+2 : k+2+end])
				k += end + 3
			}
			e.Attrs[strings.ToLower(name)] = val
			j = k
		}
		j++ // past '>'
		if j > len(doc) {
			break
		}
		if next := strings.IndexByte(doc[j:], '<'); next >= 0 {
			e.Text = strings.TrimSpace(html.UnescapeString(doc[j : j+next]))
		}
		out = append(out, e)
		i = j
	}
	return out
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
