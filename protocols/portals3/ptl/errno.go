package ptl

import (
	"errors"
	"fmt"
)

// Errno is a Portals 3.3 return code. Every call of this package that can fail returns
// an error that is either nil (PTL_OK) or an Errno; Code converts back. String gives
// the exact name of the C API, so a test can assert the code a call returned.
//
// The numbering is the one of the Sandia reference implementation (its list is
// alphabetical after PTL_OK); the 3.3 specification names the codes but leaves their
// values to the implementation.
type Errno int

// The return codes of the Portals 3.3 API. ErrEQDropped is not a failure: EQGet and
// EQPoll return it together with a valid event when older events were overwritten.
const (
	OK                Errno = iota // PTL_OK: success (returned as a nil error)
	ErrACIndexInvalid              // PTL_AC_INDEX_INVALID: access control index out of range (no AC table here; never returned)
	ErrEQDropped                   // PTL_EQ_DROPPED: an event is returned, and at least one event before it was overwritten
	ErrEQEmpty                     // PTL_EQ_EMPTY: the event queue holds no event
	ErrEQInvalid                   // PTL_EQ_INVALID: not a valid event queue handle
	ErrFail                        // PTL_FAIL: non-specific error (here: a transport call on an operation not in flight, a short payload)
	ErrHandleInvalid               // PTL_HANDLE_INVALID: not a valid handle of any kind
	ErrIfaceInvalid                // PTL_IFACE_INVALID: not a valid interface (the NI's own id is a wildcard)
	ErrMDIllegal                   // PTL_MD_ILLEGAL: the memory descriptor (or the region of a *Region call) is not legal
	ErrMDInvalid                   // PTL_MD_INVALID: not a valid (or not an active, for Put/Get) memory descriptor handle
	ErrMDInUse                     // PTL_MD_IN_USE: the memory descriptor has operations in flight
	ErrMDNoUpdate                  // PTL_MD_NO_UPDATE: MDUpdate refused: the test EQ is not empty or the MD is busy
	ErrMEInvalid                   // PTL_ME_INVALID: not a valid match entry handle
	ErrMEInUse                     // PTL_ME_IN_USE: the match entry has an MD already, or its MD has operations in flight
	ErrMEListTooLong               // PTL_ME_LIST_TOO_LONG: the match list of the portal is at its limit
	ErrNIInvalid                   // PTL_NI_INVALID: the network interface was finalized
	ErrNoInit                      // PTL_NO_INIT: the network interface was never initialized (nil *NI)
	ErrNoSpace                     // PTL_NO_SPACE: out of match entries, memory descriptors or event queues
	ErrPIDInvalid                  // PTL_PID_INVALID: the NI's process id is not usable
	ErrProcessInvalid              // PTL_PROCESS_INVALID: the target process id is not valid (a wildcard)
	ErrPTFull                      // PTL_PT_FULL: MEAttachAny found no unused portal table entry
	ErrPtIndexInvalid              // PTL_PT_INDEX_INVALID: portal table index out of range
	ErrSEGV                        // PTL_SEGV: an address is not legal (reserved; Go has no wild pointers)
	ErrSRIndexInvalid              // PTL_SR_INDEX_INVALID: not a status register index
	ErrUnknown                     // PTL_UNKNOWN_ERROR: an error this library does not know
	numErrno
)

var errnoNames = [numErrno]string{
	"PTL_OK", "PTL_AC_INDEX_INVALID", "PTL_EQ_DROPPED", "PTL_EQ_EMPTY", "PTL_EQ_INVALID",
	"PTL_FAIL", "PTL_HANDLE_INVALID", "PTL_IFACE_INVALID", "PTL_MD_ILLEGAL", "PTL_MD_INVALID",
	"PTL_MD_IN_USE", "PTL_MD_NO_UPDATE", "PTL_ME_INVALID", "PTL_ME_IN_USE",
	"PTL_ME_LIST_TOO_LONG", "PTL_NI_INVALID", "PTL_NO_INIT", "PTL_NO_SPACE",
	"PTL_PID_INVALID", "PTL_PROCESS_INVALID", "PTL_PT_FULL", "PTL_PT_INDEX_INVALID",
	"PTL_SEGV", "PTL_SR_INDEX_INVALID", "PTL_UNKNOWN_ERROR",
}

// String returns the C name of the code, e.g. "PTL_MD_NO_UPDATE".
func (e Errno) String() string {
	if e >= 0 && e < numErrno {
		return errnoNames[e]
	}
	return fmt.Sprintf("Errno(%d)", int(e))
}

// Error makes an Errno an error; the message is the C name.
func (e Errno) Error() string { return e.String() }

// Code returns the Portals code carried by err: OK for nil, the Errno itself for an
// Errno, ErrUnknown for any other error.
func Code(err error) Errno {
	if err == nil {
		return OK
	}
	if e, ok := err.(Errno); ok { // the usual case, without errors.As's allocation
		return e
	}
	var e Errno
	if errors.As(err, &e) {
		return e
	}
	return ErrUnknown
}
