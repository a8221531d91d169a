package ptl

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// "Allowing for truncation reduces the length of the incoming request to only what
// the memory descriptor has available"; without it, a request larger than the region
// is rejected (Brightwell et al. 2005, s.3.1).
func TestMDTruncate(t *testing.T) {
	a, b, _, bq, f := pair(t)
	dst := make([]byte, 16)
	recvME(t, b, 1, bufMD(dst, MDOpPut|MDTruncate, ThreshInf, bq), Retain, Retain)
	recvME(t, b, 2, bufMD(make([]byte, 16), MDOpPut, ThreshInf, bq), Retain, Retain)
	src, err := a.MDBind(bufMD(seq(24), 0, ThreshInf, EQNone), Retain)
	require.NoError(t, err)

	h, err := a.Put(src, AckReqd, b.ID(), testPt, 1, 0, 0)
	require.NoError(t, err)
	d, _ := f.put(a, h)
	require.True(t, d.Accepted)
	assert.Equal(t, uint64(16), d.MLength)
	assert.Equal(t, seq(16), dst, "the first 16 bytes land, the rest is discarded")
	evs := drain(t, b, bq)
	require.Len(t, evs, 2)
	assert.Equal(t, uint64(24), evs[1].RLength)
	assert.Equal(t, uint64(16), evs[1].MLength)

	h, err = a.Put(src, NoAckReq, b.ID(), testPt, 2, 0, 0)
	require.NoError(t, err)
	d, _ = f.put(a, h)
	assert.False(t, d.Accepted, "24 bytes do not fit 16 without PTL_MD_TRUNCATE")
	assert.Equal(t, DropNoMatch, d.Reason)

	// A locally managed MD that is full truncates to zero bytes.
	h, err = a.Put(src, NoAckReq, b.ID(), testPt, 1, 0, 0)
	require.NoError(t, err)
	d, _ = f.put(a, h)
	require.True(t, d.Accepted)
	assert.Zero(t, d.MLength)
}

// "For memory descriptors that are locally managed, successive operations increase the
// offset by the length of the request."
func TestLocalOffsetAdvances(t *testing.T) {
	a, b, _, bq, f := pair(t)
	dst := make([]byte, 12)
	_, mdh := recvME(t, b, 0, bufMD(dst, MDOpPut, ThreshInf, bq), Retain, Retain)
	src, err := a.MDBind(bufMD([]byte("abcdefgh"), 0, ThreshInf, EQNone), Retain)
	require.NoError(t, err)
	for _, r := range []struct{ off, n uint64 }{{0, 4}, {4, 4}, {0, 3}} {
		h, err := a.PutRegion(src, r.off, r.n, NoAckReq, b.ID(), testPt, 0, 999, 0)
		require.NoError(t, err)
		d, _ := f.put(a, h)
		require.True(t, d.Accepted)
	}
	assert.Equal(t, "abcdefghabc\x00", string(dst))
	evs := drain(t, b, bq)
	var offs []uint64
	for _, e := range evs {
		if e.Type == EventPutEnd {
			offs = append(offs, e.Offset)
		}
	}
	assert.Equal(t, []uint64{0, 4, 8}, offs, "the remote offset 999 is ignored")
	st, _ := b.MDStatus(mdh)
	assert.Equal(t, uint64(11), st.Offset)
}

// "Memory descriptors may also be configured to have a remotely managed offset. In
// this case, the offset used in the operation is determined by the initiator."
func TestRemoteOffset(t *testing.T) {
	a, b, _, bq, f := pair(t)
	dst := make([]byte, 16)
	_, mdh := recvME(t, b, 0, bufMD(dst, MDOpPut|MDManageRemote, ThreshInf, bq), Retain, Retain)
	src, err := a.MDBind(bufMD([]byte("xyz"), 0, ThreshInf, EQNone), Retain)
	require.NoError(t, err)
	for _, off := range []uint64{10, 2, 10} {
		h, err := a.Put(src, NoAckReq, b.ID(), testPt, 0, off, 0)
		require.NoError(t, err)
		d, _ := f.put(a, h)
		require.True(t, d.Accepted)
		assert.Equal(t, off, d.Offset)
	}
	assert.Equal(t, "\x00\x00xyz\x00\x00\x00\x00\x00xyz\x00\x00\x00", string(dst))
	st, _ := b.MDStatus(mdh)
	assert.Zero(t, st.Offset, "a remotely managed MD keeps no local offset")

	h, err := a.Put(src, NoAckReq, b.ID(), testPt, 0, 14, 0)
	require.NoError(t, err)
	d, _ := f.put(a, h)
	assert.False(t, d.Accepted, "3 bytes at 14 overrun 16 without truncation")
	h, err = a.Put(src, NoAckReq, b.ID(), testPt, 0, 17, 0)
	require.NoError(t, err)
	d, _ = f.put(a, h)
	assert.False(t, d.Accepted, "an offset beyond the end")
}

