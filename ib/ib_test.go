package ib

import (
	"testing"

	"github.com/seastar-sim/seastar/actors/actorstest"
	"github.com/stretchr/testify/require"
)

func TestFatTreeShapeAndRoutes(t *testing.T) {
	p := DefaultParams() // radix 36: 18 nodes a leaf, 18 spines
	f, err := p.Shape(18)
	require.NoError(t, err)
	require.Equal(t, Fabric{Nodes: 18, Down: 18, Leaves: 1}, f, "one leaf: no spines")
	f, err = p.Shape(40)
	require.NoError(t, err)
	require.Equal(t, 3, f.Leaves)
	require.Equal(t, 18, f.Spines)
	_, err = p.Shape(18*36 + 1)
	require.ErrorContains(t, err, "at most 648")
}

func TestWireTimeCountsPacketHeaders(t *testing.T) {
	p := DefaultParams() // 4 GB/s, 2048-byte MTU, 26 B of headers a packet
	require.Equal(t, p.LinkBandwidth.TransferTime(26), p.wire(0), "an empty message is one packet of headers")
	require.Equal(t, p.LinkBandwidth.TransferTime(4096+2*26), p.wire(4096))
	require.Equal(t, p.LinkBandwidth.TransferTime(4097+3*26), p.wire(4097))
}

func TestValidateNamesTheKey(t *testing.T) {
	p := DefaultParams()
	p.Radix = 7
	require.ErrorContains(t, p.Validate(), "radix")
	p = DefaultParams()
	p.SRQDepth = 0
	require.ErrorContains(t, p.Validate(), "srq_depth")
}

func TestFrameCodec(t *testing.T) {
	orig := &Frame{kind: fSend, Src: 1, Dst: 2, Bytes: 100, WRID: 9, Signaled: true, Span: 5}
	f := &Frame{kind: fRNR, Src: 2, Dst: 1, SrcPID: 3, DstPID: 4, Len: 7, Op: Read, Orig: orig, Epoch: 8, ID: 11, Span: 6}
	actorstest.RoundTrip(t, f)
}

// A send that finds no receive buffer travels back whole in the RNR NAK and is sent
// again after the RNR timer; the receiver releases the frames it is done with, never
// the refused send.
func TestRefusedSendKeptForItsRetry(t *testing.T) {
	p := DefaultParams()
	rx := NewHCA(p, 1, 2)
	ctx := actorstest.New("hca1", 1)
	send := frames.New(Frame{kind: fSend, Src: 0, Dst: 1, DstPID: 7, Bytes: 64, WRID: 3, Signaled: true, Payload: "msg", ID: 5})
	sent := ctx.Deliver(rx, 0, PortNet, send)
	require.Len(t, sent, 1)
	rnr := sent[0].Msg.(*Frame)
	require.Equal(t, fRNR, rnr.kind)
	require.Same(t, send, rnr.Orig)
	require.Equal(t, uint64(5), send.ID, "the refused send is intact")
	require.Equal(t, "msg", send.Payload)

	tx := NewHCA(p, 0, 2)
	txc := actorstest.New("hca0", 1)
	sent = txc.Deliver(tx, 0, PortNet, rnr)
	require.Len(t, sent, 1)
	require.Equal(t, retry{send}, sent[0].Msg)
	require.GreaterOrEqual(t, sent[0].Delay, p.RNRDelay, "after the RNR timer")
	require.Zero(t, rnr.Orig, "the NAK was released once handled")
	require.Equal(t, uint64(5), send.ID)

	rx.srq[7] = 1 // a receive buffer now
	sent = ctx.Deliver(rx, 0, PortNet, send)
	require.Len(t, sent, 2, "a completion and an ack")
	cqe := sent[0].Msg.(*CQE)
	require.True(t, cqe.Recv)
	require.Equal(t, "msg", cqe.Payload)
	require.Zero(t, send.ID, "taken: released")
	cqe.Release()
}
