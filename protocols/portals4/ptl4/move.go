package ptl4

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
)

// MsgOp is the kind of a Portals 4 message on the wire.
type MsgOp uint8

// Message kinds: requests, then responses.
const (
	MsgPut MsgOp = iota
	MsgGet
	MsgAtomic
	MsgFetch
	MsgSwap
	MsgAck
	MsgReply
)

var msgNames = [...]string{"put", "get", "atomic", "fetch-atomic", "swap", "ack", "reply"}

func (o MsgOp) String() string {
	if int(o) < len(msgNames) {
		return msgNames[o]
	}
	return fmt.Sprintf("op%d", uint8(o))
}

// Response reports whether the kind answers a request.
func (o MsgOp) Response() bool { return o >= MsgAck }

// Msg is a Portals 4 message: a request from an initiator, or the ack or reply to it.
// Src and Dst are physical; the caller routes on Dst.NID and hands the message to the
// library of process Dst.PID there.
type Msg struct {
	Op       MsgOp
	Src, Dst ProcessID
	SrcRank  uint32 // the initiator's rank on a logical interface
	NI       int    // interface kind (matching, logical bits), the same at both ends
	PT       uint32
	Match    uint64
	Offset   uint64 // remote offset
	Length   uint64 // request length (rlength)
	HdrData  uint64
	Ack      AckReq
	UID      uint32
	AtomOp   Op
	Type     Datatype
	Operand  []byte // the compare (or mask) operand of a swap
	Data     []byte // payload: put, atomic, fetch and swap data, or reply data
	ReqID    uint64 // the initiator's operation, echoed by the response
	Volatile bool   // the payload was copied out of the initiator's MD at the call

	// Responses.
	NIFail  NIFail
	MLength uint64
	List    List

	payload         *actors.Array[byte] // Data's array, from payloads (newPayload)
	refs            actors.Refs         // holders that DropMsg it, if SetHolders was called
	actors.PoolMark                     // from msgs: see ReleaseMsg
}

// msgs recycles the messages the library builds (launch, Deliver).
var msgs actors.Pool[Msg, *Msg]

// SetHolders says that n holders will each DropMsg m, the last releasing it
// (ReleaseMsg): for a caller whose holders finish in an order it does not know.
func (m *Msg) SetHolders(n int32) { m.refs.Set(n) }

// DropMsg ends one holder's hold on m (SetHolders); the last releases it. Without
// SetHolders it never does.
func DropMsg(m *Msg) {
	if m.refs.Drop() {
		ReleaseMsg(m)
	}
}

// ReleaseMsg recycles m, a message this package built, for the next one: the caller
// is the last of every holder (the initiator's library and NIC, the packets, the
// target's NIC and library) and must not use m afterwards. A message copied or
// decoded elsewhere is left to the garbage collector. Callers whose holders finish in
// an order they do not know (the onload and InfiniBand host libraries) count them
// instead (SetHolders, DropMsg).
func ReleaseMsg(m *Msg) {
	if m.PoolMark != (actors.PoolMark{}) { // from msgs: not a copy that shares the payload
		m.releasePayload()
	}
	msgs.Release(m)
}

func (m *Msg) String() string {
	return fmt.Sprintf("ptl4.%s(%d:%d->%d:%d pt%d %dB)", m.Op, m.Src.NID, m.Src.PID, m.Dst.NID, m.Dst.PID, m.PT, len(m.Data))
}

// WireBytes is the payload the message carries on the wire.
func (m *Msg) WireBytes() int64 { return int64(len(m.Data) + len(m.Operand)) }

// op is an operation the process initiated, until its last response.
type op struct {
	kind    MsgOp
	ack     AckReq
	put     *md // put, atomic and the source of fetch and swap
	get     *md // get and the destination of fetch and swap
	putOff  uint64
	getOff  uint64
	length  uint64
	userPtr uint64
	sent    bool
	wait    bool // a response is due
}

func (o *op) respOp() MsgOp {
	if o.kind == MsgPut || o.kind == MsgAtomic {
		return MsgAck
	}
	return MsgReply
}

