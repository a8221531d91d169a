package conform

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/seastar-sim/seastar/protocols/portals4/ptl4"
)

// Sizes of ptl_test.h.
const (
	iovSize     = 32
	iovecLength = 1024
	stackSize   = 20
)

// Object stacks (run.c keeps one per kind).
const (
	sNI = iota
	sPT
	sMD
	sLE
	sME
	sEQ
	sCT
	nStacks
)

// info is run.c's struct node_info: the state a level of the tree sees. Levels copy it.
type info struct {
	ret, err int64
	ptrSet   bool
	count    int64
	cond     bool
	threadID int64

	iface, niOpt, pid uint32
	rank              int64
	desired, actual   ptl4.Limits
	niHandle, handle  ptl4.Handle
	reg               int64
	status            uint64

	ptOpt   uint32
	ptIndex uint32
	uid     uint32
	id      ptl4.ProcessID

	iov       [iovSize][2]uint64
	iovecLen  uint64
	iovAddr   uint64 // this level's iovec array in memory, 0 until used
	iovOwned  bool
	buf       uint64
	bufOwned  bool
	md        ptl4.MD
	mdHandle  ptl4.Handle
	le        ptl4.ME
	leHandle  ptl4.Handle
	list      ptl4.List
	searchOp  ptl4.SearchOp
	me        ptl4.ME
	meHandle  ptl4.Handle
	eqHandle  ptl4.Handle
	event     ptl4.Event
	eqCount   int64
	timeout   int64
	which     int64
	ctHandle  ptl4.Handle
	ctEvent   ptl4.CTEvent
	ctTest    uint64
	locOffset uint64
	length    uint64
	ackReq    ptl4.AckReq
	targetID  ptl4.ProcessID
	match     uint64
	remOffset uint64
	userPtr   uint64
	hdrData   uint64
	atomOp    ptl4.Op
	typ       ptl4.Datatype
	putMD     ptl4.Handle
	getMD     ptl4.Handle
	locGetOff uint64
	locPutOff uint64
	threshold uint64
	trigCT    ptl4.Handle
	operand   [32]byte

	handle1, handle2 ptl4.Handle
	mapSize          int64
	desiredMap       []ptl4.ProcessID
	getMapSize       int64

	stack [nStacks][stackSize]ptl4.Handle
	next  [nStacks]int
}

// run is the interpreter state of one thread of one rank.
type run struct {
	e     Env
	first *string // the first mismatch of the rank, shared by its threads
	track **Node  // if not nil, set to the element being run
	// stop, if not nil, says why the run must end now (the caller's context): a repeat
	// of elements that take no simulated time never returns to the engine, which checks
	// the context only between windows.
	stop func() error
}

func (r *run) failf(n *Node, format string, args ...any) int {
	if *r.first == "" {
		*r.first = fmt.Sprintf("line %d <%s>: ", n.Line, n.Name) + fmt.Sprintf(format, args...)
	}
	return 1
}

// defaultInfo is run.c's set_default_info.
func defaultInfo() *info {
	return &info{count: 1, iface: ptl4.IfaceDef, pid: ptl4.PIDAny, rank: int64(ptl4.RankAny),
		niOpt: ptl4.NIMatching | ptl4.NIPhysical,
		desired: ptl4.Limits{MaxEntries: 15, MaxMDs: 10, MaxCTs: 10, MaxEQs: 10, MaxPTIndex: 63, MaxIovecs: iovSize,
			MaxListSize: 10, MaxMsgSize: iovSize * iovecLength, MaxAtomicSize: 64, MaxUnexpectedHeaders: 64},
		mapSize: 10, niHandle: ptl4.InvalidHandle, handle: ptl4.InvalidHandle, iovecLen: iovecLength,
		timeout: 10, eqCount: 10, eqHandle: ptl4.EQNone, ctHandle: ptl4.CTNone, atomOp: ptl4.OpSum,
		list: ptl4.Priority, uid: ptl4.UIDAny, length: 1, ackReq: ptl4.NoAck}
}

// RunRank interprets test file root as rank e.Rank() and returns the first mismatch,
// or "" when the rank passed. at, if not nil, follows the element being run (to tell
// where a rank that never finished was). stop, if not nil, is asked between the
// iterations of a repeat whether to give up (a context's Err): its error ends the rank
// as a mismatch.
func RunRank(root *Node, e Env, at **Node, stop func() error) string {
	first := ""
	r := &run{e: e, first: &first, stop: stop}
	r.track = at
	if errs := r.walk(defaultInfo(), []*Node{root}); errs > 0 && first == "" {
		first = fmt.Sprintf("%d errors", errs)
	}
	return first
}

func (r *run) mem() *ptl4.Space { return r.e.Memory() }

