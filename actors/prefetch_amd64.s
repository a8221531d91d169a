#include "go_asm.h"
#include "textflag.h"

// func prefetchEvent(actor uintptr, rec *prefetchRec, msg, st, msgSlot, recNext uintptr)
TEXT ·prefetchEvent(SB), NOSPLIT, $0-48
	MOVQ actor+0(FP), AX
	MOVQ rec+8(FP), DX
	MOVQ prefetchRec_lines(DX), CX
loop:
	PREFETCHT0 (AX)
	ADDQ $const_cacheLine, AX
	DECQ CX
	JNZ loop
	MOVQ msg+16(FP), AX
	PREFETCHT0 (AX)
	MOVQ prefetchRec_out(DX), AX
	PREFETCHT0 (AX)
	PREFETCHT0 const_cacheLine(AX)
	MOVQ st+24(FP), AX
	PREFETCHT0 (AX)
	MOVQ msgSlot+32(FP), AX
	PREFETCHT0 (AX)
	MOVQ recNext+40(FP), AX
	PREFETCHT0 (AX)
	MOVQ prefetchRec_hints+0(DX), AX
	TESTQ AX, AX
	JZ second
	PREFETCHT0 (AX)
second:
	MOVQ prefetchRec_hints+8(DX), AX
	TESTQ AX, AX
	JZ done
	PREFETCHT0 (AX)
done:
	RET

// func prefetchLine(addr uintptr)
TEXT ·prefetchLine(SB), NOSPLIT, $0-8
	MOVQ addr+0(FP), AX
	PREFETCHT0 (AX)
	RET
