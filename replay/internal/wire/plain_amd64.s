//go:build gc && !purego

#include "textflag.h"

// ENDS sets each byte of dst to 0xff where the byte of src is a quote
// (Y1), a backslash (Y2) or at most 0x1f (Y3: a byte equal to its minimum
// with 0x1f), else 0; t is scratch.
#define ENDS(src, dst, t) \
	VPCMPEQB Y1, src, dst; \
	VPCMPEQB Y2, src, t; \
	VPOR     dst, t, dst; \
	VPMINUB  Y3, src, t; \
	VPCMPEQB t, src, t; \
	VPOR     dst, t, dst

// func plainAVX2(b []byte) int
//
// The length of the longest prefix of b, in whole 32-byte blocks, in
// which no byte is a quote, a backslash or below 0x20: the offset of the
// first such byte when one is in the blocks, else len(b) rounded down to
// 32. Nothing past len(b) is read.
TEXT ·plainAVX2(SB), NOSPLIT, $0-32
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), BX
	MOVQ SI, DI
	MOVL $0x22, AX
	VMOVD AX, X1
	VPBROADCASTB X1, Y1
	MOVL $0x5c, AX
	VMOVD AX, X2
	VPBROADCASTB X2, Y2
	MOVL $0x1f, AX
	VMOVD AX, X3
	VPBROADCASTB X3, Y3

	// 64 bytes a step, tested together.
loop64:
	CMPQ    BX, $64
	JB      loop32
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y7
	ENDS(Y0, Y4, Y5)
	ENDS(Y7, Y8, Y9)
	VPOR    Y4, Y8, Y9
	VPTEST  Y9, Y9
	JNZ     found64
	ADDQ    $64, SI
	SUBQ    $64, BX
	JMP     loop64

found64:
	VPMOVMSKB Y4, AX
	TESTL     AX, AX
	JNZ       found
	ADDQ      $32, SI
	VPMOVMSKB Y8, AX
	JMP       found

	// Then one block of 32, if whole.
loop32:
	CMPQ      BX, $32
	JB        done
	VMOVDQU   (SI), Y0
	ENDS(Y0, Y4, Y5)
	VPMOVMSKB Y4, AX
	TESTL     AX, AX
	JNZ       found
	ADDQ      $32, SI
	SUBQ      $32, BX
	JMP       loop32

found:
	BSFL AX, AX
	ADDQ AX, SI

done:
	SUBQ       DI, SI
	MOVQ       SI, ret+24(FP)
	VZEROUPPER
	RET
