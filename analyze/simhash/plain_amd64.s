//go:build amd64 && !purego

#include "textflag.h"

// Constants of plainWordsFast: bytes repeated 16 times, then the hash's
// multipliers and seeds, and tables of masks by length (tails).
#define BYTES16(name, b) \
	DATA name<>+0(SB)/8, b; \
	DATA name<>+8(SB)/8, b; \
	GLOBL name<>(SB), RODATA|NOPTR, $16

BYTES16(b20, $0x2020202020202020)
BYTES16(b50, $0x5050505050505050)
BYTES16(b8a, $0x8a8a8a8a8a8a8a8a)
BYTES16(b3f, $0x3f3f3f3f3f3f3f3f)
BYTES16(b9a, $0x9a9a9a9a9a9a9a9a)
BYTES16(b77, $0x7777777777777777)
BYTES16(b85, $0x8585858585858585)

// The bytes the AVX-512 window broadcasts: '0' and 10 (digits), 9 and 5
// (0x09-0x0d), 'A' and 26 (upper case letters).
DATA bytes<>+0(SB)/1, $0x30
DATA bytes<>+1(SB)/1, $10
DATA bytes<>+2(SB)/1, $0x09
DATA bytes<>+3(SB)/1, $5
DATA bytes<>+4(SB)/1, $0x41
DATA bytes<>+5(SB)/1, $26
GLOBL bytes<>(SB), RODATA|NOPTR, $6

DATA mul<>+0(SB)/8, $0x9e3779b97f4a7c15  // wordBlock
DATA mul<>+8(SB)/8, $0xc2b2ae3d27d4eb4f  // wordBlock
DATA mul<>+16(SB)/8, $0xbf58476d1ce4e5b9 // mix64
DATA mul<>+24(SB)/8, $0x94d049bb133111eb // mix64
DATA mul<>+32(SB)/8, $0x243f6a8885a308d3 // wordSeed
DATA mul<>+40(SB)/8, $0x6a09e667f3bcc909 // bigram
GLOBL mul<>(SB), RODATA|NOPTR, $48

// numWord512's constants: the byte offsets 0-31, then "<NUM>" at the
// start of both 16-byte lanes.
DATA num512<>+0(SB)/8, $0x0706050403020100
DATA num512<>+8(SB)/8, $0x0f0e0d0c0b0a0908
DATA num512<>+16(SB)/8, $0x1716151413121110
DATA num512<>+24(SB)/8, $0x1f1e1d1c1b1a1918
DATA num512<>+32(SB)/8, $0x0000003e4d554e3c
DATA num512<>+40(SB)/8, $0
DATA num512<>+48(SB)/8, $0x0000003e4d554e3c
DATA num512<>+56(SB)/8, $0
GLOBL num512<>(SB), RODATA|NOPTR, $64

// LOWER lowercases the bytes of x: upper case letters are b+0x3f as a
// signed byte below -102 (X11: 0x3f, X12: 0x9a, X8: 0x20); X4 and X5 are
// clobbered.
#define LOWER(x) \
	MOVO    x, X4; \
	PADDB   X11, X4; \
	MOVO    X12, X5; \
	PCMPGTB X4, X5; \
	PAND    X8, X5; \
	POR     X5, x

// FOLD folds the 8 bytes in register r into the word hash R10
// (wordBlock); r is clobbered.
#define FOLD(r) \
	IMULQ mul<>+0(SB), r; \
	XORQ  r, R10; \
	ROLQ  $27, R10; \
	IMULQ mul<>+8(SB), R10

// NUMBLOCK folds the 8 bytes at R11 into the word hash R10 and moves R11
// past them; AX is clobbered.
#define NUMBLOCK \
	MOVQ  (R11), AX; \
	FOLD(AX); \
	ADDQ  $8, R11

// tails: the masks of a word's last 0-7 bytes; then, for a plain word of
// k bytes (1-15), the mask of its tail in y0 (lo, 64+8k: zero from k = 8),
// the mask of its tail in y1 (hi, 192+8k: zero below k = 8) and its
// length in the top byte (320+8k), as wordOpen folds it in.
DATA tails<>+0(SB)/8, $0x0
DATA tails<>+8(SB)/8, $0xff
DATA tails<>+16(SB)/8, $0xffff
DATA tails<>+24(SB)/8, $0xffffff
DATA tails<>+32(SB)/8, $0xffffffff
DATA tails<>+40(SB)/8, $0xffffffffff
DATA tails<>+48(SB)/8, $0xffffffffffff
DATA tails<>+56(SB)/8, $0xffffffffffffff
DATA tails<>+64(SB)/8, $0x0
DATA tails<>+72(SB)/8, $0xff
DATA tails<>+80(SB)/8, $0xffff
DATA tails<>+88(SB)/8, $0xffffff
DATA tails<>+96(SB)/8, $0xffffffff
DATA tails<>+104(SB)/8, $0xffffffffff
DATA tails<>+112(SB)/8, $0xffffffffffff
DATA tails<>+120(SB)/8, $0xffffffffffffff
DATA tails<>+128(SB)/8, $0x0
DATA tails<>+136(SB)/8, $0x0
DATA tails<>+144(SB)/8, $0x0
DATA tails<>+152(SB)/8, $0x0
DATA tails<>+160(SB)/8, $0x0
DATA tails<>+168(SB)/8, $0x0
DATA tails<>+176(SB)/8, $0x0
DATA tails<>+184(SB)/8, $0x0
DATA tails<>+192(SB)/8, $0x0
DATA tails<>+200(SB)/8, $0x0
DATA tails<>+208(SB)/8, $0x0
DATA tails<>+216(SB)/8, $0x0
DATA tails<>+224(SB)/8, $0x0
DATA tails<>+232(SB)/8, $0x0
DATA tails<>+240(SB)/8, $0x0
DATA tails<>+248(SB)/8, $0x0
DATA tails<>+256(SB)/8, $0x0
DATA tails<>+264(SB)/8, $0xff
DATA tails<>+272(SB)/8, $0xffff
DATA tails<>+280(SB)/8, $0xffffff
DATA tails<>+288(SB)/8, $0xffffffff
DATA tails<>+296(SB)/8, $0xffffffffff
DATA tails<>+304(SB)/8, $0xffffffffffff
DATA tails<>+312(SB)/8, $0xffffffffffffff
DATA tails<>+320(SB)/8, $0x0
DATA tails<>+328(SB)/8, $0x100000000000000
DATA tails<>+336(SB)/8, $0x200000000000000
DATA tails<>+344(SB)/8, $0x300000000000000
DATA tails<>+352(SB)/8, $0x400000000000000
DATA tails<>+360(SB)/8, $0x500000000000000
DATA tails<>+368(SB)/8, $0x600000000000000
DATA tails<>+376(SB)/8, $0x700000000000000
DATA tails<>+384(SB)/8, $0x800000000000000
DATA tails<>+392(SB)/8, $0x900000000000000
DATA tails<>+400(SB)/8, $0xa00000000000000
DATA tails<>+408(SB)/8, $0xb00000000000000
DATA tails<>+416(SB)/8, $0xc00000000000000
DATA tails<>+424(SB)/8, $0xd00000000000000
DATA tails<>+432(SB)/8, $0xe00000000000000
DATA tails<>+440(SB)/8, $0xf00000000000000
GLOBL tails<>(SB), RODATA|NOPTR, $448

