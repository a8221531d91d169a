package ppc

import (
	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/cam"
	"github.com/seastar-sim/seastar/ht"
	"github.com/seastar-sim/seastar/router"
	"github.com/seastar-sim/seastar/rxdma"
	"github.com/seastar-sim/seastar/txdma"
)

// Exec is a handler's view of the core: it converts the work the handler states into
// time with the cost model and issues the handler's commands at the moment of the
// handler they are issued. Commands to device registers (DMA FIFOs, the CAM) cost the
// uncached stores of their register writes.
type Exec struct {
	c      *Core
	ctx    actors.Context
	cycles int64
	extra  actors.Duration // time that is not whole cycles (trace points)
	queued actors.Time     // when the event reached the core
}

// Elapsed is the handler time so far.
func (x *Exec) Elapsed() actors.Duration { return x.c.p.Cycles(x.cycles) + x.extra }

// Now is the simulated time at this point of the handler.
func (x *Exec) Now() actors.Time { return x.ctx.Now().Add(x.Elapsed()) }

// Params returns the core's parameters.
func (x *Exec) Params() Params { return x.c.p }

// Rand is the core's random stream.
func (x *Exec) Rand() *actors.Rand { return x.ctx.Rand() }

// Fatalf panics the node: the run ends with an error naming the PPC and the time.
func (x *Exec) Fatalf(format string, args ...any) { x.ctx.Fatalf(format, args...) }

// Instr charges n instructions: InstrCycles each with the I-cache on, instructions
// fetched from SRAM (InstrUncachedCycles) with it off.
func (x *Exec) Instr(n int) {
	per := x.c.p.InstrUncachedCycles
	if x.c.p.ICache {
		per = x.c.p.InstrCycles
	}
	x.cycles += int64(n * per)
	x.c.Work.Instr += int64(n)
}

// Load charges n loads of cacheable SRAM (firmware-private data, Pedretti & Hudson 2005
// s.3.2): D-cache hits with the cache on, uncached SRAM reads with it off.
func (x *Exec) Load(n int) {
	per := x.c.p.SRAMReadCycles
	if x.c.p.DCache {
		per = x.c.p.CachedCycles
	}
	x.cycles += int64(n * per)
	x.c.Work.Loads += int64(n)
}

// Store charges n stores of cacheable SRAM.
func (x *Exec) Store(n int) {
	per := x.c.p.SRAMWriteCycles
	if x.c.p.DCache {
		per = x.c.p.CachedCycles
	}
	x.cycles += int64(n * per)
	x.c.Work.Stores += int64(n)
}

// LoadUncached charges n loads of uncached SRAM or device registers (mailboxes, data
// shared with the host, FIFO pointers).
func (x *Exec) LoadUncached(n int) {
	x.cycles += int64(n * x.c.p.SRAMReadCycles)
	x.c.Work.UncachedLoads += int64(n)
}

// StoreUncached charges n stores to uncached SRAM or device registers.
func (x *Exec) StoreUncached(n int) {
	x.cycles += int64(n * x.c.p.SRAMWriteCycles)
	x.c.Work.UncachedStores += int64(n)
}

// LoadHost charges n loads of host memory through an HT window (about ten SRAM reads
// each, Pedretti & Hudson 2005 s.2). The firmware avoids them.
func (x *Exec) LoadHost(n int) {
	x.cycles += int64(n * x.c.p.HostReadCycles)
	x.c.Work.HostLoads += int64(n)
}

// CacheLineBytes is the PowerPC 440's cache line (IBM PPC440 core: 32-byte lines in its
// 32 KB instruction and data caches, Pedretti & Hudson 2005 s.5.1 for the caches).
const CacheLineBytes = 32

// StoreBytes is what one firmware store moves into host memory or the PIO buffer
// (assumed: 8 bytes, a doubleword store).
const StoreBytes = 8

// stores is the number of stores that write n bytes.
func stores(n actors.Bytes) int { return int((n + StoreBytes - 1) / StoreBytes) }

// LoadHostCached charges reading n bytes of host memory mapped cached (a record the
// firmware keeps there, such as a spilled CAM entry): one host load per cache line.
func (x *Exec) LoadHostCached(n actors.Bytes) {
	x.LoadHost(int((n + CacheLineBytes - 1) / CacheLineBytes))
}

// Trace is a trace point (Pedretti & Hudson 2005 s.3.3): when compiled in, it costs
// TraceCost and records fn+offset, the time and value in the trace ring; when compiled
// out it costs nothing.
func (x *Exec) Trace(fn string, offset uint32, value uint8) {
	if !x.c.p.TraceEnabled {
		return
	}
	x.extra += x.c.p.TraceCost
	x.c.ring.add(Record{At: x.Now(), Func: fn, Offset: offset, Value: value})
}

