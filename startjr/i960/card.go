package i960

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/firmware"
	"github.com/seastar-sim/seastar/startjr/pci"
	"github.com/seastar-sim/seastar/startjr/squall"
	"github.com/seastar-sim/seastar/startjr/wire"
)

// Ports of a Card.
const (
	PortPCI actors.Port = iota
	PortSquall
)

// Params configures the card. Start from DefaultParams; Validate before use.
type Params struct {
	Clock           actors.Freq     `param:"clock" help:"i960CF clock" source:"Hoe & Ehrlich 1996 s.2.1.3: 33 MHz i960CF"`
	DRAM            actors.Bytes    `param:"dram" help:"local DRAM holding the firmware and its buffers" source:"Hoe & Ehrlich 1996 s.2.1.3: 2 MBytes"`
	Mailboxes       int             `param:"mailboxes" help:"32-bit mailbox registers of the bridge, visible to host and i960" source:"Hoe & Ehrlich 1996 s.2.1.3: eight"`
	InstrCycles     int             `param:"instr_cycles" help:"cycles per firmware instruction (compiled C from the 4 KB instruction cache)" source:"assumed: 1"`
	DRAMCycles      int             `param:"dram_cycles" help:"cycles of a local DRAM access (a data cache miss; the i960CF has a 1 KB data cache)" source:"assumed: 5"`
	RegisterCycles  int             `param:"register_cycles" help:"cycles of an access to a bridge register (a mailbox, the DMA engine)" source:"assumed: 6"`
	FIFOWordCycles  int             `param:"fifo_word_cycles" help:"cycles of a single-word access to a Squall FIFO" source:"assumed: 4"`
	FIFOBurstCycles int             `param:"fifo_burst_cycles" help:"cycles of a four-word burst access to a Squall FIFO" source:"assumed: 7 (Hoe & Ehrlich 1996 s.2.2.1: bursts more than double the bandwidth of single words)"`
	BridgeCycles    int             `param:"bridge_cycles" help:"cycles the bridge adds to an i960 access of host memory (local bus to PCI and back)" source:"assumed: 4"`
	PollCycles      int             `param:"poll_cycles" help:"cycles of one pass of the firmware's main loop that finds work (mailbox heads, FIFO status)" source:"assumed: 30"`
	DMASetupCycles  int             `param:"dma_setup_cycles" help:"cycles to program the bridge's DMA engine for one block" source:"assumed: 40"`
	Link            actors.Duration `param:"link_latency" help:"latency between the card and the PCI bus or the Squall module (the links between partitions)" source:"assumed: 30 ns"`
}

// DefaultParams returns the defaults.
func DefaultParams() Params {
	return Params{Clock: 33 * actors.Megahertz, DRAM: 2 * actors.MiB, Mailboxes: 8, InstrCycles: 1, DRAMCycles: 5, RegisterCycles: 6,
		FIFOWordCycles: 4, FIFOBurstCycles: 7, BridgeCycles: 4, PollCycles: 30, DMASetupCycles: 40, Link: 30 * actors.Nanosecond}
}

// Validate reports the first invalid field, naming its key.
func (p Params) Validate() error {
	switch {
	case p.Clock <= 0:
		return fmt.Errorf("clock must be > 0 (got %s)", p.Clock)
	case p.DRAM <= 0:
		return fmt.Errorf("dram must be > 0 (got %s)", p.DRAM)
	case p.Mailboxes < 4:
		return fmt.Errorf("mailboxes must be >= 4 (got %d): FUNI keeps a head and a tail per queue", p.Mailboxes)
	case p.InstrCycles < 1 || p.DRAMCycles < 0 || p.RegisterCycles < 0 || p.FIFOWordCycles < 0 || p.FIFOBurstCycles < 0 ||
		p.BridgeCycles < 0 || p.PollCycles < 0 || p.DMASetupCycles < 0:
		return fmt.Errorf("instr_cycles must be >= 1 and the other cycle counts >= 0")
	case p.Link <= 0:
		return fmt.Errorf("link_latency must be > 0 (got %s)", p.Link)
	}
	return nil
}

