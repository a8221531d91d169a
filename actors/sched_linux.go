//go:build linux

package actors

import (
	"syscall"
	"unsafe"
)

// schedIdle is Linux's SCHED_IDLE scheduling policy (sched(7)).
const schedIdle = 5

// lowerPriority moves the calling OS thread to SCHED_IDLE: any thread of another
// policy that wakes takes its CPU at once. An unprivileged thread may do so, and not
// come back.
func lowerPriority() error {
	var param struct{ priority int32 }
	if _, _, e := syscall.RawSyscall(syscall.SYS_SCHED_SETSCHEDULER, 0, schedIdle, uintptr(unsafe.Pointer(&param))); e != 0 {
		return e
	}
	return nil
}
