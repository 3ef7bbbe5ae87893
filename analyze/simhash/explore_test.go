package simhash

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
)

type featFn func(norm string, emit func(uint64))

func simhashOf(f featFn, norm string, tie uint64) (uint64, bool) {
	var cnt [64]int
	n := 0
	f(norm, func(h uint64) {
		n++
		for i := range 64 {
			if h>>i&1 != 0 {
				cnt[i]++
			}
		}
	})
	if n == 0 {
		return 0, false
	}
	var h uint64
	for i := range 64 {
		if 2*cnt[i] > n || (2*cnt[i] == n && tie>>i&1 != 0) {
			h |= 1 << i
		}
	}
	return h, true
}

func words(norm string) []string { return strings.Split(norm, " ") }

var fUni featFn = func(n string, emit func(uint64)) {
	for _, w := range words(n) {
		emit(xxhash.Sum64String(w))
	}
}
var fBi featFn = func(n string, emit func(uint64)) {
	ws := words(n)
	if len(ws) == 1 {
		emit(xxhash.Sum64String(ws[0]))
		return
	}
	for i := 1; i < len(ws); i++ {
		emit(xxhash.Sum64String(ws[i-1] + " " + ws[i]))
	}
}
var fTri featFn = func(n string, emit func(uint64)) {
	ws := words(n)
	for i := 2; i < len(ws); i++ {
		emit(xxhash.Sum64String(ws[i-2] + " " + ws[i-1] + " " + ws[i]))
	}
}
var fUniBi featFn = func(n string, emit func(uint64)) {
	fUni(n, emit)
	fBi(n, emit)
}

func fChar(k int) featFn {
	return func(n string, emit func(uint64)) {
		if len(n) <= k {
			emit(xxhash.Sum64String(n))
			return
		}
		for i := 0; i+k <= len(n); i++ {
			emit(xxhash.Sum64String(n[i : i+k]))
		}
	}
}

func dedup(k int, f featFn) featFn {
	return func(n string, emit func(uint64)) {
		ring := make([]uint64, k)
		pos := 0
		f(n, func(h uint64) {
			for _, x := range ring {
				if x == h {
					return
				}
			}
			ring[pos%k] = h
			pos++
			emit(h)
		})
	}
}

func set(f featFn) featFn {
	return func(n string, emit func(uint64)) {
		seen := map[uint64]bool{}
		f(n, func(h uint64) {
			if !seen[h] {
				seen[h] = true
				emit(h)
			}
		})
	}
}

var fUni2Bi featFn = func(n string, emit func(uint64)) {
	fUni(n, emit)
	fBi(n, emit)
	fBi(n, emit)
}

func TestExplore(t *testing.T) {
	corpus := goDocCorpus(t, 3)
	corpus = append(corpus, capturePrompts(t)...)
	t.Logf("corpus: %d texts", len(corpus))
	if fmtMode := os.Getenv("FMT"); fmtMode != "" {
		for i := range corpus {
			ws := strings.Fields(corpus[i].text)
			var b strings.Builder
			for j, w := range ws {
				switch fmtMode {
				case "table":
					if j%4 == 0 {
						b.WriteString("|")
					}
					b.WriteString(" " + w + " |")
					if j%4 == 3 {
						b.WriteString("\n")
					}
				case "json":
					if j%3 == 0 {
						b.WriteString("{\"id\": " + fmt.Sprint(j) + ", \"text\": \"")
					}
					b.WriteString(w)
					if j%3 == 2 {
						b.WriteString("\"},\n")
					} else {
						b.WriteString(" ")
					}
				}
			}
			corpus[i].text = b.String()
		}
	}
	norms := make([]string, len(corpus))
	var vocab []string
	for i, c := range corpus {
		norms[i] = string(Normalize(nil, []byte(c.text)))
		if i%7 == 0 {
			vocab = append(vocab, strings.Fields(c.text)...)
		}
	}
	feats := []struct {
		name string
		f    featFn
	}{{"bi", fBi}, {"bi-set", set(fBi)}, {"uni+bi", fUniBi}, {"uni+bi-set", set(fUniBi)}, {"c4-set", set(fChar(4))}, {"c5-set", set(fChar(5))}, {"c6-set", set(fChar(6))}, {"c5-run", dedup(1, fChar(5))}}
	for _, tie := range []uint64{0x9E3779B97F4A7C15} {
		for _, ft := range feats {
			hs := make([]uint64, len(norms))
			for i, n := range norms {
				hs[i], _ = simhashOf(ft.f, n, tie)
			}
			var pairs, sum, w3, w5 int
			for i := range hs {
				for j := i + 1; j < len(hs); j++ {
					if corpus[i].group == corpus[j].group {
						continue
					}
					d := bits.OnesCount64(hs[i] ^ hs[j])
					pairs++
					sum += d
					if d <= 3 {
						w3++
					}
					if d <= 5 {
						w5++
					}
				}
			}
			rng := rand.New(rand.NewPCG(7, 8))
			var hist [8]int
			var small, smallN, big, bigN int
			for i, c := range corpus {
				ws := strings.Fields(c.text)
				for rep := 0; rep < 4; rep++ {
					k := rng.IntN(len(ws))
					w2 := append([]string(nil), ws...)
					w2[k] = vocab[rng.IntN(len(vocab))]
					h2, _ := simhashOf(ft.f, string(Normalize(nil, []byte(strings.Join(w2, " ")))), tie)
					h1, _ := simhashOf(ft.f, string(Normalize(nil, []byte(strings.Join(ws, " ")))), tie)
					_ = i
					d := bits.OnesCount64(h1 ^ h2)
					hist[min(d, 7)]++
					if len(c.text) < 2048 {
						smallN++
						if d <= 2 {
							small++
						}
					} else {
						bigN++
						if d <= 2 {
							big++
						}
					}
				}
			}
			tot := 0
			for _, x := range hist {
				tot += x
			}
			t.Logf("tie=%x %-7s pairs=%d mean=%.2f w3=%.4f%% w5=%.4f%% neardup hist=%v <=2: %.1f%% (<2KB %.1f%%, >=2KB %.1f%%)", tie&1, ft.name, pairs, float64(sum)/float64(pairs),
				100*float64(w3)/float64(pairs), 100*float64(w5)/float64(pairs), hist,
				100*float64(hist[0]+hist[1]+hist[2])/float64(tot), 100*float64(small)/float64(smallN), 100*float64(big)/float64(bigN))
		}
	}
	_ = fmt.Sprint
}