// "Each memory descriptor has a threshold value that gets decremented for each
// operation ... becomes inactive ... when its threshold reaches zero"; with
// PTL_UNLINK it is then unlinked, its match entry too if created with PTL_UNLINK, and
// an UNLINK event follows the END event.
func TestMDThresholdExhaustedUnlinks(t *testing.T) {
	a, b, _, bq, f := pair(t)
	me, mdh := recvME(t, b, 0, sizeMD(64, MDOpPut, 2, bq), Unlink, Unlink)
	src, err := a.MDBind(sizeMD(8, 0, ThreshInf, EQNone), Retain)
	require.NoError(t, err)
	var links []uint64
	for range 3 {
		h, err := a.Put(src, NoAckReq, b.ID(), testPt, 0, 0, 0)
		require.NoError(t, err)
		d, _ := f.put(a, h)
		links = append(links, d.Link)
	}
	evs := drain(t, b, bq)
	assert.Equal(t, []EventType{EventPutStart, EventPutEnd, EventPutStart, EventPutEnd, EventUnlink}, kinds(evs))
	assert.Equal(t, links[1], evs[4].Link, "UNLINK links to the operation that exhausted the MD")
	assert.Equal(t, 0, evs[4].MD.Threshold)
	assert.Equal(t, mdh, evs[4].MDHandle)
	assert.Equal(t, 1, evs[0].MD.Threshold, "events carry the MD as it is when posted")
	_, err = b.MDStatus(mdh)
	assert.Equal(t, ErrMDInvalid, Code(err))
	assert.Equal(t, ErrMEInvalid, Code(b.MEUnlink(me)))
	list, _ := b.MEs(testPt)
	assert.Empty(t, list)
	n, _ := b.Status(SRDropCount)
	assert.Equal(t, uint64(1), n, "the third put found nothing")
}

// With PTL_RETAIN an exhausted MD stays, inactive, and is passed over.
func TestMDThresholdExhaustedRetained(t *testing.T) {
	ni := newNI(t, 2, 20)
	q, err := ni.EQAlloc(8)
	require.NoError(t, err)
	_, mdh := recvME(t, ni, 0, sizeMD(64, MDOpPut, 1, q), Unlink, Retain)
	require.True(t, deliverDone(t, ni, putFrom(ni, src1, 0, 1)).Accepted)
	assert.False(t, deliverDone(t, ni, putFrom(ni, src1, 0, 1)).Accepted)
	st, err := ni.MDStatus(mdh)
	require.NoError(t, err)
	assert.False(t, st.Active)
	assert.Equal(t, []EventType{EventPutStart, EventPutEnd}, kinds(drain(t, ni, q)))
}

// PTL_MD_THRESH_INF never exhausts.
func TestThresholdInfinite(t *testing.T) {
	ni := newNI(t, 2, 20)
	_, mdh := recvME(t, ni, 0, sizeMD(1<<20, MDOpPut, ThreshInf, EQNone), Unlink, Unlink)
	for range 1000 {
		require.True(t, deliverDone(t, ni, putFrom(ni, src1, 0, 1)).Accepted)
	}
	st, err := ni.MDStatus(mdh)
	require.NoError(t, err)
	assert.Equal(t, ThreshInf, st.MD.Threshold)
	assert.True(t, st.Active)
}