// TraceDispatch is the main loop's trace point when it dispatches an event, with the
// event's code as value; TraceHandler the point at the end of handler fn. Firmware
// puts them around each handler, so that tracedump shows a handler's time on the main
// loop's line (the convention of every firmware here; no-ops unless compiled in).
func (x *Exec) TraceDispatch(code uint8) { x.Trace("mainloop", 0x14, code) }

// TraceHandler is the trace point at the end of handler fn (see TraceDispatch).
func (x *Exec) TraceHandler(fn string, value uint8) { x.Trace(fn, 0x6c, value) }

// TX writes a command into the TX DMA command FIFO (CommandStores register stores).
func (x *Exec) TX(c txdma.Command) {
	x.fifoPointers()
	x.StoreUncached(x.c.p.CommandStores)
	x.ctx.Send(PortTXDMA, txdma.NewCommand(c), x.Elapsed())
}

// PIO writes a short message into the PIO buffer and its command into the PIO FIFO: a
// store per StoreBytes of payload and CommandStores for the command.
func (x *Exec) PIO(p *txdma.PIO) {
	x.fifoPointers()
	x.StoreUncached(x.c.p.CommandStores + stores(actors.Bytes(p.Bytes)))
	x.ctx.Send(PortTXDMA, p, x.Elapsed())
}

// CAM programs the CAM (cam.SetEntry, cam.ClearEntry or cam.PushCommand):
// CommandStores register stores.
func (x *Exec) CAM(m actors.Msg) {
	x.fifoPointers()
	x.StoreUncached(x.c.p.CommandStores)
	x.ctx.Send(PortCAM, m, x.Elapsed())
}

// CAMPush appends cmd to CAM entry's queue (a cam.PushCommand the CAM recycles: no
// allocation per command): CommandStores register stores, as CAM.
func (x *Exec) CAMPush(entry int, cmd cam.Command) { x.CAM(cam.NewPush(entry, cmd)) }

// CAMSet binds CAM entry to source node src (a cam.SetEntry the CAM recycles), as CAM.
func (x *Exec) CAMSet(entry int, src router.NodeID) { x.CAM(cam.NewSetEntry(entry, src)) }

// Copro hands a request to the coprocessor (CoprocessorFirmware): CommandStores
// register stores; its answer comes back as an event.
func (x *Exec) Copro(m actors.Msg) {
	x.fifoPointers()
	x.StoreUncached(x.c.p.CommandStores)
	x.ctx.Send(PortCopro, m, x.Elapsed())
}

// Discard tells the RX engine to drop packet p at the FIFO head (one register store).
func (x *Exec) Discard(p *router.Packet) {
	x.StoreUncached(1)
	x.ctx.Send(PortRXDMA, rxdma.NewDiscard(rxdma.Discard{Packet: p}), x.Elapsed())
}

// DiscardMessage has the RX DMA engine drop the head packet and the rest of its
// message (a message the firmware refuses).
func (x *Exec) DiscardMessage(p *router.Packet) {
	x.StoreUncached(1)
	x.ctx.Send(PortRXDMA, rxdma.NewDiscard(rxdma.Discard{Packet: p, Whole: true}), x.Elapsed())
}

// HostWrite stores bytes into host memory (an event, an upper pending) through an HT
// window: HostWriteCycles per store of StoreBytes, posted. payload, if not nil, is delivered to
// the host when the bytes land, after any DMA data already on the link.
func (x *Exec) HostWrite(bytes actors.Bytes, payload actors.Msg) {
	n := int64(stores(bytes))
	x.cycles += int64(x.c.p.HostWriteCycles) * n
	x.c.Work.HostStores += n
	x.ctx.Send(PortHT, ht.NewWrite(ht.Host, bytes, payload), x.Elapsed())
}

// Interrupt raises a host interrupt (one register store).
func (x *Exec) Interrupt(vector int) {
	x.StoreUncached(1)
	x.ctx.Send(PortHT, ht.Interrupt{Vector: vector}, x.Elapsed())
}

// After delivers ev to the firmware again, as a new event, d after this point of the
// handler: a firmware timer (for example to retry when a FIFO is full).
func (x *Exec) After(d actors.Duration, ev actors.Msg) {
	x.ctx.SendSelf(wake{Event: ev}, x.Elapsed()+d)
}

// fifoPointers charges reading a command FIFO's head and tail pointers before writing
// a command: nothing with the write-through technique (cached copies; Params
// .WriteThrough), else two uncached loads.
func (x *Exec) fifoPointers() {
	if !x.c.p.WriteThrough {
		x.LoadUncached(2)
	}
}

// Mailbox charges taking a command of words 32-bit words out of a mailbox in uncached
// SRAM: its head index (nothing with the write-through technique, a cached copy; else
// one uncached load), the command's words, and the store that advances the head.
func (x *Exec) Mailbox(words int) {
	if !x.c.p.WriteThrough {
		x.LoadUncached(1)
	}
	x.LoadUncached(words)
	x.StoreUncached(1)
}