// HASHWORD computes the open hash (wordOpen) of the plain word of k
// bytes (a register) whose lowercased halves are y0 (R10, and R13) and y1
// (R11), into R10: (k >= 8 ? wordBlock(seed, y0) : seed) ^ y0&lo[k] ^
// y1&hi[k] ^ k<<56, the masks and k<<56 from tails (R12).
#define HASHWORD(k) \
	IMULQ   mul<>+0(SB), R10; \
	XORQ    mul<>+32(SB), R10; \
	ROLQ    $27, R10; \
	IMULQ   mul<>+8(SB), R10; \
	CMPL    k, $8; \
	CMOVQCS mul<>+32(SB), R10; \
	ANDQ    64(R12)(k*8), R13; \
	ANDQ    192(R12)(k*8), R11; \
	XORQ    R11, R13; \
	XORQ    320(R12)(k*8), R13; \
	XORQ    R13, R10

// WINDOW sets w to the mask of the word bytes (as below) and sp to that
// of the white space (0x20, 0x09-0x0d) of the 16 bytes at off(R15), and
// stores them lowercased at off(SP); X0-X6 are clobbered.
#define WINDOW(off, w, sp) \
	MOVOU    off(R15), X0; \
	MOVO     X0, X1; \
	PCMPGTB  X8, X1; \
	MOVO     X0, X2; \
	PADDB    X9, X2; \
	MOVO     X10, X3; \
	PCMPGTB  X2, X3; \
	PANDN    X1, X3; \
	PMOVMSKB X3, w; \
	MOVO     X0, X4; \
	PCMPEQB  X8, X4; \
	MOVO     X0, X5; \
	PADDB    X13, X5; \
	MOVO     X14, X6; \
	PCMPGTB  X5, X6; \
	POR      X6, X4; \
	PMOVMSKB X4, sp; \
	LOWER(X0); \
	MOVOU    X0, off(SP)

// func plainWordsFast(src []byte, p int, xs []uint64, n int) (end, m int)
//
// Registers: BX &src[p], DX &src[len(src)-16], SI class, R12 tails, DI
// xs, R9 n; R15 the window's start, R8 and R14 its masks (inverted word
// bytes, white space), 0(SP) its bytes lowercased (see refill); X8-X14 the
// byte constants. Per word, with k its length and o = p - R15:
//   k = TZCNT(R8 >> o): the word bytes (0x21-0x7f but digits) from p
//   1 <= k <= 15 and bit o+k of R14 set (white space follows), else the
//   16-byte code at bytes: more white space, a number word, or the end
//   y0, y1 = the lowercased halves at o(SP)
//   xs[n] = (k>=8 ? wordBlock(seed, y0) : seed) ^ y0&lo[k] ^ y1&hi[k] ^ k<<56
// fast is that loop without the end and room checks, where neither is
// needed; texts under 64 bytes have no window, and go word by word through
// the 16-byte code.
TEXT ·plainWordsFast(SB), NOSPLIT, $160-80
	MOVQ  n+56(FP), R9
	MOVQ  src_base+0(FP), BX
	MOVQ  src_len+8(FP), DX
	ADDQ  p+24(FP), BX
	CMPQ  DX, $16
	JLT   done        // (so that the pointer below does not wrap)
	LEAQ  -16(BX)(DX*1), DX
	SUBQ  p+24(FP), DX
	LEAQ  ·class(SB), SI
	LEAQ  tails<>(SB), R12
	MOVQ  xs_base+32(FP), DI
	MOVOU b20<>(SB), X8
	MOVOU b50<>(SB), X9
	MOVOU b8a<>(SB), X10
	MOVOU b3f<>(SB), X11
	MOVOU b9a<>(SB), X12
	MOVOU b77<>(SB), X13
	MOVOU b85<>(SB), X14

	// The window: masks of the word bytes (R8) and the white space (R14)
	// of the 64 bytes from R15, and those bytes lowercased at 0(SP) (the
	// frame's first 64 bytes), which refill sets, once the word at p is
	// beyond its first 48 bytes, to p or, nearer the end, to
	// &src[len(src)-64]; texts of fewer than 64 bytes have none.
	MOVQ src_base+0(FP), R15
	ADDQ src_len+8(FP), R15 // no window yet: o wraps around
	LEAQ -64(R15), AX
	MOVQ AX, wmax-88(SP)

loop:
	CMPQ BX, DX
	JHI  done
	CMPQ R9, xs_len+40(FP)
	JGE  done
	MOVQ BX, CX
	SUBQ R15, CX          // o: p's offset in the window
	CMPQ CX, $48
	JHI  refill

inwin:
	// A window that is not the last, with room in xs for every word it
	// can hold (at most 25 from o <= 48), needs neither check: fast.
	CMPQ R15, wmax-88(SP)
	JAE  masked
	MOVQ xs_len+40(FP), AX
	SUBQ R9, AX
	CMPQ AX, $32
	JGE  fast

masked:
	// k = the word bytes from p, which the white space must follow: the
	// only dependency from a word to the next is this handful of
	// instructions on the masks, not the loads and compares of its bytes.
	MOVQ   R8, AX
	SHRQ   CX, AX
	TZCNTQ AX, AX          // (a BSF where there is no TZCNT: AX != 0)
	LEAQ   -1(AX), R10
	CMPQ   R10, $15
	JAE    winnum          // no word, or too long: see the bytes
	LEAQ   (CX)(AX*1), R10
	BTQ    R10, R14
	JCC    winnum          // not followed by white space
	MOVQ   0(SP)(CX*1), R10 // y0 and y1, lowercased with the window
	MOVQ   R10, R13
	MOVQ   8(SP)(CX*1), R11
	MOVQ   AX, CX
	JMP    hash

