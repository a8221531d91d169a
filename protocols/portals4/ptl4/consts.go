package ptl4

import "fmt"

// Ret is a Portals return code (PTL_OK, PTL_ARG_INVALID, ...), with the C values.
type Ret int32

// Return codes.
const (
	OK            Ret = 0
	ArgInvalid    Ret = 1
	CTNoneReached Ret = 2
	EQDropped     Ret = 3
	EQEmpty       Ret = 4
	Fail          Ret = 5
	Ignored       Ret = 6
	InUse         Ret = 7
	ListTooLong   Ret = 8
	NoInit        Ret = 9
	NoSpace       Ret = 10
	PIDInUse      Ret = 11
	PTFull        Ret = 12
	PTEQNeeded    Ret = 13
	PTInUse       Ret = 14
	Aborted       Ret = 15
)

var retNames = [...]string{"PTL_OK", "PTL_ARG_INVALID", "PTL_CT_NONE_REACHED", "PTL_EQ_DROPPED", "PTL_EQ_EMPTY",
	"PTL_FAIL", "PTL_IGNORED", "PTL_IN_USE", "PTL_LIST_TOO_LONG", "PTL_NO_INIT", "PTL_NO_SPACE", "PTL_PID_IN_USE",
	"PTL_PT_FULL", "PTL_PT_EQ_NEEDED", "PTL_PT_IN_USE", "PTL_ABORTED"}

func (r Ret) String() string {
	if r >= 0 && int(r) < len(retNames) {
		return retNames[r]
	}
	return fmt.Sprintf("PTL_RET(%d)", int32(r))
}

// EventKind is ptl_event_kind_t.
type EventKind uint32

// Event kinds.
const (
	EvGet EventKind = iota
	EvGetOverflow
	EvPut
	EvPutOverflow
	EvAtomic
	EvAtomicOverflow
	EvFetchAtomic
	EvFetchAtomicOverflow
	EvReply
	EvSend
	EvAck
	EvPTDisabled
	EvLink
	EvAutoUnlink
	EvAutoFree
	EvSearch
)

var eventNames = [...]string{"GET", "GET_OVERFLOW", "PUT", "PUT_OVERFLOW", "ATOMIC", "ATOMIC_OVERFLOW",
	"FETCH_ATOMIC", "FETCH_ATOMIC_OVERFLOW", "REPLY", "SEND", "ACK", "PT_DISABLED", "LINK", "AUTO_UNLINK",
	"AUTO_FREE", "SEARCH"}

func (k EventKind) String() string {
	if int(k) < len(eventNames) {
		return "PTL_EVENT_" + eventNames[k]
	}
	return fmt.Sprintf("PTL_EVENT(%d)", uint32(k))
}

// NIFail is ptl_ni_fail_t.
type NIFail uint8

// Failure types.
const (
	NIOK NIFail = iota
	NIUndeliverable
	NIDropped
	NIPTDisabled
	NIPermViolation
	NIOpViolation
	NINoMatch
	NISegv
)

// Handles. A handle encodes its kind, the NI it belongs to and a serial number that is
// never reused, so that a stale or foreign handle is recognised.
type Handle uint32

// Distinguished handles (portals4.h).
const (
	InvalidHandle Handle = 0xffffffff
	EQNone        Handle = 0x3fffffff
	CTNone        Handle = 0x5fffffff
)

type hkind uint32

const (
	hNI hkind = 1 + iota
	hMD
	hME
	hLE
	hEQ
	hCT
)

func mkHandle(k hkind, ni int, serial uint32) Handle {
	return Handle(uint32(k)<<28 | uint32(ni)<<24 | serial&0xffffff)
}
func (h Handle) kind() hkind { return hkind(h >> 28) }
func (h Handle) ni() int     { return int(h>>24) & 0xf }

// Wildcards and defaults.
const (
	PIDAny   uint32 = 0xffff
	NIDAny   uint32 = 0xffff
	UIDAny   uint32 = 0xffffffff
	RankAny  uint32 = 0xffffffff
	PTAny    uint32 = 0xffffffff
	IfaceDef uint32 = 0xffffffff
)

// NI options.
const (
	NIMatching   = 1 << 0
	NINoMatching = 1 << 1
	NILogical    = 1 << 2
	NIPhysical   = 1 << 3
	niOptMask    = 0xf
)

// NI features.
const (
	TargetBindInaccessible = 1 << 0
	TotalDataOrdering      = 1 << 1
	CoherentAtomics        = 1 << 2
)

// PT options.
const (
	PTOnlyUseOnce    = 1 << 0
	PTFlowCtrl       = 1 << 1
	PTOnlyTruncate   = 1 << 2
	PTMatchUnordered = 1 << 3
	PTAllocDisabled  = 1 << 4
	ptOptMask        = 1<<5 - 1
)

