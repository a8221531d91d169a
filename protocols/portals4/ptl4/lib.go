package ptl4

import "github.com/seastar-sim/seastar/actors"

// Lib is the Portals state of one process: up to four network interfaces (one of each
// kind) on one physical interface, and the API calls on them.
type Lib struct {
	mem    Memory
	nid    uint32
	pid    uint32
	uid    uint32
	inits  int
	nis    [4]*ni
	serial uint32
	seq    uint64 // triggered operations, in registration order
	reqID  uint64
	ops    actors.FreeList[op]    // records of finished operations, for the next ones
	dead   actors.FreeList[entry] // entries freed (unlinked, no header holds them), for the next appends
	uhdrs  actors.FreeList[uhdr]  // unexpected headers taken, for the next ones
	trigs  actors.FreeList[trig]  // triggered operations fired or refused, for the next ones

	// Outbox holds the messages the calls and deliveries produced, in order; the
	// caller takes them (and sets Outbox to nil), then may give the array back
	// (KeepOutbox).
	Outbox []*Msg
	// Changes counts event-queue and counter updates (see the package comment).
	Changes uint64
	// Work counts what the calls and deliveries did, for the caller's cost model.
	Work Work

	// RecordEvents makes every event written (and every event lost to overflow) also
	// go to Records, for a caller that copies events out to their consumer.
	RecordEvents bool
	Records      []EQRecord

	firing bool
	fireQ  []*trig
}

// Work is what the library did, by unit of work a NIC or host would charge for.
type Work struct {
	Walked    int64 // list entries examined when matching or searching
	Events    int64 // full events written to event queues
	Counts    int64 // counting-event updates
	Triggered int64 // triggered operations fired
	Elements  int64 // atomic datatype elements computed
	Bytes     int64 // payload bytes moved into or out of memory by the library
}

// New returns the library of a process whose memory is mem, on the node with physical
// id nid, with process id pid and user id uid.
func New(mem Memory, nid, pid, uid uint32) *Lib {
	l := &Lib{mem: mem, nid: nid, pid: pid, uid: uid}
	l.trigs.Chunk = trigChunk
	return l
}

// trigChunk is how many triggered-operation records the library makes at once: a
// program typically registers a batch of them (every iteration's, in p4-trig) before the
// first fires and gives its record back.
const trigChunk = 16

// PID returns the process id.
func (l *Lib) PID() uint32 { return l.pid }

func (l *Lib) handle(k hkind, n int) Handle {
	l.serial++
	return mkHandle(k, n, l.serial)
}

func (l *Lib) changed() { l.Changes++ }

// Init is PtlInit.
func (l *Lib) Init() Ret {
	l.inits++
	return OK
}

// Fini is PtlFini: the last one tears every interface down.
func (l *Lib) Fini() {
	if l.inits == 0 {
		return
	}
	if l.inits--; l.inits == 0 {
		l.nis = [4]*ni{}
		l.changed()
	}
}

func niIndex(opt uint32) int {
	i := 0
	if opt&NINoMatching != 0 {
		i |= 1
	}
	if opt&NILogical != 0 {
		i |= 2
	}
	return i
}

// NIInit is PtlNIInit. desired may be nil. A second init of the same kind returns the
// same interface (reference-counted).
func (l *Lib) NIInit(iface uint32, opt uint32, pid uint32, desired *Limits) (Handle, Limits, Ret) {
	if l.inits == 0 {
		return InvalidHandle, Limits{}, NoInit
	}
	if iface != IfaceDef && iface != 0 {
		return InvalidHandle, Limits{}, ArgInvalid
	}
	if opt&^niOptMask != 0 || opt&(NIMatching|NINoMatching) == NIMatching|NINoMatching ||
		opt&(NILogical|NIPhysical) == NILogical|NIPhysical || opt&(NIMatching|NINoMatching) == 0 ||
		opt&(NILogical|NIPhysical) == 0 {
		return InvalidHandle, Limits{}, ArgInvalid
	}
	if pid != PIDAny && pid != l.pid {
		if l.anyNI() {
			return InvalidHandle, Limits{}, ArgInvalid
		}
		l.pid = pid
	}
	k := niIndex(opt)
	if n := l.nis[k]; n != nil {
		n.refs++
		return n.h, n.lim, OK
	}
	lim := defaultLimits
	if desired != nil {
		lim = negotiate(*desired)
	}
	n := &ni{idx: k, opt: opt, refs: 1, lim: lim, h: mkHandle(hNI, k, 0), pts: make([]pt, lim.MaxPTIndex+1),
		mds: map[Handle]*md{}, entries: map[Handle]*entry{}, eqs: map[Handle]*eq{}, cts: map[Handle]*ct{},
		pending: map[uint64]*op{}}
	l.nis[k] = n
	return n.h, lim, OK
}

func (l *Lib) anyNI() bool {
	for _, n := range l.nis {
		if n != nil {
			return true
		}
	}
	return false
}

