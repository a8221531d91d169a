package ppc

import (
	"fmt"
	"strings"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/firmware"
	"github.com/seastar-sim/seastar/rxdma"
)

// Ports of a Core.
const (
	PortHT    actors.Port = iota // host stores into SRAM in; host-memory writes and interrupts out
	PortTXDMA                    // commands out; Done and Retired in
	PortRXDMA                    // Discard out; SOM and Done in
	PortCAM                      // programming out; Stalled in
	PortCopro                    // requests out, results in: a coprocessor beside the core, if the firmware has one
)

// Firmware is the program the PPC runs: a pure state machine. Boot allocates its SRAM
// structures once, at build time; Handle runs the handler for one event to completion,
// stating its work and issuing its commands through x, which is valid only until Handle
// returns.
type Firmware interface {
	Boot(b *Boot) error
	Handle(x *Exec, ev actors.Msg)
}

// Core is the PowerPC actor: the firmware's main loop (firmware.Loop) with the PPC's
// cost model.
type Core struct {
	p  Params
	fw Firmware
	firmware.Loop
	x    Exec // the running handler's view, reused by every dispatch
	ring TraceRing
	sram []Allocation

	stallFrom, stallTo actors.Time // fault injection: no handler runs in [stallFrom, stallTo)
	Stalled            actors.Duration

	Work Work // what the handlers did, by kind of work
}

// Work counts the firmware's work by kind, as the cost model charges it: what the
// handlers of a message do, whatever the caches (the cycles each costs depend on
// ICache, DCache and WriteThrough). Handler dispatch and main-loop polling are in
// Stats.
type Work struct {
	Instr          int64 // instructions
	Loads, Stores  int64 // of cacheable SRAM (firmware-private data)
	UncachedLoads  int64 // of uncached SRAM and device registers (mailboxes, FIFO pointers, the RX FIFO)
	UncachedStores int64 // including the register stores of DMA, PIO and CAM commands
	HostLoads      int64 // loads of host memory through an HT window
	HostStores     int64 // 8-byte posted stores into host memory
}

// Add returns the sum of w and o.
func (w Work) Add(o Work) Work {
	return Work{w.Instr + o.Instr, w.Loads + o.Loads, w.Stores + o.Stores, w.UncachedLoads + o.UncachedLoads,
		w.UncachedStores + o.UncachedStores, w.HostLoads + o.HostLoads, w.HostStores + o.HostStores}
}

// Sub returns w minus o.
func (w Work) Sub(o Work) Work {
	return Work{w.Instr - o.Instr, w.Loads - o.Loads, w.Stores - o.Stores, w.UncachedLoads - o.UncachedLoads,
		w.UncachedStores - o.UncachedStores, w.HostLoads - o.HostLoads, w.HostStores - o.HostStores}
}

// Stall makes the core run no handler from at for d (fault injection: a firmware hang):
// events queue meanwhile and the main loop resumes at at+d.
func (c *Core) Stall(at, d actors.Duration) {
	c.stallFrom, c.stallTo = actors.Time(0).Add(at), actors.Time(0).Add(at+d)
}

// Stats counts the core's work.
type Stats = firmware.Stats

// wake is a firmware timer (Exec.After) delivering Event.
type wake struct {
	Event actors.Msg
}

func (w wake) String() string { return fmt.Sprintf("ppc.wake(%s)", w.Event) }

// New boots fw on a core. The error names the allocations when the firmware's
// structures do not fit in the SRAM. p must be valid.
func New(p Params, fw Firmware) (*Core, error) {
	b := &Boot{p: p}
	if p.TraceEnabled {
		// The ring is in uncached SRAM (Pedretti & Hudson 2005 s.3.3): 8-byte records.
		b.Alloc("trace ring", 8, p.TraceRecords)
	}
	if err := fw.Boot(b); err != nil {
		return nil, err
	}
	if b.err != nil {
		return nil, b.err
	}
	return &Core{p: p, fw: fw, ring: newRing(p.TraceRecords), sram: b.allocs}, nil
}

// CoprocessorFirmware is firmware that drives a coprocessor block beside the core
// (a match unit, say) through the core's "copro" port; the port exists only for it.
type CoprocessorFirmware interface {
	Firmware
	// Coprocessor names the block the port connects to (for documentation and errors).
	Coprocessor() string
}

// Ports implements actors.Ported.
func (c *Core) Ports() []string {
	if _, ok := c.fw.(CoprocessorFirmware); ok {
		return []string{"ht", "txdma", "rxdma", "cam", "copro"}
	}
	return []string{"ht", "txdma", "rxdma", "cam"}
}

