package ptl

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The 3.3 return codes carry their exact C names.
func TestErrnoNames(t *testing.T) {
	want := map[Errno]string{
		OK: "PTL_OK", ErrNoInit: "PTL_NO_INIT", ErrNIInvalid: "PTL_NI_INVALID",
		ErrPtIndexInvalid: "PTL_PT_INDEX_INVALID", ErrMEInvalid: "PTL_ME_INVALID",
		ErrMDInvalid: "PTL_MD_INVALID", ErrMDIllegal: "PTL_MD_ILLEGAL", ErrMDInUse: "PTL_MD_IN_USE",
		ErrMDNoUpdate: "PTL_MD_NO_UPDATE", ErrEQInvalid: "PTL_EQ_INVALID", ErrEQEmpty: "PTL_EQ_EMPTY",
		ErrEQDropped: "PTL_EQ_DROPPED", ErrNoSpace: "PTL_NO_SPACE", ErrProcessInvalid: "PTL_PROCESS_INVALID",
		ErrHandleInvalid: "PTL_HANDLE_INVALID", ErrSEGV: "PTL_SEGV", ErrIfaceInvalid: "PTL_IFACE_INVALID",
		ErrMEListTooLong: "PTL_ME_LIST_TOO_LONG", ErrMEInUse: "PTL_ME_IN_USE",
		ErrSRIndexInvalid: "PTL_SR_INDEX_INVALID", ErrFail: "PTL_FAIL", ErrPIDInvalid: "PTL_PID_INVALID",
		ErrPTFull: "PTL_PT_FULL", ErrACIndexInvalid: "PTL_AC_INDEX_INVALID", ErrUnknown: "PTL_UNKNOWN_ERROR",
	}
	for e := Errno(0); e < numErrno; e++ {
		assert.Equal(t, want[e], e.String(), "errno %d", int(e))
		assert.Equal(t, e.String(), e.Error())
	}
	assert.Equal(t, "Errno(99)", Errno(99).String())
	assert.Equal(t, OK, Code(nil))
	assert.Equal(t, ErrMDInUse, Code(ErrMDInUse))
	assert.Equal(t, ErrNoSpace, Code(fmt.Errorf("wrapped: %w", ErrNoSpace)))
	assert.Equal(t, ErrUnknown, Code(fmt.Errorf("other")))
}

// Event kinds, options, failure types and registers print as in C.
func TestConstantNames(t *testing.T) {
	assert.Equal(t, []string{"PTL_EVENT_GET_START", "PTL_EVENT_GET_END", "PTL_EVENT_PUT_START",
		"PTL_EVENT_PUT_END", "PTL_EVENT_REPLY_START", "PTL_EVENT_REPLY_END", "PTL_EVENT_SEND_START",
		"PTL_EVENT_SEND_END", "PTL_EVENT_ACK", "PTL_EVENT_UNLINK"},
		func() (s []string) {
			for e := EventGetStart; e <= EventUnlink; e++ {
				s = append(s, e.String())
			}
			return s
		}())
	assert.Equal(t, "PTL_MD_OP_PUT|PTL_MD_TRUNCATE|PTL_MD_EVENT_END_DISABLE",
		(MDOpPut | MDTruncate | MDEventEndDisable).String())
	assert.Equal(t, "0", Options(0).String())
	assert.Equal(t, "PTL_NI_OK", NIOK.String())
	assert.Equal(t, "PTL_NI_FAIL", NIFail.String())
	assert.Equal(t, "PTL_SR_DROP_COUNT", SRDropCount.String())
	assert.Equal(t, "PTL_UNLINK", Unlink.String())
	assert.Equal(t, "PTL_INS_BEFORE", InsBefore.String())
	assert.Equal(t, "PTL_ACK_REQ", AckReqd.String())
	assert.Equal(t, "PTL_EQ_NONE", EQNone.String())
	assert.Equal(t, "PTL_INVALID_HANDLE", MDHandle(0).String())
	assert.Equal(t, -1, ThreshInf)
}

