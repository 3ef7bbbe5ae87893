package har

import (
	"strings"
	"testing"
)

// An entry without a response status, or with HAR's 0 (no answer), has no
// status for the error-rate breaker; 503 is one.
func TestNoStatus(t *testing.T) {
	entry := func(status string) string {
		return `{"startedDateTime":"2026-01-02T03:04:05Z","time":1,"request":{"method":"POST","url":"https://api.openai.com/v1/chat/completions","headers":[],"postData":{"mimeType":"application/json","text":"{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"}},` +
			`"response":{` + status + `"headers":[],"content":{"mimeType":"application/json","text":"{}"}}}`
	}
	doc := `{"log":{"entries":[` + entry(`"status":503,`) + `,` + entry(`"status":0,`) + `,` + entry(``) + `]}}`
	r := NewReader(strings.NewReader(doc), "s.har", Options{})
	var got []bool
	for r.Scan() {
		rec := r.Record()
		if rec.Err != nil || rec.Skip != "" {
			t.Fatalf("%v %s", rec.Err, rec.Skip)
		}
		got = append(got, rec.NoStatus)
	}
	if len(got) != 3 || got[0] || !got[1] || !got[2] {
		t.Errorf("NoStatus %v, want [false true true]", got)
	}
}