// "A match entry also has the option of being automatically unlinked from the match
// list after it has been consumed": a use-once entry (ME and MD PTL_UNLINK, threshold
// 1) takes one message; the next one goes to the following entry.
func TestUnlinkOnUse(t *testing.T) {
	ni := newNI(t, 2, 20)
	once, _ := recvME(t, ni, 0, sizeMD(64, MDOpPut, 1, EQNone), Unlink, Unlink)
	persistent, _ := recvME(t, ni, 0, sizeMD(64, MDOpPut, ThreshInf, EQNone), Retain, Retain)
	assert.Equal(t, once, deliverDone(t, ni, putFrom(ni, src1, 0, 4)).ME)
	list, _ := ni.MEs(testPt)
	assert.Equal(t, []MEHandle{persistent}, list)
	assert.Equal(t, persistent, deliverDone(t, ni, putFrom(ni, src1, 0, 4)).ME)

	// A PTL_RETAIN entry outlives its PTL_UNLINK MD, and is then passed over.
	keep, _ := recvME(t, ni, 1, sizeMD(64, MDOpPut, 1, EQNone), Retain, Unlink)
	assert.Equal(t, keep, deliverDone(t, ni, putFrom(ni, src1, 1, 4)).ME)
	list, _ = ni.MEs(testPt)
	assert.Equal(t, []MEHandle{persistent, keep}, list)
	d := deliverDone(t, ni, putFrom(ni, src1, 1, 4))
	assert.False(t, d.Accepted)
	assert.Equal(t, 2, d.Searched)
}

// An MD made inactive stops matching at once, but is unlinked only when its last
// operation in flight ends: the UNLINK event follows that END event.
func TestUnlinkWaitsForOperationsInFlight(t *testing.T) {
	ni := newNI(t, 2, 20)
	q, err := ni.EQAlloc(16)
	require.NoError(t, err)
	_, mdh := recvME(t, ni, 0, sizeMD(64, MDOpPut, 2, q), Unlink, Unlink)
	d1 := ni.DeliverHeader(putFrom(ni, src1, 0, 8))
	d2 := ni.DeliverHeader(putFrom(ni, src1, 0, 8))
	require.True(t, d1.Accepted && d2.Accepted)
	assert.False(t, ni.DeliverHeader(putFrom(ni, src1, 0, 8)).Accepted, "inactive: passed over while in flight")
	p, err := ni.Complete(d2, false)
	require.NoError(t, err)
	assert.Len(t, p, 1, "only PUT_END: d1 still holds the MD")
	st, err := ni.MDStatus(mdh)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Pending)
	p, err = ni.Complete(d1, false)
	require.NoError(t, err)
	require.Len(t, p, 2)
	assert.Equal(t, EventPutEnd, p[0].Event.Type)
	assert.Equal(t, EventUnlink, p[1].Event.Type)
	assert.Equal(t, d2.Link, p[1].Event.Link)
	assert.Equal(t, []EventType{EventPutStart, EventPutStart, EventPutEnd, EventPutEnd, EventUnlink}, kinds(drain(t, ni, q)))
}

// "Memory descriptors with a locally managed offset also have an option, called the
// maximum size option, to become inactive when the amount of unused space in the
// memory region falls below a certain amount."
func TestMDMaxSize(t *testing.T) {
	ni := newNI(t, 2, 20)
	q, err := ni.EQAlloc(16)
	require.NoError(t, err)
	md := sizeMD(100, MDOpPut|MDMaxSize, ThreshInf, q)
	md.MaxSize = 40
	_, mdh := recvME(t, ni, 0, md, Unlink, Unlink)
	next, _ := recvME(t, ni, 0, sizeMD(1000, MDOpPut, ThreshInf, EQNone), Retain, Retain)
	d := deliverDone(t, ni, putFrom(ni, src1, 0, 50))
	assert.True(t, d.Accepted, "max size does not limit one request")
	d = deliverDone(t, ni, putFrom(ni, src1, 0, 10))
	assert.Equal(t, mdh, d.MD, "40 bytes left: still active")
	d = deliverDone(t, ni, putFrom(ni, src1, 0, 1))
	assert.Equal(t, mdh, d.MD)
	assert.Equal(t, []EventType{EventPutStart, EventPutEnd, EventPutStart, EventPutEnd,
		EventPutStart, EventPutEnd, EventUnlink}, kinds(drain(t, ni, q)), "39 < 40 bytes left: inactive and unlinked")
	assert.Equal(t, next, deliverDone(t, ni, putFrom(ni, src1, 0, 1)).ME)

	// Ignored with a remotely managed offset.
	md = sizeMD(100, MDOpPut|MDMaxSize|MDManageRemote, ThreshInf, EQNone)
	md.MaxSize = 200
	h := putFrom(ni, src1, 0, 1)
	h.PtIndex = 9
	me, err := ni.MEAttach(9, MatchAny(), 0, 0, Retain, InsAfter)
	require.NoError(t, err)
	_, err = ni.MDAttach(me, md, Unlink)
	require.NoError(t, err)
	assert.True(t, deliverDone(t, ni, h).Accepted)
}

