// Package formats registers every input format killswitch reads with
// ingest.Open; commands import it for its side effect:
//
//	import _ "github.com/killswitch/killswitch/ingest/formats"
//
// The list below is the order --input-format names the formats and the
// order their sniffers are tried (see ingest.Open). A new format is an
// ingest.Format value beside its reader, and one line here.
package formats

import (
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/ingest/har"
	"github.com/killswitch/killswitch/ingest/logs"
	"github.com/killswitch/killswitch/ingest/pq"
)

func init() {
	ingest.Register(har.Format)
	ingest.Register(pq.Format)
	for _, f := range logs.InputFormats {
		ingest.Register(f)
	}
}
