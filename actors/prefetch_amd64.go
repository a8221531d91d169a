package actors

// havePrefetch: prefetchEvent issues prefetch instructions here.
const havePrefetch = true

// prefetchEvent asks the CPU to bring into its caches, without waiting for them
// (PREFETCHT0), lines lines from actor on (at least one), the line at msg, the two
// lines from out on, the lines at st, msgSlot and hintsNext, and those at the non-zero
// addresses of *hints (Prefetch): hints with no effect on the program's results, which
// never fault, whatever the addresses (runner.prefetch).
//
//go:noescape
func prefetchEvent(actor, lines, msg, out, st, msgSlot, hintsNext uintptr, hints *[2]uintptr)

// prefetchLine asks the CPU to bring the line at addr into its caches (PREFETCHT0): a
// hint that never faults.
//
//go:noescape
func prefetchLine(addr uintptr)