// PtlNIInit: a wildcard node is not an interface, a wildcard pid not a process.
func TestConfigValidate(t *testing.T) {
	_, err := NewNI(Config{NID: NIDAny, PID: 1})
	assert.Equal(t, ErrIfaceInvalid, Code(err))
	_, err = NewNI(Config{NID: 1, PID: PIDAny})
	assert.Equal(t, ErrPIDInvalid, Code(err))
	_, err = NewNI(Config{NID: 1, PID: 1, Limits: Limits{MaxMEs: -1}})
	assert.Equal(t, ErrNoSpace, Code(err))
	assert.ErrorContains(t, err, "max_mes")
	ni, err := NewNI(Config{NID: 1, PID: 1, Limits: Limits{PtEntries: 8}})
	require.NoError(t, err)
	assert.Equal(t, 8, ni.Limits().PtEntries)
	assert.Equal(t, DefaultLimits().MaxMEs, ni.Limits().MaxMEs)
	assert.Equal(t, 64, DefaultLimits().PtEntries, "Brightwell et al. 2005 s.3.1: 64 portal table entries")
}

// Calls on a nil interface return PTL_NO_INIT; after PtlNIFini, PTL_NI_INVALID, and
// incoming messages are dropped.
func TestNoInitAndNIInvalid(t *testing.T) {
	var nilNI *NI
	_, err := nilNI.EQAlloc(4)
	assert.Equal(t, ErrNoInit, Code(err))
	_, err = nilNI.MEAttach(0, MatchAny(), 0, 0, Retain, InsAfter)
	assert.Equal(t, ErrNoInit, Code(err))
	assert.Equal(t, DropNIInvalid, nilNI.DeliverHeader(Header{Op: OpPut}).Reason)

	ni := newNI(t, 1, 1)
	require.NoError(t, ni.Fini())
	_, err = ni.EQAlloc(4)
	assert.Equal(t, ErrNIInvalid, Code(err))
	_, err = ni.MDBind(MD{}, Retain)
	assert.Equal(t, ErrNIInvalid, Code(err))
	assert.Equal(t, ErrNIInvalid, Code(ni.Fini()))
	d := ni.DeliverHeader(Header{Op: OpPut, Dst: ni.ID()})
	assert.False(t, d.Accepted)
	assert.Equal(t, DropNIInvalid, d.Reason)
}

// PtlNIStatus: PTL_SR_DROP_COUNT counts dropped messages; unknown registers are
// PTL_SR_INDEX_INVALID.
func TestNIStatusRegisters(t *testing.T) {
	a, b, _, _, f := pair(t)
	md, err := a.MDBind(sizeMD(8, 0, ThreshInf, EQNone), Retain)
	require.NoError(t, err)
	h, err := a.Put(md, NoAckReq, b.ID(), testPt, 1, 0, 0)
	require.NoError(t, err)
	f.put(a, h)
	n, err := b.Status(SRDropCount)
	require.NoError(t, err)
	assert.Equal(t, uint64(1), n)
	n, _ = b.Status(SRDropLength)
	assert.Equal(t, uint64(8), n)
	n, _ = a.Status(SRSendCount)
	assert.Equal(t, uint64(1), n)
	_, err = b.Status(SRIndex(99))
	assert.Equal(t, ErrSRIndexInvalid, Code(err))
}

