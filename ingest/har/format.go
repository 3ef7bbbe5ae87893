package har

import (
	"bytes"

	"github.com/killswitch/killswitch/ingest"
)

// Format registers HAR with ingest.Open: files named .har (.zhar, as
// mitmproxy writes zlib-compressed HAR), or a JSON document whose first
// member is "log".
var Format = ingest.Format{
	Name:       "har",
	Extensions: []string{".har", ".zhar"},
	Sniff:      sniff,
	Open: func(f *ingest.File) (ingest.Reader, error) {
		return NewReader(f.Content, f.Name, Options{Agent: f.Options.Agent, AgentHeader: f.Options.AgentHeader, MaxValue: f.Options.MaxLine}), nil
	},
}

// sniff reports whether head opens a JSON object whose first member is
// "log" (leading white space allowed).
func sniff(head []byte) bool {
	t := bytes.TrimLeft(head, " \t\r\n")
	if !bytes.HasPrefix(t, []byte("{")) {
		return false
	}
	return bytes.HasPrefix(bytes.TrimLeft(t[1:], " \t\r\n"), []byte(`"log"`))
}
