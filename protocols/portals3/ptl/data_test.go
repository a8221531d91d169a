package ptl

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// "The region of memory can be a single logically contiguous region or can be a list
// of regions": with PTL_MD_IOVEC offsets index the concatenation of the regions, and
// the bytes of a put land across region boundaries at the right place.
func TestIovecDataLandsAtOffset(t *testing.T) {
	a, b, _, bq, f := pair(t)
	r0, r1, r2 := make([]byte, 4), make([]byte, 3), make([]byte, 5)
	md := MD{Options: MDOpPut | MDManageRemote | MDIovec, Threshold: ThreshInf, EQ: bq, Iov: []Region{
		{Addr: 0x1000, Len: 4, Buf: r0}, {Addr: 0x8000, Len: 3, Buf: r1}, {Addr: 0x3000, Len: 5, Buf: r2}}}
	_, mdh := recvME(t, b, 0, md, Retain, Retain)
	st, err := b.MDStatus(mdh)
	require.NoError(t, err)
	assert.Equal(t, uint64(12), st.Size)

	src, err := a.MDBind(bufMD([]byte("ABCDEF"), 0, ThreshInf, EQNone), Retain)
	require.NoError(t, err)
	h, err := a.Put(src, NoAckReq, b.ID(), testPt, 0, 2, 0)
	require.NoError(t, err)
	d, _ := f.put(a, h)
	require.True(t, d.Accepted)
	assert.Equal(t, "\x00\x00AB", string(r0))
	assert.Equal(t, "CDE", string(r1))
	assert.Equal(t, "F\x00\x00\x00\x00", string(r2))
	assert.Equal(t, []Region{{Addr: 0x1002, Len: 2, Buf: r0[2:]}, {Addr: 0x8000, Len: 3, Buf: r1}, {Addr: 0x3000, Len: 1, Buf: r2[:1]}},
		d.Regions, "what the RX DMA must cover")

	// A get reads across the regions too.
	g := MD{Options: MDOpGet | MDManageRemote | MDIovec, Threshold: ThreshInf, Iov: md.Iov}
	me, err := b.MEAttach(5, MatchAny(), 0, 0, Retain, InsAfter)
	require.NoError(t, err)
	_, err = b.MDAttach(me, g, Retain)
	require.NoError(t, err)
	back := make([]byte, 5)
	dst, err := a.MDBind(bufMD(back, 0, ThreshInf, EQNone), Retain)
	require.NoError(t, err)
	gh, err := a.Get(dst, b.ID(), 5, 0, 3)
	require.NoError(t, err)
	_, r := f.get(a, gh)
	require.True(t, r.Accepted)
	assert.Equal(t, "BCDEF", string(back))
}

// A get's reply carries mlength bytes from the target MD at its offset and lands in
// the initiator MD at the get's local offset; GET_START/END at the target,
// REPLY_START/END at the initiator.
func TestGetReplyData(t *testing.T) {
	a, b, aq, bq, f := pair(t)
	_, tmd := recvME(t, b, 0x5, bufMD([]byte("0123456789"), MDOpGet|MDManageRemote, ThreshInf, bq), Retain, Retain)
	back := make([]byte, 8)
	dst, err := a.MDBind(bufMD(back, 0, 1, aq), Unlink)
	require.NoError(t, err)
	gh, err := a.GetRegion(dst, 2, 5, b.ID(), testPt, 0x5, 3)
	require.NoError(t, err)
	assert.Equal(t, uint64(5), gh.Length)
	p, err := a.SendStarted(gh)
	require.NoError(t, err)
	assert.Empty(t, p, "a get request posts no event")
	_, err = a.SendDone(gh, false)
	require.NoError(t, err)
	assert.Empty(t, drain(t, a, aq))

	d, r := f.get(a, gh)
	require.True(t, d.Accepted)
	assert.Equal(t, OpReply, d.Response.Op)
	assert.Equal(t, uint64(5), d.Response.Length)
	require.True(t, r.Accepted)
	assert.Equal(t, "\x00\x0034567\x00", string(back))

	be := drain(t, b, bq)
	assert.Equal(t, []EventType{EventGetStart, EventGetEnd}, kinds(be))
	assert.Equal(t, a.ID(), be[1].Initiator)
	assert.Equal(t, uint64(3), be[1].Offset)
	assert.Equal(t, uint64(5), be[1].MLength)
	assert.Equal(t, tmd, be[1].MDHandle)
	ae := drain(t, a, aq)
	assert.Equal(t, []EventType{EventReplyStart, EventReplyEnd, EventUnlink}, kinds(ae),
		"the reply counts against the threshold; the request did not")
	assert.Equal(t, b.ID(), ae[1].Initiator)
	assert.Equal(t, uint64(2), ae[1].Offset)
	assert.Equal(t, uint64(5), ae[1].MLength)
	assert.Equal(t, ae[0].Link, ae[1].Link)
}

