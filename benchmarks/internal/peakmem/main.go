//go:build linux

// Command peakmem runs a command and prints what it cost, as
// benchmarks/beam-vs-replay.sh reports it: CPU seconds (user + sys), peak
// RSS (the kernel's maxrss), and the peaks of its anonymous and its
// file-backed resident memory (RssAnon and RssFile of /proc/PID/status,
// sampled every millisecond: the kernel keeps no peak of either).
// File-backed pages are mostly the binary's own, touched at start-up;
// anonymous ones are the heap, stacks and the runtime's.
//
//	peakmem -o FILE CMD [ARG…]   # appends "CPU-S RSS-MB ANON-MB FILE-MB" to FILE
//
// The command's standard input, output and error are peakmem's; its exit
// status is peakmem's (1 when it could not be run or FILE not written).
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 4 || os.Args[1] != "-o" {
		fmt.Fprintln(os.Stderr, "usage: peakmem -o FILE CMD [ARG…]")
		os.Exit(2)
	}
	out, args := os.Args[2], os.Args[3:]
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "peakmem:", err)
		os.Exit(1)
	}
	done := make(chan struct{})
	var anon, file int64 // kB
	go func() {
		status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			a, f := sample(status)
			anon, file = max(anon, a), max(file, f)
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	err := cmd.Wait()
	done <- struct{}{}
	u := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(u.Utime.Nano() + u.Stime.Nano())
	line := fmt.Sprintf("%.2f %d %d %d\n", cpu.Seconds(), u.Maxrss/1024, anon/1024, file/1024)
	if err := appendLine(out, line); err != nil {
		fmt.Fprintln(os.Stderr, "peakmem:", err)
		os.Exit(1)
	}
	if err != nil {
		if x, ok := err.(*exec.ExitError); ok {
			os.Exit(x.ExitCode())
		}
		os.Exit(1)
	}
}

func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(line); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// sample reads RssAnon and RssFile (kB) from a /proc/PID/status; zero
// once the process is gone.
func sample(path string) (anon, file int64) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := bytes.Cut(sc.Bytes(), []byte(":"))
		if !ok {
			continue
		}
		fields := bytes.Fields(v)
		if len(fields) == 0 {
			continue
		}
		n, _ := strconv.ParseInt(string(fields[0]), 10, 64)
		switch string(k) {
		case "RssAnon":
			anon = n
		case "RssFile":
			file = n
		}
	}
	return anon, file
}