// Firmware is the program the i960 runs: a state machine whose Handle runs the handler
// of one event to completion through x (valid only until Handle returns). Polled says
// whether the main loop watches mailbox reg: a host store into it is an event for the
// firmware (a Tx head index); into any other (an Rx tail index) it only changes the
// register, which the firmware reads when it needs it (Exec.Mailbox).
type Firmware interface {
	Handle(x *Exec, ev actors.Msg)
	Polled(reg int) bool
}

// MailboxStore is a host store into mailbox register Reg (the payload of a pci.Write):
// the register takes Value; Event, if the register is polled, is what the firmware's
// poll finds. NewMailboxStore makes one the card recycles once it has taken it.
type MailboxStore struct {
	Reg   int
	Value uint32
	Event actors.Msg
	actors.PoolMark
}

var stores actors.Pool[MailboxStore, *MailboxStore]

// NewMailboxStore returns m as a store the card recycles once it has taken it.
func NewMailboxStore(m MailboxStore) *MailboxStore { return stores.New(m) }

func (m *MailboxStore) String() string {
	return fmt.Sprintf("i960.MailboxStore(%d=%d %v)", m.Reg, m.Value, m.Event)
}

// Card is the PCI80960 actor.
type Card struct {
	p   Params
	bus pci.Params
	fw  Firmware
	firmware.Loop
	x Exec

	stalled  bool            // the i960 waits for a host load
	stallAt  actors.Time     // since when
	then     actors.Msg      // the handler's continuation when the load returns
	segments actors.Duration // handler time before the stall
	dma      map[uint64]actors.Msg
	tag      uint64
	mailbox  []uint32

	Extra Stats
}

// Stats counts what the loop's statistics do not.
type Stats struct {
	HostReads, HostReadWords, HostWrites, DMAs int64
	Stall                                      actors.Duration // time the i960 waited for host loads
}

// New returns a card running fw; bus is the node's PCI bus (the DMA engine's transfer
// time). p must be valid.
func New(p Params, bus pci.Params, fw Firmware) *Card {
	return &Card{p: p, bus: bus, fw: fw, dma: map[uint64]actors.Msg{}, mailbox: make([]uint32, p.Mailboxes)}
}

// Ports implements actors.Ported.
func (c *Card) Ports() []string { return []string{"pci", "squall"} }

// Params returns the card's parameters.
func (c *Card) Params() Params { return c.p }

// Firmware returns the firmware the card runs.
func (c *Card) Firmware() Firmware { return c.fw }

func (c *Card) poll() actors.Duration { return c.p.Clock.Cycles(int64(c.p.PollCycles)) }

// wake is a firmware timer (Exec.After) delivering Event.
type wake struct{ Event actors.Msg }

func (w wake) String() string { return fmt.Sprintf("i960.wake(%s)", w.Event) }

// Receive implements actors.Actor.
func (c *Card) Receive(ctx actors.Context, m actors.Msg) {
	switch m := m.(type) {
	case firmware.Tick:
		ev, at := c.Next(ctx)
		c.handle(ctx, ev, at)
	case *pci.MasterReadDone:
		tag := m.Tag
		m.Release()
		if then, ok := c.dma[tag]; ok {
			delete(c.dma, tag)
			c.Enqueue(ctx, then, c.poll())
			return
		}
		if !c.stalled || tag != c.tag {
			ctx.Fatalf("i960: host load #%d completed but none is outstanding", tag)
			return
		}
		c.stalled = false
		c.Extra.Stall += ctx.Now().Sub(c.stallAt)
		then := c.then
		c.then = nil
		c.handle(ctx, then, ctx.Now())
	case wake:
		c.Enqueue(ctx, m.Event, c.poll())
	case *MailboxStore:
		if m.Reg < 0 || m.Reg >= len(c.mailbox) {
			ctx.Fatalf("i960: host store into mailbox %d, but the bridge has %d", m.Reg, len(c.mailbox))
			return
		}
		c.mailbox[m.Reg] = m.Value
		if c.fw.Polled(m.Reg) {
			c.Enqueue(ctx, m.Event, c.poll())
		}
		stores.Release(m)
	case *pci.TargetRead:
		// A host load of a bridge register: the bridge answers, not the firmware.
		ctx.Send(PortPCI, pci.NewTargetData(m.Tag), c.p.Clock.Cycles(int64(c.p.RegisterCycles)))
		m.Release()
	default:
		c.Enqueue(ctx, m, c.poll())
	}
}

