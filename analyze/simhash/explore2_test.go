package simhash

import (
	"math/bits"
	"testing"
)

func TestExplore2(t *testing.T) {
	corpus := goDocCorpus(t, 3)
	corpus = append(corpus, capturePrompts(t)...)
	hs := make([]uint64, len(corpus))
	for i, c := range corpus {
		hs[i], _ = simhashOf(fBi, string(Normalize(nil, []byte(c.text))), 0)
	}
	for i := range hs {
		for j := i + 1; j < len(hs); j++ {
			if corpus[i].group == corpus[j].group {
				continue
			}
			d := bits.OnesCount64(hs[i] ^ hs[j])
			if d <= 7 {
				t.Logf("d=%d %s %s\n%.150q\n%.150q", d, corpus[i].group, corpus[j].group, corpus[i].text, corpus[j].text)
			}
		}
	}
}
