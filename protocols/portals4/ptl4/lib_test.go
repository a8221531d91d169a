package ptl4

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// pair is two processes on nodes 0 and 1 whose messages are carried at once.
type pair struct {
	libs [2]*Lib
	mem  [2]*Space
}

func newPair(t *testing.T) *pair {
	p := &pair{}
	for i := range p.libs {
		p.mem[i] = &Space{}
		p.libs[i] = New(p.mem[i], uint32(i), 1, 1000)
		require.Equal(t, OK, p.libs[i].Init())
	}
	return p
}

// pump delivers every queued message (requests, then their responses) and reports
// local completion (Sent) as each request leaves.
func (p *pair) pump() {
	for again := true; again; {
		again = false
		for _, l := range p.libs {
			out := l.Outbox
			l.Outbox = nil
			for _, m := range out {
				again = true
				dst := p.libs[m.Dst.NID]
				if m.Op.Response() {
					dst.Complete(m)
					continue
				}
				l.Sent(m)
				if r := dst.Deliver(m); r != nil {
					dst.Outbox = append(dst.Outbox, r)
				}
			}
		}
	}
}

func (p *pair) ni(t *testing.T, i int, opt uint32) Handle {
	h, _, r := p.libs[i].NIInit(IfaceDef, opt, PIDAny, nil)
	require.Equal(t, OK, r)
	return h
}

func drain(t *testing.T, l *Lib, eq Handle) []EventKind {
	var got []EventKind
	for {
		ev, r := l.EQGet(eq)
		if r == EQEmpty {
			return got
		}
		require.Contains(t, []Ret{OK, EQDropped}, r)
		got = append(got, ev.Type)
	}
}

func TestPutMatchesFirstEntryAndAcks(t *testing.T) {
	p := newPair(t)
	ni0, ni1 := p.ni(t, 0, NIMatching|NIPhysical), p.ni(t, 1, NIMatching|NIPhysical)
	eq0, _ := p.libs[0].EQAlloc(ni0, 8)
	eq1, _ := p.libs[1].EQAlloc(ni1, 8)
	pt, r := p.libs[1].PTAlloc(ni1, 0, eq1, PTAny)
	require.Equal(t, OK, r)
	recv := p.mem[1].Alloc(64)
	any := ProcessID{NID: NIDAny, PID: PIDAny}
	_, r = p.libs[1].Append(ni1, pt, ME{Start: recv, Length: 64, Options: MEOpPut | MEUseOnce, MatchID: any, MatchBits: 7, CT: CTNone, UID: UIDAny}, Priority, 42, false)
	require.Equal(t, OK, r)
	send := p.mem[0].Alloc(16)
	copy(p.mem[0].Bytes(send, 16), "portals four....")
	md, r := p.libs[0].MDBind(ni0, MD{Start: send, Length: 16, EQ: eq0, CT: CTNone})
	require.Equal(t, OK, r)
	require.Equal(t, OK, p.libs[0].Start(Args{Kind: MsgPut, MD: md, Length: 16, Ack: Ack, Target: ProcessID{NID: 1, PID: 1}, PT: pt, Match: 7, UserPtr: 9}))
	require.Equal(t, ArgInvalid, p.libs[0].MDRelease(md), "an MD with an operation in flight is busy")
	p.pump()
	require.Equal(t, "portals four....", string(p.mem[1].Bytes(recv, 16)))
	require.Equal(t, []EventKind{EvLink, EvPut, EvAutoUnlink}, drain(t, p.libs[1], eq1))
	require.Equal(t, []EventKind{EvSend, EvAck}, drain(t, p.libs[0], eq0))
	require.Equal(t, OK, p.libs[0].MDRelease(md))
	// The use-once entry is gone: the next put is dropped, and the ack says so.
	md, _ = p.libs[0].MDBind(ni0, MD{Start: send, Length: 16, EQ: eq0, CT: CTNone})
	require.Equal(t, OK, p.libs[0].Start(Args{Kind: MsgPut, MD: md, Length: 16, Ack: Ack, Target: ProcessID{NID: 1, PID: 1}, PT: pt, Match: 7}))
	p.pump()
	ev, _ := p.libs[0].EQGet(eq0)
	require.Equal(t, EvSend, ev.Type)
	ev, _ = p.libs[0].EQGet(eq0)
	require.Equal(t, EvAck, ev.Type)
	require.Equal(t, NIDropped, ev.NIFail)
	drops, _ := p.libs[1].NIStatus(ni1, SRDropCount)
	require.Equal(t, uint64(1), drops)
}