// defaultLimits are granted where the caller asks for nothing (assumed; not yet
// derived from the firmware's SRAM budget).
var defaultLimits = Limits{MaxEntries: 1024, MaxUnexpectedHeaders: 1024, MaxMDs: 1024, MaxCTs: 1024,
	MaxEQs: 256, MaxPTIndex: 63, MaxIovecs: 32, MaxListSize: 1024, MaxTriggeredOps: 1024,
	MaxMsgSize: 1 << 30, MaxAtomicSize: 512, MaxFetchAtomicSize: 512, MaxWAWOrderedSize: 512,
	MaxWAROrderedSize: 512, MaxVolatileSize: 512, Features: TargetBindInaccessible}

// negotiate grants what was desired where it is positive, the defaults elsewhere.
func negotiate(d Limits) Limits {
	a := defaultLimits
	pick := func(want, def int) int {
		if want > 0 {
			return want
		}
		return def
	}
	pick64 := func(want, def uint64) uint64 {
		if want > 0 && want < 1<<62 {
			return want
		}
		return def
	}
	a.MaxEntries = pick(d.MaxEntries, a.MaxEntries)
	a.MaxUnexpectedHeaders = pick(d.MaxUnexpectedHeaders, a.MaxUnexpectedHeaders)
	a.MaxMDs = pick(d.MaxMDs, a.MaxMDs)
	a.MaxCTs = pick(d.MaxCTs, a.MaxCTs)
	a.MaxEQs = pick(d.MaxEQs, a.MaxEQs)
	if d.MaxPTIndex > 0 && d.MaxPTIndex < 1<<16 {
		a.MaxPTIndex = d.MaxPTIndex
	}
	a.MaxIovecs = pick(d.MaxIovecs, a.MaxIovecs)
	a.MaxListSize = pick(d.MaxListSize, a.MaxListSize)
	a.MaxTriggeredOps = pick(d.MaxTriggeredOps, a.MaxTriggeredOps)
	a.MaxMsgSize = pick64(d.MaxMsgSize, a.MaxMsgSize)
	a.MaxAtomicSize = pick64(d.MaxAtomicSize, a.MaxAtomicSize)
	a.MaxFetchAtomicSize = pick64(d.MaxFetchAtomicSize, a.MaxAtomicSize)
	a.MaxWAWOrderedSize = pick64(d.MaxWAWOrderedSize, a.MaxWAWOrderedSize)
	a.MaxWAROrderedSize = pick64(d.MaxWAROrderedSize, a.MaxWAROrderedSize)
	a.MaxVolatileSize = pick64(d.MaxVolatileSize, a.MaxVolatileSize)
	a.Features = d.Features & a.Features
	return a
}

// ni is one network interface.
type ni struct {
	idx     int
	h       Handle
	opt     uint32
	refs    int
	lim     Limits
	pts     []pt
	mds     map[Handle]*md
	entries map[Handle]*entry
	eqs     map[Handle]*eq
	cts     map[Handle]*ct
	nMD     int
	nEntry  int
	nEQ     int
	nCT     int
	nTrig   int
	unexp   int // unexpected headers held
	status  [srCount]uint64
	mapping []ProcessID
	pending map[uint64]*op
	bundle  int
}

func (n *ni) logical() bool  { return n.opt&NILogical != 0 }
func (n *ni) matching() bool { return n.opt&NIMatching != 0 }

// niOf returns the interface of an NI handle (or of any object handle).
func (l *Lib) niOf(h Handle) *ni {
	if h == InvalidHandle || h.kind() == 0 || h.kind() > hCT || h.ni() > 3 {
		return nil
	}
	n := l.nis[h.ni()]
	if n == nil {
		return nil
	}
	return n
}

func (l *Lib) getNI(h Handle) (*ni, Ret) {
	if l.inits == 0 {
		return nil, NoInit
	}
	if h.kind() != hNI {
		return nil, ArgInvalid
	}
	n := l.niOf(h)
	if n == nil || n.h != h {
		return nil, ArgInvalid
	}
	return n, OK
}

// NIFini is PtlNIFini.
func (l *Lib) NIFini(h Handle) Ret {
	n, r := l.getNI(h)
	if r != OK {
		return r
	}
	if n.refs--; n.refs == 0 {
		l.nis[n.idx] = nil
		l.changed()
	}
	return OK
}

// NIStatus is PtlNIStatus.
func (l *Lib) NIStatus(h Handle, reg int) (uint64, Ret) {
	n, r := l.getNI(h)
	if r != OK {
		return 0, r
	}
	if reg < 0 || reg >= srCount {
		return 0, ArgInvalid
	}
	return n.status[reg], OK
}

// NIHandle is PtlNIHandle.
func (l *Lib) NIHandle(h Handle) (Handle, Ret) {
	if l.inits == 0 {
		return InvalidHandle, NoInit
	}
	n := l.niOf(h)
	if n == nil || !l.valid(n, h) {
		return InvalidHandle, ArgInvalid
	}
	return n.h, OK
}

