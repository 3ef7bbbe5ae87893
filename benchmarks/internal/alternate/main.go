//go:build unix

// Command alternate times `killswitch replay -f jsonl` of one capture
// under several binaries and --workers values, alternated round by round
// so that a machine whose speed drifts weighs on all of them alike, and
// prints per configuration the median and first quartile of wall time
// (to the microsecond; /usr/bin/time's is 10 ms) and the median of CPU
// time (user + sys, from the kernel's rusage), and each configuration's
// median wall time over the first one's.
//
//	alternate [-rounds N] CAPTURE BINARY[:WORKERS]…
//
// WORKERS empty (BINARY alone) runs the binary's default --workers. The
// output of every run is discarded; a run that fails stops alternate.
// benchmarks/workers.sh runs it on the benchmark corpora.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

type config struct {
	bin, workers string
	wall, cpu    []time.Duration
}

func main() {
	rounds := flag.Int("rounds", 15, "rounds: each configuration runs once a round")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: alternate [-rounds N] CAPTURE BINARY[:WORKERS]…")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() < 2 || *rounds < 1 {
		flag.Usage()
		os.Exit(2)
	}
	capture := flag.Arg(0)
	var cs []*config
	for _, a := range flag.Args()[1:] {
		bin, workers, _ := strings.Cut(a, ":")
		cs = append(cs, &config{bin: bin, workers: workers})
	}
	for range *rounds {
		for _, c := range cs {
			args := []string{"replay", "-f", "jsonl"}
			if c.workers != "" {
				args = append(args, "--workers", c.workers)
			}
			cmd := exec.Command(c.bin, append(args, capture)...)
			cmd.Stderr = os.Stderr
			start := time.Now()
			if err := cmd.Run(); err != nil {
				fmt.Fprintf(os.Stderr, "alternate: %s %s: %v\n", c.bin, strings.Join(args, " "), err)
				os.Exit(1)
			}
			c.wall = append(c.wall, time.Since(start))
			ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			c.cpu = append(c.cpu, time.Duration(ru.Utime.Nano()+ru.Stime.Nano()))
		}
	}
	base := median(cs[0].wall)
	for _, c := range cs {
		w := c.workers
		if w == "" {
			w = "default"
		}
		fmt.Printf("%-28s workers=%-8s wall %8.1f ms (p25 %8.1f)  cpu %8.1f ms  wall/first %.3f\n",
			c.bin, w, ms(median(c.wall)), ms(quartile(c.wall)), ms(median(c.cpu)), float64(median(c.wall))/float64(base))
	}
}

func median(d []time.Duration) time.Duration {
	s := slices.Sorted(slices.Values(d))
	return s[len(s)/2]
}

func quartile(d []time.Duration) time.Duration {
	s := slices.Sorted(slices.Values(d))
	return s[len(s)/4]
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
