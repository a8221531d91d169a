package actors

// havePrefetch: prefetchEvent issues prefetch instructions here.
const havePrefetch = true

// prefetchEvent asks the CPU to bring into its caches, without waiting for them
// (PREFETCHT0), rec.lines lines from actor on (at least one), the line at msg, the two
// lines from rec.out on, the non-zero addresses of rec.hints (Prefetch), and the lines
// at st, msgSlot and recNext: hints with no effect on the program's results, which
// never fault, whatever the addresses (runner.prefetch).
//
//go:noescape
func prefetchEvent(actor uintptr, rec *prefetchRec, msg, st, msgSlot, recNext uintptr)

// prefetchLine asks the CPU to bring the line at addr into its caches (PREFETCHT0): a
// hint that never faults.
//
//go:noescape
func prefetchLine(addr uintptr)