// Args are the arguments of a data-movement call.
type Args struct {
	Kind         MsgOp  // MsgPut, MsgGet, MsgAtomic, MsgFetch or MsgSwap
	MD           Handle // put and atomic source, get destination
	GetMD, PutMD Handle // fetch-atomic and swap
	LocalOffset  uint64
	GetOffset    uint64
	PutOffset    uint64
	Length       uint64
	Ack          AckReq
	Target       ProcessID
	PT           uint32
	Match        uint64
	RemoteOffset uint64
	UserPtr      uint64
	HdrData      uint64
	AtomOp       Op
	Type         Datatype
	Operand      []byte // swap: the compare or mask operand, Type.Size() bytes
	// Data, if not nil, is the payload as read at the call (a volatile MD's bytes,
	// which the caller may change as soon as the call returns); else the payload is
	// read from the MD when the request is built.
	Data []byte
}

// Start is PtlPut, PtlGet, PtlAtomic, PtlFetchAtomic and PtlSwap: it validates the
// call and queues the request in Outbox.
func (l *Lib) Start(a Args) Ret {
	if l.inits == 0 {
		return NoInit
	}
	n, o, r := l.check(a)
	if r != OK {
		return r
	}
	return l.launch(n, o, a)
}

// MDInfo is what argument checking needs to know of an MD.
type MDInfo struct {
	NI      int
	Length  uint64 // total bytes (of every iovec)
	Options uint32
	HasEQ   bool
	HasCT   bool
}

// NIInfo is what argument checking needs to know of an interface.
type NIInfo struct {
	Limits  Limits
	Logical bool
	MapLen  int // entries of a logical interface's map (0: none set)
}

// View answers the questions of Validate: the library itself, or a host library's
// record of the objects it created (so that it can check a call without asking the
// NIC).
type View interface {
	Inited() bool
	MD(h Handle) (MDInfo, bool)
	NI(idx int) (NIInfo, bool)
}

// Inited implements View.
func (l *Lib) Inited() bool { return l.inits > 0 }

// MD implements View.
func (l *Lib) MD(h Handle) (MDInfo, bool) {
	n, m := l.mdOf(h)
	if m == nil {
		return MDInfo{}, false
	}
	return MDInfo{NI: n.idx, Length: m.buf.total, Options: m.d.Options, HasEQ: m.d.EQ != EQNone, HasCT: m.d.CT != CTNone}, true
}

// NI implements View.
func (l *Lib) NI(idx int) (NIInfo, bool) {
	if idx < 0 || idx >= len(l.nis) || l.nis[idx] == nil {
		return NIInfo{}, false
	}
	n := l.nis[idx]
	return NIInfo{Limits: n.lim, Logical: n.logical(), MapLen: len(n.mapping)}, true
}

// Validate checks the arguments of a data-movement call (PtlPut, PtlGet, PtlAtomic,
// PtlFetchAtomic, PtlSwap and their triggered forms) against v, with no side effect.
func Validate(v View, a Args) Ret {
	if !v.Inited() {
		return NoInit
	}
	fits := func(m MDInfo, off uint64) bool { return off <= m.Length && a.Length <= m.Length-off }
	var put MDInfo
	var hasPut bool
	var niIdx int
	switch a.Kind {
	case MsgPut, MsgAtomic, MsgGet:
		m, ok := v.MD(a.MD)
		if !ok || !fits(m, a.LocalOffset) {
			return ArgInvalid
		}
		niIdx = m.NI
		if a.Kind != MsgGet {
			put, hasPut = m, true
		}
	case MsgFetch, MsgSwap:
		g, ok1 := v.MD(a.GetMD)
		p, ok2 := v.MD(a.PutMD)
		if !ok1 || !ok2 || g.NI != p.NI || !fits(g, a.GetOffset) || !fits(p, a.PutOffset) {
			return ArgInvalid
		}
		niIdx, put, hasPut = g.NI, p, true
	default:
		return ArgInvalid
	}
	n, ok := v.NI(niIdx)
	if !ok {
		return ArgInvalid
	}
	lim := n.Limits
	if hasPut && put.Options&MDVolatile != 0 && a.Length > lim.MaxVolatileSize {
		return ArgInvalid // a volatile MD's data is copied at the call: at most max_volatile_size
	}
	if a.Length > lim.MaxMsgSize {
		return ArgInvalid
	}
	switch a.Kind {
	case MsgAtomic, MsgFetch:
		if a.AtomOp > OpBXor || !legal(a.AtomOp, a.Type) || a.Length > lim.MaxAtomicSize {
			return ArgInvalid
		}
	case MsgSwap:
		if a.AtomOp < OpSwap || a.AtomOp >= opLast || !legal(a.AtomOp, a.Type) || a.Length > lim.MaxAtomicSize {
			return ArgInvalid
		}
	}
	if a.Kind == MsgPut || a.Kind == MsgAtomic {
		switch a.Ack {
		case NoAck:
		case Ack:
			if !put.HasEQ {
				return ArgInvalid
			}
		case CTAck, OCAck:
			if !put.HasCT {
				return ArgInvalid
			}
		default:
			return ArgInvalid
		}
	}
	if n.Logical && (n.MapLen == 0 || a.Target.NID >= uint32(n.MapLen)) {
		return ArgInvalid
	}
	if a.PT > uint32(lim.MaxPTIndex) {
		return ArgInvalid
	}
	return OK
}

