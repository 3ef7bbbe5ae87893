//go:build !unix

// Package cputime reads the CPU time the process has used: for the default
// parallelism's trial of several workers (analyze) and for benchmarks
// that report throughput per CPU second.
package cputime

import "time"

// Used is not measured on this platform: ok is false.
func Used() (d time.Duration, ok bool) { return 0, false }