// handle runs one handler (or the continuation of a stalled one) from now.
func (c *Card) handle(ctx actors.Context, ev actors.Msg, queued actors.Time) {
	x := &c.x
	*x = Exec{c: c, ctx: ctx, queued: queued}
	c.fw.Handle(x, ev)
	if r, ok := ev.(actors.Releaser); ok {
		r.Release() // a packet's arrival, a transmit FIFO's room
	}
	d := x.Elapsed()
	r := x.read
	x.ctx, x.read = nil, hostRead{}
	if r.then != nil {
		c.tag++
		c.stalled, c.stallAt, c.then = true, ctx.Now().Add(d), r.then
		c.segments += d
		c.Extra.HostReads++
		c.Extra.HostReadWords += int64(r.words)
		ctx.Send(PortPCI, pci.NewMasterRead(pci.MasterRead{Words: r.words, Tag: c.tag}), d)
		return
	}
	c.Stats.Busy += c.segments
	c.segments = 0
	c.Done(ctx, d, c.poll())
}

// Mailbox returns the value of mailbox register reg (for the host's library, which
// shares the node's partition: it reads it after a bus read of the register).
func (c *Card) Mailbox(reg int) uint32 { return c.mailbox[reg] }

// Exec is a handler's view of the card.
type Exec struct {
	c      *Card
	ctx    actors.Context
	cycles int64
	queued actors.Time
	read   hostRead // the handler's host load, if then is set
}

type hostRead struct {
	words int
	then  actors.Msg
}

// Elapsed is the handler time so far.
func (x *Exec) Elapsed() actors.Duration { return x.c.p.Clock.Cycles(x.cycles) }

// Now is the simulated time at this point of the handler.
func (x *Exec) Now() actors.Time { return x.ctx.Now().Add(x.Elapsed()) }

// Start is when the handler (or this part of it, after a host load) started.
func (x *Exec) Start() actors.Time { return x.ctx.Now() }

// Queued is when the event reached the card.
func (x *Exec) Queued() actors.Time { return x.queued }

// Params returns the card's parameters.
func (x *Exec) Params() Params { return x.c.p }

// Fatalf ends the run with an error naming the card and the time.
func (x *Exec) Fatalf(format string, args ...any) { x.ctx.Fatalf(format, args...) }

// Instr charges n instructions.
func (x *Exec) Instr(n int) { x.cycles += int64(n * x.c.p.InstrCycles) }

// DRAM charges n accesses of local DRAM (buffers the data cache does not hold).
func (x *Exec) DRAM(n int) { x.cycles += int64(n * x.c.p.DRAMCycles) }

// Register charges n accesses of bridge registers (mailboxes, DMA engine).
func (x *Exec) Register(n int) { x.cycles += int64(n * x.c.p.RegisterCycles) }

// FIFO charges moving n 32-bit words through a Squall FIFO: four-word bursts and single
// words for the rest.
func (x *Exec) FIFO(words int) {
	x.cycles += int64(words/4*x.c.p.FIFOBurstCycles + words%4*x.c.p.FIFOWordCycles)
}

// HostRead loads words 32-bit words of host memory, one PCI transaction each (i960
// loads through the bridge): the handler must return right after, and then is handled
// as its continuation when the data is back. At most one per handler.
func (x *Exec) HostRead(words int, then actors.Msg) {
	if x.read.then != nil {
		x.Fatalf("i960: a handler issued two host loads")
	}
	if then == nil {
		x.Fatalf("i960: a host load with no continuation")
	}
	x.cycles += int64(x.c.p.BridgeCycles)
	x.read = hostRead{words: words, then: then}
}

