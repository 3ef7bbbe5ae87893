package simhash

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// featureSpec describes a feature set for the measurement: word unigrams,
// word bigrams (pairs of adjacent words), and the count cap of a distinct
// feature (0: none).
type featureSpec struct {
	name            string
	unigram, bigram bool
	cap             int
}

// slowHash is the SimHash of text under spec, computed the reference way
// (same normalization, word and pair hashes as the package; Go map, per-bit
// counts).
func slowHash(spec featureSpec, text string) uint64 {
	norm := string(Normalize(nil, []byte(text)))
	if norm == "" {
		return 0
	}
	var feats []uint64
	count := map[uint64]int{}
	add := func(f uint64) {
		if count[f>>3]++; spec.cap == 0 || count[f>>3] <= spec.cap {
			feats = append(feats, f)
		}
	}
	var prev uint64
	for i, w := range strings.Split(norm, " ") {
		u := refWordHash(w)
		if spec.unigram {
			add(u)
		}
		if spec.bigram && i > 0 {
			add(bigram(prev, u))
		}
		prev = u
	}
	h, _ := refSimHash(feats)
	return h
}

// distStats summarizes distances between unrelated texts.
type distStats struct {
	pairs, sum, min           int
	within2, within3, within5 int
}

func (s distStats) String() string {
	pct := func(n int) float64 { return 100 * float64(n) / float64(s.pairs) }
	return fmt.Sprintf("%d pairs: mean %.1f bits, min %d, ≤2 %.4f%%, ≤3 %.4f%%, ≤5 %.4f%%",
		s.pairs, float64(s.sum)/float64(s.pairs), s.min, pct(s.within2), pct(s.within3), pct(s.within5))
}

func (s distStats) mean() float64 { return float64(s.sum) / float64(s.pairs) }

// frac5 is the fraction of pairs within 5 bits.
func (s distStats) frac5() float64 { return float64(s.within5) / float64(s.pairs) }

// unrelated computes the distances of all pairs of texts from different
// groups.
func unrelated(corpus []corpusText, hashes []uint64) distStats {
	s := distStats{min: 64}
	for i := range hashes {
		for j := i + 1; j < len(hashes); j++ {
			if corpus[i].group == corpus[j].group {
				continue
			}
			d := Distance(hashes[i], hashes[j])
			s.pairs++
			s.sum += d
			s.min = min(s.min, d)
			if d <= 2 {
				s.within2++
			}
			if d <= 3 {
				s.within3++
			}
			if d <= 5 {
				s.within5++
			}
		}
	}
	return s
}

// nearDup is a text with one word replaced at a random position.
type nearDup struct {
	orig, dup string
}