// MD options.
const (
	MDIovec          = 1 << 0
	MDCTSend         = 1 << 1
	MDCTReply        = 1 << 2
	MDCTAck          = 1 << 3
	MDUnordered      = 1 << 4
	MDSuccessDisable = 1 << 5
	MDVolatile       = 1 << 6
	MDSendDisable    = 1 << 7
	MDUnreliable     = 1 << 8
	MDCTBytes        = 1 << 14
	mdOptMask        = (1<<9 - 1) | MDCTBytes
)

// ME and LE options (an LE takes the first fifteen).
const (
	MEIovec             = 1 << 0
	MEOpPut             = 1 << 1
	MEOpGet             = 1 << 2
	MEUseOnce           = 1 << 3
	MEUnexpectedHdrDis  = 1 << 4
	MEIsAccessible      = 1 << 5
	MELinkDisable       = 1 << 6
	MECommDisable       = 1 << 7
	MEFlowCtrlDisable   = 1 << 8
	MESuccessDisable    = 1 << 9
	MEOverDisable       = 1 << 10
	MEUnlinkDisable     = 1 << 11
	MECTComm            = 1 << 12
	MECTOverflow        = 1 << 13
	MECTBytes           = 1 << 14
	MEManageLocal       = 1 << 15
	MENoTruncate        = 1 << 16
	MEMayAlign          = 1 << 17
	MELocalIncUHRLength = 1 << 18
	leOptMask           = 1<<15 - 1
	meOptMask           = 1<<19 - 1
)

// AckReq is ptl_ack_req_t.
type AckReq uint32

// Ack requests.
const (
	NoAck AckReq = iota
	Ack
	CTAck
	OCAck
)

// List is ptl_list_t.
type List uint32

// Lists.
const (
	Priority List = iota
	Overflow
)

// SearchOp is ptl_search_op_t.
type SearchOp uint32

// Search operations.
const (
	SearchOnly SearchOp = iota
	SearchDelete
)

// Status registers (PtlNIStatus).
const (
	SRDropCount      = 0
	SRPermViolations = 1
	SROpViolations   = 2
	srCount          = 3
)

// Op is ptl_op_t.
type Op uint32

// Atomic operations.
const (
	OpMin Op = iota
	OpMax
	OpSum
	OpProd
	OpLOr
	OpLAnd
	OpBOr
	OpBAnd
	OpLXor
	OpBXor
	OpSwap
	OpCSwap
	OpCSwapNE
	OpCSwapLE
	OpCSwapLT
	OpCSwapGE
	OpCSwapGT
	OpMSwap
	opLast
)

var opNames = [...]string{"MIN", "MAX", "SUM", "PROD", "LOR", "LAND", "BOR", "BAND", "LXOR", "BXOR", "SWAP",
	"CSWAP", "CSWAP_NE", "CSWAP_LE", "CSWAP_LT", "CSWAP_GE", "CSWAP_GT", "MSWAP"}

func (o Op) String() string {
	if o < opLast {
		return "PTL_" + opNames[o]
	}
	return fmt.Sprintf("PTL_OP(%d)", uint32(o))
}

// Datatype is ptl_datatype_t.
type Datatype uint32

// Datatypes.
const (
	Int8 Datatype = iota
	Uint8
	Int16
	Uint16
	Int32
	Uint32
	Float
	Int64
	Uint64
	Double
	FloatComplex
	DoubleComplex
	LongDouble
	LongDoubleComplex
	dtLast
)

// Size is the datatype's size in bytes (long double is the x86-64 16-byte slot of an
// 80-bit extended value).
func (d Datatype) Size() int {
	switch d {
	case Int8, Uint8:
		return 1
	case Int16, Uint16:
		return 2
	case Int32, Uint32, Float:
		return 4
	case Int64, Uint64, Double, FloatComplex:
		return 8
	case DoubleComplex, LongDouble:
		return 16
	case LongDoubleComplex:
		return 32
	}
	return 0
}

func (d Datatype) integral() bool { return d <= Uint32 || d == Int64 || d == Uint64 }
func (d Datatype) floating() bool { return d == Float || d == Double || d == LongDouble }
func (d Datatype) complex() bool {
	return d == FloatComplex || d == DoubleComplex || d == LongDoubleComplex
}

// legal reports whether op applies to datatype d (Portals 4.0 s.3.15.1, table 3.6).
func legal(op Op, d Datatype) bool {
	if op >= opLast || d >= dtLast {
		return false
	}
	switch op {
	case OpMin, OpMax, OpCSwapLE, OpCSwapLT, OpCSwapGE, OpCSwapGT:
		return !d.complex()
	case OpLOr, OpLAnd, OpBOr, OpBAnd, OpLXor, OpBXor, OpMSwap:
		return d.integral()
	}
	return true
}

// NIIndex is the interface kind a handle belongs to (0-3: matching/non-matching x
// physical/logical), for callers that keep their own record of objects.
func (h Handle) NIIndex() int { return h.ni() }

// NIIndexOf is the interface kind NI options select.
func NIIndexOf(opt uint32) int { return niIndex(opt) }
