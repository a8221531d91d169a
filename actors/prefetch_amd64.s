#include "go_asm.h"
#include "textflag.h"

// func prefetchEvent(actor, lines, msg, out, st, msgSlot, hintsNext uintptr, hints *[2]uintptr)
TEXT ·prefetchEvent(SB), NOSPLIT, $0-64
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
	MOVQ hintsNext+48(FP), AX
	PREFETCHT0 (AX)
	MOVQ hints+56(FP), DX
	MOVQ 0(DX), AX
	TESTQ AX, AX
	JZ second
	PREFETCHT0 (AX)
second:
	MOVQ 8(DX), AX
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