refill:
	CMPQ src_len+8(FP), $64
	JLT  bytes
	MOVQ wmax-88(SP), R15
	CMPQ BX, R15
	CMOVQCS BX, R15       // min(p, &src[len(src)-64])
	PREFETCHT0 256(R15)   // the bytes five windows on, about as far as a
	PREFETCHT0 320(R15)   // cold line takes to come (no fault past the end)
	CMPB ·useAVX512(SB), $0
	JNE  window512
	WINDOW(0, R8, R14)
	WINDOW(16, R10, R11)
	SHLQ $16, R10
	SHLQ $16, R11
	ORQ  R10, R8
	ORQ  R11, R14
	WINDOW(32, R10, R11)
	SHLQ $32, R10
	SHLQ $32, R11
	ORQ  R10, R8
	ORQ  R11, R14
	WINDOW(48, R10, R11)
	SHLQ $48, R10
	SHLQ $48, R11
	ORQ  R10, R8
	ORQ  R11, R14
	NOTQ R8
	BTSQ $63, R8          // (see fast)
	MOVQ $0, dig-96(SP)   // (see winnum)
	MOVQ BX, CX
	SUBQ R15, CX
	JMP  inwin

window512:
	// The same masks with AVX-512 (BW), 64 bytes at once: word bytes are
	// signed > 0x20 and, less '0', not below 10 unsigned; white space is
	// 0x20 or, less 9, below 5 unsigned.
	VMOVDQU8     (R15), Z0
	VPBROADCASTB b20<>(SB), Z1
	VPCMPGTB     Z1, Z0, K1
	VPCMPEQB     Z1, Z0, K3
	VPBROADCASTB bytes<>+0(SB), Z2
	VPSUBB       Z2, Z0, Z2
	VPBROADCASTB bytes<>+1(SB), Z3
	VPCMPUB      $1, Z3, Z2, K2  // below 10: a digit
	KMOVQ        K2, AX
	MOVQ         AX, dig-96(SP)              // (see winnum)
	KANDNQ       K1, K2, K1
	VPBROADCASTB bytes<>+2(SB), Z2
	VPSUBB       Z2, Z0, Z2
	VPBROADCASTB bytes<>+3(SB), Z3
	VPCMPUB      $1, Z3, Z2, K2  // 0x09-0x0d
	KORQ         K2, K3, K3
	KMOVQ        K1, R8
	KMOVQ        K3, R14
	NOTQ         R8
	BTSQ         $63, R8
	VPBROADCASTB bytes<>+4(SB), Z2
	VPSUBB       Z2, Z0, Z2
	VPBROADCASTB bytes<>+5(SB), Z3
	VPCMPUB      $1, Z3, Z2, K2  // 'A'-'Z'
	VPADDB       Z1, Z0, K2, Z0  // + 0x20
	VMOVDQU      X0, (SP)        // in 16-byte stores, which the words'
	VEXTRACTI32X4 $1, Z0, X2     // 8-byte loads are forwarded from
	VMOVDQU      X2, 16(SP)
	VEXTRACTI32X4 $2, Z0, X2
	VMOVDQU      X2, 32(SP)
	VEXTRACTI32X4 $3, Z0, X2
	VMOVDQU      X2, 48(SP)
	VZEROUPPER
	MOVQ BX, CX
	SUBQ R15, CX
	JMP  inwin

fast:
	// The masked loop without the checks (see inwin), on o in CX: a
	// word's length k is the trailing zeros of the inverted word-byte mask
	// from o, whose top bit refill sets (a word byte there ends no word:
	// the white space test fails), so that it is never zero.
	MOVQ   R8, AX
	SHRQ   CX, AX
	TZCNTQ AX, AX
	LEAQ   -1(AX), R10
	CMPQ   R10, $15
	JAE    fastout
	LEAQ   (CX)(AX*1), R10
	BTQ    R10, R14
	JCC    fastout
	MOVQ   0(SP)(CX*1), R10
	MOVQ   R10, R13
	MOVQ   8(SP)(CX*1), R11
	HASHWORD(AX)
	MOVQ   R10, (DI)(R9*8)
	INCQ   R9
	LEAQ   1(CX)(AX*1), CX
	CMPQ   CX, $48
	JBE    fast
	LEAQ   (R15)(CX*1), BX
	JMP    loop

fastout:
	// Not a plain word: a number word, or the bytes decide.
	LEAQ (R15)(CX*1), BX

winnum:
	// The word at p (BX, o in CX) is no plain word: if it is a number
	// word, it is read from the masks of an AVX-512 window, which keeps
	// those of its digits in dig (an SSE window keeps none: 0), rather
	// than from its bytes. Its token is the word bytes and digits from p,
	// 1-15 of them, followed by white space; its digits d are one run
	// (from pre) maybe followed by a dot and another, up to e; the
	// bytes after e are no digits. Anything else goes to the bytes.
	// (TZCNT, SHRX and BZHI: every processor with AVX-512 has them.)
	MOVQ   dig-96(SP), R11
	TESTQ  R11, R11
	JZ     bytes
	BTQ    CX, R14
	JCS    bytes              // white space: skipped there
	ANDNQ  R8, R11, AX        // neither word bytes nor digits
	SHRXQ  CX, AX, AX
	TZCNTQ AX, AX             // the token's length
	LEAQ   -1(AX), R10
	CMPQ   R10, $15
	JAE    bytes
	LEAQ   (CX)(AX*1), R10
	BTQ    R10, R14
	JCC    bytes              // not followed by white space
	SHRXQ  CX, R11, R11
	BZHIQ  AX, R11, R11       // d
	TESTQ  R11, R11
	JZ     bytes
	TZCNTQ R11, R13           // pre
	SHRXQ  R13, R11, R10
	NOTQ   R10
	TZCNTQ R10, R10
	ADDQ   R13, R10           // e: the end of the first run
	LEAQ   1(R10), SI
	BTQ    SI, R11
	JCC    nofrac             // no digit after it
	LEAQ   (CX)(R10*1), SI
	CMPB   (SP)(SI*1), $0x2e  // '.'
	JNE    nofrac
	LEAQ   1(R10), SI         // a fraction: the second run, up to e
	SHRXQ  SI, R11, R10
	NOTQ   R10
	TZCNTQ R10, R10
	ADDQ   SI, R10

