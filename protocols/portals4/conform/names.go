package conform

import (
	"strings"

	"github.com/seastar-sim/seastar/protocols/portals4/ptl4"
)

// The name tables of enum.c and mask.c: a name, or else a number (strtol).

func lookupOr(val string, names map[string]int64) int64 {
	if v, ok := names[val]; ok {
		return v
	}
	return strtoll(val)
}

var retNames = map[string]int64{"OK": 0, "FAIL": 5, "ARG_INVALID": 1, "CT_NONE_REACHED": 2, "EQ_DROPPED": 3,
	"EQ_EMPTY": 4, "IN_USE": 7, "LIST_TOO_LONG": 8, "NO_INIT": 9, "NO_SPACE": 10, "PID_IN_USE": 11, "PT_FULL": 12,
	"PT_EQ_NEEDED": 13, "PT_IN_USE": 14, "INVALID": 0xffffffff, "IGNORED": 6}

var opNames = map[string]int64{"MIN": 0, "MAX": 1, "SUM": 2, "PROD": 3, "LOR": 4, "LAND": 5, "BOR": 6, "BAND": 7,
	"LXOR": 8, "BXOR": 9, "SWAP": 10, "CSWAP": 11, "CSWAP_NE": 12, "CSWAP_LE": 13, "CSWAP_LT": 14, "CSWAP_GE": 15,
	"CSWAP_GT": 16, "MSWAP": 17, "INVALID": 0xffffffff}

// typeNames adds to enum.c's names the C type names of the older test files
// (extra/test_atomic_mixed.xml: CHAR ... ULONG), mapped to the fixed-width types of
// the same size on LP64, as the Portals 4.0 headers once defined them.
var typeNames = map[string]int64{"INT8": 0, "UINT8": 1, "INT16": 2, "UINT16": 3, "INT32": 4, "UINT32": 5,
	"INT64": 7, "UINT64": 8, "FLOAT": 6, "COMPLEX": 10, "DOUBLE": 9, "DCOMPLEX": 11, "LDOUBLE": 12, "LDCOMPLEX": 13,
	"INVALID": 0xffffffff, "CHAR": 0, "UCHAR": 1, "SHORT": 2, "USHORT": 3, "INT": 4, "UINT": 5, "LONG": 7, "ULONG": 8}

var listNames = map[string]int64{"PRIORITY": 0, "OVERFLOW": 1, "INVALID": 0xffffffff}
var searchNames = map[string]int64{"ONLY": 0, "DELETE": 1, "INVALID": 0xffffffff}
var ackNames = map[string]int64{"ACK": 1, "NO_ACK": 0, "CT_ACK": 2, "OC_ACK": 3, "INVALID": 0xffffffff}
var eventNames = map[string]int64{"GET": 0, "GET_OVERFLOW": 1, "PUT": 2, "PUT_OVERFLOW": 3, "ATOMIC": 4,
	"ATOMIC_OVERFLOW": 5, "FETCH_ATOMIC": 6, "FETCH_ATOMIC_OVERFLOW": 7, "REPLY": 8, "SEND": 9, "ACK": 10,
	"PT_DISABLED": 11, "LINK": 12, "AUTO_UNLINK": 13, "AUTO_FREE": 14, "SEARCH": 15, "INVALID": 0xffffffff}
var niFailNames = map[string]int64{"OK": 0, "UNDELIVERABLE": 1, "PT_DISABLED": 3, "DROPPED": 2, "OP_VIOLATION": 5,
	"PERM_VIOLATION": 4, "NO_MATCH": 6, "INVALID": 0xffffffff}

// mask parses a blank-separated list of option names; INVALID sets every bit outside
// invalidMask, and a token that is no name ends the list with its number.
func mask(val string, names map[string]uint32, validMask uint32) uint32 {
	var m uint32
	for _, tok := range strings.Fields(val) {
		if tok == "INVALID" {
			m = ^validMask
			continue
		}
		v, ok := names[tok]
		if !ok {
			return uint32(strtoll(tok))
		}
		m |= v
	}
	return m
}

var niOptNames = map[string]uint32{"MATCH": ptl4.NIMatching, "NO_MATCH": ptl4.NINoMatching,
	"LOGICAL": ptl4.NILogical, "PHYSICAL": ptl4.NIPhysical}
var featureNames = map[string]uint32{"TARGET_BIND_INACCESSIBLE": ptl4.TargetBindInaccessible}
var ptOptNames = map[string]uint32{"ONLY_USE_ONCE": ptl4.PTOnlyUseOnce, "ONLY_TRUNCATE": ptl4.PTOnlyTruncate,
	"FLOW": ptl4.PTFlowCtrl}
var mdOptNames = map[string]uint32{"IOVEC": ptl4.MDIovec, "SUCCESS_DISABLE": ptl4.MDSuccessDisable,
	"CT_SEND": ptl4.MDCTSend, "CT_REPLY": ptl4.MDCTReply, "CT_ACK": ptl4.MDCTAck, "CT_BYTES": ptl4.MDCTBytes,
	"UNORDERED": ptl4.MDUnordered, "VOLATILE": ptl4.MDVolatile}
var leOptNames = map[string]uint32{"IOVEC": ptl4.MEIovec, "OP_PUT": ptl4.MEOpPut, "OP_GET": ptl4.MEOpGet,
	"USE_ONCE": ptl4.MEUseOnce, "SUCCESS_DISABLE": ptl4.MESuccessDisable, "IS_ACCESSIBLE": ptl4.MEIsAccessible,
	"EVENT_LINK_DISABLE": ptl4.MELinkDisable, "COMM_DISABLE": ptl4.MECommDisable,
	"FLOW_DISABLE": ptl4.MEFlowCtrlDisable, "OVER_DISABLE": ptl4.MEOverDisable,
	"UNLINK_DISABLE": ptl4.MEUnlinkDisable, "CT_COMM": ptl4.MECTComm, "CT_OVERFLOW": ptl4.MECTOverflow,
	"CT_BYTES": ptl4.MECTBytes}
var meOptNames = func() map[string]uint32 {
	m := map[string]uint32{"MANAGE_LOCAL": ptl4.MEManageLocal, "NO_TRUNCATE": ptl4.MENoTruncate,
		"MAY_ALIGN": ptl4.MEMayAlign}
	for k, v := range leOptNames { //lint:ordered building a map from a map: no order is observable
		m[k] = v
	}
	return m
}()

const (
	niOptMask   = 0xf
	ptOptMask   = 1<<5 - 1
	mdOptMask   = (1<<9 - 1) | ptl4.MDCTBytes
	leOptMask   = 1<<15 - 1
	meOptMask   = 1<<19 - 1
	featureMask = 1<<3 - 1
)
