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
)

func init() {
	ingest.Register(har.Format)
	ingest.Register(logs.Parquet) // pq.Format, reading OpenInference span tables too
	for _, f := range logs.InputFormats {
		ingest.Register(f)
	}
}