// PTL_MD_OP_PUT / PTL_MD_OP_GET: "Memory descriptors can be configured to respond only
// to get and/or put operations."
func TestMDOperations(t *testing.T) {
	ni := newNI(t, 2, 20)
	recvME(t, ni, 1, sizeMD(8, MDOpPut, ThreshInf, EQNone), Retain, Retain)
	recvME(t, ni, 2, sizeMD(8, MDOpGet, ThreshInf, EQNone), Retain, Retain)
	recvME(t, ni, 3, sizeMD(8, 0, ThreshInf, EQNone), Retain, Retain)
	get := func(bits MatchBits) Header { h := putFrom(ni, src1, bits, 1); h.Op = OpGet; return h }
	assert.True(t, deliverDone(t, ni, putFrom(ni, src1, 1, 1)).Accepted)
	assert.False(t, deliverDone(t, ni, get(1)).Accepted)
	assert.False(t, deliverDone(t, ni, putFrom(ni, src1, 2, 1)).Accepted)
	assert.True(t, deliverDone(t, ni, get(2)).Accepted)
	assert.False(t, deliverDone(t, ni, putFrom(ni, src1, 3, 1)).Accepted)
	assert.False(t, deliverDone(t, ni, get(3)).Accepted)
}

// PtlMDUpdate with a test event queue updates only if the queue is empty
// (PTL_MD_NO_UPDATE otherwise), returns the old MD, and restarts the local offset.
func TestMDUpdateRefusedWhenEQNotEmpty(t *testing.T) {
	a, b, _, bq, f := pair(t)
	dst := make([]byte, 8)
	_, mdh := recvME(t, b, 0, bufMD(dst, MDOpPut, 5, bq), Retain, Retain)
	src, err := a.MDBind(bufMD([]byte("ab"), 0, ThreshInf, EQNone), Retain)
	require.NoError(t, err)
	put := func() {
		h, err := a.Put(src, NoAckReq, b.ID(), testPt, 0, 0, 0)
		require.NoError(t, err)
		d, _ := f.put(a, h)
		require.True(t, d.Accepted)
	}
	put()
	put()
	assert.Equal(t, "abab\x00\x00\x00\x00", string(dst))

	fresh := bufMD(dst, MDOpPut, 5, bq)
	fresh.UserPtr = 42
	old, err := b.MDUpdate(mdh, &fresh, bq)
	assert.Equal(t, ErrMDNoUpdate, Code(err))
	assert.Equal(t, 3, old.Threshold, "the old MD comes back, with its live threshold")
	ev, err := b.EQGet(bq)
	require.NoError(t, err)
	assert.Zero(t, ev.MD.UserPtr)
	_, err = b.MDUpdate(mdh, &fresh, bq)
	assert.Equal(t, ErrMDNoUpdate, Code(err), "three events still queued")
	drain(t, b, bq)
	_, err = b.MDUpdate(mdh, &fresh, bq)
	require.NoError(t, err)
	put()
	assert.Equal(t, "abab\x00\x00\x00\x00", string(dst), "the local offset restarted at 0")
	evs := drain(t, b, bq)
	require.Len(t, evs, 2)
	assert.Equal(t, uint64(42), evs[1].MD.UserPtr)
	assert.Equal(t, 4, evs[1].MD.Threshold)

	// Without a test queue the update is unconditional...
	_, err = b.MDUpdate(mdh, &fresh, EQNone)
	require.NoError(t, err)
	// ...but never while the MD has an operation in flight.
	h, err := a.Put(src, NoAckReq, b.ID(), testPt, 0, 0, 0)
	require.NoError(t, err)
	d := b.DeliverHeader(h)
	require.True(t, d.Accepted)
	_, err = b.MDUpdate(mdh, &fresh, EQNone)
	assert.Equal(t, ErrMDNoUpdate, Code(err))
	_, err = b.Complete(d, false)
	require.NoError(t, err)

	_, err = b.MDUpdate(mdh, &fresh, EQHandle(12345))
	assert.Equal(t, ErrEQInvalid, Code(err))
	bad := fresh
	bad.Options |= 1 << 30
	_, err = b.MDUpdate(mdh, &bad, EQNone)
	assert.Equal(t, ErrMDIllegal, Code(err))
	got, err := b.MDUpdate(mdh, nil, bq)
	require.NoError(t, err, "no new MD: just read the old one")
	assert.Equal(t, uint64(42), got.UserPtr)
}