nofrac:
	LEAQ   ·class(SB), SI
	SHRXQ  R10, R11, R11
	TESTQ  R11, R11
	JNZ    bytes              // more digits: the bytes decide (no number word)
	// num512 with R13 the prefix's length, R10 the suffix's start, CX its
	// end, X0 the word's bytes lowercased (the window's, from o).
	MOVOU  (SP)(CX*1), X0
	MOVQ   AX, CX
	JMP    num512

bytes:
	// The word at p from its 16 bytes, as before the window: more white
	// space, a number word, or the end of the plain words.
	MOVOU (BX), X0

	// Word bytes: signed > 0x20 (0x21-0x7f) and not a digit (b+0x50 as a
	// signed byte below -118).
	MOVO     X0, X1
	PCMPGTB  X8, X1
	MOVO     X0, X2
	PADDB    X9, X2
	MOVO     X10, X3
	PCMPGTB  X2, X3
	PANDN    X1, X3
	PMOVMSKB X3, AX
	NOTL     AX
	BSFL     AX, CX       // k: 0-16, as bit 16 of AX is set
	LEAL     -1(CX), AX
	CMPL     AX, $15
	JAE      special
	MOVBLZX  (BX)(CX*1), AX
	MOVBLZX  (SI)(AX*1), AX
	TESTB    $0x10, AL    // cSpace
	JZ       number

plain:
	// Lowercase: upper case letters are b+0x3f as a signed byte below -102.
	LOWER(X0)
	MOVQ    X0, R10       // y0
	MOVQ    R10, R13
	MOVHLPS X0, X0
	MOVQ    X0, R11       // y1

hash:
	HASHWORD(CX)

keep:
	MOVQ R10, (DI)(R9*8)
	INCQ R9
	LEAQ 1(BX)(CX*1), BX
	JMP  loop

special:
	// k == 16: too long; k == 0: more white space, or maybe a number word.
	TESTL   CX, CX
	JNZ     done
	MOVBLZX (BX), AX
	MOVBLZX (SI)(AX*1), AX
	TESTB   $0x10, AL
	JZ      number
	LEAQ    16(DX), R10   // &src[len(src)]

skip:
	INCQ    BX
	CMPQ    BX, R10
	JAE     loop
	MOVBLZX (BX), AX
	MOVBLZX (SI)(AX*1), AX
	TESTB   $0x10, AL
	JNZ     skip
	JMP     loop

number:
	// numberWord: a prefix, digits with maybe a fraction, a suffix, then
	// white space, within src[p:p+16]; prefix and suffix bytes are ASCII
	// but digits and white space (R11: the other bytes, with bit 15 set, as
	// the runs stop there), R10 the digits. X0 and X2 are as above.
	MOVO     X10, X3
	PCMPGTB  X2, X3
	PMOVMSKB X3, R10      // digits
	MOVO     X0, X4
	PCMPEQB  X8, X4
	MOVO     X0, X5
	PADDB    X13, X5
	MOVO     X14, X6
	PCMPGTB  X5, X6       // 0x09-0x0d: b+0x77 as a signed byte below -123
	POR      X6, X4
	PMOVMSKB X4, R11      // white space
	PMOVMSKB X0, AX       // bytes from 0x80
	ORL      AX, R11
	ORL      R10, R11
	ORL      $0x8000, R11
	BSFL     R11, CX      // the prefix's length
	MOVL     CX, R13
	MOVL     R10, AX
	NOTL     AX
	ORL      $0x8000, AX
	SHRL     CX, AX
	BSFL     AX, AX       // digits
	TESTL    AX, AX
	JZ       done
	ADDL     AX, CX
	CMPL     CX, $14
	JAE      suffix
	CMPB     (BX)(CX*1), $0x2e // '.'
	JNE      suffix
	LEAL     1(CX), AX
	BTL      AX, R10
	JCC      suffix
	ADDL     $2, CX       // a fraction: more digits after the dot
	MOVL     R10, AX
	NOTL     AX
	ORL      $0x8000, AX
	SHRL     CX, AX
	BSFL     AX, AX
	ADDL     AX, CX

suffix:
	MOVL    CX, R10       // the suffix's start
	MOVL    R11, AX
	SHRL    CX, AX
	BSFL    AX, AX
	ADDL    AX, CX        // its end, which must be white space
	MOVBLZX (BX)(CX*1), AX
	MOVBLZX (SI)(AX*1), AX
	TESTB   $0x10, AL
	JZ      done

	// The word: the lowercased prefix, <NUM>, the lowercased suffix, built
	// in out (from src lowercased in lc, zero-padded), then hashed as
	// wordBlock and wordOpen do; n = R13 + 5 + CX - R10 (at most 19).
	LOWER(X0)
	CMPB ·useAVX512(SB), $0
	JNE  num512
	PXOR  X6, X6
	MOVOU X0, lc-80(SP)
	MOVOU X6, lc-64(SP)
	MOVOU X0, out-48(SP)
	LEAQ  out-48(SP), R11
	MOVQ  $0x3e4d554e3c, AX // "<NUM>"
	MOVQ  AX, (R11)(R13*1)
	LEAQ  lc-80(SP), AX
	MOVOU (AX)(R10*1), X6
	MOVOU X6, 5(R11)(R13*1)
	SUBL  R10, R13
	LEAL  5(R13)(CX*1), R13 // n
	MOVQ  mul<>+32(SB), R10 // wordSeed
	CMPL  R13, $8
	JLT   numtail
	NUMBLOCK
	CMPL  R13, $16
	JLT   numtail
	NUMBLOCK

numtail:
	MOVL  R13, AX
	ANDL  $7, AX
	MOVQ  (R11), R11
	ANDQ  (R12)(AX*8), R11
	XORQ  R11, R10
	SHLQ  $56, R13
	XORQ  R13, R10
	JMP   keep

