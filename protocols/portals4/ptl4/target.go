package ptl4

import "github.com/seastar-sim/seastar/actors"

// Deliver processes request m at this process, the target, and returns the response
// to send back: the reply of a get, fetch or swap, the ack a put or atomic asked for,
// or nil.
func (l *Lib) Deliver(m *Msg) *Msg {
	// The response is built here and copied into a message only if one is sent (an
	// ack was asked for, or a reply is due).
	resp := Msg{Op: MsgAck, Src: m.Dst, Dst: m.Src, NI: m.NI, PT: m.PT, Match: m.Match, ReqID: m.ReqID,
		AtomOp: m.AtomOp, Type: m.Type, Offset: m.Offset}
	want := m.Ack != NoAck
	if m.Op == MsgGet || m.Op == MsgFetch || m.Op == MsgSwap {
		resp.Op, want = MsgReply, true
	}
	answer := func(f NIFail) *Msg {
		if !want {
			return nil
		}
		resp.NIFail = f
		return msgs.New(resp)
	}
	n := l.nis[m.NI]
	if n == nil || l.inits == 0 {
		return answer(NIUndeliverable)
	}
	if m.PT >= uint32(len(n.pts)) || !n.pts[m.PT].alloc {
		n.status[SRDropCount]++
		return answer(NIDropped)
	}
	p := &n.pts[m.PT]
	initiator := m.Src
	if n.logical() {
		initiator = ProcessID{NID: m.SrcRank}
	}
	ev := Event{Type: commKind(m.Op), Initiator: initiator, PTIndex: m.PT, UID: m.UID, MatchBits: m.Match,
		RLength: m.Length, HdrData: m.HdrData, AtomicOp: m.AtomOp, AtomicType: m.Type}
	if !p.enabled {
		n.status[SRDropCount]++
		return answer(NIPTDisabled)
	}
	flow := p.opt&PTFlowCtrl != 0
	if q := l.eqOf(n, p.eq); flow && q != nil && q.room() < 2 { // no room for this message's events
		l.disable(n, p, ev, false)
		return answer(NIPTDisabled)
	}
	e, list := l.find(n, p, m)
	if e == nil {
		if flow {
			l.disable(n, p, ev, false)
			return answer(NIPTDisabled)
		}
		n.status[SRDropCount]++
		return answer(NIDropped)
	}
	if e.d.UID != UIDAny && e.d.UID != m.UID {
		n.status[SRPermViolations]++
		return answer(NIPermViolation)
	}
	needPut := m.Op != MsgGet
	needGet := m.Op == MsgGet || m.Op == MsgFetch || m.Op == MsgSwap
	if needPut && e.d.Options&MEOpPut == 0 || needGet && e.d.Options&MEOpGet == 0 {
		n.status[SROpViolations]++
		return answer(NIOpViolation)
	}
	keep := list == Overflow && e.d.Options&MEUnexpectedHdrDis == 0
	if keep && n.unexp >= n.lim.MaxUnexpectedHeaders {
		if flow {
			l.disable(n, p, ev, e.d.Options&MEFlowCtrlDisable != 0)
			return answer(NIPTDisabled)
		}
		n.status[SRDropCount]++
		return answer(NIDropped)
	}
	off := m.Offset
	if e.d.Options&MEManageLocal != 0 {
		off = e.localOff
	}
	mlength := uint64(0)
	if off < e.buf.total {
		mlength = min(m.Length, e.buf.total-off)
	}
	fail := l.move(m, &resp, e, off, mlength)
	if e.d.Options&MEManageLocal != 0 {
		e.localOff += mlength
	}
	// At the target the event reports the offset the initiator asked for; the ack or
	// reply tells the initiator the one used (a locally managed one, say).
	ev.MLength, ev.RemoteOffset, ev.Start, ev.UserPtr, ev.List, ev.NIFail = mlength, m.Offset, e.buf.addr(off), e.userPtr, list, fail
	l.post(n, p.eq, ev, e.d.Options&MECommDisable != 0 || fail == NIOK && e.d.Options&MESuccessDisable != 0)
	l.countEntry(n, e, mlength, false)
	if keep {
		u := l.uhdrs.New(uhdr{m: *m, ev: ev, ov: e, mlength: mlength})
		u.m.Data, u.m.Operand, u.m.payload, u.m.PoolMark = nil, nil, nil, actors.PoolMark{} // the header's own copy
		u.m.refs = actors.Refs{}
		p.unexp = append(p.unexp, u)
		e.uhRefs++
		n.unexp++
	}
	if e.d.Options&MEUseOnce != 0 || l.full(e) {
		l.autoUnlink(n, p, e)
	}
	resp.MLength, resp.Offset, resp.List = mlength, off, list
	return answer(fail)
}