// check validates a data-movement call and describes the operation it starts.
func (l *Lib) check(a Args) (*ni, *op, Ret) {
	if r := Validate(l, a); r != OK {
		return nil, nil, r
	}
	o := l.ops.New(op{kind: a.Kind, ack: a.Ack, length: a.Length, userPtr: a.UserPtr})
	return l.opMDs(a, o), o, OK
}

// opMDs returns the interface of validated data-movement call a (its MD's; the get
// MD's of a fetching atomic or a swap) and, if o is not nil, sets the MDs the
// operation reads and writes in o, with their offsets.
func (l *Lib) opMDs(a Args, o *op) *ni {
	var n *ni
	var get, put *md
	var getOff, putOff uint64
	switch a.Kind {
	case MsgGet:
		n, get = l.mdOf(a.MD)
		getOff = a.LocalOffset
	case MsgPut, MsgAtomic:
		n, put = l.mdOf(a.MD)
		putOff = a.LocalOffset
	default:
		n, get = l.mdOf(a.GetMD)
		_, put = l.mdOf(a.PutMD)
		getOff, putOff = a.GetOffset, a.PutOffset
	}
	if o != nil {
		o.get, o.put, o.getOff, o.putOff = get, put, getOff, putOff
	}
	return n
}

// launch builds the request of a checked call.
func (l *Lib) launch(n *ni, o *op, a Args) Ret {
	dst := a.Target
	m := msgs.New(Msg{Op: a.Kind, Src: ProcessID{l.nid, l.pid}, NI: n.idx, PT: a.PT, Match: a.Match, Offset: a.RemoteOffset,
		Length: a.Length, HdrData: a.HdrData, Ack: a.Ack, UID: l.uid, AtomOp: a.AtomOp, Type: a.Type})
	if n.logical() {
		dst = n.mapping[a.Target.NID]
		m.SrcRank, _ = n.rank(l.nid, l.pid)
	}
	m.Dst = dst
	if a.Kind != MsgGet && a.Data != nil { // copied out at the call (a volatile MD)
		m.Data = a.Data[:a.Length]
		m.Volatile = true
	} else if a.Kind != MsgGet {
		m.Data = m.newPayload(a.Length)
		if !o.put.buf.read(l.mem, o.putOff, m.Data) {
			return ArgInvalid
		}
		l.Work.Bytes += int64(a.Length)
		m.Volatile = o.put.d.Options&MDVolatile != 0
	}
	if a.Kind == MsgSwap {
		m.Operand = make([]byte, a.Type.Size())
		copy(m.Operand, a.Operand)
	}
	if a.Kind == MsgAtomic || a.Kind == MsgFetch {
		m.AtomOp = a.AtomOp
	}
	l.reqID++
	m.ReqID = l.reqID
	o.wait = a.Kind == MsgGet || a.Kind == MsgFetch || a.Kind == MsgSwap || a.Ack != NoAck
	if o.put != nil {
		o.put.inflight++
	}
	if o.get != nil && o.get != o.put {
		o.get.inflight++
	}
	n.pending[m.ReqID] = o
	l.Outbox = append(l.Outbox, m)
	return OK
}

