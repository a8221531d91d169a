package ptl

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// putFrom is a put header from src (job testJID, user testUID) to ni.
func putFrom(ni *NI, src ProcessID, bits MatchBits, n uint64) Header {
	return Header{Op: OpPut, Src: src, SrcJID: testJID, SrcUID: testUID, Dst: ni.ID(), PtIndex: testPt, MatchBits: bits, Length: n}
}

var src1 = ProcessID{NID: 1, PID: 10}

// deliverDone delivers h and completes it if accepted.
func deliverDone(t *testing.T, ni *NI, h Header) Delivery {
	t.Helper()
	d := ni.DeliverHeader(h)
	if d.InFlight {
		_, err := ni.Complete(d, false)
		require.NoError(t, err)
	}
	return d
}

// "The ignore bits are used to mask bits that are not needed or to wildcard specific
// bits" (Brightwell et al. 2005, s.3.1): ((me XOR msg) AND NOT ignore) == 0.
func TestMatchIgnoreBits(t *testing.T) {
	ni := newNI(t, 2, 20)
	me, err := ni.MEAttach(testPt, MatchAny(), 0xAB00, 0x00FF, Retain, InsAfter)
	require.NoError(t, err)
	_, err = ni.MDAttach(me, sizeMD(64, MDOpPut, ThreshInf, EQNone), Retain)
	require.NoError(t, err)
	for _, bits := range []MatchBits{0xAB00, 0xAB12, 0xABFF} {
		assert.True(t, deliverDone(t, ni, putFrom(ni, src1, bits, 1)).Accepted, "bits %#x", bits)
	}
	for _, bits := range []MatchBits{0xAC00, 0x1AB00, 0xAB100, 1 << 63} {
		d := deliverDone(t, ni, putFrom(ni, src1, bits, 1))
		assert.False(t, d.Accepted, "bits %#x", bits)
		assert.Equal(t, DropNoMatch, d.Reason)
	}
	// All 64 bits ignored: everything matches.
	me2, err := ni.MEAttach(5, MatchAny(), 0, ^MatchBits(0), Retain, InsAfter)
	require.NoError(t, err)
	_, err = ni.MDAttach(me2, sizeMD(64, MDOpPut, ThreshInf, EQNone), Retain)
	require.NoError(t, err)
	h := putFrom(ni, src1, 0xDEADBEEF12345678, 1)
	h.PtIndex = 5
	assert.True(t, deliverDone(t, ni, h).Accepted)
}

// Source node and process ids select messages unless wildcarded.
func TestMatchSourceIDs(t *testing.T) {
	ni := newNI(t, 2, 20)
	id := MatchAny()
	id.NID, id.PID = 1, 10
	me, err := ni.MEAttach(testPt, id, 0, 0, Retain, InsAfter)
	require.NoError(t, err)
	_, err = ni.MDAttach(me, sizeMD(64, MDOpPut, ThreshInf, EQNone), Retain)
	require.NoError(t, err)
	assert.True(t, deliverDone(t, ni, putFrom(ni, ProcessID{NID: 1, PID: 10}, 0, 1)).Accepted)
	assert.False(t, deliverDone(t, ni, putFrom(ni, ProcessID{NID: 3, PID: 10}, 0, 1)).Accepted, "other node")
	assert.False(t, deliverDone(t, ni, putFrom(ni, ProcessID{NID: 1, PID: 11}, 0, 1)).Accepted, "other process")
}

// A match entry for job 7 does not accept a message from job 8 (Brightwell et al.
// 2005, s.3.1: job id "allow[s] for matching only those messages from a specific
// job"): the message is dropped, counted, and posts no event.
func TestMismatchedJobIDRejected(t *testing.T) {
	ni := newNI(t, 2, 20)
	q, err := ni.EQAlloc(8)
	require.NoError(t, err)
	id := MatchAny()
	id.JID = 7
	me, err := ni.MEAttach(testPt, id, 0, 0, Retain, InsAfter)
	require.NoError(t, err)
	_, err = ni.MDAttach(me, sizeMD(64, MDOpPut|MDOpGet, ThreshInf, q), Retain)
	require.NoError(t, err)

	h := putFrom(ni, src1, 0, 8)
	h.SrcJID, h.AckReq = 8, true
	d := deliverDone(t, ni, h)
	assert.False(t, d.Accepted)
	assert.Equal(t, DropNoMatch, d.Reason)
	assert.Nil(t, d.Response, "a dropped put is not acknowledged")
	g := h
	g.Op = OpGet
	assert.False(t, deliverDone(t, ni, g).Accepted)
	assert.Empty(t, drain(t, ni, q))
	n, _ := ni.Status(SRDropCount)
	assert.Equal(t, uint64(2), n)

	h.SrcJID = 7
	assert.True(t, deliverDone(t, ni, h).Accepted)
	idAny := MatchAny()
	me2, err := ni.MEAttach(testPt, idAny, 0, 0, Retain, InsAfter)
	require.NoError(t, err)
	_, err = ni.MDAttach(me2, sizeMD(64, MDOpPut, ThreshInf, EQNone), Retain)
	require.NoError(t, err)
	h.SrcJID = 8
	d = deliverDone(t, ni, h)
	assert.Equal(t, me2, d.ME, "PTL_JID_ANY accepts any job")
}

