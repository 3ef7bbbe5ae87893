package main

// The peer frameworks' loop detectors, as profiles (docs/peers.md).
import _ "github.com/killswitch/killswitch/analyze/peers"
