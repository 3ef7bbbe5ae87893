package analyze

import "time"

// The default parallelism (--workers 0 on several CPUs) starts on one
// worker, timing it, and tries several workers once it expects at least
// autoRecords more records averaging at most autoRecordBytes of bodies:
// the records left, estimated from the input's size and the bodies read
// so far, or, when the size is unknown (a pipe, a compressed file,
// several files merged, a trace format), once autoRecords have been read.
// The trial then times the workers once they are under way. Where the
// process's CPU time can be read, the workers stay if they ran in
// parallel, the process's CPU time over the trial at least
// autoParallelism times its wall time; elsewhere, if they stepped
// records at least autoMargin times as fast as the one worker did. Else
// the rest goes back to one worker. Output is the same at any
// parallelism, so the choice is about time only, and the clocks it reads
// never reach a result; an explicit --workers is always obeyed.
//
// Why a trial rather than a size alone: what several workers cost (the
// reader's buffers and the batches in flight touched for the first time,
// goroutines handing batches over, a second thread) against what they
// save differs from machine to machine more than any one size can say.
// On the machine #30 was first measured on, two workers lost to one or
// tied below about 4,000 records (2,454 tool-agent calls of 12 KB; 4,100
// short chat calls) and won 6–35 % from about 5,000 up, so the rule was
// "4,096 records left"; on session 22's machine two workers won from 500
// records of 12 KB (7 %) and by 30–40 % from 1,500, and that rule left
// the tool-agent corpus on one worker. And where the process gets one
// core (a container's quota, a loaded machine, taskset) several workers
// only add hand-offs: the trial sees its CPU time no larger than its
// wall time, and goes back. Why CPU time rather than the two rates: the
// rates are measured over different records (the first ones meet new
// agents, and fresh memory), a few milliseconds each, and on session
// 22's machine their ratio ranged 0.4–1.4 with the process held to one
// core, where CPU ÷ wall time was 0.98–1.00 every time (1.44–2.09 on two
// cores). Records of hundreds of kilobytes, where extraction is only a
// scan for the last user message, are never tried: on 250 calls of
// 600–900 KB two workers took 1.7× one worker's time, and on 80 calls of
// up to 1 MB they tie at best.
const (
	autoRecords     = 1024
	autoRecordBytes = 128 << 10
	autoProbe       = 64 // records read before an input of known size is judged
	// Without CPU time, the one worker's rate is timed from its
	// autoWarm-th record (the first records touch fresh memory) over at
	// least autoProbeTime.
	autoWarm      = 64
	autoProbeTime = 2 * time.Millisecond
	// The workers are timed from their autoRampBatches-th batch (up to
	// workers+2 fresh batches are filled before the first is reused) over
	// at least autoTrialBatches batches and autoTrialTime: over 8 batches
	// and 2 ms CPU ÷ wall time fell to 0.92 once on two free cores.
	autoRampBatches  = 4
	autoTrialBatches = 24
	autoTrialTime    = 6 * time.Millisecond
	// The workers stay at autoParallelism cores' worth of CPU time, or,
	// where CPU time is not known, at autoMargin times the one worker's
	// rate: a tie is better served by one thread.
	autoParallelism = 1.25
	autoMargin      = 1.05
	// A record's fixed cost (reading its envelope, stepping it) counted
	// as this many bytes of body when rates are compared.
	autoRecordWork = 1 << 10
)

// parallelPays reports whether a replay of an input of size bytes (0:
// unknown) that has read records records, with bytes of bodies, should
// try several workers for the rest (see autoRecords).
func parallelPays(size int64, records int, bytes int64) bool {
	if records == 0 || bytes > int64(records)*autoRecordBytes {
		return false
	}
	if size <= 0 {
		return records >= autoRecords
	}
	if records < autoProbe {
		return false
	}
	left := (size - bytes) * int64(records) / max(bytes, 1)
	return left >= autoRecords
}

// autoChoice is the default parallelism's state for one replay: pays is
// driveAuto's question to the one worker, back its question to the
// workers (see autoRecords).
type autoChoice struct {
	size int64
	now  func() time.Time
	cpu  func() (time.Duration, bool) // the process's CPU time, if known

	t0      time.Time // the one worker's clock start (zero: not yet)
	w0      int64     // work done by then
	oneRate float64   // work per nanosecond on one worker

	batches int           // batches stepped on the workers
	t1      time.Time     // the workers' clock start
	w1      int64         // work done by then
	cpu1    time.Duration // CPU time used by then
	cpuOK   bool          // CPU time is known (at the start, and at cpu1)
	decided bool
}

func newAutoChoice(size int64, now func() time.Time, cpu func() (time.Duration, bool)) *autoChoice {
	c := &autoChoice{size: size, now: now, cpu: cpu}
	_, c.cpuOK = cpu()
	return c
}

// autoWork is what records records with bytes of bodies weigh when rates
// are compared (autoRecordWork).
func autoWork(records int, bytes int64) int64 {
	return bytes + int64(records)*autoRecordWork
}

// pays is asked after each group the one worker steps, with the records
// and body bytes read so far. Where CPU time is known the trial needs no
// rate of the one worker, and starts as soon as parallelPays.
func (c *autoChoice) pays(records int, bytes int64) bool {
	if c.cpuOK {
		return parallelPays(c.size, records, bytes)
	}
	if c.t0.IsZero() {
		if records >= autoWarm {
			c.t0, c.w0 = c.now(), autoWork(records, bytes)
		}
		return false
	}
	if !parallelPays(c.size, records, bytes) {
		return false
	}
	d := c.now().Sub(c.t0)
	if d < autoProbeTime {
		return false
	}
	c.oneRate = float64(autoWork(records, bytes)-c.w0) / float64(d)
	return true
}

// back is asked after each batch the workers step, with the records and
// body bytes stepped on them so far; it says yes at most once, when the
// trial finds the workers did not run in parallel (or, without CPU time,
// no faster than the one worker).
func (c *autoChoice) back(records int, bytes int64) bool {
	if c.decided {
		return false
	}
	c.batches++
	if c.batches == autoRampBatches {
		c.t1, c.w1 = c.now(), autoWork(records, bytes)
		c.cpu1, c.cpuOK = c.cpu()
		return false
	}
	if c.batches < autoRampBatches+autoTrialBatches {
		return false
	}
	d := c.now().Sub(c.t1)
	if d < autoTrialTime {
		return false
	}
	c.decided = true
	if cpu, ok := c.cpu(); ok && c.cpuOK {
		return float64(cpu-c.cpu1) < autoParallelism*float64(d)
	}
	rate := float64(autoWork(records, bytes)-c.w1) / float64(d)
	return rate < c.oneRate*autoMargin
}
