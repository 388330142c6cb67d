//go:build !purego

#include "textflag.h"

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
	MOVQ AX, X1
	VPBROADCASTB X1, Y1 // '"'
	MOVL $0x5c, AX
	MOVQ AX, X2
	VPBROADCASTB X2, Y2 // '\\'
	MOVL $0x1f, AX
	MOVQ AX, X3
	VPBROADCASTB X3, Y3 // the last control character

loop64:
	CMPQ BX, $64
	JB   loop32
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y7
	VPCMPEQB Y1, Y0, Y4
	VPCMPEQB Y2, Y0, Y5
	VPMINUB  Y3, Y0, Y6
	VPCMPEQB Y6, Y0, Y6 // a byte equal to its minimum with 0x1f is at most 0x1f
	VPOR     Y4, Y5, Y4
	VPOR     Y4, Y6, Y4
	VPCMPEQB Y1, Y7, Y8
	VPCMPEQB Y2, Y7, Y9
	VPMINUB  Y3, Y7, Y10
	VPCMPEQB Y10, Y7, Y10
	VPOR     Y8, Y9, Y8
	VPOR     Y8, Y10, Y8
	VPOR     Y4, Y8, Y9
	VPTEST   Y9, Y9
	JNZ      found64
	ADDQ     $64, SI
	SUBQ     $64, BX
	JMP      loop64

found64:
	VPMOVMSKB Y4, AX
	TESTL     AX, AX
	JNZ       found
	ADDQ      $32, SI
	VPMOVMSKB Y8, AX
	JMP       found

loop32:
	CMPQ BX, $32
	JB   done
	VMOVDQU (SI), Y0
	VPCMPEQB Y1, Y0, Y4
	VPCMPEQB Y2, Y0, Y5
	VPMINUB  Y3, Y0, Y6
	VPCMPEQB Y6, Y0, Y6
	VPOR     Y4, Y5, Y4
	VPOR     Y4, Y6, Y4
	VPMOVMSKB Y4, AX
	TESTL    AX, AX
	JNZ      found
	ADDQ     $32, SI
	SUBQ     $32, BX
	JMP      loop32

found:
	BSFL AX, AX
	ADDQ AX, SI

done:
	SUBQ DI, SI
	MOVQ SI, ret+24(FP)
	VZEROUPPER
	RET
