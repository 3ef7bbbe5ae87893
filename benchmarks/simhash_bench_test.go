package benchmarks

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/killswitch/killswitch/analyze/simhash"
	"github.com/killswitch/killswitch/internal/cputime"
	"github.com/killswitch/killswitch/internal/cputime/cputimetest"
)

// promptText builds a realistic agent prompt of about n bytes, the same for
// every run: English instructions and observations with the variable parts
// the normalizer replaces (numbers, timestamps, UUIDs, commit hashes), file
// paths, a small JSON tool result and a log line, drawn by a PRNG with a
// fixed seed from fixed phrase lists.
func promptText(n int) []byte {
	rng := rand.New(rand.NewPCG(2024, 11))
	subjects := []string{"The agent", "The test suite", "The build", "Your previous answer", "The user",
		"The deployment", "The search tool", "This function", "The report", "The database migration"}
	verbs := []string{"failed because", "returned an error when", "should explain why", "needs to check whether",
		"must not change how", "was retried after", "timed out while", "reported that"}
	objects := []string{"the configuration file could not be parsed", "the request exceeded the rate limit",
		"the cache was empty", "two records had the same key", "the response was not valid JSON",
		"the user asked for a summary of the changes", "the output was truncated at the token limit",
		"the tool call used the wrong arguments", "a dependency was missing from the lock file"}
	var b strings.Builder
	b.WriteString("You are a careful coding assistant. Read the context below and answer the question at the end.\n\n")
	for b.Len() < n {
		switch rng.IntN(8) {
		case 0:
			fmt.Fprintf(&b, "[%04d-%02d-%02dT%02d:%02d:%02d.%03dZ] INFO worker-%d processed batch %d in %d ms\n",
				2024+rng.IntN(2), 1+rng.IntN(12), 1+rng.IntN(28), rng.IntN(24), rng.IntN(60), rng.IntN(60),
				rng.IntN(1000), rng.IntN(16), rng.IntN(100000), rng.IntN(5000))
		case 1:
			fmt.Fprintf(&b, "Tool result: {\"id\": \"%08x-%04x-4%03x-8%03x-%012x\", \"status\": %d, \"items\": %d}\n",
				rng.Uint32(), rng.IntN(1<<16), rng.IntN(1<<12), rng.IntN(1<<12), rng.Uint64()>>16,
				200+rng.IntN(300), rng.IntN(50))
		case 2:
			fmt.Fprintf(&b, "See src/internal/handler_%d.go line %d, introduced in commit %016x.\n",
				rng.IntN(40), rng.IntN(900), rng.Uint64())
		default:
			fmt.Fprintf(&b, "%s %s %s. ", subjects[rng.IntN(len(subjects))], verbs[rng.IntN(len(verbs))],
				objects[rng.IntN(len(objects))])
			if rng.IntN(4) == 0 {
				b.WriteString("\n")
			}
		}
	}
	b.WriteString("\nQuestion: what should the agent do next, and why?")
	return []byte(b.String())
}

var promptSizes = []struct {
	name string
	size int
}{{"1KB", 1024}, {"4KB", 4096}}

// BenchmarkNormalize measures simhash.Normalize into a reused buffer.
func BenchmarkNormalize(b *testing.B) {
	for _, ps := range promptSizes {
		src := promptText(ps.size)
		b.Run(ps.name, func(b *testing.B) {
			dst := make([]byte, 0, 2*len(src))
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				dst = simhash.Normalize(dst[:0], src)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// BenchmarkHash measures simhash.Hash: normalization and SimHash together.
func BenchmarkHash(b *testing.B) {
	for _, ps := range promptSizes {
		src := promptText(ps.size)
		b.Run(ps.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			cpu0, _ := cputime.Used()
			for b.Loop() {
				if _, ok := simhash.Hash(src); !ok {
					b.Fatal("no hash")
				}
			}
			cputimetest.Report(b, cpu0, int64(len(src)))
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
