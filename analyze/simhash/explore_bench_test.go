package simhash

import (
	"os"
	"testing"
)

func BenchmarkExploreNormalize(b *testing.B) {
	data, _ := os.ReadFile("/usr/local/go/src/go/ast/ast.go")
	src := data[:4096]
	dst := make([]byte, 0, 3*len(src))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		dst = Normalize(dst[:0], src)
	}
}
