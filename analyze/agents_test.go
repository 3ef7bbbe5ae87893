package analyze

import (
	"strconv"
	"testing"
)

// TestAgentTable: every agent finds its own book, across the chunks'
// growth and the index's doublings; books never move.
func TestAgentTable(t *testing.T) {
	var tab agentTable
	const n = 3*bookChunk + 100
	books := make([]*agentBook, n)
	for i := range n {
		b, added := tab.find("agent-" + strconv.Itoa(i))
		if !added {
			t.Fatalf("agent %d found before it was added", i)
		}
		books[i] = b
	}
	for i := range n {
		b, added := tab.find("agent-" + strconv.Itoa(i))
		if added || b != books[i] || tab.at(i) != b {
			t.Fatalf("agent %d: added %v, book moved or another's", i, added)
		}
	}
	k := 0
	tab.each(func(b *agentBook) {
		if b != books[k] {
			t.Fatalf("each: book %d out of order", k)
		}
		k++
	})
	if k != n || len(tab.slots) < n*4/3 {
		t.Fatalf("each saw %d books of %d; %d slots", k, n, len(tab.slots))
	}
}
