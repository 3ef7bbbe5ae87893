//go:build race

package simhash

// raceEnabled: the race detector makes sync.Pool drop what is put back at
// random, so Hash allocates a fresh scratch space now and then.
const raceEnabled = true