// push is run.c's push_info.
func (r *run) push(head *info, tok string) *info {
	in := *head
	in.bufOwned, in.iovOwned, in.iovAddr = false, false, 0
	in.count, in.ret, in.err, in.typ, in.ptrSet = 1, 0, 0, ptl4.Uint8, false
	switch tok {
	case "ptl_md", "ptl_md_bind", "ptl_me", "ptl_me_append", "ptl_le", "ptl_le_append":
		in.buf = r.mem().Alloc(in.actual.MaxMsgSize)
		in.bufOwned = true
		for i := range in.iov {
			in.iov[i] = [2]uint64{in.buf + in.iovecLen*uint64(i), in.iovecLen}
		}
	default:
		in.iov = [iovSize][2]uint64{}
	}
	in.md.Start, in.md.Length, in.md.Options = in.buf, in.actual.MaxMsgSize, 0
	in.le.Start, in.le.Length, in.le.Options = in.buf, in.actual.MaxMsgSize, 0
	in.me.Start, in.me.Length, in.me.Options, in.me.MinFree = in.buf, in.actual.MaxMsgSize, 0, 0
	if in.niOpt&ptl4.NIPhysical != 0 {
		in.me.MatchID = ptl4.ProcessID{NID: ptl4.NIDAny, PID: ptl4.PIDAny}
	} else {
		in.me.MatchID = ptl4.ProcessID{NID: ptl4.RankAny, PID: in.me.MatchID.PID}
	}
	switch tok {
	case "ptl_ni", "ptl_ni_init":
		in.niOpt = ptl4.NIMatching | ptl4.NIPhysical
	case "ptl_eq_poll":
		in.which = 0xffffffff
		in.event.Type = 0xffffffff
	case "ptl_pt", "ptl_pt_alloc":
		in.ptIndex, in.ptOpt = 0, 0
	case "ptl_fetch", "ptl_trig_fetch", "ptl_swap", "ptl_trig_swap":
		if in.next[sMD] >= 2 {
			in.getMD, in.putMD = in.stack[sMD][in.next[sMD]-1], in.stack[sMD][in.next[sMD]-2]
		} else {
			in.getMD, in.putMD = ptl4.InvalidHandle, ptl4.InvalidHandle
		}
		if tok == "ptl_swap" || tok == "ptl_trig_swap" {
			in.atomOp = ptl4.OpSwap
		}
	}
	return &in
}

// pop releases what a level allocated.
func (r *run) pop(in *info) {
	if in.bufOwned {
		r.mem().Free(in.buf)
	}
	if in.iovOwned {
		r.mem().Free(in.iovAddr)
	}
}

func (r *run) handleOf(in *info, val string) ptl4.Handle {
	switch val {
	case "INVALID":
		return ptl4.InvalidHandle
	case "CT_NONE":
		return ptl4.CTNone
	case "EQ_NONE":
		return ptl4.EQNone
	}
	var obj string
	var k int
	if i := strings.IndexByte(val, '['); i > 0 && strings.HasSuffix(val, "]") {
		obj = val[:i]
		if _, err := fmt.Sscanf(val[i+1:], "%d", &k); err == nil {
			if k < 0 || k >= stackSize {
				return 0xffffffff
			}
			s := map[string]int{"md": sMD, "me": sME, "le": sLE, "ni": sNI, "pt": sPT, "eq": sEQ, "ct": sCT}
			if idx, ok := s[obj]; ok {
				return in.stack[idx][k]
			}
			return 0xffffffff
		}
	}
	return ptl4.Handle(strtoull(val))
}

// number is run.c's get_number: $count, $thread_id, $actual.max_pt_index or strtol.
func number(in *info, val string) int64 {
	if in != nil && strings.HasPrefix(val, "$") {
		tok := strings.Split(val[1:], ".")
		switch tok[0] {
		case "count":
			return in.count
		case "thread_id":
			return in.threadID
		case "actual":
			if len(tok) > 1 && tok[1] == "max_pt_index" {
				return int64(in.actual.MaxPTIndex)
			}
		}
		return 0
	}
	return strtoll(val)
}

func ptrValue(val string) uint64 {
	switch val {
	case "NULL":
		return 0
	case "BAD":
		return 0x0123
	}
	return uint64(strtoll(val))
}

func ptIndexOf(in *info, val string) uint32 {
	switch val {
	case "MIN":
		return 0
	case "MAX":
		return uint32(in.actual.MaxPTIndex)
	case "BIG":
		return uint32(in.actual.MaxPTIndex + 1)
	case "ANY":
		return ptl4.PTAny
	case "INVALID":
		return 0x7fffffff
	}
	return uint32(strtoll(val))
}

func (r *run) targetOf(in *info, val string) ptl4.ProcessID {
	if val == "SELF" {
		id, _ := r.e.GetID(in.niHandle)
		return id
	}
	if i := strings.IndexByte(val, ':'); i >= 0 {
		return ptl4.ProcessID{NID: uint32(number(in, val)), PID: uint32(number(in, val[i+1:]))}
	}
	return ptl4.ProcessID{NID: uint32(number(in, val))}
}

