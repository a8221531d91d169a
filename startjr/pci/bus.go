package pci

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
)

// Ports of a Bus.
const (
	PortHost actors.Port = iota
	PortCard
	PortACD
)

// Write is the host's posted store of Bytes into the card's register Reg (a mailbox).
// NewWrite makes one the bus recycles once it has handled it.
type Write struct {
	Reg     int
	Bytes   actors.Bytes
	Payload actors.Msg // delivered to the card when the data lands
	actors.PoolMark
}

func (w *Write) String() string {
	return fmt.Sprintf("pci.Write(mailbox %d %s %v)", w.Reg, w.Bytes, w.Payload)
}

// Read is the host's load of Bytes at Addr of the card's shared-memory window.
// NewRead makes one the bus recycles once it has handled it.
type Read struct {
	Addr  uint64
	Bytes actors.Bytes
	Tag   uint64
	actors.PoolMark
}

func (r *Read) String() string { return fmt.Sprintf("pci.Read(%#x #%d)", r.Addr, r.Tag) }

// RegisterWindow is the top of the card's register space in the host's view: a Read
// below it reads a bridge register (Reg = Addr/4), above it the shared region.
const RegisterWindow = 0x1000

// ReadDone returns the data of a host Read; the bus sends one the host gives back
// (Release) once it has taken it.
type ReadDone struct {
	Tag uint64
	actors.PoolMark
}

func (r *ReadDone) String() string { return fmt.Sprintf("pci.ReadDone(#%d)", r.Tag) }

// ReadTag implements host.ReadCompletion.
func (r *ReadDone) ReadTag() uint64 { return r.Tag }

// Release recycles r if the bus sent it; the caller must be its last holder.
func (r *ReadDone) Release() { hostReadDones.Release(r) }

// TargetRead is a host read the bus passes to its target (the card's bridge, the ACD),
// which gives it back (Release) once it has answered.
type TargetRead struct {
	Addr uint64
	Tag  uint64
	actors.PoolMark
}

func (r *TargetRead) String() string { return fmt.Sprintf("pci.TargetRead(%#x #%d)", r.Addr, r.Tag) }

// Release recycles r if the bus sent it; the caller must be its last holder.
func (r *TargetRead) Release() { targetReads.Release(r) }

// TargetData is the target's answer to a TargetRead (the card's bridge, the ACD).
// NewTargetData makes one the bus recycles once it has handled it.
type TargetData struct {
	Tag uint64
	actors.PoolMark
}

func (d *TargetData) String() string { return fmt.Sprintf("pci.TargetData(#%d)", d.Tag) }

// MasterRead is the card reading Words 32-bit words of host memory, one transaction per
// word unless Burst. NewMasterRead makes one the bus recycles once it has handled it.
type MasterRead struct {
	Words int
	Burst bool
	Tag   uint64
	actors.PoolMark
}

func (r *MasterRead) String() string {
	return fmt.Sprintf("pci.MasterRead(%d words burst=%v #%d)", r.Words, r.Burst, r.Tag)
}

// MasterReadDone returns the data of a MasterRead to the card; the bus sends one the
// card gives back (Release) once it has read it.
type MasterReadDone struct {
	Tag uint64
	actors.PoolMark
}

func (r *MasterReadDone) String() string { return fmt.Sprintf("pci.MasterReadDone(#%d)", r.Tag) }

// Release recycles r if the bus sent it; the caller must be its last holder.
func (r *MasterReadDone) Release() { readDones.Release(r) }

// MasterWrite is the card writing Words 32-bit words into host memory (posted in its
// bridge); Payload, if not nil, lands in host memory when the last word does.
// NewMasterWrite makes one the bus recycles once it has handled it.
type MasterWrite struct {
	Words   int
	Burst   bool
	Payload actors.Msg
	actors.PoolMark
}

// The bus's messages recycled by their last holder: writes, reads and a target's
// answers by the bus once handled, the card's read completions by the card, a host
// read's completion by the host, a host read passed on by its target.
var (
	writes        actors.Pool[Write, *Write]
	masterReads   actors.Pool[MasterRead, *MasterRead]
	masterWrites  actors.Pool[MasterWrite, *MasterWrite]
	readDones     actors.Pool[MasterReadDone, *MasterReadDone]
	reads         actors.Pool[Read, *Read]
	hostReadDones actors.Pool[ReadDone, *ReadDone]
	targetReads   actors.Pool[TargetRead, *TargetRead]
	targetDatas   actors.Pool[TargetData, *TargetData]
)