// Likewise for user ids.
func TestMismatchedUserIDRejected(t *testing.T) {
	ni := newNI(t, 2, 20)
	q, err := ni.EQAlloc(8)
	require.NoError(t, err)
	id := MatchAny()
	id.UID = 100
	me, err := ni.MEAttach(testPt, id, 0, 0, Retain, InsAfter)
	require.NoError(t, err)
	_, err = ni.MDAttach(me, sizeMD(64, MDOpPut, ThreshInf, q), Retain)
	require.NoError(t, err)
	h := putFrom(ni, src1, 0, 8)
	h.SrcUID = 101
	d := deliverDone(t, ni, h)
	assert.False(t, d.Accepted)
	assert.Equal(t, DropNoMatch, d.Reason)
	assert.Empty(t, drain(t, ni, q))
	h.SrcUID = 100
	assert.True(t, deliverDone(t, ni, h).Accepted)
	assert.Len(t, drain(t, ni, q), 2)
}

// "If the entry accepts the message, the message will continue to be processed by the
// memory descriptor ... If the entry does not match, the message continues to the next
// match entry": entries without MD, with an inactive MD, an MD that does not allow the
// operation or has no room are passed over.
func TestMDRejectionContinuesSearch(t *testing.T) {
	ni := newNI(t, 2, 20)
	_, err := ni.MEAttach(testPt, MatchAny(), 0, 0, Retain, InsAfter) // no MD
	require.NoError(t, err)
	recvME(t, ni, 0, sizeMD(64, MDOpPut, 0, EQNone), Retain, Retain)         // inactive
	recvME(t, ni, 0, sizeMD(64, MDOpGet, ThreshInf, EQNone), Retain, Retain) // get only
	recvME(t, ni, 0, sizeMD(4, MDOpPut, ThreshInf, EQNone), Retain, Retain)  // too small
	want, _ := recvME(t, ni, 0, sizeMD(64, MDOpPut, ThreshInf, EQNone), Retain, Retain)
	d := deliverDone(t, ni, putFrom(ni, src1, 0, 8))
	require.True(t, d.Accepted)
	assert.Equal(t, want, d.ME)
	assert.Equal(t, 5, d.Searched, "five entries examined")

	g := putFrom(ni, src1, 0, 8)
	g.Op = OpGet
	d = deliverDone(t, ni, g)
	require.True(t, d.Accepted)
	assert.Equal(t, 3, d.Searched, "the get-only MD accepts the get")
}

// A portal index beyond the table drops the message; so does a header for another
// process or of no known kind.
func TestDropReasons(t *testing.T) {
	ni, err := NewNI(Config{NID: 2, PID: 20, Limits: Limits{PtEntries: 8}})
	require.NoError(t, err)
	h := putFrom(ni, src1, 0, 3)
	h.PtIndex = 8
	assert.Equal(t, DropPtIndexInvalid, ni.DeliverHeader(h).Reason)
	h.PtIndex = 7
	assert.Equal(t, DropNoMatch, ni.DeliverHeader(h).Reason)
	h.Dst.PID = 21
	assert.Equal(t, DropWrongTarget, ni.DeliverHeader(h).Reason)
	h.Dst.PID, h.Op = 20, Op(9)
	assert.Equal(t, DropBadOp, ni.DeliverHeader(h).Reason)
	n, _ := ni.Status(SRDropCount)
	assert.Equal(t, uint64(4), n)
	n, _ = ni.Status(SRDropLength)
	assert.Equal(t, uint64(12), n)
	assert.Equal(t, "no-match", DropNoMatch.String())
}

// A free-floating MD (PtlMDBind) is attached to no match entry: no put or get can
// reach it, but it can be the source of a put.
func TestFreeFloatingMDCannotBeTarget(t *testing.T) {
	a, b, aq, bq, f := pair(t)
	buf := make([]byte, 8)
	free, err := b.MDBind(bufMD(buf, MDOpPut|MDOpGet|MDTruncate, ThreshInf, bq), Retain)
	require.NoError(t, err)
	st, err := b.MDStatus(free)
	require.NoError(t, err)
	assert.Equal(t, MEHandle(InvalidHandle), st.ME)

	src, err := a.MDBind(bufMD(seq(8), 0, ThreshInf, aq), Retain)
	require.NoError(t, err)
	for pt := range PtIndex(64) {
		h, err := a.Put(src, NoAckReq, b.ID(), pt, 0, 0, 0)
		require.NoError(t, err)
		d, _ := f.put(a, h)
		assert.False(t, d.Accepted, "portal %d", pt)
	}
	assert.Equal(t, make([]byte, 8), buf)
	assert.Empty(t, drain(t, b, bq))

	// And a free-floating MD initiates: b puts from it into a's attached MD.
	dst := make([]byte, 8)
	recvME(t, a, 0, bufMD(dst, MDOpPut, ThreshInf, EQNone), Retain, Retain)
	copy(buf, "floating")
	h, err := b.Put(free, NoAckReq, a.ID(), testPt, 0, 0, 0)
	require.NoError(t, err)
	d, _ := f.put(b, h)
	require.True(t, d.Accepted)
	assert.Equal(t, "floating", string(dst))
}
