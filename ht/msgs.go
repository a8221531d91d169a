package ht

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
)

// Unit is a unit attached to the link; its value is the index of its port on the Link.
type Unit uint8

// Units.
const (
	Host  Unit = iota // the Opteron and its memory
	PPC               // the embedded PowerPC and its SRAM
	TXDMA             // the transmit DMA engine
	RXDMA             // the receive DMA engine
	numUnits
)

var unitNames = [numUnits]string{"host", "ppc", "txdma", "rxdma"}

func (u Unit) String() string {
	if u < numUnits {
		return unitNames[u]
	}
	return fmt.Sprintf("unit%d", uint8(u))
}

// Write is a posted write across the link from the unit it arrives from to unit To:
// DMA data or event records into host memory (from the NIC), or MMIO stores into SeaStar
// SRAM and registers (from the host). Payload, if not nil, is delivered to To when the
// bytes land (a command, a record a poller waits for); bulk data has none.
type Write struct {
	To      Unit
	Bytes   actors.Bytes
	Payload actors.Msg
	Ack     bool   // send WriteDone to the writer once the link has taken the bytes
	Tag     uint64 // echoed in WriteDone
	actors.PoolMark
}

// writePool recycles the writes of NewWrite once the link has taken them (one pool for
// all partitions: actors.Pool is safe across the engine's workers).
var writePool actors.Pool[Write, *Write]

// NewWrite returns a posted write of bytes to unit to, with payload, that the link
// recycles when it has taken it (Link.Receive, or another bus that receives it, calls
// Release as its last holder): a store across the link then costs no heap allocation.
func NewWrite(to Unit, bytes actors.Bytes, payload actors.Msg) *Write {
	return writePool.New(Write{To: to, Bytes: bytes, Payload: payload})
}

// Release recycles w if it came from NewWrite; the caller must be its last holder. A
// write built otherwise (a shared immutable one, a test's) is left alone.
func (w *Write) Release() { writePool.Release(w) }

func (w *Write) String() string {
	if w.Payload != nil {
		return fmt.Sprintf("ht.Write(%s %s %s)", w.To, w.Bytes, w.Payload)
	}
	return fmt.Sprintf("ht.Write(%s %s)", w.To, w.Bytes)
}

// WriteDone tells a writer that the link has serialized its write (its buffer is free).
type WriteDone struct{ Tag uint64 }

func (w WriteDone) String() string { return fmt.Sprintf("ht.WriteDone(%d)", w.Tag) }

// Read reads Bytes of the far side's memory: host memory for NIC units, SeaStar SRAM or
// registers for the host (an uncached MMIO read). ReadDone returns the data.
//
// A Read sent by value is answered with a ReadDone value. A requester that streams
// reads sends a *Read it owns instead: the answer is then &r.Done, a *ReadDone inside
// the request, which the link fills, and the requester may reuse r once the answer is
// in. Neither message is then allocated per read (a TX DMA engine keeps one Read per
// outstanding read).
type Read struct {
	Bytes actors.Bytes
	Tag   uint64
	Done  ReadDone // the answer to a *Read, filled by the link
}

func (r Read) String() string { return fmt.Sprintf("ht.Read(%s #%d)", r.Bytes, r.Tag) }

// Snapshot implements actors.Reused: a requester reuses its *Read.
func (r *Read) Snapshot() actors.Msg { c := *r; return &c }

// ReadDone returns the data of a Read to its requester.
type ReadDone struct {
	Bytes actors.Bytes
	Tag   uint64
}

func (r ReadDone) String() string { return fmt.Sprintf("ht.ReadDone(%s #%d)", r.Bytes, r.Tag) }

// Snapshot implements actors.Reused: the answer to a *Read lives in it.
func (r *ReadDone) Snapshot() actors.Msg { c := *r; return &c }

// ReadTag implements host.ReadCompletion.
func (r ReadDone) ReadTag() uint64 { return r.Tag }

// Interrupt is raised by the PPC and delivered to the host.
type Interrupt struct{ Vector int }

func (i Interrupt) String() string { return fmt.Sprintf("ht.Interrupt(%d)", i.Vector) }

// IRQVector implements host.InterruptRequest.
func (i Interrupt) IRQVector() int { return i.Vector }

// readReady is the link's timer for a read whose data is available at the far side.
type readReady struct {
	to    Unit // requester
	bytes actors.Bytes
	tag   uint64
	req   *Read // the requester's Read, answered in place; nil for a Read sent by value
}

func (r *readReady) String() string { return fmt.Sprintf("ht.readReady(%s #%d)", r.to, r.tag) }
