//go:build !purego

#include "textflag.h"

// Bytes SkipContainer, stringEndAVX512 and EscapeEnd compare with: '"',
// '\\', 0x20 (EscapeEnd: the bound of the control bytes), and '{' / '}' as
// '[' / ']' become with 0x20 set ('[' | 0x20 == '{', ']' | 0x20 == '}').
DATA skipc<>+0(SB)/1, $0x22
DATA skipc<>+1(SB)/1, $0x5c
DATA skipc<>+2(SB)/1, $0x20
DATA skipc<>+3(SB)/1, $0x7b
DATA skipc<>+4(SB)/1, $0x7d
GLOBL skipc<>(SB), RODATA|NOPTR, $5

// ESCAPES removes from the quotes (AX) those a backslash escapes: BX holds
// the block's backslashes, R10 is 1 when the last block ended in an odd
// run of them (it escapes this block's first byte) and is set for the
// next, R13 holds the even bits; R12 and R14 are clobbered, BX loses the
// backslash R10 escapes. A run starting on an odd bit is found by adding
// its start to it, whose carry marks where it ends; even and odd starts
// flip which bits of the run's tail are escaped (Langdale and Lemire,
// "Parsing gigabytes of JSON per second", 2019).
#define ESCAPES \
	ANDNQ BX, R10, BX; \
	MOVQ  BX, R12; \
	SHLQ  $1, R12; \
	ORQ   R10, R12; \
	MOVQ  R13, R14; \
	ORQ   R12, R14; \
	ANDNQ BX, R14, R14; \
	XORQ  R10, R10; \
	ADDQ  BX, R14; \
	SETCS R10; \
	SHLQ  $1, R14; \
	XORQ  R13, R14; \
	ANDQ  R12, R14; \
	ANDNQ AX, R14, AX

// func SkipContainer(b []byte) int
//
// One 64-byte block per round: compares give masks of the quotes,
// backslashes, opening and closing brackets. Quotes escaped by an odd run
// of backslashes are removed (the run's parity carried from block to
// block in R10); a carry-less multiply by all ones turns the quotes into
// the mask of string bytes (opening quote included, closing excluded), its
// top bit carried in R9. Brackets outside strings change the depth (R11):
// by their counts when the block holds fewer closing brackets than the
// depth (which cannot then reach zero in it), else one by one in order
// until the depth is back to zero.
TEXT ·SkipContainer(SB), NOSPLIT, $0-32
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), DX
	VPBROADCASTB skipc<>+0(SB), Z10
	VPBROADCASTB skipc<>+1(SB), Z11
	VPBROADCASTB skipc<>+2(SB), Z12
	VPBROADCASTB skipc<>+3(SB), Z13
	VPBROADCASTB skipc<>+4(SB), Z14
	MOVQ $-1, AX
	VMOVQ AX, X9
	MOVQ $0x5555555555555555, R13 // even bits
	XORQ R8, R8                   // the block's offset in b
	XORQ R9, R9                   // all ones if the last block ended inside a string
	XORQ R10, R10                 // 1 if it ended in an odd run of backslashes
	XORQ R11, R11                 // depth

block:
	MOVQ DX, CX
	SUBQ R8, CX
	JLE  none
	CMPQ CX, $64
	JB   partial
	VMOVDQU8 (SI)(R8*1), Z0
	JMP  compare

partial:
	// The last bytes, through a mask: the bytes past b read as zero, which
	// is none of the bytes compared with.
	MOVQ       $-1, AX
	BZHIQ      CX, AX, AX
	KMOVQ      AX, K7
	VMOVDQU8.Z (SI)(R8*1), K7, Z0

compare:
	VPCMPEQB Z10, Z0, K1
	VPCMPEQB Z11, Z0, K2
	VPORQ    Z12, Z0, Z1
	VPCMPEQB Z13, Z1, K3
	VPCMPEQB Z14, Z1, K4
	KMOVQ    K1, AX      // quotes
	KMOVQ    K2, BX      // backslashes
	MOVQ     BX, CX
	ORQ      R10, CX
	JNZ      escapes

strings:
	// AX: the quotes no backslash escapes. VEX forms (VMOVQ, VPCLMULQDQ),
	// never the legacy SSE ones, while the Z registers are in use: a
	// legacy instruction here cost a state transition a block, 340 MB/s
	// instead of 14 GB/s on an AVX-512 Xeon (internal/asmcheck checks).
	VMOVQ      AX, X1
	VPCLMULQDQ $0, X9, X1, X1
	VMOVQ      X1, AX
	XORQ      R9, AX     // AX: the bytes inside strings
	ANDNQ     BX, AX, CX // backslashes outside strings
	JNZ       none
	MOVQ      AX, R9
	SARQ      $63, R9
	KMOVQ     K3, CX
	KMOVQ     K4, DI
	ANDNQ     CX, AX, CX // opening brackets outside strings
	ANDNQ     DI, AX, DI // closing ones
	MOVQ      CX, BX
	ORQ       DI, BX
	JZ        next
	POPCNTQ   DI, R12
	CMPQ      R11, R12
	JLE       walk
	POPCNTQ   CX, R14
	ADDQ      R14, R11
	SUBQ      R12, R11

next:
	ADDQ $64, R8
	JMP  block