num512:
	// The same word built in registers: byte j of the word is lc[j] for
	// j < R13 (the prefix), "<NUM>"[j-R13] up to R13+5, then lc[j+R10-R13-5]
	// (the suffix) up to n, shuffled from lc in both lanes of Y0. Built in
	// memory, its loads span several stores, which the processor does not
	// forward: a number word cost several plain words.
	VINSERTI128  $1, X0, Y0, Y0
	VMOVDQU      num512<>+0(SB), Y1 // j
	VPBROADCASTB R13, Y2
	VPCMPUB      $1, Y2, Y1, K1     // j < R13: the prefix
	LEAL         5(R13), AX
	VPBROADCASTB AX, Y3
	VPCMPUB      $1, Y3, Y1, K2     // j < R13+5
	KANDNQ       K2, K1, K3         // <NUM>
	MOVL         CX, AX
	SUBL         R10, AX
	ADDL         R13, AX
	ADDL         $5, AX             // n
	VPBROADCASTB AX, Y3
	VPCMPUB      $1, Y3, Y1, K4     // j < n
	KANDNQ       K4, K2, K4         // the suffix
	SUBL         R13, R10
	SUBL         $5, R10
	VPBROADCASTB R10, Y3
	VPADDB       Y3, Y1, Y4         // j + R10-R13-5
	VMOVDQU8     Y1, K1, Y4         // j in the prefix
	KORQ         K1, K4, K4
	VPSHUFB.Z    Y4, Y0, K4, Y5
	VPSUBB       Y2, Y1, Y4         // j - R13
	VMOVDQU      num512<>+32(SB), Y6
	VPSHUFB      Y4, Y6, K3, Y5
	MOVQ         mul<>+32(SB), R10  // wordSeed
	VMOVQ        X5, R11
	CMPL         AX, $8
	JLT          num512tail
	FOLD(R11)
	VPEXTRQ      $1, X5, R11
	CMPL         AX, $16
	JLT          num512tail
	FOLD(R11)
	VEXTRACTI128 $1, Y5, X5
	VMOVQ        X5, R11

num512tail:
	VZEROUPPER
	MOVL  AX, R13
	ANDL  $7, AX
	ANDQ  (R12)(AX*8), R11
	XORQ  R11, R10
	SHLQ  $56, R13
	XORQ  R13, R10
	JMP   keep

done:
	SUBQ src_base+0(FP), BX
	MOVQ BX, end+64(FP)
	MOVQ R9, m+72(FP)
	RET

// CSA is a carry-save adder on two lanes: a, b, c in, a out as the sum
// bits of a+b+c and carry as their carry bits; t is clobbered.
#define CSA(a, b, c, carry, t) \
	MOVO a, t; \
	PXOR b, t; \
	MOVO a, carry; \
	PAND b, carry; \
	MOVO t, a; \
	PXOR c, a; \
	PAND c, t; \
	POR  t, carry

// HOT lists the feature at off(SI): hot[nh] = f; nh += cnt[f>>3&mask] >
// tfCap (4), with DI hot, BX nh, R8 cnt, R9 mask; AX and R10 clobbered.
#define HOT(off) \
	MOVQ    off(SI), AX; \
	MOVQ    AX, R10; \
	SHRQ    $3, R10; \
	ANDQ    R9, R10; \
	MOVWLZX (R8)(R10*2), R10; \
	MOVQ    AX, (DI)(BX*8); \
	CMPL    R10, $5; \
	SBBQ    $-1, BX // one more unless the count is below 5

// PAIRS adds the 4 features at off(SI) to ones (X0), with the carries in
// twos, and lists those of full buckets.
#define PAIRS(off, twos) \
	MOVOU off(SI), X4; \
	MOVOU off+16(SI), X5; \
	CSA(X0, X4, X5, twos, X13); \
	HOT(off); \
	HOT(off+8); \
	HOT(off+16); \
	HOT(off+24)

// EIGHTS adds the 16 features at off(SI) to ones, twos and fours (X0-X2),
// with the carries out of the fours in eights, and lists those of full
// buckets.
#define EIGHTS(off, eights) \
	PAIRS(off, X6); \
	PAIRS(off+32, X7); \
	CSA(X1, X6, X7, X8, X13); \
	PAIRS(off+64, X6); \
	PAIRS(off+96, X7); \
	CSA(X1, X6, X7, X9, X13); \
	CSA(X2, X8, X9, eights, X13)

// RIPPLE adds the carries in r, worth 16, to planes 4 up (R12): r, R10 and
// R11 are clobbered; label and done name its loop.
#define RIPPLE(r, label, done) \
	LEAQ 32(R12), R10; \
label: \
	TESTQ r, r; \
	JZ    done; \
	MOVQ  (R10), R11; \
	XORQ  r, (R10); \
	ANDQ  R11, r; \
	ADDQ  $8, R10; \
	JMP   label; \
done:

// func tallyFast(fs []uint64, planes *[64]uint64, odd *[4]uint64, cnt []uint16, mask uint64, hot []uint64, nh int) int
//
// Registers: SI fs, DX its end, R12 planes, DI hot, BX nh, R8 cnt, R9
// mask; X0-X3 ones, twos, fours, eights (lane 0: planes, lane 1: odd);
// X4-X13 the tree (see groupsGo).
TEXT ·tallyFast(SB), NOSPLIT, $0-112
	MOVQ fs_base+0(FP), SI
	MOVQ fs_len+8(FP), DX
	LEAQ (SI)(DX*8), DX
	MOVQ planes+24(FP), R12
	MOVQ cnt_base+40(FP), R8
	MOVQ mask+64(FP), R9
	MOVQ hot_base+72(FP), DI
	MOVQ nh+96(FP), BX
	MOVQ 0(R12), X0
	MOVQ 8(R12), X1
	MOVQ 16(R12), X2
	MOVQ 24(R12), X3

group:
	CMPQ SI, DX
	JAE  groupdone
	EIGHTS(0, X10)
	EIGHTS(128, X11)
	CSA(X3, X10, X11, X12, X13)
	MOVQ   X12, AX
	PSHUFD $0xee, X12, X12
	MOVQ   X12, CX
	RIPPLE(AX, even, evendone)
	RIPPLE(CX, odd, odddone)
	ADDQ $256, SI
	JMP  group

groupdone:
	MOVQ   odd+32(FP), SI
	MOVQ   X0, 0(R12)
	MOVQ   X1, 8(R12)
	MOVQ   X2, 16(R12)
	MOVQ   X3, 24(R12)
	PSHUFD $0xee, X0, X0
	PSHUFD $0xee, X1, X1
	PSHUFD $0xee, X2, X2
	PSHUFD $0xee, X3, X3
	MOVQ   X0, 0(SI)
	MOVQ   X1, 8(SI)
	MOVQ   X2, 16(SI)
	MOVQ   X3, 24(SI)
	MOVQ   BX, ret+104(FP)
	RET


// VMIX64 applies mix64 to each lane of z, with t as scratch (Z30, Z31:
// the multipliers).
#define VMIX64(z, t) \
	VPSRLQ  $30, z, t; \
	VPXORQ  t, z, z; \
	VPMULLQ Z30, z, z; \
	VPSRLQ  $27, z, t; \
	VPXORQ  t, z, z; \
	VPMULLQ Z31, z, z; \
	VPSRLQ  $31, z, t; \
	VPXORQ  t, z, z