func TestFlowControlDisablesPT(t *testing.T) {
	p := newPair(t)
	ni0, ni1 := p.ni(t, 0, NINoMatching|NIPhysical), p.ni(t, 1, NINoMatching|NIPhysical)
	eq0, _ := p.libs[0].EQAlloc(ni0, 8)
	eq1, _ := p.libs[1].EQAlloc(ni1, 8)
	pt, r := p.libs[1].PTAlloc(ni1, PTFlowCtrl, eq1, 3)
	require.Equal(t, OK, r)
	send := p.mem[0].Alloc(8)
	md, _ := p.libs[0].MDBind(ni0, MD{Start: send, Length: 8, EQ: eq0, CT: CTNone})
	require.Equal(t, OK, p.libs[0].Start(Args{Kind: MsgPut, MD: md, Length: 8, Ack: Ack, Target: ProcessID{NID: 1, PID: 1}, PT: pt}))
	p.pump()
	ev, r := p.libs[1].EQGet(eq1)
	require.Equal(t, OK, r)
	require.Equal(t, EvPTDisabled, ev.Type)
	require.Equal(t, NIPTDisabled, ev.NIFail)
	require.Equal(t, []EventKind{EvSend, EvAck}, drain(t, p.libs[0], eq0))
}

func TestTriggeredOpsFireInThresholdOrder(t *testing.T) {
	p := newPair(t)
	ni := p.ni(t, 0, NIMatching|NIPhysical)
	ctr, _ := p.libs[0].CTAlloc(ni)
	a, _ := p.libs[0].CTAlloc(ni)
	b, _ := p.libs[0].CTAlloc(ni)
	require.Equal(t, OK, p.libs[0].TriggeredCT(a, CTEvent{Success: 5}, true, ctr, 2))
	require.Equal(t, OK, p.libs[0].TriggeredCT(b, CTEvent{Success: 1}, false, ctr, 1))
	require.Equal(t, OK, p.libs[0].TriggeredCT(a, CTEvent{Success: 1}, false, ctr, 2))
	require.Equal(t, OK, p.libs[0].CTInc(ctr, CTEvent{Success: 1}))
	v, _ := p.libs[0].CTGet(b)
	require.Equal(t, uint64(1), v.Success)
	v, _ = p.libs[0].CTGet(a)
	require.Equal(t, uint64(0), v.Success, "threshold 2 not reached yet")
	require.Equal(t, OK, p.libs[0].CTInc(ctr, CTEvent{Success: 1}))
	v, _ = p.libs[0].CTGet(a)
	require.Equal(t, uint64(6), v.Success, "set to 5, then incremented: registration order within a threshold")
}

func TestAtomics(t *testing.T) {
	le := func(v uint64, n int) []byte {
		b := make([]byte, n)
		putUint(b, v)
		return b
	}
	tgt := le(uint64(0xff), 1) // int8 -1
	apply(OpMax, Int8, tgt, le(3, 1), nil)
	require.Equal(t, byte(3), tgt[0], "signed max(-1, 3)")
	tgt = le(0xff, 1)
	apply(OpMax, Uint8, tgt, le(3, 1), nil)
	require.Equal(t, byte(0xff), tgt[0], "unsigned max(255, 3)")
	tgt = le(10, 4)
	apply(OpCSwapLT, Int32, tgt, le(99, 4), le(5, 4))
	require.Equal(t, uint64(99), getUint(tgt), "operand 5 < target 10: swapped")
	tgt = le(0b1100, 2)
	apply(OpMSwap, Uint16, tgt, le(0b1010, 2), le(0b0110, 2))
	require.Equal(t, uint64(0b1010), getUint(tgt))
	require.False(t, legal(OpBAnd, Double))
	require.False(t, legal(OpMin, DoubleComplex))
	require.True(t, legal(OpCSwapNE, LongDoubleComplex))
}

func TestX87RoundTrip(t *testing.T) {
	b := make([]byte, 16)
	for _, v := range []float64{0, 1, -2.5, 0.1948812180333465, math.MaxFloat64, math.SmallestNonzeroFloat64, math.Inf(-1)} {
		Float64ToX87(b, v)
		require.Equal(t, v, X87ToFloat64(b), "%g", v)
	}
	Float64ToX87(b, 1)
	require.Equal(t, []byte{0, 0, 0, 0, 0, 0, 0, 0x80, 0xff, 0x3f}, b[:10], "1.0 in extended precision")
}

