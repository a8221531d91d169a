package ptl

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A put with ack posts SEND_START, SEND_END and ACK at the initiator and PUT_START,
// PUT_END at the target (Brightwell et al. 2005, s.3.1, figure 2), in that order, each
// carrying the fields of the operation.
func TestEventsInOrder(t *testing.T) {
	a, b, aq, bq, f := pair(t)
	dst := make([]byte, 32)
	md := bufMD(dst, MDOpPut, ThreshInf, bq)
	md.UserPtr = 0xB0B
	_, tmd := recvME(t, b, 0x77, md, Retain, Retain)
	smd := bufMD(seq(12), 0, 2, aq)
	smd.UserPtr = 0xA11CE
	src, err := a.MDBind(smd, Unlink)
	require.NoError(t, err)

	h, err := a.Put(src, AckReqd, b.ID(), testPt, 0x77, 0, 0xFEED)
	require.NoError(t, err)
	assert.Equal(t, Header{Op: OpPut, Src: a.ID(), SrcJID: testJID, SrcUID: testUID, Dst: b.ID(),
		PtIndex: testPt, MatchBits: 0x77, Length: 12, HdrData: 0xFEED, AckReq: true, MD: src, Link: h.Link}, h)
	d, ack := f.put(a, h)
	require.True(t, d.Accepted)
	require.True(t, ack.Accepted)

	ae := drain(t, a, aq)
	assert.Equal(t, []EventType{EventSendStart, EventSendEnd, EventAck, EventUnlink}, kinds(ae),
		"threshold 2 counts the send and the ack; PTL_UNLINK then unlinks it")
	for i, e := range ae {
		assert.Equal(t, uint64(i), e.Sequence)
		assert.Equal(t, src, e.MDHandle)
		assert.Equal(t, uint64(0xA11CE), e.MD.UserPtr)
		assert.Equal(t, testPt, e.PtIndex)
		assert.Equal(t, MatchBits(0x77), e.MatchBits)
		assert.Equal(t, NIOK, e.NIFailType)
	}
	assert.Equal(t, a.ID(), ae[0].Initiator, "SEND events name the initiator itself")
	assert.Equal(t, ae[0].Link, ae[1].Link, "START and END share a Link")
	assert.Equal(t, HdrData(0xFEED), ae[1].HdrData)
	assert.Equal(t, uint64(12), ae[1].MLength)
	assert.Equal(t, b.ID(), ae[2].Initiator, "the ACK comes from the target")
	assert.Equal(t, uint64(12), ae[2].MLength)
	assert.Equal(t, 0, ae[2].MD.Threshold)
	assert.Equal(t, ae[2].Link, ae[3].Link, "the ACK made the MD inactive")

	be := drain(t, b, bq)
	require.Equal(t, []EventType{EventPutStart, EventPutEnd}, kinds(be))
	for _, e := range be {
		assert.Equal(t, Event{Type: e.Type, Initiator: a.ID(), UID: testUID, JID: testJID, PtIndex: testPt,
			MatchBits: 0x77, RLength: 12, MLength: 12, Offset: 0, MDHandle: tmd, MD: e.MD, HdrData: 0xFEED,
			Link: d.Link, Sequence: e.Sequence}, e)
		assert.Equal(t, uint64(0xB0B), e.MD.UserPtr)
	}
	assert.Zero(t, a.InFlight())
	assert.Zero(t, b.InFlight())
}

// "Split phase events are designed to preserve ordering of events, since two
// operations may start in order but complete out of order."
func TestSplitPhaseEventOrder(t *testing.T) {
	ni := newNI(t, 2, 20)
	q, err := ni.EQAlloc(8)
	require.NoError(t, err)
	recvME(t, ni, 0, sizeMD(1<<20, MDOpPut, ThreshInf, q), Retain, Retain)
	long := ni.DeliverHeader(putFrom(ni, src1, 0, 1<<19))
	short := ni.DeliverHeader(putFrom(ni, src1, 0, 8))
	_, err = ni.Complete(short, false)
	require.NoError(t, err)
	_, err = ni.Complete(long, false)
	require.NoError(t, err)
	evs := drain(t, ni, q)
	assert.Equal(t, []EventType{EventPutStart, EventPutStart, EventPutEnd, EventPutEnd}, kinds(evs))
	assert.Equal(t, []uint64{long.Link, short.Link, short.Link, long.Link},
		[]uint64{evs[0].Link, evs[1].Link, evs[2].Link, evs[3].Link})
	assert.Equal(t, uint64(1<<19), evs[1].Offset, "the short put was placed after the long one")
}

