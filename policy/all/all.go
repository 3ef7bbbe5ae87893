// Package all registers every built-in policy: import it for its side
// effect, as ingest/formats does for the input formats.
//
//	import _ "github.com/killswitch/killswitch/policy/all"
package all

import (
	_ "github.com/killswitch/killswitch/policy/breaker" // the error-rate circuit breaker
	_ "github.com/killswitch/killswitch/policy/gateway" // tenant/key freezes, the guardrail pack
	_ "github.com/killswitch/killswitch/policy/loop"    // the loop detector (the default)
)