// Sent tells the library that request m has left (its data read out of the MD): the
// SEND event of puts, atomics, fetches and swaps.
func (l *Lib) Sent(m *Msg) {
	if m.Op.Response() {
		return
	}
	n := l.nis[m.NI]
	if n == nil {
		return
	}
	o := n.pending[m.ReqID]
	if o == nil {
		return
	}
	o.sent = true
	if o.kind != MsgGet {
		d := o.put.d
		if d.Options&MDSendDisable == 0 {
			l.post(n, d.EQ, Event{Type: EvSend, Initiator: ProcessID{l.nid, l.pid}, PTIndex: m.PT, MatchBits: m.Match,
				MLength: o.length, RemoteOffset: m.Offset, UserPtr: o.userPtr, HdrData: m.HdrData, AtomicOp: m.AtomOp,
				AtomicType: m.Type}, d.Options&MDSuccessDisable != 0)
		}
		if d.Options&MDCTSend != 0 {
			l.count(n, d.CT, d.Options&MDCTBytes != 0, o.length, false)
		}
	}
	if !o.wait {
		l.retire(n, m.ReqID, o)
		l.ops.Take(o) // nothing names it any more
	}
}

func (l *Lib) retire(n *ni, id uint64, o *op) {
	delete(n.pending, id)
	if o.put != nil {
		o.put.inflight--
	}
	if o.get != nil && o.get != o.put {
		o.get.inflight--
	}
}

// Complete takes the response r (an ack or a reply) to a request of this process.
func (l *Lib) Complete(r *Msg) {
	n := l.nis[r.NI]
	if n == nil {
		return
	}
	o := n.pending[r.ReqID]
	if o == nil {
		return // aborted, or the interface was closed
	}
	l.finishOp(n, o, r)
}

func (l *Lib) finishOp(n *ni, o *op, r *Msg) {
	l.retire(n, r.ReqID, o)
	defer l.ops.Take(o) // once its events are posted and its counters counted
	failed := r.NIFail != NIOK
	ev := Event{Initiator: r.Src, PTIndex: r.PT, MatchBits: r.Match, RLength: o.length, MLength: r.MLength,
		RemoteOffset: r.Offset, UserPtr: o.userPtr, NIFail: r.NIFail, List: r.List, AtomicOp: r.AtomOp, AtomicType: r.Type}
	if r.Op == MsgAck {
		d := o.put.d
		if o.ack == Ack {
			ev.Type = EvAck
			l.post(n, d.EQ, ev, !failed && d.Options&MDSuccessDisable != 0)
		}
		if d.Options&MDCTAck != 0 && o.ack != NoAck {
			l.count(n, d.CT, d.Options&MDCTBytes != 0 && o.ack != OCAck, r.MLength, failed)
		}
		return
	}
	d := o.get.d
	if !failed && r.Data != nil {
		if !o.get.buf.write(l.mem, o.getOff, r.Data[:min(uint64(len(r.Data)), r.MLength)]) {
			ev.NIFail, failed = NISegv, true
		}
		l.Work.Bytes += int64(r.MLength)
	}
	ev.Type = EvReply
	ev.Start = o.get.buf.addr(o.getOff)
	l.post(n, d.EQ, ev, !failed && d.Options&MDSuccessDisable != 0)
	if d.Options&MDCTReply != 0 {
		l.count(n, d.CT, d.Options&MDCTBytes != 0, r.MLength, failed)
	}
}

// trig is a triggered operation waiting on a counter.
type trig struct {
	threshold uint64
	seq       uint64
	ct        Handle
	n         *ni
	kind      trigKind
	a         Args   // trigStart: the operation
	fn        func() // trigFn: the rest (appends, unlinks)
	// trigCT: the counter it changes, set to v or incremented by v
	target Handle
	v      CTEvent
	set    bool
}

// trigKind is what a triggered operation does when it fires: the operations a
// program makes per message are values in its record, so that they allocate nothing.
type trigKind uint8

const (
	trigFn    trigKind = iota // fn
	trigStart                 // PtlTriggeredPut and friends
	trigCT                    // PtlTriggeredCTInc, PtlTriggeredCTSet
)

// fire runs triggered operation t, whose threshold its counter has reached.
func (l *Lib) fire(t *trig) {
	switch t.kind {
	case trigStart:
		if _, o, r := l.check(t.a); r == OK { // the MDs may be gone by now
			l.launch(t.n, o, t.a)
		}
	case trigCT:
		if t.set {
			l.CTSet(t.target, t.v)
		} else {
			l.CTInc(t.target, t.v)
		}
	default:
		t.fn()
	}
}