// NewRead returns a host read of bytes at addr, tagged tag, which the bus recycles once
// it has handled it.
func NewRead(addr uint64, bytes actors.Bytes, tag uint64) *Read {
	return reads.New(Read{Addr: addr, Bytes: bytes, Tag: tag})
}

// NewTargetData returns a target's answer to the TargetRead tagged tag, which the bus
// recycles once it has handled it.
func NewTargetData(tag uint64) *TargetData { return targetDatas.New(TargetData{Tag: tag}) }

// NewWrite returns w as a message the bus recycles once it has handled it.
func NewWrite(w Write) *Write { return writes.New(w) }

// NewMasterRead returns r as a message the bus recycles once it has handled it.
func NewMasterRead(r MasterRead) *MasterRead { return masterReads.New(r) }

// NewMasterWrite returns w as a message the bus recycles once it has handled it.
func NewMasterWrite(w MasterWrite) *MasterWrite { return masterWrites.New(w) }

func (w *MasterWrite) String() string {
	return fmt.Sprintf("pci.MasterWrite(%d words burst=%v %v)", w.Words, w.Burst, w.Payload)
}

// Bus is the PCI bus actor of one node.
type Bus struct {
	p     Params
	free  actors.Time // the bus is idle from then on
	Stats Stats
}

// Stats counts the bus's transactions.
type Stats struct {
	Transactions int64
	Words        int64
	Busy         actors.Duration
	Wait         actors.Duration // time requests waited for the bus
}

// New returns a bus. p must be valid.
func New(p Params) *Bus { return &Bus{p: p} }

// Ports implements actors.Ported.
func (b *Bus) Ports() []string { return []string{"host", "card", "acd"} }

// occupy runs a transfer of words on the bus from now (or when it is free): it returns
// when the last data phase ends.
func (b *Bus) occupy(ctx actors.Context, words int, burst bool, latency int) actors.Time {
	now := ctx.Now()
	start := now.Add(b.p.clocks(b.p.Arbitration))
	if b.free > start {
		start = b.free // granted as the previous transaction ends (hidden arbitration)
	}
	d := b.p.Transfer(words, burst, latency)
	b.free = start.Add(d)
	b.Stats.Transactions++
	b.Stats.Words += int64(words)
	b.Stats.Busy += d
	b.Stats.Wait += start.Sub(now)
	return b.free
}

// Receive implements actors.Actor.
func (b *Bus) Receive(ctx actors.Context, m actors.Msg) {
	switch m := m.(type) {
	case *Write:
		done := b.occupy(ctx, int(max(1, (m.Bytes+3)/4)), true, b.p.CardLatency)
		if m.Payload != nil {
			ctx.Send(PortCard, m.Payload, done.Sub(ctx.Now()))
		}
		writes.Release(m)
	case *Read:
		// The address phase reaches the target (a bridge register, or the ACD for the
		// shared region); the data phase follows its answer (the host bridge retries
		// the read meanwhile, the bus stays free for others).
		at := b.occupy(ctx, 0, true, b.p.CardLatency)
		to := PortACD
		if m.Addr < RegisterWindow {
			to = PortCard
		}
		ctx.Send(to, targetReads.New(TargetRead{Addr: m.Addr, Tag: m.Tag}), at.Sub(ctx.Now()))
		reads.Release(m)
	case *TargetData:
		done := b.occupy(ctx, 1, true, 0)
		ctx.Send(PortHost, hostReadDones.New(ReadDone{Tag: m.Tag}), done.Sub(ctx.Now()))
		targetDatas.Release(m)
	case *MasterRead:
		done := b.occupy(ctx, m.Words, m.Burst, b.p.HostReadLatency)
		ctx.Send(PortCard, readDones.New(MasterReadDone{Tag: m.Tag}), done.Sub(ctx.Now()))
		masterReads.Release(m)
	case *MasterWrite:
		done := b.occupy(ctx, m.Words, m.Burst, b.p.HostWriteLatency)
		if m.Payload != nil {
			ctx.Send(PortHost, m.Payload, done.Sub(ctx.Now()))
		}
		masterWrites.Release(m)
	default:
		ctx.Fatalf("pci: unexpected %T (%s)", m, m)
	}
}