// Handles carry a generation: a handle of an unlinked object stays invalid even when
// its slot is reused.
func TestStaleHandles(t *testing.T) {
	ni := newNI(t, 1, 1)
	me1, err := ni.MEAttach(0, MatchAny(), 0, 0, Retain, InsAfter)
	require.NoError(t, err)
	require.NoError(t, ni.MEUnlink(me1))
	me2, err := ni.MEAttach(0, MatchAny(), 0, 0, Retain, InsAfter)
	require.NoError(t, err)
	assert.NotEqual(t, me1, me2)
	assert.Equal(t, ErrMEInvalid, Code(ni.MEUnlink(me1)))
	_, err = ni.MDAttach(me1, MD{}, Retain)
	assert.Equal(t, ErrMEInvalid, Code(err))

	md1, err := ni.MDBind(MD{}, Retain)
	require.NoError(t, err)
	require.NoError(t, ni.MDUnlink(md1))
	_, err = ni.MDBind(MD{}, Retain)
	require.NoError(t, err)
	assert.Equal(t, ErrMDInvalid, Code(ni.MDUnlink(md1)))
	_, err = ni.MDUpdate(md1, nil, EQNone)
	assert.Equal(t, ErrMDInvalid, Code(err))
	assert.Equal(t, ErrMEInvalid, Code(ni.MEUnlink(MEHandle(InvalidHandle))))
}

// Limits: PTL_PT_INDEX_INVALID, PTL_ME_LIST_TOO_LONG, PTL_NO_SPACE for MEs, MDs and EQs.
func TestLimits(t *testing.T) {
	ni, err := NewNI(Config{NID: 1, PID: 1, Limits: Limits{PtEntries: 2, MaxMEs: 3, MaxMDs: 1, MaxEQs: 1, MaxMEList: 2}})
	require.NoError(t, err)
	_, err = ni.MEAttach(2, MatchAny(), 0, 0, Retain, InsAfter)
	assert.Equal(t, ErrPtIndexInvalid, Code(err))
	_, err = ni.MEs(2)
	assert.Equal(t, ErrPtIndexInvalid, Code(err))
	base, err := ni.MEAttach(0, MatchAny(), 0, 0, Retain, InsAfter)
	require.NoError(t, err)
	_, err = ni.MEInsert(base, MatchAny(), 0, 0, Retain, InsAfter)
	require.NoError(t, err)
	_, err = ni.MEAttach(0, MatchAny(), 0, 0, Retain, InsAfter)
	assert.Equal(t, ErrMEListTooLong, Code(err))
	_, err = ni.MEInsert(base, MatchAny(), 0, 0, Retain, InsBefore)
	assert.Equal(t, ErrMEListTooLong, Code(err))
	_, err = ni.MEAttach(1, MatchAny(), 0, 0, Retain, InsAfter)
	require.NoError(t, err)
	_, err = ni.MEAttach(1, MatchAny(), 0, 0, Retain, InsAfter)
	assert.Equal(t, ErrNoSpace, Code(err), "MaxMEs")

	_, err = ni.MDAttach(base, MD{}, Retain)
	require.NoError(t, err)
	_, err = ni.MDBind(MD{}, Retain)
	assert.Equal(t, ErrNoSpace, Code(err), "MaxMDs")
	_, err = ni.EQAlloc(1)
	require.NoError(t, err)
	_, err = ni.EQAlloc(1)
	assert.Equal(t, ErrNoSpace, Code(err), "MaxEQs")
}

// PtlMEAttach puts an entry at the head (before) or tail (after) of the match list;
// PtlMEInsert puts it before or after a base entry; matching walks the list in order.
func TestMEInsertBeforeAfter(t *testing.T) {
	ni := newNI(t, 1, 1)
	att := func(pos InsPos) MEHandle {
		h, err := ni.MEAttach(testPt, MatchAny(), 0, 0, Retain, pos)
		require.NoError(t, err)
		return h
	}
	ins := func(base MEHandle, pos InsPos) MEHandle {
		h, err := ni.MEInsert(base, MatchAny(), 0, 0, Retain, pos)
		require.NoError(t, err)
		return h
	}
	a := att(InsAfter)
	b := att(InsAfter)
	c := att(InsBefore)
	d := ins(a, InsAfter)
	e := ins(c, InsBefore)
	g := ins(b, InsAfter)
	list, err := ni.MEs(testPt)
	require.NoError(t, err)
	assert.Equal(t, []MEHandle{e, c, a, d, b, g}, list)

	require.NoError(t, ni.MEUnlink(d))
	list, _ = ni.MEs(testPt)
	assert.Equal(t, []MEHandle{e, c, a, b, g}, list)

	// Matching takes the first entry of the list that accepts.
	mds := map[MEHandle]MDHandle{}
	for _, me := range list {
		mdh, err := ni.MDAttach(me, sizeMD(8, MDOpPut, 1, EQNone), Retain)
		require.NoError(t, err)
		mds[me] = mdh
	}
	src := ProcessID{NID: 9, PID: 9}
	for _, want := range list {
		d := ni.DeliverHeader(Header{Op: OpPut, Src: src, Dst: ni.ID(), PtIndex: testPt, Length: 4})
		require.True(t, d.Accepted)
		assert.Equal(t, want, d.ME)
		assert.Equal(t, mds[want], d.MD)
		_, err := ni.Complete(d, false)
		require.NoError(t, err)
	}
	_, err = ni.MEInsert(MEHandle(12345), MatchAny(), 0, 0, Retain, InsAfter)
	assert.Equal(t, ErrMEInvalid, Code(err))
}