// datum is run.c's get_datatype: val as one element of type t.
func datum(t ptl4.Datatype, val string) [32]byte {
	var b [32]byte
	switch t {
	case ptl4.Int8, ptl4.Int16, ptl4.Int32, ptl4.Int64:
		binary.LittleEndian.PutUint64(b[:], uint64(strtoll(val)))
	case ptl4.Uint8, ptl4.Uint16, ptl4.Uint32, ptl4.Uint64:
		binary.LittleEndian.PutUint64(b[:], strtoull(val))
	case ptl4.Float:
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(float32(strtod(val))))
	case ptl4.Double:
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(strtod(val)))
	case ptl4.LongDouble:
		ptl4.Float64ToX87(b[:16], strtod(val))
	case ptl4.FloatComplex:
		re, im := complexPair(val)
		binary.LittleEndian.PutUint32(b[0:], math.Float32bits(float32(re)))
		binary.LittleEndian.PutUint32(b[4:], math.Float32bits(float32(im)))
	case ptl4.DoubleComplex:
		re, im := complexPair(val)
		binary.LittleEndian.PutUint64(b[0:], math.Float64bits(re))
		binary.LittleEndian.PutUint64(b[8:], math.Float64bits(im))
	case ptl4.LongDoubleComplex:
		re, im := complexPair(val)
		ptl4.Float64ToX87(b[0:16], re)
		ptl4.Float64ToX87(b[16:32], im)
	}
	return b
}

// fill is run.c's set_data: the whole buffer with repeated values.
func (r *run) fill(in *info, val string) {
	size := uint64(in.typ.Size())
	if size == 0 {
		return
	}
	d := datum(in.typ, val)
	b := r.mem().Bytes(in.buf, in.actual.MaxMsgSize)
	for i := uint64(0); i+size <= uint64(len(b)); i += size {
		copy(b[i:], d[:size])
	}
}

