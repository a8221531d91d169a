package rawdma

import (
	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/host"
	"github.com/seastar-sim/seastar/ht"
	"github.com/seastar-sim/seastar/router"
	"github.com/seastar-sim/seastar/txdma"
)

// Endpoint is a process's raw access to its node's NIC.
type Endpoint struct {
	p        *host.Proc
	node     router.NodeID
	window   int // messages in flight before Send waits for a TX record
	inflight int
	nextID   uint64
	rxNext   uint64
	txNext   uint64
	cmdBytes actors.Bytes
}

// CommandsPerMessage is how many TX commands a raw message takes: load destination,
// transmit, end message.
const CommandsPerMessage = 3

// NewEndpoint returns the endpoint of process p on node. window bounds the messages in
// flight; it must keep the TX command FIFO from overflowing (window x 3 <= 31).
func NewEndpoint(p *host.Proc, node router.NodeID, window int) *Endpoint {
	return &Endpoint{p: p, node: node, window: window, cmdBytes: 16}
}

// Send posts a message of n bytes to dst: three 16-byte stores into the TX command FIFO
// through HyperTransport. It waits for an earlier message to leave when window
// messages are in flight. It returns the message's sequence number (Msg.ID).
func (e *Endpoint) Send(dst router.NodeID, n int64) uint64 {
	for e.inflight >= e.window {
		e.WaitSent()
	}
	m := msgs.New(Msg{Src: e.node, Dst: dst, Len: n, ID: e.nextID})
	e.nextID++
	e.inflight++
	start, stored := e.p.Now(), 0
	store := func(c txdma.Command) {
		e.p.MMIOWrite(ht.TXDMA, e.cmdBytes, txdma.NewCommand(c))
		stored++
	}
	store(txdma.Command{Kind: txdma.LoadDest, Dst: dst, Data: m})
	if n > 0 {
		store(txdma.Command{Kind: txdma.Transmit, Bytes: n, Addr: 0x4000_0000 + m.ID<<20})
	}
	store(txdma.Command{Kind: txdma.EndMessage, CRC: true, Notify: true, Tag: m.ID})
	e.traceSend(m, start, stored)
	return m.ID
}

// WaitSent waits for the oldest message in flight to leave the TX engine.
func (e *Endpoint) WaitSent() {
	slot := txSlot(e.txNext)
	r := e.p.WaitFor(slot).(*SentRecord)
	e.p.Forget(slot)
	sentRecords.Release(r)
	e.txNext++
	e.inflight--
}

// Drain waits until every message sent has left.
func (e *Endpoint) Drain() {
	for e.inflight > 0 {
		e.WaitSent()
	}
}

// Recv waits for the next message to arrive, from any source, and returns its
// descriptor. The receiving host is the descriptor's last holder: every packet of the
// message has been written and the sender's TX engine closed the message before the
// firmware posted the record, so Recv recycles it.
func (e *Endpoint) Recv() Msg {
	slot := rxSlot(e.rxNext)
	r := e.p.WaitFor(slot).(*RecvRecord)
	e.p.Forget(slot)
	e.rxNext++
	m := *r.Msg
	m.PoolMark = actors.PoolMark{}
	msgs.Release(r.Msg)
	recvRecords.Release(r)
	return m
}