// PtlMEAttachAny takes the lowest portal index with an empty match list; PTL_PT_FULL
// when there is none.
func TestMEAttachAny(t *testing.T) {
	ni, err := NewNI(Config{NID: 1, PID: 1, Limits: Limits{PtEntries: 2}})
	require.NoError(t, err)
	_, err = ni.MEAttach(0, MatchAny(), 0, 0, Retain, InsAfter)
	require.NoError(t, err)
	pt, me, err := ni.MEAttachAny(MatchAny(), 0, 0, Retain)
	require.NoError(t, err)
	assert.Equal(t, PtIndex(1), pt)
	_, _, err = ni.MEAttachAny(MatchAny(), 0, 0, Retain)
	assert.Equal(t, ErrPTFull, Code(err))
	require.NoError(t, ni.MEUnlink(me))
	pt, _, err = ni.MEAttachAny(MatchAny(), 0, 0, Retain)
	require.NoError(t, err)
	assert.Equal(t, PtIndex(1), pt)
}

// PtlMDAttach on an entry that has an MD: PTL_ME_IN_USE. PtlMEUnlink and PtlMDUnlink
// with an operation in flight: PTL_ME_IN_USE, PTL_MD_IN_USE. PtlMEUnlink also
// unlinks the MD.
func TestUnlinkInUse(t *testing.T) {
	ni := newNI(t, 1, 1)
	me, mdh := recvME(t, ni, 0, sizeMD(8, MDOpPut, ThreshInf, EQNone), Retain, Retain)
	_, err := ni.MDAttach(me, MD{}, Retain)
	assert.Equal(t, ErrMEInUse, Code(err))

	d := ni.DeliverHeader(Header{Op: OpPut, Dst: ni.ID(), PtIndex: testPt, Length: 4})
	require.True(t, d.Accepted)
	assert.Equal(t, ErrMEInUse, Code(ni.MEUnlink(me)))
	assert.Equal(t, ErrMDInUse, Code(ni.MDUnlink(mdh)))
	_, err = ni.Complete(d, false)
	require.NoError(t, err)
	require.NoError(t, ni.MEUnlink(me))
	_, err = ni.MDStatus(mdh)
	assert.Equal(t, ErrMDInvalid, Code(err), "the MD went with its ME")
}

// Explicit unlinks post no UNLINK event; an MD unlink takes an ME created with
// PTL_UNLINK with it, and leaves one created with PTL_RETAIN.
func TestExplicitUnlinkPostsNoEvent(t *testing.T) {
	ni := newNI(t, 1, 1)
	q, err := ni.EQAlloc(8)
	require.NoError(t, err)
	me1, md1 := recvME(t, ni, 1, sizeMD(8, MDOpPut, ThreshInf, q), Unlink, Unlink)
	me2, md2 := recvME(t, ni, 2, sizeMD(8, MDOpPut, ThreshInf, q), Retain, Unlink)
	require.NoError(t, ni.MDUnlink(md1))
	require.NoError(t, ni.MDUnlink(md2))
	assert.Empty(t, drain(t, ni, q))
	list, _ := ni.MEs(testPt)
	assert.Equal(t, []MEHandle{me2}, list)
	assert.Equal(t, ErrMEInvalid, Code(ni.MEUnlink(me1)))
	_, err = ni.MDAttach(me2, sizeMD(8, MDOpPut, 1, q), Retain)
	assert.NoError(t, err, "a retained ME takes a new MD")
}

