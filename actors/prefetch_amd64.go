package actors

// havePrefetch: prefetchEvent issues prefetch instructions here.
const havePrefetch = true

// prefetchEvent asks the CPU to bring into its caches, without waiting for them
// (PREFETCHT0), the line at st, the eight lines from actor on, and the lines at msg,
// actorSlot and msgSlot: hints with no effect on the program's results, which never
// fault, whatever the addresses (runner.prefetch).
//
//go:noescape
func prefetchEvent(st, actor, msg, actorSlot, msgSlot uintptr)
