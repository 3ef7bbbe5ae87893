//go:build !unix

package benchmarks

import "time"

// cpuTime is 0 where the process's CPU time is not read: the
// records/CPU-s metric is left out.
func cpuTime() time.Duration { return 0 }