// The transport entry points refuse operations that are not in flight.
func TestTransportMisuse(t *testing.T) {
	a, b, _, _, _ := pair(t)
	md, err := a.MDBind(sizeMD(8, 0, ThreshInf, EQNone), Retain)
	require.NoError(t, err)
	h, err := a.Put(md, NoAckReq, b.ID(), testPt, 0, 0, 0)
	require.NoError(t, err)
	_, err = a.SendStarted(h)
	require.NoError(t, err)
	_, err = a.SendStarted(h)
	assert.Equal(t, ErrFail, Code(err))
	_, err = a.SendDone(h, false)
	require.NoError(t, err)
	_, err = a.SendDone(h, false)
	assert.Equal(t, ErrFail, Code(err))
	_, err = a.SendData(h)
	assert.Equal(t, ErrFail, Code(err))

	recvME(t, b, 0, sizeMD(8, MDOpPut, ThreshInf, EQNone), Retain, Retain)
	h, err = a.Put(md, NoAckReq, b.ID(), testPt, 0, 0, 0)
	require.NoError(t, err)
	d := b.DeliverHeader(h)
	require.True(t, d.Accepted)
	_, err = b.Complete(d, false)
	require.NoError(t, err)
	_, err = b.Complete(d, false)
	assert.Equal(t, ErrFail, Code(err))
	_, err = a.Complete(d, false)
	assert.Equal(t, ErrFail, Code(err), "another NI's delivery")
	_, err = a.SendDone(h, false)
	require.NoError(t, err)
	assert.Zero(t, a.InFlight())
	assert.Zero(t, b.InFlight())
}

// Put and Get validate their MD and target: PTL_MD_INVALID (no MD, or inactive),
// PTL_PROCESS_INVALID (wildcard target), PTL_MD_ILLEGAL (region beyond the MD).
func TestPutGetValidation(t *testing.T) {
	a, b, _, _, _ := pair(t)
	md, err := a.MDBind(sizeMD(8, 0, 1, EQNone), Retain)
	require.NoError(t, err)
	_, err = a.Put(MDHandle(777), NoAckReq, b.ID(), 0, 0, 0, 0)
	assert.Equal(t, ErrMDInvalid, Code(err))
	_, err = a.Put(md, NoAckReq, ProcessID{NID: NIDAny, PID: 20}, 0, 0, 0, 0)
	assert.Equal(t, ErrProcessInvalid, Code(err))
	_, err = a.Get(md, ProcessID{NID: 2, PID: PIDAny}, 0, 0, 0)
	assert.Equal(t, ErrProcessInvalid, Code(err))
	_, err = a.PutRegion(md, 4, 5, NoAckReq, b.ID(), 0, 0, 0, 0)
	assert.Equal(t, ErrMDIllegal, Code(err))
	_, err = a.GetRegion(md, 9, 0, b.ID(), 0, 0, 0)
	assert.Equal(t, ErrMDIllegal, Code(err))
	_, err = a.PutRegion(md, 8, 0, NoAckReq, b.ID(), 0, 0, 0, 0)
	require.NoError(t, err, "an empty region at the end is legal")
	_, err = a.Put(md, NoAckReq, b.ID(), 0, 0, 0, 0)
	assert.Equal(t, ErrMDInvalid, Code(err), "threshold exhausted: the MD is inactive")
}