// A get is matched like a put: truncated to what the target MD has (the reply is then
// shorter), and the local offset of a locally managed MD advances.
func TestGetTruncatedAtTarget(t *testing.T) {
	a, b, _, _, f := pair(t)
	_, tmd := recvME(t, b, 0, bufMD([]byte("abcdef"), MDOpGet|MDTruncate, ThreshInf, EQNone), Retain, Retain)
	back := make([]byte, 4)
	dst, err := a.MDBind(bufMD(back, 0, ThreshInf, EQNone), Retain)
	require.NoError(t, err)
	for _, want := range []string{"abcd", "ef\x00\x00"} {
		clear(back)
		gh, err := a.Get(dst, b.ID(), testPt, 0, 0)
		require.NoError(t, err)
		d, r := f.get(a, gh)
		require.True(t, r.Accepted)
		assert.Equal(t, want, string(back))
		assert.Equal(t, uint64(len(strings.TrimRight(want, "\x00"))), d.MLength)
	}
	st, _ := b.MDStatus(tmd)
	assert.Equal(t, uint64(6), st.Offset)
}

// A reply that no longer fits the initiator MD (updated meanwhile) is truncated if the
// MD allows it and dropped otherwise; a reply for an unlinked MD is dropped.
func TestReplyFitsInitiatorMD(t *testing.T) {
	a, b, _, _, f := pair(t)
	recvME(t, b, 0, bufMD([]byte("abcdefgh"), MDOpGet|MDManageRemote, ThreshInf, EQNone), Retain, Retain)
	back := make([]byte, 8)
	full := bufMD(back, 0, ThreshInf, EQNone)
	dst, err := a.MDBind(bufMD(back, 0, ThreshInf, EQNone), Retain)
	require.NoError(t, err)

	gh, err := a.Get(dst, b.ID(), testPt, 0, 0)
	require.NoError(t, err)
	_, err = a.MDUpdate(dst, &MD{Length: 3, Buf: back[:3], Threshold: ThreshInf}, EQNone)
	require.NoError(t, err)
	_, r := f.get(a, gh)
	assert.Equal(t, DropNoRoom, r.Reason)

	_, err = a.MDUpdate(dst, &full, EQNone)
	require.NoError(t, err)
	gh, err = a.Get(dst, b.ID(), testPt, 0, 0)
	require.NoError(t, err)
	_, err = a.MDUpdate(dst, &MD{Length: 3, Buf: back[:3], Threshold: ThreshInf, Options: MDTruncate}, EQNone)
	require.NoError(t, err)
	_, r = f.get(a, gh)
	require.True(t, r.Accepted)
	assert.Equal(t, uint64(3), r.MLength)
	assert.Equal(t, "abc\x00\x00\x00\x00\x00", string(back))

	gh, err = a.Get(dst, b.ID(), testPt, 0, 0)
	require.NoError(t, err)
	require.NoError(t, a.MDUnlink(dst))
	_, r = f.get(a, gh)
	assert.Equal(t, DropMDInvalid, r.Reason)
}

// PtlPutRegion sends length bytes from a local offset of the MD.
func TestPutRegionData(t *testing.T) {
	a, b, _, _, f := pair(t)
	dst := make([]byte, 4)
	recvME(t, b, 0, bufMD(dst, MDOpPut, ThreshInf, EQNone), Retain, Retain)
	src, err := a.MDBind(MD{Options: MDIovec, Threshold: ThreshInf, Iov: []Region{
		{Addr: 0x100, Len: 3, Buf: []byte("abc")}, {Addr: 0x900, Len: 4, Buf: []byte("defg")}}}, Retain)
	require.NoError(t, err)
	h, err := a.PutRegion(src, 2, 4, NoAckReq, b.ID(), testPt, 0, 0, 0)
	require.NoError(t, err)
	rs, err := a.SendRegions(h)
	require.NoError(t, err)
	assert.Equal(t, []Region{{Addr: 0x102, Len: 1, Buf: []byte("c")}, {Addr: 0x900, Len: 3, Buf: []byte("def")}}, rs)
	f.put(a, h)
	assert.Equal(t, "cdef", string(dst))
}

