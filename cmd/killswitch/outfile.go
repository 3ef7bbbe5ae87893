package main

import "fmt"

// maxWorkers bounds --workers: extraction is CPU-bound, and each worker
// holds batches of records in memory.
const maxWorkers = 256

// checkWorkers validates --workers: 0 means the default, chosen by the
// input (one worker for a short input or long records, else one per CPU).
func checkWorkers(n int) error {
	if n < 0 || n > maxWorkers {
		return fmt.Errorf("--workers %d: want 0 (the default) to %d", n, maxWorkers)
	}
	return nil
}