// TAILMASK sets K1 to the lanes below r - i (at most 8; r, i: registers),
// with AX and CX clobbered.
#define TAILMASK(r, i) \
	MOVQ  r, CX; \
	SUBQ  i, CX; \
	MOVL  $0xff, AX; \
	CMPQ  CX, $8; \
	JAE   4(PC); \
	MOVL  $1, AX; \
	SHLL  CX, AX; \
	DECL  AX; \
	KMOVB AX, K1

// func settleAVX512(ws, gs []uint64, n int)
//
// settle with AVX-512 (F and DQ): eight words a step, the last step
// masked. Registers: SI ws, DI gs, DX n, BX i.
TEXT ·settleAVX512(SB), NOSPLIT, $0-56
	MOVQ         ws_base+0(FP), SI
	MOVQ         gs_base+24(FP), DI
	MOVQ         n+48(FP), DX
	VPBROADCASTQ mul<>+16(SB), Z30
	VPBROADCASTQ mul<>+24(SB), Z31
	VPBROADCASTQ mul<>+40(SB), Z29
	XORQ         BX, BX

unigrams:
	CMPQ      BX, DX
	JAE       bigrams
	TAILMASK(DX, BX)
	VMOVDQU64.Z (SI)(BX*8), K1, Z0
	VMIX64(Z0, Z1)
	VMOVDQU64 Z0, K1, (SI)(BX*8)
	ADDQ      $8, BX
	JMP       unigrams

bigrams:
	// gs[i] = mix64(rotl(ws[i-1], 21) ^ ws[i] ^ 0x6a09e667f3bcc909)
	MOVQ $1, BX

bigram:
	CMPQ        BX, DX
	JAE         done
	TAILMASK(DX, BX)
	VMOVDQU64.Z -8(SI)(BX*8), K1, Z0
	VMOVDQU64.Z (SI)(BX*8), K1, Z1
	VPROLQ      $21, Z0, Z0
	VPTERNLOGQ  $0x96, Z29, Z1, Z0
	VMIX64(Z0, Z1)
	VMOVDQU64   Z0, K1, (DI)(BX*8)
	ADDQ        $8, BX
	JMP         bigram

done:
	VZEROUPPER
	RET

// func bucketFast(fs []uint64, cnt []uint16, mask uint64)
//
// bucket in assembly, four features a step. Registers: SI fs, DX its end,
// DI cnt, R8 mask.
TEXT ·bucketFast(SB), NOSPLIT, $0-56
	MOVQ fs_base+0(FP), SI
	MOVQ fs_len+8(FP), DX
	LEAQ (SI)(DX*8), DX
	MOVQ cnt_base+24(FP), DI
	MOVQ mask+48(FP), R8
	LEAQ -24(DX), R9      // the last start of four whole features

four:
	CMPQ SI, R9
	JAE  one
	MOVQ (SI), AX
	MOVQ 8(SI), BX
	MOVQ 16(SI), CX
	MOVQ 24(SI), R10
	SHRQ $3, AX
	SHRQ $3, BX
	SHRQ $3, CX
	SHRQ $3, R10
	ANDQ R8, AX
	ANDQ R8, BX
	ANDQ R8, CX
	ANDQ R8, R10
	INCW (DI)(AX*2)
	INCW (DI)(BX*2)
	INCW (DI)(CX*2)
	INCW (DI)(R10*2)
	ADDQ $32, SI
	JMP  four

one:
	CMPQ SI, DX
	JAE  end
	MOVQ (SI), AX
	SHRQ $3, AX
	ANDQ R8, AX
	INCW (DI)(AX*2)
	ADDQ $8, SI
	JMP  one

end:
	RET

// VCSA is a carry-save adder on eight lanes: a, b, c in, a out as the sum
// bits of a+b+c and carry as their carry bits.
#define VCSA(a, b, c, carry) \
	VMOVDQA64  a, carry; \
	VPTERNLOGQ $0xe8, c, b, carry; \
	VPTERNLOGQ $0x96, c, b, a

// VHALF adds the carries c to plane p, leaving the carries out in out.
#define VHALF(p, c, out) \
	VPANDQ p, c, out; \
	VPXORQ c, p, p

// The ways tallyAVX512 lists hot features: none, when no bucket is full
// (VHOTN); by comparing each feature's bucket with those of up to four or
// eight full buckets, in Z0-Z3 or Z0-Z7 (VHOTC, VHOTC8); by looking each
// feature's bucket up in a bitmap of the full ones, where there are at
// most 2048 buckets (VHOTB); or by gathering each feature's count (VHOTG).
// Each lists the features of v (lanes in k) whose bucket in cnt holds more
// than tfCap: it compresses them to hot[nh] (DI, BX); Z28, Z29, K5, K6
// and AX are clobbered.
#define VHOTN(v, k)

#define VHOTC(v, k) \
	CMP4(v); \
	HOTOUT(v, k)

#define VHOTC8(v, k) \
	CMP4(v); \
	ORCMP(Z4); \
	ORCMP(Z5); \
	ORCMP(Z6); \
	ORCMP(Z7); \
	HOTOUT(v, k)

// CMP4 sets K6 to the lanes of v whose bucket (in Z28) is one of Z0-Z3's;
// ORCMP adds those whose bucket is z's.
#define CMP4(v) \
	VPSRLQ   $3, v, Z28; \
	VPANDQ   Z22, Z28, Z28; \
	VPCMPEQQ Z0, Z28, K6; \
	ORCMP(Z1); \
	ORCMP(Z2); \
	ORCMP(Z3)

#define ORCMP(z) \
	VPCMPEQQ z, Z28, K5; \
	KORB     K5, K6, K6

// VHOTG gathers each count with the next (a dword), shifts it to the top
// and compares it with 5<<16 (Z23).
#define VHOTG(v, k) \
	VPSRLQ      $3, v, Z28; \
	VPANDQ      Z22, Z28, Z28; \
	KMOVB       k, K5; \
	VPXORD      Y29, Y29, Y29; \
	VPGATHERQD  (R8)(Z28*2), K5, Y29; \
	VPSLLD      $16, Y29, Y29; \
	VPCMPUD     $5, Y23, Y29, K6; \
	HOTOUT(v, k)