func TestOverflowListAndSearch(t *testing.T) {
	p := newPair(t)
	ni0, ni1 := p.ni(t, 0, NIMatching|NIPhysical), p.ni(t, 1, NIMatching|NIPhysical)
	eq1, _ := p.libs[1].EQAlloc(ni1, 16)
	pt, _ := p.libs[1].PTAlloc(ni1, 0, eq1, 0)
	ov := p.mem[1].Alloc(64)
	_, r := p.libs[1].Append(ni1, pt, ME{Start: ov, Length: 64, Options: MEOpPut | MEManageLocal | MELinkDisable,
		MatchID: ProcessID{NIDAny, PIDAny}, IgnoreBits: ^uint64(0), CT: CTNone, UID: UIDAny}, Overflow, 5, false)
	require.Equal(t, OK, r)
	send := p.mem[0].Alloc(8)
	md, _ := p.libs[0].MDBind(ni0, MD{Start: send, Length: 8, EQ: EQNone, CT: CTNone})
	for bits := uint64(1); bits <= 2; bits++ {
		require.Equal(t, OK, p.libs[0].Start(Args{Kind: MsgPut, MD: md, Length: 8, Target: ProcessID{NID: 1, PID: 1}, PT: pt, Match: bits}))
	}
	p.pump()
	ev, _ := p.libs[1].EQGet(eq1)
	require.Equal(t, EvPut, ev.Type)
	require.Equal(t, Overflow, ev.List)
	ev, _ = p.libs[1].EQGet(eq1)
	require.Equal(t, ov+8, ev.Start, "managed locally: the second put lands after the first")
	require.Equal(t, uint64(0), ev.RemoteOffset, "the target event reports the offset the initiator asked for")
	// Search for bits 2 finds it without consuming it; a priority append of bits 1
	// takes the first unexpected header.
	probe := ME{MatchID: ProcessID{NIDAny, PIDAny}, MatchBits: 2, CT: CTNone}
	require.Equal(t, OK, p.libs[1].Search(ni1, pt, probe, SearchOnly, 77, false))
	ev, _ = p.libs[1].EQGet(eq1)
	require.Equal(t, EvSearch, ev.Type)
	require.Equal(t, NIOK, ev.NIFail)
	require.Equal(t, uint64(77), ev.UserPtr)
	recv := p.mem[1].Alloc(8)
	_, r = p.libs[1].Append(ni1, pt, ME{Start: recv, Length: 8, Options: MEOpPut | MEUseOnce, MatchID: ProcessID{NIDAny, PIDAny},
		MatchBits: 1, CT: CTNone, UID: UIDAny}, Priority, 9, false)
	require.Equal(t, OK, r)
	ev, _ = p.libs[1].EQGet(eq1)
	require.Equal(t, EvPutOverflow, ev.Type)
	require.Equal(t, uint64(9), ev.UserPtr)
	require.Equal(t, uint64(8), ev.MLength)
	ev, _ = p.libs[1].EQGet(eq1)
	require.Equal(t, EvAutoUnlink, ev.Type, "a use-once entry used up by an unexpected header is never linked")
	require.Equal(t, OK, p.libs[1].Search(ni1, pt, ME{MatchID: ProcessID{NIDAny, PIDAny}, MatchBits: 1, CT: CTNone}, SearchOnly, 0, false))
	ev, _ = p.libs[1].EQGet(eq1)
	require.Equal(t, NINoMatch, ev.NIFail)
}

func TestEQOverflowReportsDropped(t *testing.T) {
	p := newPair(t)
	ni := p.ni(t, 0, NIMatching|NIPhysical)
	eq, _ := p.libs[0].EQAlloc(ni, 2)
	ct, _ := p.libs[0].CTAlloc(ni)
	pt, _ := p.libs[0].PTAlloc(ni, 0, eq, 0)
	for i := range 3 {
		_, r := p.libs[0].Append(ni, pt, ME{Options: MEOpPut, MatchID: ProcessID{NIDAny, PIDAny}, MatchBits: uint64(i), CT: ct, UID: UIDAny}, Priority, uint64(i), false)
		require.Equal(t, OK, r)
	}
	ev, r := p.libs[0].EQGet(eq)
	require.Equal(t, EQDropped, r)
	require.Equal(t, uint64(1), ev.UserPtr, "the oldest event left")
	ev, r = p.libs[0].EQGet(eq)
	require.Equal(t, OK, r)
	require.Equal(t, uint64(2), ev.UserPtr)
	_, r = p.libs[0].EQGet(eq)
	require.Equal(t, EQEmpty, r)
}