// valid reports whether h names a live object of n.
func (l *Lib) valid(n *ni, h Handle) bool {
	switch h.kind() {
	case hNI:
		return n.h == h
	case hMD:
		return n.mds[h] != nil
	case hME, hLE:
		return n.entries[h] != nil
	case hEQ:
		return n.eqs[h] != nil
	case hCT:
		return n.cts[h] != nil
	}
	return false
}

// HandleIsEqual is PtlHandleIsEqual.
func HandleIsEqual(a, b Handle) bool { return a == b }

// GetUID is PtlGetUid.
func (l *Lib) GetUID(h Handle) (uint32, Ret) {
	if _, r := l.getNI(h); r != OK {
		return 0, r
	}
	return l.uid, OK
}

// GetID is PtlGetId: the physical id, or the rank on a logical interface.
func (l *Lib) GetID(h Handle) (ProcessID, Ret) {
	n, r := l.getNI(h)
	if r != OK {
		return ProcessID{}, r
	}
	if n.logical() {
		rank, ok := n.rank(l.nid, l.pid)
		if !ok {
			return ProcessID{}, Fail
		}
		return ProcessID{NID: rank}, OK
	}
	return ProcessID{NID: l.nid, PID: l.pid}, OK
}

// GetPhysID is PtlGetPhysId.
func (l *Lib) GetPhysID(h Handle) (ProcessID, Ret) {
	if _, r := l.getNI(h); r != OK {
		return ProcessID{}, r
	}
	return ProcessID{NID: l.nid, PID: l.pid}, OK
}

func (n *ni) rank(nid, pid uint32) (uint32, bool) {
	for i, p := range n.mapping {
		if p.NID == nid && p.PID == pid {
			return uint32(i), true
		}
	}
	return 0, false
}

// SetMap is PtlSetMap; a later call replaces the map (portals4.h: subsequent calls
// overwrite it).
func (l *Lib) SetMap(h Handle, mapping []ProcessID) Ret {
	n, r := l.getNI(h)
	if r != OK {
		return r
	}
	if !n.logical() || len(mapping) == 0 {
		return ArgInvalid
	}
	n.mapping = append([]ProcessID(nil), mapping...)
	return OK
}

// GetMap is PtlGetMap: up to size entries, and the map's full size.
func (l *Lib) GetMap(h Handle, size int) ([]ProcessID, int, Ret) {
	n, r := l.getNI(h)
	if r != OK {
		return nil, 0, r
	}
	if !n.logical() || n.mapping == nil {
		return nil, 0, ArgInvalid
	}
	return append([]ProcessID(nil), n.mapping[:min(size, len(n.mapping))]...), len(n.mapping), OK
}

// StartBundle and EndBundle are PtlStartBundle and PtlEndBundle: hints, nested.
func (l *Lib) StartBundle(h Handle) Ret {
	n, r := l.getNI(h)
	if r == OK {
		n.bundle++
	}
	return r
}

// EndBundle is PtlEndBundle.
func (l *Lib) EndBundle(h Handle) Ret {
	n, r := l.getNI(h)
	if r != OK {
		return r
	}
	if n.bundle == 0 {
		return ArgInvalid
	}
	n.bundle--
	return OK
}

// AtomicSync is PtlAtomicSync: the model's atomics are performed in order at the
// target, so there is nothing to flush.
func (l *Lib) AtomicSync() Ret {
	if l.inits == 0 {
		return NoInit
	}
	return OK
}

// Abort is PtlAbort: operations this process initiated and that have not completed
// fail with PTL_NI_UNDELIVERABLE; their responses, if they come, are ignored.
func (l *Lib) Abort() Ret {
	if l.inits == 0 {
		return NoInit
	}
	for _, n := range l.nis {
		if n == nil {
			continue
		}
		ids := make([]uint64, 0, len(n.pending))
		for id := range n.pending {
			ids = append(ids, id)
		}
		sortU64(ids)
		for _, id := range ids {
			o := n.pending[id]
			l.finishOp(n, o, &Msg{Op: o.respOp(), NIFail: NIUndeliverable, ReqID: id})
		}
	}
	return OK
}

func sortU64(a []uint64) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// Footprint is the number of list entries and unexpected headers the process's
// interfaces hold: the working set a list walk runs over.
func (l *Lib) Footprint() int {
	n := 0
	for _, x := range l.nis {
		if x != nil {
			n += x.nEntry + x.unexp
		}
	}
	return n
}

// KeepOutbox gives back the array of an outbox the caller took and is done with, for
// the next messages, unless new ones have arrived in another meanwhile.
func (l *Lib) KeepOutbox(out []*Msg) {
	if l.Outbox == nil {
		clear(out)
		l.Outbox = out[:0]
	}
}
