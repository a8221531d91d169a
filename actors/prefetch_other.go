//go:build !amd64

package actors

// havePrefetch: the engine has no prefetch instruction here; partitions do not
// prefetch (the addresses cost loads for nothing).
const havePrefetch = false

// prefetchEvent is a no-op where the engine has no prefetch instruction for it.
func prefetchEvent(actor uintptr, rec *prefetchRec, msg, st, msgSlot, recNext uintptr) {}

// prefetchLine is a no-op where the engine has no prefetch instruction for it.
func prefetchLine(addr uintptr) {}