// attrs is run.c's get_attr.
func (r *run) attrs(in *info, n *Node) int {
	var setMDStart, setMDLen, setLEStart, setLELen, setMEStart, setMELen bool
	var data *string
	for _, a := range n.Attrs {
		val := a.Value
		switch a.Name.Local {
		case "ret":
			in.ret = lookupOr(val, retNames)
		case "ptr":
			in.ptrSet = true
		case "count":
			in.count = number(in, val)
		case "iface":
			in.iface = uint32(strtoll(val))
		case "ni_opt":
			in.niOpt = mask(val, niOptNames, niOptMask)
		case "pid":
			in.pid = uint32(number(in, val))
		case "uid":
			if val == "ANY" {
				in.uid = ptl4.UIDAny
			} else {
				in.uid = uint32(number(in, val))
			}
		case "desired_max_entries":
			in.desired.MaxEntries = int(int32(number(in, val)))
		case "desired_max_mds":
			in.desired.MaxMDs = int(int32(number(in, val)))
		case "desired_max_eqs":
			in.desired.MaxEQs = int(int32(number(in, val)))
		case "desired_max_cts":
			in.desired.MaxCTs = int(int32(number(in, val)))
		case "desired_max_pt_index":
			in.desired.MaxPTIndex = int(int32(number(in, val)))
		case "desired_max_iovecs":
			in.desired.MaxIovecs = int(int32(number(in, val)))
		case "desired_max_list_size":
			in.desired.MaxListSize = int(int32(number(in, val)))
		case "desired_max_msg_size":
			in.desired.MaxMsgSize = uint64(number(in, val))
		case "desired_max_atomic_size":
			in.desired.MaxAtomicSize = uint64(number(in, val))
		case "desired_max_volatile_size":
			in.desired.MaxVolatileSize = uint64(number(in, val))
		case "desired_max_unexpected_headers":
			in.desired.MaxUnexpectedHeaders = int(int32(number(in, val)))
		case "desired_features":
			in.desired.Features = mask(val, featureNames, featureMask)
		case "ni_handle":
			in.niHandle = r.handleOf(in, val)
		case "reg":
			in.reg = number(in, val)
		case "status":
			in.status = uint64(number(in, val))
		case "handle":
			in.handle = r.handleOf(in, val)
		case "pt_opt":
			in.ptOpt = mask(val, ptOptNames, ptOptMask)
		case "pt_index":
			in.ptIndex = ptIndexOf(in, val)
		case "list":
			in.list = ptl4.List(lookupOr(val, listNames))
		case "iov_base":
			in.iov[0][0] = ptrValue(val)
		case "iovec_len":
			in.iovecLen = uint64(number(in, val))
			for i := range in.iov {
				in.iov[i] = [2]uint64{in.buf + in.iovecLen*uint64(i), in.iovecLen}
			}
		case "md_start":
			in.md.Start, setMDStart = ptrValue(val), true
		case "md_length":
			in.md.Length, setMDLen = uint64(number(in, val)), true
		case "md_opt":
			in.md.Options = mask(val, mdOptNames, mdOptMask)
		case "md_handle":
			in.mdHandle = r.handleOf(in, val)
		case "md_data", "le_data", "me_data":
			v := val
			data = &v
		case "le_start":
			in.le.Start, setLEStart = ptrValue(val), true
		case "le_length":
			in.le.Length, setLELen = uint64(number(in, val)), true
		case "le_opt":
			in.le.Options = mask(val, leOptNames, leOptMask)
		case "search_op":
			in.searchOp = ptl4.SearchOp(lookupOr(val, searchNames))
		case "me_start":
			in.me.Start, setMEStart = ptrValue(val), true
		case "me_length":
			in.me.Length, setMELen = uint64(number(in, val)), true
		case "me_match":
			in.me.MatchBits = uint64(number(in, val))
		case "me_ignore":
			in.me.IgnoreBits = uint64(number(in, val))
		case "me_opt":
			in.me.Options = mask(val, meOptNames, meOptMask)
		case "me_min_free":
			in.me.MinFree = uint64(number(in, val))
		case "time":
			in.timeout = number(in, val)
		case "which_ptr":
		case "eq_count":
			in.eqCount = number(in, val)
		case "eq_handle":
			in.eqHandle = r.handleOf(in, val)
		case "ct_handle":
			in.ctHandle = r.handleOf(in, val)
		case "ct_event_success":
			in.ctEvent.Success = uint64(number(in, val))
		case "ct_event_failure":
			in.ctEvent.Failure = uint64(number(in, val))
		case "ct_test":
			in.ctTest = uint64(number(in, val))
		case "atom_op":
			in.atomOp = ptl4.Op(lookupOr(val, opNames))
		case "atom_type", "type":
			in.typ = ptl4.Datatype(lookupOr(val, typeNames))
		case "get_md_handle":
			in.getMD = r.handleOf(in, val)
		case "put_md_handle":
			in.putMD = r.handleOf(in, val)
		case "user_ptr":
			in.userPtr = ptrValue(val)
		case "length":
			in.length = uint64(number(in, val))
		case "operand":
			in.operand = datum(in.typ, val)
		case "match":
			in.match = uint64(number(in, val))
		case "loc_offset":
			in.locOffset = uint64(number(in, val))
		case "loc_get_offset":
			in.locGetOff = uint64(number(in, val))
		case "loc_put_offset":
			in.locPutOff = uint64(number(in, val))
		case "rem_offset":
			in.remOffset = uint64(number(in, val))
		case "ack_req":
			in.ackReq = ptl4.AckReq(lookupOr(val, ackNames))
		case "threshold":
			in.threshold = uint64(number(in, val))
		case "handle1":
			in.handle1 = r.handleOf(in, val)
		case "handle2":
			in.handle2 = r.handleOf(in, val)
		case "event_type":
			in.event.Type = ptl4.EventKind(lookupOr(val, eventNames))
		case "target_id":
			in.targetID = r.targetOf(in, val)
		case "get_map_size":
			in.getMapSize = number(in, val)
		default:
			if !isAttr(a.Name.Local) {
				return r.failf(n, "invalid attribute %s", a.Name.Local)
			}
		}
	}
	if in.md.Options&ptl4.MDIovec != 0 {
		if !setMDStart {
			in.md.Start = r.iovArray(in)
		}
		if !setMDLen {
			in.md.Length = iovSize
		}
	}
	if in.le.Options&ptl4.MEIovec != 0 {
		if !setLEStart {
			in.le.Start = r.iovArray(in)
		}
		if !setLELen {
			in.le.Length = iovSize
		}
	}
	if in.me.Options&ptl4.MEIovec != 0 {
		if !setMEStart {
			in.me.Start = r.iovArray(in)
		}
		if !setMELen {
			in.me.Length = iovSize
		}
	}
	if data != nil {
		r.fill(in, *data)
	}
	return 0
}

// iovArray writes the level's iovec array into memory (run.c's &info->iov[0]).
func (r *run) iovArray(in *info) uint64 {
	if !in.iovOwned {
		in.iovAddr = r.mem().Alloc(iovSize * ptl4.IovecBytes)
		in.iovOwned = true
	}
	b := r.mem().Bytes(in.iovAddr, iovSize*ptl4.IovecBytes)
	for i, v := range in.iov {
		binary.LittleEndian.PutUint64(b[i*16:], v[0])
		binary.LittleEndian.PutUint64(b[i*16+8:], v[1])
	}
	return in.iovAddr
}