// Firmware returns the firmware the core runs.
func (c *Core) Firmware() Firmware { return c.fw }

// Trace returns the trace ring.
func (c *Core) Trace() *TraceRing { return &c.ring }

// SRAM returns the boot-time allocations.
func (c *Core) SRAM() []Allocation { return c.sram }

// Receive implements actors.Actor.
func (c *Core) Receive(ctx actors.Context, m actors.Msg) {
	switch m := m.(type) {
	case firmware.Tick:
		if now := ctx.Now(); now >= c.stallFrom && now < c.stallTo {
			c.Stalled += c.stallTo.Sub(now)
			ctx.SendSelf(firmware.Tick{}, c.stallTo.Sub(now)) // stalled: the loop resumes then
			return
		}
		c.dispatch(ctx)
		return
	case wake:
		c.Enqueue(ctx, m.Event, c.poll())
	default:
		c.Enqueue(ctx, m, c.poll())
	}
}

// poll is one pass of the main loop that finds an event.
func (c *Core) poll() actors.Duration { return c.p.Cycles(int64(c.p.PollCycles)) }

// dispatch runs the handler of the oldest event, then schedules the next dispatch.
func (c *Core) dispatch(ctx actors.Context) {
	ev, at := c.Next(ctx)
	x := &c.x
	*x = Exec{c: c, ctx: ctx, cycles: int64(c.p.DispatchCycles), queued: at}
	if !c.p.WriteThrough {
		x.LoadUncached(1) // the NIC control block's counters, without their cached copy
	}
	c.fw.Handle(x, ev)
	x.ctx = nil // the handler is over: its view must not be used again
	c.Done(ctx, x.Elapsed(), c.poll())
	switch d := ev.(type) {
	case rxdma.SOM:
		d.Packet.Unshare() // the RX DMA engine may still hold it in its FIFO
	case actors.Releaser: // DMA and CAM completions, a coprocessor's answer
		d.Release()
	}
}

// Heartbeat is the main loop's heartbeat counter at time now: one per handler and one
// per idle pass of the loop (2 x PollCycles), computed when asked rather than ticked.
// now must not precede the last event the core received: the count includes every
// handler dispatched so far.
func (c *Core) Heartbeat(now actors.Time) int64 {
	pass := c.p.Cycles(int64(2 * max(1, c.p.PollCycles)))
	busy := c.Stats.Busy - max(0, c.Free().Sub(now)) // a handler still running at now has not spent its time yet
	idle := max(0, now.Sub(0)-busy)
	return c.Stats.Handled + int64(idle/pass)
}

// Boot is the firmware's view of the core at boot: SRAM allocation.
type Boot struct {
	p      Params
	allocs []Allocation
	used   actors.Bytes
	err    error
}

// Allocation is a firmware data structure in SRAM.
type Allocation struct {
	Name  string
	Size  actors.Bytes // of one element
	Count int
}

// Total is the allocation's size.
func (a Allocation) Total() actors.Bytes { return a.Size * actors.Bytes(a.Count) }

// Params returns the core's parameters.
func (b *Boot) Params() Params { return b.p }

// Free is the SRAM left for data structures: SRAM - image - stack - allocations.
func (b *Boot) Free() actors.Bytes { return b.p.SRAM - b.p.Image - b.p.Stack - b.used }

// Alloc reserves count structures of size bytes. When the SRAM is exhausted the boot
// fails with a message listing every allocation (Pedretti & Hudson 2005, s.4.2:
// M = S*Ssize + sum(Pi*Psize) must fit the 384 KB).
func (b *Boot) Alloc(name string, size actors.Bytes, count int) {
	if b.err != nil {
		return
	}
	a := Allocation{Name: name, Size: size, Count: count}
	b.allocs = append(b.allocs, a)
	if size < 0 || count < 0 {
		b.err = fmt.Errorf("ppc: allocation %s of %d x %s is negative", name, count, size)
		return
	}
	if a.Total() > b.Free() {
		b.err = b.overflow(a)
		return
	}
	b.used += a.Total()
}

func (b *Boot) overflow(last Allocation) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "ppc: firmware structures do not fit in SRAM: %s needs %s but only %s is left "+
		"(sram %s - image %s - stack %s);", last.Name, last.Total(), b.Free(), b.p.SRAM, b.p.Image, b.p.Stack)
	for _, a := range b.allocs {
		fmt.Fprintf(&sb, " %s %d x %s = %s;", a.Name, a.Count, a.Size, a.Total())
	}
	return fmt.Errorf("%s", strings.TrimSuffix(sb.String(), ";"))
}