// Size-only simulations pass nil buffers and nil payloads: nothing is copied, and
// every decision is the same.
func TestSizeOnlyNilPayload(t *testing.T) {
	a, b, _, _, f := pair(t)
	recvME(t, b, 0, sizeMD(100, MDOpPut|MDOpGet, ThreshInf, EQNone), Retain, Retain)
	src, err := a.MDBind(sizeMD(40, 0, ThreshInf, EQNone), Retain)
	require.NoError(t, err)
	h, err := a.Put(src, NoAckReq, b.ID(), testPt, 0, 0, 0)
	require.NoError(t, err)
	data, err := a.SendData(h)
	require.NoError(t, err)
	assert.Nil(t, data)
	d, _ := f.put(a, h)
	require.True(t, d.Accepted)
	assert.Equal(t, []Region{{Addr: 0x20000, Len: 40}}, d.Regions)
	assert.NoError(t, b.WriteData(d, nil))

	gh, err := a.Get(src, b.ID(), testPt, 0, 0)
	require.NoError(t, err)
	gd, r := f.get(a, gh)
	require.True(t, r.Accepted)
	assert.Nil(t, b.ReadData(gd))
	assert.Equal(t, []Region{{Addr: 0x20000 + 40, Len: 40}}, gd.Regions)
}

// WriteData needs an accepted delivery and at least mlength bytes.
func TestWriteDataChecks(t *testing.T) {
	ni := newNI(t, 2, 20)
	recvME(t, ni, 0, bufMD(make([]byte, 8), MDOpPut, ThreshInf, EQNone), Retain, Retain)
	d := ni.DeliverHeader(putFrom(ni, src1, 0, 4))
	require.True(t, d.Accepted)
	assert.Equal(t, ErrFail, Code(ni.WriteData(d, []byte("ab"))))
	assert.NoError(t, ni.WriteData(d, []byte("abcdef")), "longer payloads: the extra is not written")
	bad := ni.DeliverHeader(putFrom(ni, src1, 1, 4))
	assert.Equal(t, ErrFail, Code(ni.WriteData(bad, []byte("abcd"))))
	assert.Nil(t, ni.ReadData(bad))
}

// A contiguous MD with LazyBuf gets its bytes only when a message lands in it: the
// first put allocates Length bytes into *LazyBuf, the data lands there, and later
// puts use the same bytes. An MD nothing reaches never allocates, and an iovec MD
// cannot be lazy.
func TestLazyBufAllocatedOnFirstUse(t *testing.T) {
	a, b, _, bq, f := pair(t)
	var lazy, idle []byte
	md := MD{Start: 0x10000, Length: 8, Threshold: ThreshInf, Options: MDOpPut | MDManageRemote, EQ: bq, LazyBuf: &lazy}
	recvME(t, b, 0x1, md, Retain, Retain)
	other := md
	other.LazyBuf = &idle
	recvME(t, b, 0x2, other, Retain, Retain)
	assert.Nil(t, lazy, "nothing has landed yet")

	src, err := a.MDBind(bufMD([]byte("ABCDEF"), 0, ThreshInf, EQNone), Retain)
	require.NoError(t, err)
	h, err := a.PutRegion(src, 0, 3, NoAckReq, b.ID(), testPt, 0x1, 2, 0)
	require.NoError(t, err)
	d, _ := f.put(a, h)
	require.True(t, d.Accepted)
	require.Len(t, lazy, 8)
	assert.Equal(t, "\x00\x00ABC\x00\x00\x00", string(lazy))
	first := &lazy[0]

	h, err = a.PutRegion(src, 3, 3, NoAckReq, b.ID(), testPt, 0x1, 5, 0)
	require.NoError(t, err)
	d, _ = f.put(a, h)
	require.True(t, d.Accepted)
	assert.Equal(t, "\x00\x00ABCDEF", string(lazy))
	assert.Same(t, first, &lazy[0], "the second put uses the bytes of the first")
	assert.Nil(t, idle, "an MD no message reaches costs no memory")

	iov := MD{Options: MDOpPut | MDIovec, Threshold: ThreshInf, LazyBuf: &idle,
		Iov: []Region{{Addr: 0x1000, Len: 4, Buf: make([]byte, 4)}}}
	_, err = b.MDBind(iov, Retain)
	assert.ErrorIs(t, err, ErrMDIllegal)
}