// HostWrite stores words 32-bit words into host memory, posted in the bridge (a burst
// when burst); payload, if not nil, lands in host memory when they do.
func (x *Exec) HostWrite(words int, burst bool, payload actors.Msg) {
	x.cycles += int64(x.c.p.BridgeCycles + words*x.c.p.InstrCycles)
	x.c.Extra.HostWrites++
	x.ctx.Send(PortPCI, pci.NewMasterWrite(pci.MasterWrite{Words: words, Burst: burst, Payload: payload}), x.Elapsed())
}

// DMARead has the bridge's DMA engine read words of host memory into local DRAM in PCI
// bursts; done is queued for the firmware when they are in. The i960 runs on.
func (x *Exec) DMARead(words int, done actors.Msg) {
	x.cycles += int64(x.c.p.DMASetupCycles)
	x.c.tag++
	x.c.dma[x.c.tag] = done
	x.c.Extra.DMAs++
	x.ctx.Send(PortPCI, pci.NewMasterRead(pci.MasterRead{Words: words, Burst: true, Tag: x.c.tag}), x.Elapsed())
}

// DMAWrite has the DMA engine write words from local DRAM into host memory in PCI
// bursts; payload lands in host memory with the last word; done, if not nil, is queued
// for the firmware when the engine has handed the block to the bus.
func (x *Exec) DMAWrite(words int, payload, done actors.Msg) {
	x.cycles += int64(x.c.p.DMASetupCycles)
	x.c.Extra.DMAs++
	x.ctx.Send(PortPCI, pci.NewMasterWrite(pci.MasterWrite{Words: words, Burst: true, Payload: payload}), x.Elapsed())
	if done != nil {
		x.After(x.c.bus.Transfer(words, true, x.c.bus.HostWriteLatency), done)
	}
}

// Transmit writes pk into the transmit FIFO of its priority (its words, in bursts).
func (x *Exec) Transmit(pk *wire.Packet) {
	x.FIFO(int((pk.Bytes + 3) / 4))
	x.ctx.Send(PortSquall, squall.NewTransmit(pk), x.Elapsed())
}

// Pop reads words of an arrived packet out of its receive FIFO and frees its room.
func (x *Exec) Pop(pk *wire.Packet, words int) {
	x.FIFO(words)
	x.ctx.Send(PortSquall, squall.NewPop(pk.Prio, pk.Bytes), x.Elapsed())
}

// Discard frees the room of an arrived packet the firmware drops after reading its
// header (words words).
func (x *Exec) Discard(pk *wire.Packet, words int) { x.Pop(pk, words) }

// Fill writes a GSMC line (words words into the dual-ported SRAM) and its tag, and
// re-enables the ACD for loads waiting on it.
func (x *Exec) Fill(addr uint64, words int) {
	x.FIFO(words + 2)
	x.ctx.Send(PortSquall, &squall.Fill{Addr: addr}, x.Elapsed())
}

// After delivers ev to the firmware d after this point of the handler.
func (x *Exec) After(d actors.Duration, ev actors.Msg) {
	x.ctx.SendSelf(wake{Event: ev}, x.Elapsed()+d)
}

// Mailbox reads mailbox register reg.
func (x *Exec) Mailbox(reg int) uint32 {
	x.Register(1)
	return x.c.mailbox[reg]
}

// SetMailbox writes mailbox register reg.
func (x *Exec) SetMailbox(reg int, v uint32) {
	x.Register(1)
	x.c.mailbox[reg] = v
}

// Rand is the card's random stream.
func (x *Exec) Rand() *actors.Rand { return x.ctx.Rand() }

// Tracer returns the run's tracer, or nil.
func (x *Exec) Tracer() actors.Tracer { return actors.TracerOf(x.ctx) }

// Self is the card's place in the model (for spans).
func (x *Exec) Self() actors.ActorID { return x.ctx.Self() }
