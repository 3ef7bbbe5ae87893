package asmcheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want []int // lines of the findings
	}{
		{"legacy after wide", `
TEXT ·f(SB), NOSPLIT, $0-8
	VMOVDQU8 (SI), Z0
	MOVQ     AX, X1
	PCLMULQDQ $0, X9, X1
	VZEROUPPER
	RET
`, []int{4, 5}},
		{"VEX forms", `
TEXT ·f(SB), NOSPLIT, $0-8
	VMOVDQU8   (SI), Z0
	VMOVQ      AX, X1
	VPCLMULQDQ $0, X9, X1, X1
	KMOVQ      K1, AX
	VZEROUPPER
	RET
`, nil},
		{"VZEROUPPER first", `
TEXT ·f(SB), NOSPLIT, $0-8
	VPBROADCASTB (SI), Y1
	VZEROUPPER
	PADDB X1, X2
	RET
`, nil},
		{"legacy before wide", `
TEXT ·f(SB), NOSPLIT, $0-8
	MOVOU (SI), X0
	VMOVDQU8 (SI), Z0
	VZEROUPPER
	RET
`, nil},
		{"a new function starts clean", `
TEXT ·f(SB), NOSPLIT, $0-8
	VMOVDQU8 (SI), Z0
	VZEROUPPER
	RET
TEXT ·g(SB), NOSPLIT, $0-8
	MOVQ AX, X1
	RET
`, nil},
		{"a return with the upper halves dirty", `
TEXT ·f(SB), NOSPLIT, $0-8
	VMOVDQU8 (SI), Z0
	CMPQ     AX, $0
	JEQ      done
	VZEROUPPER
	RET
done:
	VPORQ Z1, Z2, Z3
	RET
`, []int{10}},
		{"a limit of text order: what follows a RET counts as clean (here a jump from dirty code reaches it)", `
TEXT ·f(SB), NOSPLIT, $0-8
	VMOVDQU8 (SI), Z0
	JEQ      scalar
	VZEROUPPER
	RET
scalar:
	MOVQ AX, X1
	RET
`, nil},
		{"inside a macro, with a label and a comment", `
#define MIX(x, t) \
	MOVO x, t; \
	PADDB X11, t
TEXT ·f(SB), NOSPLIT, $0-8
loop:	VPORQ Z1, Z2, Z3 // wide
	MIX(X1, X2)
	VZEROUPPER
	RET
`, []int{7, 7}},
		{"a macro without arguments", `
#define WIDE VPORQ Z1, Z2, Z3
TEXT ·f(SB), NOSPLIT, $0-8
	WIDE
	MOVQ X1, AX
	VZEROUPPER
	RET
`, []int{5}},
		{"general registers and X16 up are not SSE", `
TEXT ·f(SB), NOSPLIT, $0-8
	VPORQ Z1, Z2, Z3
	MOVQ  AX, BX
	VMOVQ AX, X20
	VZEROUPPER
	RET
`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Check(tc.src)
			var lines []int
			for _, f := range got {
				lines = append(lines, f.Line)
			}
			if len(lines) != len(tc.want) {
				t.Fatalf("findings at lines %v, want %v: %v", lines, tc.want, got)
			}
			for i := range lines {
				if lines[i] != tc.want[i] {
					t.Fatalf("findings at lines %v, want %v: %v", lines, tc.want, got)
				}
			}
		})
	}
}

// TestRepositoryAssembly checks every assembly file of the module.
func TestRepositoryAssembly(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found from %s: %v", root, err)
	}
	n := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".s") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		rel, _ := filepath.Rel(root, path)
		for _, f := range Check(string(src)) {
			t.Errorf("%s:%v", rel, f)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 3 {
		t.Fatalf("found %d assembly files, want jsonsimd's, simhash's and prefetch's at least", n)
	}
}