// nearDups makes perText near-duplicates of every text: the words (white
// space separated) rejoined with single spaces, one of them replaced by a
// word drawn from the whole corpus, all drawn from a PRNG with a fixed seed.
func nearDups(corpus []corpusText, perText int) []nearDup {
	var vocab []string
	for _, c := range corpus {
		vocab = append(vocab, strings.Fields(c.text)...)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	var out []nearDup
	for _, c := range corpus {
		words := strings.Fields(c.text)
		for range perText {
			dup := append([]string(nil), words...)
			dup[rng.IntN(len(dup))] = vocab[rng.IntN(len(vocab))]
			out = append(out, nearDup{strings.Join(words, " "), strings.Join(dup, " ")})
		}
	}
	return out
}

// asTable renders the words of a text as a Markdown table of four columns:
// a structure repeated on every line, as in prompts holding tables or JSON.
func asTable(text string) string {
	var b strings.Builder
	for i, w := range strings.Fields(text) {
		if i%4 == 0 {
			b.WriteString("|")
		}
		b.WriteString(" " + w + " |")
		if i%4 == 3 {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// TestFeatureDistanceDistribution measures the chosen features (word
// unigrams and bigrams, each distinct feature counted at most tfCap times)
// on unrelated English texts of 1–4 KB: the comments of every standard
// library package (up to 3 texts each; texts of one package are not paired)
// and the user prompts of at least 1 KB in the shared captures. It reports
// the distances between unrelated texts, as they are and rendered as
// Markdown tables, and between texts and near-duplicates with one word
// replaced; plain word unigrams and uncapped unigrams+bigrams are logged
// for comparison. The numbers are quoted in the package documentation.
func TestFeatureDistanceDistribution(t *testing.T) {
	if testing.Short() {
		t.Skip("measurement skipped in -short mode")
	}
	corpus := goDocCorpus(t, 3)
	captures := capturePrompts(t)
	corpus = append(corpus, captures...)
	t.Logf("corpus: %d texts (%d captured prompts)", len(corpus), len(captures))
	if len(corpus) < 300 {
		t.Fatalf("corpus has %d texts, want at least 300 for the measurement to mean anything", len(corpus))
	}

	hashAll := func(texts []string, h func(string) uint64) []uint64 {
		out := make([]uint64, len(texts))
		for i, s := range texts {
			out[i] = h(s)
		}
		return out
	}
	plain := make([]string, len(corpus))
	tables := make([]string, len(corpus))
	for i, c := range corpus {
		plain[i], tables[i] = c.text, asTable(c.text)
	}
	chosen := func(s string) uint64 {
		h, ok := Hash([]byte(s))
		if !ok {
			t.Fatalf("no hash for a corpus text: %.80q", s)
		}
		return h
	}
	dups := nearDups(corpus, 4)
	nearDist := func(h func(string) uint64) (hist [8]int, within2, small2, smallN int) {
		for _, d := range dups {
			dist := Distance(h(d.orig), h(d.dup))
			hist[min(dist, 7)]++
			if dist <= 2 {
				within2++
			}
			if len(d.orig) < 2048 {
				smallN++
				if dist <= 2 {
					small2++
				}
			}
		}
		return
	}

	// The chosen features.
	plainStats := unrelated(corpus, hashAll(plain, chosen))
	tableStats := unrelated(corpus, hashAll(tables, chosen))
	hist, within2, small2, smallN := nearDist(chosen)
	t.Logf("chosen (unigrams+bigrams, cap %d), unrelated texts: %v", tfCap, plainStats)
	t.Logf("chosen, unrelated texts as tables: %v", tableStats)
	t.Logf("chosen, near-duplicates (one word replaced, %d pairs): distances 0..7+ %v; ≤2: %.1f%% (texts < 2 KB: %.1f%%)",
		len(dups), hist, 100*float64(within2)/float64(len(dups)), 100*float64(small2)/float64(smallN))

	if plainStats.mean() < 26 || tableStats.mean() < 22 {
		t.Errorf("mean distance of unrelated texts %.1f (tables %.1f), want ≥ 26 (≥ 22)", plainStats.mean(), tableStats.mean())
	}
	if plainStats.frac5() > 0.0001 || tableStats.frac5() > 0.0001 {
		t.Errorf("unrelated texts within 5 bits: %.4f%% (tables %.4f%%), want ≤ 0.01%%",
			100*plainStats.frac5(), 100*tableStats.frac5())
	}
	if plainStats.within2 > 0 || tableStats.within2 > 0 {
		t.Errorf("%d unrelated pairs (%d as tables) would count as similar (≤ 2 bits)", plainStats.within2, tableStats.within2)
	}
	if f := float64(within2) / float64(len(dups)); f < 0.75 {
		t.Errorf("near-duplicates within 2 bits: %.1f%%, want ≥ 75%%", 100*f)
	}

	// Comparisons.
	for _, spec := range []featureSpec{
		{name: "word unigrams", unigram: true},
		{name: "unigrams+bigrams, no cap", unigram: true, bigram: true},
	} {
		h := func(s string) uint64 { return slowHash(spec, s) }
		hist, within2, _, _ := nearDist(h)
		t.Logf("%s: unrelated %v", spec.name, unrelated(corpus, hashAll(plain, h)))
		t.Logf("%s: as tables %v", spec.name, unrelated(corpus, hashAll(tables, h)))
		t.Logf("%s: near-duplicates %v, ≤2: %.1f%%", spec.name, hist, 100*float64(within2)/float64(len(dups)))
	}
}
