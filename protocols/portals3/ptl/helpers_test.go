package ptl

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Test processes: two nodes of job 7, user 100.
const (
	testJID JID = 7
	testUID UID = 100
	testPt      = PtIndex(4)
)

func newNI(t *testing.T, nid NID, pid PID) *NI {
	t.Helper()
	ni, err := NewNI(Config{NID: nid, PID: pid, JID: testJID, UID: testUID})
	require.NoError(t, err)
	return ni
}

// fabric is the in-package network of the tests: it carries headers and payloads
// between interfaces, calling the transport entry points in the order a NIC would.
type fabric struct {
	t   *testing.T
	nis map[ProcessID]*NI // looked up, never ranged
}

func newFabric(t *testing.T, nis ...*NI) *fabric {
	f := &fabric{t: t, nis: map[ProcessID]*NI{}}
	for _, ni := range nis {
		f.nis[ni.ID()] = ni
	}
	return f
}

// pair returns an initiator (node 1) and a target (node 2) with an EQ each.
func pair(t *testing.T) (a, b *NI, aq, bq EQHandle, f *fabric) {
	a, b = newNI(t, 1, 10), newNI(t, 2, 20)
	var err error
	aq, err = a.EQAlloc(64)
	require.NoError(t, err)
	bq, err = b.EQAlloc(64)
	require.NoError(t, err)
	return a, b, aq, bq, newFabric(t, a, b)
}

// put carries put h end to end with its bytes: SEND_START, delivery and data at the
// target, PUT_END, SEND_END, then the ack if one is owed. It returns the target's
// delivery and the initiator's delivery of the ack (zero if none).
func (f *fabric) put(from *NI, h Header) (Delivery, Delivery) {
	t := f.t
	t.Helper()
	_, err := from.SendStarted(h)
	require.NoError(t, err)
	data, err := from.SendData(h)
	require.NoError(t, err)
	to := f.nis[h.Dst]
	d := to.DeliverHeader(h)
	if d.Accepted {
		require.NoError(t, to.WriteData(d, data))
		_, err = to.Complete(d, false)
		require.NoError(t, err)
	}
	_, err = from.SendDone(h, false)
	require.NoError(t, err)
	var ack Delivery
	if d.Response != nil {
		require.Equal(t, OpAck, d.Response.Op)
		ack = from.DeliverHeader(*d.Response)
	}
	return d, ack
}

// get carries get h end to end: delivery at the target, the reply with its bytes,
// GET_END, REPLY_START/END. It returns both deliveries.
func (f *fabric) get(from *NI, h Header) (Delivery, Delivery) {
	t := f.t
	t.Helper()
	to := f.nis[h.Dst]
	d := to.DeliverHeader(h)
	if !d.Accepted {
		return d, Delivery{}
	}
	require.NotNil(t, d.Response)
	data := to.ReadData(d)
	r := from.DeliverHeader(*d.Response)
	if r.Accepted {
		require.NoError(t, from.WriteData(r, data))
		_, err := from.Complete(r, false)
		require.NoError(t, err)
	}
	_, err := to.Complete(d, false)
	require.NoError(t, err)
	return d, r
}

// drain takes every event of q.
func drain(t *testing.T, ni *NI, q EQHandle) []Event {
	t.Helper()
	var evs []Event
	for {
		ev, err := ni.EQGet(q)
		if Code(err) == ErrEQEmpty {
			return evs
		}
		require.NoError(t, err)
		evs = append(evs, ev)
	}
}

func kinds(evs []Event) []EventType {
	out := make([]EventType, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

// recvME attaches a match entry for any source on testPt with bits and an MD over buf.
func recvME(t *testing.T, ni *NI, bits MatchBits, md MD, meUnlink, mdUnlink UnlinkOp) (MEHandle, MDHandle) {
	t.Helper()
	me, err := ni.MEAttach(testPt, MatchAny(), bits, 0, meUnlink, InsAfter)
	require.NoError(t, err)
	mdh, err := ni.MDAttach(me, md, mdUnlink)
	require.NoError(t, err)
	return me, mdh
}

// bufMD is a contiguous MD over buf at a fake address.
func bufMD(buf []byte, opts Options, threshold int, q EQHandle) MD {
	return MD{Start: 0x10000, Length: uint64(len(buf)), Buf: buf, Threshold: threshold, Options: opts, EQ: q}
}

// sizeMD is a size-only contiguous MD.
func sizeMD(n uint64, opts Options, threshold int, q EQHandle) MD {
	return MD{Start: 0x20000, Length: n, Threshold: threshold, Options: opts, EQ: q}
}

func seq(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i + 1)
	}
	return b
}