// "An operation that has begun successfully may not be able to complete ... an end
// event can be generated that indicates that the completion of the operation was
// unsuccessful."
func TestEndEventReportsFailure(t *testing.T) {
	a, b, aq, bq, _ := pair(t)
	recvME(t, b, 0, sizeMD(64, MDOpPut, ThreshInf, bq), Retain, Retain)
	src, err := a.MDBind(sizeMD(8, 0, ThreshInf, aq), Retain)
	require.NoError(t, err)
	h, err := a.Put(src, AckReqd, b.ID(), testPt, 0, 0, 0)
	require.NoError(t, err)
	p, err := a.SendDone(h, true)
	require.NoError(t, err)
	require.Len(t, p, 2, "SendDone posts the missing SEND_START first")
	assert.Equal(t, EventSendStart, p[0].Event.Type)
	assert.Equal(t, NIOK, p[0].Event.NIFailType)
	assert.Equal(t, EventSendEnd, p[1].Event.Type)
	assert.Equal(t, NIFail, p[1].Event.NIFailType)
	assert.Equal(t, aq, p[1].EQ)

	d := b.DeliverHeader(h)
	require.True(t, d.Accepted)
	p, err = b.Complete(d, true)
	require.NoError(t, err)
	require.Len(t, p, 1)
	assert.Equal(t, EventPutEnd, p[0].Event.Type)
	assert.Equal(t, NIFail, p[0].Event.NIFailType)
	evs := drain(t, b, bq)
	require.Len(t, evs, 2)
	assert.Equal(t, []NIFailType{NIOK, NIFail}, []NIFailType{evs[0].NIFailType, evs[1].NIFailType})
}

// "Individual memory descriptors can be configured so that neither start events nor
// end events are generated." ACK and UNLINK events go only when both are disabled.
func TestEventStartEndDisable(t *testing.T) {
	cases := []struct {
		opts Options
		want []EventType
	}{
		{0, []EventType{EventSendStart, EventSendEnd, EventAck, EventUnlink}},
		{MDEventStartDisable, []EventType{EventSendEnd, EventAck, EventUnlink}},
		{MDEventEndDisable, []EventType{EventSendStart, EventAck, EventUnlink}},
		{MDEventStartDisable | MDEventEndDisable, []EventType{}},
	}
	for _, c := range cases {
		a, b, aq, _, f := pair(t)
		recvME(t, b, 0, sizeMD(64, MDOpPut, ThreshInf, EQNone), Retain, Retain)
		src, err := a.MDBind(sizeMD(8, c.opts, 2, aq), Unlink)
		require.NoError(t, err)
		h, err := a.Put(src, AckReqd, b.ID(), testPt, 0, 0, 0)
		require.NoError(t, err)
		_, ack := f.put(a, h)
		require.True(t, ack.Accepted)
		assert.Equal(t, c.want, kinds(drain(t, a, aq)), "%s", c.opts)
		_, err = a.MDStatus(src)
		assert.Equal(t, ErrMDInvalid, Code(err), "unlinked even when silent")
	}
	// Target side: PUT_START / PUT_END follow the same options.
	ni := newNI(t, 2, 20)
	q, err := ni.EQAlloc(8)
	require.NoError(t, err)
	recvME(t, ni, 0, sizeMD(64, MDOpPut|MDEventStartDisable, ThreshInf, q), Retain, Retain)
	deliverDone(t, ni, putFrom(ni, src1, 0, 1))
	assert.Equal(t, []EventType{EventPutEnd}, kinds(drain(t, ni, q)))
}

// "In order for an acknowledgment to be generated, the initiator must request one and
// the target must be configured to generate one": PTL_MD_ACK_DISABLE suppresses it.
func TestAckDisabled(t *testing.T) {
	a, b, aq, _, f := pair(t)
	recvME(t, b, 0, sizeMD(64, MDOpPut|MDAckDisable, ThreshInf, EQNone), Retain, Retain)
	src, err := a.MDBind(sizeMD(8, 0, ThreshInf, aq), Retain)
	require.NoError(t, err)
	h, err := a.Put(src, AckReqd, b.ID(), testPt, 0, 0, 0)
	require.NoError(t, err)
	d, ack := f.put(a, h)
	require.True(t, d.Accepted)
	assert.Nil(t, d.Response)
	assert.False(t, ack.Accepted)
	assert.Equal(t, []EventType{EventSendStart, EventSendEnd}, kinds(drain(t, a, aq)))
}

