package browser

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The console is read: a page that logs an error says so (else a clean
// console would prove nothing). A fetch from elsewhere fails without a
// console line in headless Chromium: the reports' self-containment is
// checked on their markup (internal/htmltest).
func TestShotReadsTheConsole(t *testing.T) {
	chromium, err := Find()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	page := filepath.Join(t.TempDir(), "p.html")
	os.WriteFile(page, []byte(`<!DOCTYPE html><html><head><title>t</title></head><body><p>hello</p>`+
		`<script>console.error("boom from the page")</script></body></html>`), 0o644)
	p, err := Shot(context.Background(), chromium, page, 400, 300)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(p.Console, "\n")
	if !strings.Contains(all, "boom from the page") {
		t.Errorf("the console error was not seen: %q", p.Console)
	}
	if len(p.PNG) < 100 {
		t.Errorf("no screenshot (%d bytes)", len(p.PNG))
	}
}

// Elements reads what the serializer writes: quoted values holding '>'
// and entities, comments, the text after a tag.
func TestElements(t *testing.T) {
	els := Elements(`<html><!-- <b>not</b> --><body><g data-scope="acme/b<x>/default" data-n='3'><td class="l">a &amp; b</td><circle cx="1"></circle></body></html>`)
	var got []string
	for _, e := range els {
		got = append(got, e.Name+"["+e.Attrs["data-scope"]+e.Attrs["data-n"]+e.Attrs["class"]+"]"+e.Text)
	}
	if want := "html[],body[],g[acme/b<x>/default3],td[l]a & b,circle[]"; strings.Join(got, ",") != want {
		t.Errorf("elements %q, want %q", strings.Join(got, ","), want)
	}
}
