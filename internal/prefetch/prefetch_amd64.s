//go:build amd64 && !purego

#include "textflag.h"

// func lines(p unsafe.Pointer, n uintptr)
// PREFETCHT0 of the line holding p and of the n-1 (≤ 3) lines after it.
TEXT ·lines(SB), NOSPLIT, $0-16
	MOVQ       p+0(FP), AX
	MOVQ       n+8(FP), CX
	PREFETCHT0 (AX)
	CMPQ       CX, $1
	JLE        done
	PREFETCHT0 64(AX)
	CMPQ       CX, $2
	JLE        done
	PREFETCHT0 128(AX)
	CMPQ       CX, $3
	JLE        done
	PREFETCHT0 192(AX)
done:
	RET