// PtlMDAttach / PtlMDBind reject illegal descriptors and unknown event queues.
func TestMDIllegal(t *testing.T) {
	ni, err := NewNI(Config{NID: 1, PID: 1, Limits: Limits{MaxMDIovecs: 2}})
	require.NoError(t, err)
	_, err = ni.MDBind(MD{Options: 1 << 20}, Retain)
	assert.Equal(t, ErrMDIllegal, Code(err), "unknown option")
	_, err = ni.MDBind(MD{Length: 4, Buf: make([]byte, 3)}, Retain)
	assert.Equal(t, ErrMDIllegal, Code(err), "buffer shorter than length")
	_, err = ni.MDBind(MD{Iov: []Region{{Len: 1}}}, Retain)
	assert.Equal(t, ErrMDIllegal, Code(err), "regions without PTL_MD_IOVEC")
	_, err = ni.MDBind(MD{Options: MDIovec, Iov: make([]Region, 3)}, Retain)
	assert.Equal(t, ErrMDIllegal, Code(err), "more regions than max_md_iovecs")
	_, err = ni.MDBind(MD{Options: MDIovec, Iov: []Region{{Len: 2, Buf: []byte{1}}}}, Retain)
	assert.Equal(t, ErrMDIllegal, Code(err))
	_, err = ni.MDBind(MD{EQ: EQHandle(99)}, Retain)
	assert.Equal(t, ErrEQInvalid, Code(err))
	h, err := ni.MDBind(MD{Options: MDIovec, Iov: make([]Region, 2), Threshold: -5}, Retain)
	require.NoError(t, err)
	st, err := ni.MDStatus(h)
	require.NoError(t, err)
	assert.Equal(t, 0, st.MD.Threshold, "a negative threshold counts as 0")
	assert.False(t, st.Active)
	assert.Equal(t, MEHandle(InvalidHandle), st.ME)
}

// Messages, events and deliveries have stable one-line forms for logs and goldens.
func TestStrings(t *testing.T) {
	a, b, aq, _, _ := pair(t)
	recvME(t, b, 0x2a, sizeMD(4, MDOpPut|MDTruncate, ThreshInf, EQNone), Retain, Retain)
	src, err := a.MDBind(sizeMD(8, 0, ThreshInf, aq), Retain)
	require.NoError(t, err)
	h, err := a.Put(src, AckReqd, b.ID(), testPt, 0x2a, 0, 0)
	require.NoError(t, err)
	assert.Equal(t, "put 1/10->2/20 pt4 bits=0x2a len=8 ack", h.String())
	d := b.DeliverHeader(h)
	assert.Equal(t, "accept put 1/10->2/20 pt4 bits=0x2a len=8 ack into md0.1 off=0 mlen=4", d.String())
	assert.Equal(t, "ack 2/20->1/10 pt4 bits=0x2a len=8 mlen=4", d.Response.String())
	assert.Equal(t, "0x20000+4", d.Regions[0].String())
	p, err := a.SendDone(h, true)
	require.NoError(t, err)
	assert.Equal(t, "#1 PTL_EVENT_SEND_END 1/10 link=1 pt4 bits=0x2a rlen=8 mlen=8 off=0 PTL_NI_FAIL", p[1].Event.String())
	h.PtIndex = 99
	assert.Equal(t, "drop put 1/10->2/20 pt99 bits=0x2a len=8 ack (pt-index-invalid)", b.DeliverHeader(h).String())
	assert.Equal(t, "*/3 j7 u*", MatchID{NID: NIDAny, PID: 3, JID: 7, UID: UIDAny}.String())
	assert.Equal(t, "eq0.1", aq.String())
	assert.Equal(t, "me0.1", MEHandle(1<<32|1).String())
	assert.Equal(t, JID(7), a.JID())
	assert.Equal(t, UID(100), a.UID())
	assert.Equal(t, []string{"put", "get", "ack", "reply", "Op(9)"},
		[]string{OpPut.String(), OpGet.String(), OpAck.String(), OpReply.String(), Op(9).String()})
}
