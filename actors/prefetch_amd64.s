#include "go_asm.h"
#include "textflag.h"

// func prefetchEvent(actor, lines, msg, out, st, msgSlot uintptr)
TEXT ·prefetchEvent(SB), NOSPLIT, $0-48
	MOVQ actor+0(FP), AX
	MOVQ lines+8(FP), CX
loop:
	PREFETCHT0 (AX)
	ADDQ $const_cacheLine, AX
	DECQ CX
	JNZ loop
	MOVQ msg+16(FP), AX
	PREFETCHT0 (AX)
	MOVQ out+24(FP), AX
	PREFETCHT0 (AX)
	PREFETCHT0 const_cacheLine(AX)
	MOVQ st+32(FP), AX
	PREFETCHT0 (AX)
	MOVQ msgSlot+40(FP), AX
	PREFETCHT0 (AX)
	RET