// An initiator that does not request an ack gets none.
func TestNoAckRequested(t *testing.T) {
	a, b, aq, _, f := pair(t)
	recvME(t, b, 0, sizeMD(64, MDOpPut, ThreshInf, EQNone), Retain, Retain)
	src, err := a.MDBind(sizeMD(8, 0, ThreshInf, aq), Retain)
	require.NoError(t, err)
	h, err := a.Put(src, NoAckReq, b.ID(), testPt, 0, 0, 0)
	require.NoError(t, err)
	d, _ := f.put(a, h)
	assert.Nil(t, d.Response)
	assert.Equal(t, []EventType{EventSendStart, EventSendEnd}, kinds(drain(t, a, aq)))
}

// "The acknowledgment contains information about the result of the operation at the
// destination": the ACK reports the length the target accepted.
func TestAckReportsMLength(t *testing.T) {
	a, b, aq, _, f := pair(t)
	recvME(t, b, 0, sizeMD(5, MDOpPut|MDTruncate|MDManageRemote, ThreshInf, EQNone), Retain, Retain)
	src, err := a.MDBind(sizeMD(8, 0, ThreshInf, aq), Retain)
	require.NoError(t, err)
	h, err := a.Put(src, AckReqd, b.ID(), testPt, 0, 2, 0)
	require.NoError(t, err)
	_, ack := f.put(a, h)
	require.True(t, ack.Accepted)
	evs := drain(t, a, aq)
	require.Equal(t, EventAck, evs[2].Type)
	assert.Equal(t, uint64(8), evs[2].RLength)
	assert.Equal(t, uint64(3), evs[2].MLength)
	assert.Equal(t, uint64(2), evs[2].Offset)
	assert.Equal(t, uint64(3), ack.MLength)
}

// The ack counts against the initiator MD's threshold: with threshold 1 and PTL_UNLINK
// the MD is gone after SEND_END, and the ack that arrives later is dropped.
func TestAckAfterInitiatorMDUnlinkedIsDropped(t *testing.T) {
	a, b, aq, _, f := pair(t)
	recvME(t, b, 0, sizeMD(64, MDOpPut, ThreshInf, EQNone), Retain, Retain)
	src, err := a.MDBind(sizeMD(8, 0, 1, aq), Unlink)
	require.NoError(t, err)
	h, err := a.Put(src, AckReqd, b.ID(), testPt, 0, 0, 0)
	require.NoError(t, err)
	_, ack := f.put(a, h)
	assert.False(t, ack.Accepted)
	assert.Equal(t, DropMDInvalid, ack.Reason)
	assert.Equal(t, []EventType{EventSendStart, EventSendEnd, EventUnlink}, kinds(drain(t, a, aq)))
	n, _ := a.Status(SRDropCount)
	assert.Equal(t, uint64(1), n)

	// With PTL_RETAIN the MD stays, inactive, and the ack is dropped as such.
	src, err = a.MDBind(sizeMD(8, 0, 1, aq), Retain)
	require.NoError(t, err)
	h, err = a.Put(src, AckReqd, b.ID(), testPt, 0, 0, 0)
	require.NoError(t, err)
	_, ack = f.put(a, h)
	assert.Equal(t, DropMDInactive, ack.Reason)
}