walk:
	// BX: the brackets, lowest first; CX tells which open.
	TZCNTQ BX, R12
	BTQ    R12, CX
	JCC    closing
	INCQ   R11
	BLSRQ  BX, BX
	JNZ    walk
	JMP    next

closing:
	DECQ  R11
	JZ    found
	BLSRQ BX, BX
	JNZ   walk
	JMP   next

found:
	LEAQ       1(R8)(R12*1), AX
	MOVQ       AX, ret+24(FP)
	VZEROUPPER
	RET

escapes:
	ESCAPES
	JMP strings

none:
	MOVQ       $-1, ret+24(FP)
	VZEROUPPER
	RET

// func stringEndAVX512(b []byte) int
//
// One 64-byte block per round, as SkipContainer: the first quote no odd
// run of backslashes escapes.
TEXT ·stringEndAVX512(SB), NOSPLIT, $0-32
	MOVQ         b_base+0(FP), SI
	MOVQ         b_len+8(FP), DX
	VPBROADCASTB skipc<>+0(SB), Z10
	VPBROADCASTB skipc<>+1(SB), Z11
	MOVQ         $0x5555555555555555, R13
	XORQ         R8, R8
	XORQ         R10, R10

sblock:
	MOVQ DX, CX
	SUBQ R8, CX
	JLE  snone
	CMPQ CX, $64
	JB   spartial
	VMOVDQU8 (SI)(R8*1), Z0
	JMP  scompare

spartial:
	MOVQ       $-1, AX
	BZHIQ      CX, AX, AX
	KMOVQ      AX, K7
	VMOVDQU8.Z (SI)(R8*1), K7, Z0

scompare:
	VPCMPEQB Z10, Z0, K1
	VPCMPEQB Z11, Z0, K2
	KMOVQ    K1, AX
	KMOVQ    K2, BX
	MOVQ     BX, CX
	ORQ      R10, CX
	JNZ      sescapes

squotes:
	TESTQ AX, AX
	JNZ   sfound
	ADDQ  $64, R8
	JMP   sblock

sescapes:
	ESCAPES
	JMP squotes

sfound:
	TZCNTQ     AX, AX
	ADDQ       R8, AX
	MOVQ       AX, ret+24(FP)
	VZEROUPPER
	RET

snone:
	MOVQ       $-1, ret+24(FP)
	VZEROUPPER
	RET

// func ASCIIPrefix(b []byte) int
//
// The length of b's longest prefix of whole 64-byte blocks holding only
// ASCII (bytes below 0x80): two blocks a round while it can.
TEXT ·ASCIIPrefix(SB), NOSPLIT, $0-32
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), DX
	XORQ AX, AX

pair:
	LEAQ     128(AX), CX
	CMPQ     CX, DX
	JA       single
	VMOVDQU8 (SI)(AX*1), Z0
	VPORQ    64(SI)(AX*1), Z0, Z1
	VPMOVB2M Z1, K1
	KORTESTQ K1, K1
	JNZ      single
	MOVQ     CX, AX
	JMP      pair

single:
	LEAQ     64(AX), CX
	CMPQ     CX, DX
	JA       done
	VMOVDQU8 (SI)(AX*1), Z0
	VPMOVB2M Z0, K1
	KORTESTQ K1, K1
	JNZ      done
	MOVQ     CX, AX

done:
	MOVQ       AX, ret+24(FP)
	VZEROUPPER
	RET

// func EscapeEnd(s string) int
//
// One 64-byte block per round: the bytes equal to '"' or '\\', below 0x20
// (an unsigned compare) or from 0x80 (their top bit) are flagged, and the
// first is returned. The last bytes are read through a mask; the zero
// bytes it reads past s would be flagged as control bytes, so the flags
// are cut to the mask.
TEXT ·EscapeEnd(SB), NOSPLIT, $0-24
	MOVQ         s_base+0(FP), SI
	MOVQ         s_len+8(FP), DX
	VPBROADCASTB skipc<>+0(SB), Z10
	VPBROADCASTB skipc<>+1(SB), Z11
	VPBROADCASTB skipc<>+2(SB), Z12
	XORQ         R8, R8

eblock:
	MOVQ DX, CX
	SUBQ R8, CX
	JLE  enone
	MOVQ $-1, BX
	CMPQ CX, $64
	JB   epartial
	VMOVDQU8 (SI)(R8*1), Z0
	JMP  ecompare

epartial:
	BZHIQ      CX, BX, BX
	KMOVQ      BX, K7
	VMOVDQU8.Z (SI)(R8*1), K7, Z0

ecompare:
	VPCMPEQB Z10, Z0, K1
	VPCMPEQB Z11, Z0, K2
	VPCMPUB  $1, Z12, Z0, K3
	VPMOVB2M Z0, K4
	KORQ     K1, K2, K1
	KORQ     K3, K4, K3
	KORQ     K1, K3, K1
	KMOVQ    K1, AX
	ANDQ     BX, AX
	JNZ      efound
	ADDQ     $64, R8
	JMP      eblock

efound:
	TZCNTQ     AX, AX
	ADDQ       R8, AX
	MOVQ       AX, ret+16(FP)
	VZEROUPPER
	RET

enone:
	MOVQ       DX, ret+16(FP)
	VZEROUPPER
	RET
