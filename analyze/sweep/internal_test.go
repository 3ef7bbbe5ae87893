package sweep

import (
	"math/rand/v2"
	"testing"

	"github.com/killswitch/killswitch/analyze"
)

// TestSweepCountAll: one backward scan gives, for every k at once, what
// Window.Count(cur, k) gives; entries are drawn from few hashes near each
// other (distance 0–3) so that every branch of the similarity tests runs.
func TestSweepCountAll(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	near := func() uint64 { return []uint64{0, 1, 3, 7, 0xff00}[rng.IntN(5)] }
	entry := func() analyze.Entry {
		e := analyze.Entry{Prompt: near(), HasPrompt: rng.IntN(5) > 0, Response: near(), HasResp: rng.IntN(3) > 0}
		if rng.IntN(2) == 0 {
			e.ToolSig = []string{"a", "b"}[rng.IntN(2)]
		}
		return e
	}
	pasts := []int{0, 1, 2, 3, 5, 8, 13, 40}
	out := make([]analyze.Counts, len(pasts))
	seen := make([]bool, len(pasts))
	for trial := 0; trial < 2000; trial++ {
		w := analyze.NewWindow(1 + rng.IntN(20))
		for n := rng.IntN(40); n > 0; n-- {
			w.Push(entry())
		}
		cur := entry()
		countAll(w, &cur, pasts, out, seen)
		for j, k := range pasts {
			if want := w.Count(&cur, k); out[j] != want {
				t.Fatalf("trial %d, k %d of %d entries: %+v, want %+v", trial, k, w.Len(), out[j], want)
			}
			// seen: some entry among the last k has a response near cur's.
			want := false
			for i := max(0, w.Len()-k); i < w.Len() && k > 0; i++ {
				if e := w.At(i); cur.HasResp && e.HasResp && analyze.Distance(e.Response, cur.Response) <= analyze.SimilarDistance {
					want = true
				}
			}
			if seen[j] != want {
				t.Fatalf("trial %d, k %d: seen %v, want %v", trial, k, seen[j], want)
			}
		}
	}
}
