// Package peers registers the profiles that replay the loop detectors
// agent frameworks ship (gemini-cli, OpenHands, Roo-Code, Cline, OpenClaw), each exact to a named
// version of its source: import it for its registrations.
//
//	import _ "github.com/killswitch/killswitch/analyze/peers"
//
// How captured calls become each peer's events is ../shared/PEER-REPLAY.md;
// docs/peers.md has each profile's rules and what it leaves out.
package peers

import (
	_ "github.com/killswitch/killswitch/analyze/peers/cline"     // cline
	_ "github.com/killswitch/killswitch/analyze/peers/geminicli" // gemini-cli
	_ "github.com/killswitch/killswitch/analyze/peers/openclaw"  // openclaw
	_ "github.com/killswitch/killswitch/analyze/peers/openhands" // openhands, openhands-headless
	_ "github.com/killswitch/killswitch/analyze/peers/roo"       // roo
)
