//go:build unix

// Package cputime reads the CPU time the process has used: for the default
// parallelism's trial of several workers (analyze) and for benchmarks
// that report throughput per CPU second: on a shared machine wall time also
// counts the time other processes held the CPU.
package cputime

import (
	"syscall"
	"time"
)

// Used returns the CPU time (user + system) this process has used; ok is
// false where it cannot be measured.
func Used() (d time.Duration, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