// VHOTB looks each bucket up in the bitmap of full buckets in Z0-Z3 (bit
// b of the 2048, lanes 0-7 of Z0 first): the bitmap's qword b>>6 is
// permuted from Z0:Z1 or Z2:Z3 (Z6: 16 in each lane, selects which), then
// rotated right by b (mod 64) so that bit b is bit 0 (Z7: 1 in each
// lane). Z4 and Z5 are clobbered too.
#define VHOTB(v, k) \
	VPSRLQ    $3, v, Z28; \
	VPANDQ    Z22, Z28, Z28; \
	VPSRLQ    $6, Z28, Z29; \
	VMOVDQA64 Z0, Z4; \
	VPERMT2Q  Z1, Z29, Z4; \
	VMOVDQA64 Z2, Z5; \
	VPERMT2Q  Z3, Z29, Z5; \
	VPTESTMQ  Z6, Z29, K5; \
	VMOVDQA64 Z5, K5, Z4; \
	VPRORVQ   Z28, Z4, Z4; \
	VPTESTMQ  Z7, Z4, K6; \
	HOTOUT(v, k)

#define HOTOUT(v, k) \
	KANDB       k, K6, K6; \
	VPCOMPRESSQ v, K6, Z29; \
	VMOVDQU64   Z29, (DI)(BX*8); \
	KMOVB       K6, AX; \
	POPCNTL     AX, AX; \
	ADDQ        AX, BX

// STEPS is tallyAVX512's loop, listing hot features by hot: 32 features a
// step, their lanes in K1-K4 (all, or those of the features left), added
// by the adder tree into the planes of each lane.
#define STEPS(step, hot) \
step: \
	CMPQ     SI, DX; \
	JAE      arrays; \
	MOVQ     DX, CX; \
	SUBQ     SI, CX; \
	SHRQ     $3, CX; \
	MOVL     $-1, AX; \
	CMPQ     CX, $32; \
	JAE      2(PC); \
	BZHIL    CX, AX, AX; \
	KMOVD    AX, K1; \
	KSHIFTRD $8, K1, K2; \
	KSHIFTRD $16, K1, K3; \
	KSHIFTRD $24, K1, K4; \
	VMOVDQU64.Z (SI), K1, Z24; \
	VMOVDQU64.Z 64(SI), K2, Z25; \
	VMOVDQU64.Z 128(SI), K3, Z26; \
	VMOVDQU64.Z 192(SI), K4, Z27; \
	VCSA(Z10, Z24, Z25, Z28); \
	VCSA(Z10, Z26, Z27, Z29); \
	VCSA(Z11, Z28, Z29, Z30); \
	VHALF(Z12, Z30, Z31); \
	VHALF(Z13, Z31, Z30); \
	VHALF(Z14, Z30, Z31); \
	VHALF(Z15, Z31, Z30); \
	VHALF(Z16, Z30, Z31); \
	VHALF(Z17, Z31, Z30); \
	VHALF(Z18, Z30, Z31); \
	VHALF(Z19, Z31, Z30); \
	hot(Z24, K1); \
	hot(Z25, K2); \
	hot(Z26, K3); \
	hot(Z27, K4); \
	ADDQ     $256, SI; \
	JMP      step

// VFOLD adds the lanes of Z31 to those of plane z, as one bit of binary
// numbers, the carry in and out in Z30; Z28 is clobbered. FOLDS folds the
// upper lanes of all twelve planes (Z10-Z21) onto the lower ones, with fold
// the macro that extracts them into Z31 and adds them (VFOLD8, VFOLD4,
// VFOLD2: lanes 4-7, 2-3 or 1).
#define VFOLD(z) \
	VMOVDQA64  z, Z28; \
	VPTERNLOGQ $0x96, Z30, Z31, z; \
	VPTERNLOGQ $0xe8, Z30, Z31, Z28; \
	VMOVDQA64  Z28, Z30

#define VFOLD8(z) VEXTRACTI64X4 $1, z, Y31; VFOLD(z)
#define VFOLD4(z) VEXTRACTI32X4 $1, z, X31; VFOLD(z)
#define VFOLD2(z) VPSHUFD $0xee, z, Z31; VFOLD(z)

#define FOLDS(fold) \
	VPXORQ Z30, Z30, Z30; \
	fold(Z10); \
	fold(Z11); \
	fold(Z12); \
	fold(Z13); \
	fold(Z14); \
	fold(Z15); \
	fold(Z16); \
	fold(Z17); \
	fold(Z18); \
	fold(Z19); \
	fold(Z20); \
	fold(Z21)

// func tallyAVX512(ws, gs []uint64, sums *[12]uint64, cnt []uint16, mask uint64, hot []uint64) int
//
// The bit counts of the features ws and gs (up to 4095 in all), as 12
// planes in sums, and the features of full buckets listed in hot as
// listHot does, returning how many, with AVX-512 (F, VL, DQ, BW): the
// adder tree of groupsGo on eight lanes, 32 features a step (the last step
// of each array masked), then the lanes folded into one. len(cnt) must be
// a multiple of 32, cap(cnt) > len(cnt) (VHOTG reads cnt[b] and cnt[b+1]),
// and hot must have room for 8 past the last feature it lists.
// Registers: SI, DX the features and their end (ws, then gs: R13 says gs
// is left), R8 cnt, DI hot, BX nh, R14 full buckets; Z0-Z3 up to four of
// them, or the bitmap bm of them all (see VHOTB); Z10-Z19 the planes 0-9 of each lane (Z20, Z21: planes 10 and 11
// when folding), Z22 the mask, Z23 5<<16, Z24-Z27 the step's features.
TEXT ·tallyAVX512(SB), NOSPLIT, $320-120
	MOVQ         cnt_base+56(FP), R8
	VPBROADCASTQ mask+80(FP), Z22
	MOVL         $0x50000, AX
	VPBROADCASTD AX, Z23
	MOVQ         hot_base+88(FP), DI
	XORQ         BX, BX

	// The full buckets: up to eight listed in hb, all counted in R14.
	MOVQ         $-1, AX
	MOVQ         AX, hb-64(SP)
	MOVQ         AX, hb-56(SP)
	MOVQ         AX, hb-48(SP)
	MOVQ         AX, hb-40(SP)
	MOVQ         AX, hb-32(SP)
	MOVQ         AX, hb-24(SP)
	MOVQ         AX, hb-16(SP)
	MOVQ         AX, hb-8(SP)
	LEAQ         hb-64(SP), R10
	// And all of them in the bitmap bm (VHOTB), where there are at most
	// 2048 buckets; with more, full sets bits of bucket numbers modulo
	// 2048, unused.
	VPXORQ       Z6, Z6, Z6
	VMOVDQU64    Z6, bm-320(SP)
	VMOVDQU64    Z6, bm-256(SP)
	VMOVDQU64    Z6, bm-192(SP)
	VMOVDQU64    Z6, bm-128(SP)
	MOVL         $4, AX
	VPBROADCASTW AX, Z5
	MOVQ         cnt_len+64(FP), CX
	XORQ         R9, R9
	XORQ         R14, R14

