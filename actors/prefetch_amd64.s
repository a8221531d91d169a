#include "textflag.h"

// func prefetchEvent(st, actor, msg, actorSlot, msgSlot uintptr)
TEXT ·prefetchEvent(SB), NOSPLIT, $0-40
	MOVQ st+0(FP), AX
	PREFETCHT0 (AX)
	MOVQ actor+8(FP), AX
	PREFETCHT0 (AX)
	PREFETCHT0 64(AX)
	PREFETCHT0 128(AX)
	PREFETCHT0 192(AX)
	MOVQ msg+16(FP), AX
	PREFETCHT0 (AX)
	MOVQ actorSlot+24(FP), AX
	PREFETCHT0 (AX)
	MOVQ msgSlot+32(FP), AX
	PREFETCHT0 (AX)
	RET
