package ptl

import "github.com/seastar-sim/seastar/actors"

// NI is one process's Portals network interface: its portal table, match entries,
// memory descriptors, event queues, status registers and the operations in flight.
// It is a pure state machine: calls go in, decisions (Header, Delivery) and posted
// events come out; it keeps no time and moves no data except through WriteData and
// ReadData. Not safe for concurrent use; the actor that owns it serializes calls.
type NI struct {
	cfg    Config
	lim    Limits
	closed bool
	pt     []portal
	mes    slots[*me]
	mds    slots[*md]
	eqs    slots[*eq]
	ops    map[uint64]*op         // operations in flight by Link; looked up, never ranged
	evFree actors.FreeList[Event] // records of inactivating events (md.lastEv) free for reuse
	opFree actors.FreeList[op]    // records of finished operations, for the next ones
	mdFree actors.FreeList[md]    // records of MDs unlinked by unlinkMD, for the next ones
	meFree actors.FreeList[me]    // records of unlinked MEs, for the next ones
	link   uint64                 // last Link assigned
	sr     [numSR]uint64
	// posted is the array SendStarted, SendDone and Complete return their events in,
	// reused by the next of those calls (a new one each call was an allocation per
	// message).
	posted []Posted
	// delivered is the array of Delivery.Posted, sliced of Delivery.Regions when they
	// are not one whole region of the MD, and resp the Header of Delivery.Response,
	// reused by the next DeliverHeader.
	delivered []Posted
	sliced    []Region
	resp      Header
}

// portal is one entry of the portal table: a doubly linked match list.
type portal struct {
	head, tail *me
	n          int
}

// opKind is what an operation in flight is.
type opKind uint8

const (
	opSend  opKind = iota + 1 // initiator of a put: SEND_START/END
	opPut                     // target of a put: PUT_START/END
	opGet                     // target of a get: GET_START/END
	opReply                   // initiator of a get, receiving the reply: REPLY_START/END
)

// op is an operation in flight on an MD, from its commit to its END event.
type op struct {
	kind      opKind
	md        *md
	ev        Event // the fields of its events
	started   bool  // opSend: SendStarted (or SendDone) was called
	startOwed bool  // opSend: SEND_START is still to be posted
	endOwed   bool  // the END event is still to be posted
}

// NewNI creates the network interface of the process cfg describes (PtlNIInit).
// Errors: those of Config.Validate.
func NewNI(cfg Config) (*NI, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	lim := cfg.Limits.withDefaults()
	cfg.Limits = lim
	return &NI{
		cfg: cfg, lim: lim,
		pt:  make([]portal, lim.PtEntries),
		mes: newSlots[*me](lim.MaxMEs), mds: newSlots[*md](lim.MaxMDs), eqs: newSlots[*eq](lim.MaxEQs),
		ops: map[uint64]*op{},
	}, nil
}

// check returns the error every call of a nil or finalized NI returns.
func (ni *NI) check() error {
	if ni == nil {
		return ErrNoInit
	}
	if ni.closed {
		return ErrNIInvalid
	}
	return nil
}

// Fini finalizes the interface (PtlNIFini): every object is released and every later
// call returns ErrNIInvalid; incoming messages are dropped.
func (ni *NI) Fini() error {
	if err := ni.check(); err != nil {
		return err
	}
	ni.closed = true
	ni.pt, ni.ops = nil, nil
	ni.mes, ni.mds, ni.eqs = newSlots[*me](0), newSlots[*md](0), newSlots[*eq](0)
	return nil
}

// ID returns the process id of the interface (PtlGetId).
func (ni *NI) ID() ProcessID { return ProcessID{NID: ni.cfg.NID, PID: ni.cfg.PID} }

// JID returns the job id of the process (PtlGetJid).
func (ni *NI) JID() JID { return ni.cfg.JID }

// UID returns the user id of the process (PtlGetUid).
func (ni *NI) UID() UID { return ni.cfg.UID }

// Limits returns the limits in force, defaults filled in (the actual limits of
// PtlNIInit).
func (ni *NI) Limits() Limits { return ni.lim }