scan:
	CMPQ    R9, CX
	JAE     scanned
	VPCMPUW $1, (R8)(R9*2), Z5, K1 // 4 < count
	KMOVD   K1, AX
	TESTL   AX, AX
	JNZ     full

scannext:
	ADDQ $32, R9
	JMP  scan

full:
	TZCNTL AX, R11
	ADDQ   R9, R11
	CMPQ   R14, $8
	JAE    2(PC)
	MOVQ   R11, (R10)(R14*8)
	INCQ   R14
	MOVQ   R11, R12
	SHRQ   $6, R12
	ANDQ   $31, R12
	MOVL   $1, R13
	SHLXQ  R11, R13, R13
	ORQ    R13, bm-320(SP)(R12*8)
	BLSRL  AX, AX
	JNZ    full
	JMP    scannext

scanned:
	VPBROADCASTQ hb-64(SP), Z0
	VPBROADCASTQ hb-56(SP), Z1
	VPBROADCASTQ hb-48(SP), Z2
	VPBROADCASTQ hb-40(SP), Z3
	VPBROADCASTQ hb-32(SP), Z4
	VPBROADCASTQ hb-24(SP), Z5
	VPBROADCASTQ hb-16(SP), Z6
	VPBROADCASTQ hb-8(SP), Z7
	VPXORQ       Z10, Z10, Z10
	VPXORQ       Z11, Z11, Z11
	VPXORQ       Z12, Z12, Z12
	VPXORQ       Z13, Z13, Z13
	VPXORQ       Z14, Z14, Z14
	VPXORQ       Z15, Z15, Z15
	VPXORQ       Z16, Z16, Z16
	VPXORQ       Z17, Z17, Z17
	VPXORQ       Z18, Z18, Z18
	VPXORQ       Z19, Z19, Z19
	VPXORQ       Z20, Z20, Z20
	VPXORQ       Z21, Z21, Z21
	MOVQ         ws_base+0(FP), SI
	MOVQ         ws_len+8(FP), DX
	LEAQ         (SI)(DX*8), DX
	MOVQ         $1, R13

dispatch:
	TESTQ R14, R14
	JEQ   stepn
	CMPQ  R14, $4
	JBE   stepc
	CMPQ  R14, $8
	JBE   stepc8
	CMPQ  cnt_len+64(FP), $2048
	JA    stepg
	VMOVDQU64    bm-320(SP), Z0
	VMOVDQU64    bm-256(SP), Z1
	VMOVDQU64    bm-192(SP), Z2
	VMOVDQU64    bm-128(SP), Z3
	MOVL         $16, AX
	VPBROADCASTQ AX, Z6
	MOVL         $1, AX
	VPBROADCASTQ AX, Z7
	JMP          stepb

arrays:
	// ws done: gs next.
	TESTQ R13, R13
	JEQ   fold
	XORQ  R13, R13
	MOVQ  gs_base+24(FP), SI
	MOVQ  gs_len+32(FP), DX
	LEAQ  (SI)(DX*8), DX
	JMP   dispatch

	STEPS(stepn, VHOTN)
	STEPS(stepc, VHOTC)
	STEPS(stepc8, VHOTC8)
	STEPS(stepb, VHOTB)
	STEPS(stepg, VHOTG)

fold:
	// Lanes 4-7 onto 0-3, 2-3 onto 0-1, 1 onto 0: each a binary addition
	// of the planes, the carry in Z30.
	FOLDS(VFOLD8)
	FOLDS(VFOLD4)
	FOLDS(VFOLD2)
	MOVQ  sums+48(FP), SI
	VMOVQ X10, 0(SI)
	VMOVQ X11, 8(SI)
	VMOVQ X12, 16(SI)
	VMOVQ X13, 24(SI)
	VMOVQ X14, 32(SI)
	VMOVQ X15, 40(SI)
	VMOVQ X16, 48(SI)
	VMOVQ X17, 56(SI)
	VMOVQ X18, 64(SI)
	VMOVQ X19, 72(SI)
	VMOVQ X20, 80(SI)
	VMOVQ X21, 88(SI)
	VZEROUPPER
	MOVQ  BX, ret+112(FP)
	RET

// func prefetch(src []byte)
//
// Asks for the first four cache lines of src at once, so that their
// misses, where the text is cold, overlap instead of coming one window
// after the other. A prefetch never faults, even past src's end.
TEXT ·prefetch(SB), NOSPLIT, $0-24
	MOVQ       src_base+0(FP), AX
	PREFETCHT0 (AX)
	PREFETCHT0 64(AX)
	PREFETCHT0 128(AX)
	PREFETCHT0 192(AX)
	RET

// SMIX64 applies mix64 to r, with t as scratch (R8, R9: the multipliers).
#define SMIX64(r, t) \
	MOVQ  r, t; \
	SHRQ  $30, t; \
	XORQ  t, r; \
	IMULQ R8, r; \
	MOVQ  r, t; \
	SHRQ  $27, t; \
	XORQ  t, r; \
	IMULQ R9, r; \
	MOVQ  r, t; \
	SHRQ  $31, t; \
	XORQ  t, r

// func settleScalar(ws, gs []uint64, n int)
//
// settle in assembly for processors without AVX-512: each word's mix64 and
// its bigram's in one loop, the constants in registers. Registers: SI ws,
// DI gs, DX n, BX i, R11 the previous word's feature, R10 bigram's
// constant.
TEXT ·settleScalar(SB), NOSPLIT, $0-56
	MOVQ ws_base+0(FP), SI
	MOVQ gs_base+24(FP), DI
	MOVQ n+48(FP), DX
	TESTQ DX, DX
	JEQ  sdone
	MOVQ mul<>+16(SB), R8
	MOVQ mul<>+24(SB), R9
	MOVQ mul<>+40(SB), R10
	MOVQ (SI), R11
	SMIX64(R11, AX)
	MOVQ R11, (SI)
	MOVQ $1, BX

sloop:
	CMPQ BX, DX
	JAE  sdone
	MOVQ (SI)(BX*8), CX
	SMIX64(CX, AX)
	MOVQ CX, (SI)(BX*8)
	ROLQ $21, R11
	XORQ CX, R11
	XORQ R10, R11
	SMIX64(R11, AX)
	MOVQ R11, (DI)(BX*8)
	MOVQ CX, R11
	INCQ BX
	JMP  sloop

sdone:
	RET
