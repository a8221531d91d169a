//go:build !amd64

package actors

// prefetchEvent is a no-op where the engine has no prefetch instruction for it.
func prefetchEvent(st, actor, msg, actorSlot, msgSlot uintptr) {}