// Status reads a status register (PtlNIStatus). Errors: ErrSRIndexInvalid.
func (ni *NI) Status(sr SRIndex) (uint64, error) {
	if err := ni.check(); err != nil {
		return 0, err
	}
	if sr >= numSR {
		return 0, ErrSRIndexInvalid
	}
	return ni.sr[sr], nil
}

// InFlight returns the number of operations committed and not finished (for
// invariant checks: zero once every Header has had its SendDone and every in-flight
// Delivery its Complete).
func (ni *NI) InFlight() int { return len(ni.ops) }

// nextLink numbers a new operation.
func (ni *NI) nextLink() uint64 {
	ni.link++
	return ni.link
}

// eqOf returns the live event queue of an MD, or nil.
func (ni *NI) eqOf(m *md) *eq {
	if m.spec.EQ == EQNone {
		return nil
	}
	q, _ := ni.eqs.get(uint64(m.spec.EQ))
	return q
}

// post writes an event of type t, built from template ev, into the MD's queue (if it
// has a live one) and records it in out.
func (ni *NI) post(m *md, ev Event, t EventType, fail NIFailType, out *[]Posted) {
	q := ni.eqOf(m)
	if q == nil {
		return
	}
	ev.Type, ev.NIFailType, ev.MDHandle, ev.MD = t, fail, m.h, m.snapshot()
	*out = append(*out, Posted{EQ: q.h, Event: q.push(ev)})
}

// owe adjusts the events owed to the MD's queue by d.
func (ni *NI) owe(m *md, d int) {
	if q := ni.eqOf(m); q != nil {
		q.owed += d
	}
}

// begin registers an operation in flight on m: pending, owed END event, op table.
func (ni *NI) begin(kind opKind, m *md, ev Event) *op {
	o := ni.opFree.New(op{kind: kind, md: m, ev: ev, endOwed: m.endEvents()})
	m.pending++
	if o.endOwed {
		ni.owe(m, 1)
	}
	ni.ops[ev.Link] = o
	return o
}

// finish posts the END event of o (if owed), retires it, and unlinks its MD if that
// was the last operation on an inactive PTL_UNLINK MD: the UNLINK event then follows
// the END event.
func (ni *NI) finish(o *op, failed bool, out *[]Posted) {
	m := o.md
	if o.endOwed {
		fail := NIOK
		if failed {
			fail = NIFail
		}
		ni.owe(m, -1)
		ni.post(m, o.ev, endOf(o.kind), fail, out)
	}
	delete(ni.ops, o.ev.Link)
	ni.opFree.Take(o) // nothing names it any more (callers drop it with this call)
	m.pending--
	ni.autoUnlink(m, out)
}

func endOf(k opKind) EventType {
	switch k {
	case opSend:
		return EventSendEnd
	case opPut:
		return EventPutEnd
	case opGet:
		return EventGetEnd
	}
	return EventReplyEnd
}

// autoUnlink unlinks an inactive PTL_UNLINK MD with no operation in flight, posting
// the UNLINK event (Brightwell et al. 2005, s.3.1: MDs "can also be configured to be
// freed when they become inactive").
func (ni *NI) autoUnlink(m *md, out *[]Posted) {
	if m.pending > 0 || m.unlink != Unlink || m.active() {
		return
	}
	if m.singleEvents() {
		ni.post(m, m.unlinkEvent(), EventUnlink, NIOK, out)
	}
	ni.unlinkMD(m)
}

// unlinkMD releases an MD, and its match entry if that was created with PTL_UNLINK
// (an ME created with PTL_RETAIN stays, without MD, and is passed over by matching).
func (ni *NI) unlinkMD(m *md) {
	if e := m.me; e != nil {
		m.me, e.md = nil, nil
		if e.unlink == Unlink {
			ni.unlinkME(e)
		}
	}
	ni.freeMD(m)
}

// freeMD releases the handle of an MD detached from its ME and recycles its record and
// its inactivating event's: nothing names them any more.
func (ni *NI) freeMD(m *md) {
	ni.forgetLastEvent(m)
	ni.mds.release(uint64(m.h))
	ni.mdFree.Take(m)
}