// move performs the data movement of m on entry e.
func (l *Lib) move(m, resp *Msg, e *entry, off, mlength uint64) NIFail {
	l.Work.Bytes += int64(mlength)
	switch m.Op {
	case MsgPut:
		if !e.buf.write(l.mem, off, m.Data[:mlength]) {
			return NISegv
		}
	case MsgGet:
		resp.Data = resp.newPayload(mlength)
		if !e.buf.read(l.mem, off, resp.Data) {
			return NISegv
		}
	case MsgAtomic, MsgFetch, MsgSwap:
		t := make([]byte, mlength)
		if !e.buf.read(l.mem, off, t) {
			return NISegv
		}
		if m.Op != MsgAtomic {
			resp.Data = append([]byte(nil), t...)
		}
		l.Work.Elements += int64(apply(m.AtomOp, m.Type, t, m.Data[:mlength], m.Operand))
		if !e.buf.write(l.mem, off, t) {
			return NISegv
		}
	}
	return NIOK
}

func commKind(o MsgOp) EventKind {
	switch o {
	case MsgGet:
		return EvGet
	case MsgAtomic:
		return EvAtomic
	case MsgFetch, MsgSwap:
		return EvFetchAtomic
	}
	return EvPut
}

// disable turns flow control on: the PT stops accepting messages and its owner hears
// of it (PTL_EVENT_PT_DISABLED), unless the entry that ran out of resources has
// PTL_ME_EVENT_FLOWCTRL_DISABLE (quiet).
func (l *Lib) disable(n *ni, p *pt, ev Event, quiet bool) {
	n.status[SRDropCount]++
	if !p.enabled {
		return
	}
	p.enabled = false
	ev.Type, ev.NIFail = EvPTDisabled, NIPTDisabled
	l.post(n, p.eq, ev, quiet)
}

// find returns the entry m matches: the first in the priority list, else the first
// in the overflow list.
func (l *Lib) find(n *ni, p *pt, m *Msg) (*entry, List) {
	for list := Priority; list <= Overflow; list++ {
		for _, e := range p.lists[list] {
			l.Work.Walked++
			if l.matches(n, e, m) {
				return e, list
			}
		}
	}
	return nil, Priority
}

// matches reports whether request m matches entry e: match bits and initiator on a
// matching interface, and room for the whole message on a NO_TRUNCATE entry.
func (l *Lib) matches(n *ni, e *entry, m *Msg) bool {
	if !e.le {
		if (m.Match^e.d.MatchBits)&^e.d.IgnoreBits != 0 {
			return false
		}
		id := e.d.MatchID
		if n.logical() {
			if id.NID != RankAny && id.NID != m.SrcRank {
				return false
			}
		} else {
			if id.NID != NIDAny && id.NID != m.Src.NID || id.PID != PIDAny && id.PID != m.Src.PID {
				return false
			}
		}
		if e.d.Options&MENoTruncate != 0 {
			off := m.Offset
			if e.d.Options&MEManageLocal != 0 {
				off = e.localOff
			}
			if off > e.buf.total || m.Length > e.buf.total-off {
				return false
			}
		}
	}
	return true
}

// Probe returns how many list entries matching request m would examine now (the
// priority list, then the overflow list, up to the entry it matches), with no effect:
// the match work a match unit is handed.
func (l *Lib) Probe(m *Msg) int {
	n := l.nis[m.NI]
	if n == nil || m.PT >= uint32(len(n.pts)) || !n.pts[m.PT].alloc {
		return 0
	}
	before := l.Work.Walked
	l.find(n, &n.pts[m.PT], m)
	walked := l.Work.Walked - before
	l.Work.Walked = before
	return int(walked)
}