// Triggered is PtlTriggeredPut/Get/Atomic/FetchAtomic/Swap: the call is checked now
// and launched when counter ctr reaches threshold.
func (l *Lib) Triggered(a Args, ctr Handle, threshold uint64) Ret {
	if l.inits == 0 {
		return NoInit
	}
	if r := Validate(l, a); r != OK { // and again when it fires (check): the MDs may be gone
		return r
	}
	t := l.newTrig(l.opMDs(a, nil), trigStart)
	t.a = a
	return l.addTrig(t, ctr, threshold)
}

// TriggeredCT is PtlTriggeredCTInc (set false) and PtlTriggeredCTSet (set true).
func (l *Lib) TriggeredCT(target Handle, v CTEvent, set bool, ctr Handle, threshold uint64) Ret {
	if l.inits == 0 {
		return NoInit
	}
	tn, tc := l.ctByHandle(target)
	if tc == nil {
		return ArgInvalid
	}
	if !set && v.Success > 0 && v.Failure > 0 {
		return ArgInvalid
	}
	t := l.newTrig(tn, trigCT)
	t.target, t.v, t.set = target, v, set
	return l.addTrig(t, ctr, threshold)
}

// TriggeredAppend is PtlTriggeredMEAppend (and the LE form).
func (l *Lib) TriggeredAppend(h Handle, idx uint32, d ME, list List, userPtr uint64, le bool, ctr Handle, threshold uint64) Ret {
	n, r := l.getNI(h)
	if r != OK {
		return r
	}
	if le == n.matching() || idx >= uint32(len(n.pts)) || !n.pts[idx].alloc {
		return ArgInvalid
	}
	t := l.newTrig(n, trigFn)
	t.fn = func() { l.Append(h, idx, d, list, userPtr, le) }
	return l.addTrig(t, ctr, threshold)
}

// TriggeredUnlink is PtlTriggeredMEUnlink.
func (l *Lib) TriggeredUnlink(h Handle, ctr Handle, threshold uint64) Ret {
	if l.inits == 0 {
		return NoInit
	}
	n := l.niOf(h)
	if n == nil || n.entries[h] == nil {
		return ArgInvalid
	}
	t := l.newTrig(n, trigFn)
	t.fn = func() { l.Unlink(h) }
	return l.addTrig(t, ctr, threshold)
}

// newTrig returns a record of a triggered operation of kind on n, recycled or new;
// addTrig takes it.
func (l *Lib) newTrig(n *ni, kind trigKind) *trig { return l.trigs.New(trig{n: n, kind: kind}) }

// addTrig registers triggered operation t on counter ctr of t.n, to fire at threshold;
// a record it refuses is recycled.
func (l *Lib) addTrig(t *trig, ctr Handle, threshold uint64) Ret {
	n := t.n
	c := l.ctOf(n, ctr)
	switch {
	case c == nil:
		l.dropTrig(t)
		return ArgInvalid
	case n.nTrig >= n.lim.MaxTriggeredOps:
		l.dropTrig(t)
		return NoSpace
	}
	l.seq++
	t.threshold, t.seq, t.ct = threshold, l.seq, ctr
	i := len(c.trig)
	for i > 0 && c.trig[i-1].threshold > threshold {
		i--
	}
	c.trig = append(c.trig, nil)
	copy(c.trig[i+1:], c.trig[i:])
	c.trig[i] = t
	n.nTrig++
	l.ctChanged(n, c)
	return OK
}

// ctChanged fires the triggered operations whose threshold counter c has reached, in
// threshold order; operations they start that move counters fire in turn, after them.
func (l *Lib) ctChanged(n *ni, c *ct) {
	l.changed()
	k := 0
	for k < len(c.trig) && c.trig[k].threshold <= c.v.Success {
		l.fireQ = append(l.fireQ, c.trig[k])
		k++
	}
	if k > 0 { // the rest moves to the front: the array is kept for the next ones
		n.nTrig -= k
		left := copy(c.trig, c.trig[k:])
		clear(c.trig[left:])
		c.trig = c.trig[:left]
	}
	if l.firing {
		return
	}
	l.firing = true
	for i := 0; i < len(l.fireQ); i++ { // firing may queue more
		t := l.fireQ[i]
		l.Work.Triggered++
		l.fire(t)
		l.dropTrig(t)
	}
	clear(l.fireQ)
	l.fireQ = l.fireQ[:0]
	l.firing = false
}

// dropTrig recycles the record of a triggered operation that fired or was refused.
func (l *Lib) dropTrig(t *trig) {
	*t = trig{}
	l.trigs.Put(t)
}