// Events owed by operations in flight count as not empty: an initiator's put between
// PtlPut and SEND_START/END blocks an update conditional on its queue.
func TestMDUpdateRefusedWhileEventsOwed(t *testing.T) {
	a, b, aq, _, f := pair(t)
	src, err := a.MDBind(sizeMD(4, 0, ThreshInf, aq), Retain)
	require.NoError(t, err)
	other, err := a.MDBind(sizeMD(4, 0, ThreshInf, aq), Retain)
	require.NoError(t, err)
	h, err := a.Put(src, NoAckReq, b.ID(), testPt, 0, 0, 0)
	require.NoError(t, err)
	_, err = a.MDUpdate(other, &MD{Length: 4, EQ: aq}, aq)
	assert.Equal(t, ErrMDNoUpdate, Code(err))
	f.put(a, h)
	drain(t, a, aq)
	_, err = a.MDUpdate(other, &MD{Length: 4, EQ: aq}, aq)
	assert.NoError(t, err)
}

// PtlMDUpdate can reactivate an exhausted PTL_RETAIN MD.
func TestMDUpdateReactivates(t *testing.T) {
	ni := newNI(t, 2, 20)
	_, mdh := recvME(t, ni, 0, sizeMD(8, MDOpPut, 1, EQNone), Retain, Retain)
	require.True(t, deliverDone(t, ni, putFrom(ni, src1, 0, 1)).Accepted)
	require.False(t, deliverDone(t, ni, putFrom(ni, src1, 0, 1)).Accepted)
	_, err := ni.MDUpdate(mdh, &MD{Length: 8, Options: MDOpPut, Threshold: 1}, EQNone)
	require.NoError(t, err)
	assert.True(t, deliverDone(t, ni, putFrom(ni, src1, 0, 1)).Accepted)
}

func TestSliceRegions(t *testing.T) {
	buf := make([]byte, 300)
	rs := []Region{{Addr: 0x1000, Len: 100, Buf: buf[:100:100]}, {Addr: 0x5000, Len: 200, Buf: buf[100:300]}}
	slice := func(off, n uint64) []Region { r, _ := sliceRegions(rs, off, n, nil); return r }
	// A whole region is the list's own: nothing to allocate.
	whole, inOut := sliceRegions(rs, 100, 200, nil)
	require.False(t, inOut)
	require.Equal(t, []Region{rs[1]}, whole)
	require.Same(t, &rs[1], &whole[0])
	require.Equal(t, 1, cap(whole), "the caller cannot append over the next region")
	require.Zero(t, testing.AllocsPerRun(100, func() { slice(0, 100) }))
	// Parts of regions, and more than one region, are new pieces.
	part := slice(50, 100)
	require.Equal(t, []Region{{Addr: 0x1032, Len: 50, Buf: buf[50:100]}, {Addr: 0x5000, Len: 50, Buf: buf[100:150]}}, part)
	require.Equal(t, []Region{{Addr: 0x5010, Len: 16, Buf: buf[116:132]}}, slice(116, 16))
	require.Len(t, slice(0, 300), 2)
	require.Nil(t, slice(10, 0))
	// ... in the array given when there is one, which then allocates nothing.
	out := make([]Region, 0, 4)
	got, inOut := sliceRegions(rs, 50, 100, out)
	require.True(t, inOut)
	require.Equal(t, part, got)
	require.Same(t, &out[:1][0], &got[0])
	require.Zero(t, testing.AllocsPerRun(100, func() { sliceRegions(rs, 50, 100, out) }))
	// A region whose buffer is longer than the region is cut to it, not shared.
	long := []Region{{Addr: 0, Len: 10, Buf: buf[:20]}}
	got, _ = sliceRegions(long, 0, 10, nil)
	require.Len(t, got[0].Buf, 10)
	require.NotSame(t, &long[0], &got[0])
}