// Event queues are circular: when full, new events overwrite the oldest, and the next
// PtlEQGet returns the oldest event still queued with PTL_EQ_DROPPED.
func TestEQOverflowReportsDropped(t *testing.T) {
	ni := newNI(t, 2, 20)
	q, err := ni.EQAlloc(3)
	require.NoError(t, err)
	recvME(t, ni, 0, sizeMD(64, MDOpPut, ThreshInf, q), Retain, Retain)
	_, err = ni.EQGet(q)
	assert.Equal(t, ErrEQEmpty, Code(err))
	for range 4 {
		deliverDone(t, ni, putFrom(ni, src1, 0, 1)) // 8 events into 3 slots
	}
	n, err := ni.EQCount(q)
	require.NoError(t, err)
	assert.Equal(t, 3, n)
	ev, err := ni.EQGet(q)
	assert.Equal(t, ErrEQDropped, Code(err))
	assert.Equal(t, uint64(5), ev.Sequence, "the oldest event still queued")
	assert.Equal(t, EventPutEnd, ev.Type)
	ev, err = ni.EQGet(q)
	require.NoError(t, err)
	assert.Equal(t, uint64(6), ev.Sequence)
	deliverDone(t, ni, putFrom(ni, src1, 0, 1)) // seq 8, 9 overwrite 5, 6: 7 is still there
	ev, err = ni.EQGet(q)
	require.NoError(t, err)
	assert.Equal(t, uint64(7), ev.Sequence)
	deliverDone(t, ni, putFrom(ni, src1, 0, 1))
	deliverDone(t, ni, putFrom(ni, src1, 0, 1)) // seq 10..13: 8..10 lost
	ev, err = ni.EQGet(q)
	assert.Equal(t, ErrEQDropped, Code(err))
	assert.Equal(t, uint64(11), ev.Sequence)
	drain(t, ni, q)
	_, err = ni.EQGet(q)
	assert.Equal(t, ErrEQEmpty, Code(err))
}

// PtlEQPoll (timeout 0) returns the event of the first non-empty queue in the order
// given, and its index.
func TestEQPoll(t *testing.T) {
	ni := newNI(t, 2, 20)
	q1, err := ni.EQAlloc(4)
	require.NoError(t, err)
	q2, err := ni.EQAlloc(4)
	require.NoError(t, err)
	_, _, err = ni.EQPoll(q1, q2)
	assert.Equal(t, ErrEQEmpty, Code(err))
	recvME(t, ni, 0, sizeMD(64, MDOpPut|MDEventStartDisable, ThreshInf, q2), Retain, Retain)
	deliverDone(t, ni, putFrom(ni, src1, 0, 1))
	ev, i, err := ni.EQPoll(q1, q2)
	require.NoError(t, err)
	assert.Equal(t, 1, i)
	assert.Equal(t, EventPutEnd, ev.Type)
	_, _, err = ni.EQPoll(q1, EQHandle(999))
	assert.Equal(t, ErrEQInvalid, Code(err))
}

// PtlEQFree: the handle becomes invalid; MDs that still name the queue keep working
// and their events are discarded.
func TestEQFree(t *testing.T) {
	ni := newNI(t, 2, 20)
	q, err := ni.EQAlloc(4)
	require.NoError(t, err)
	recvME(t, ni, 0, sizeMD(64, MDOpPut, ThreshInf, q), Retain, Retain)
	require.NoError(t, ni.EQFree(q))
	assert.Equal(t, ErrEQInvalid, Code(ni.EQFree(q)))
	_, err = ni.EQGet(q)
	assert.Equal(t, ErrEQInvalid, Code(err))
	_, err = ni.EQCount(q)
	assert.Equal(t, ErrEQInvalid, Code(err))
	d := ni.DeliverHeader(putFrom(ni, src1, 0, 1))
	require.True(t, d.Accepted)
	assert.Empty(t, d.Posted)
	_, err = ni.EQAlloc(0)
	assert.Equal(t, ErrNoSpace, Code(err))
}

// Every event a call posts is also returned to the caller, with its queue.
func TestPostedMatchesQueue(t *testing.T) {
	a, b, aq, bq, _ := pair(t)
	recvME(t, b, 0, sizeMD(64, MDOpPut, 1, bq), Unlink, Unlink)
	src, err := a.MDBind(sizeMD(8, 0, ThreshInf, aq), Retain)
	require.NoError(t, err)
	h, err := a.Put(src, NoAckReq, b.ID(), testPt, 0, 0, 0)
	require.NoError(t, err)
	var posted []Posted
	p, err := a.SendStarted(h)
	require.NoError(t, err)
	assert.Len(t, p, 1)
	d := b.DeliverHeader(h)
	posted = append(posted, d.Posted...)
	p, err = b.Complete(d, false)
	require.NoError(t, err)
	posted = append(posted, p...)
	var evs []Event
	for _, x := range posted {
		assert.Equal(t, bq, x.EQ)
		evs = append(evs, x.Event)
	}
	assert.Equal(t, drain(t, b, bq), evs)
}
