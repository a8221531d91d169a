package ppc

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
)

// Params configures a Core. Start from DefaultParams; Validate before use. Cycle costs
// are per instruction or per access; the firmware states counts, the core multiplies.
type Params struct {
	Clock  actors.Freq `param:"clock" help:"PowerPC 440 clock" source:"Pedretti & Hudson 2005 s.2"`
	ICache bool        `param:"icache" help:"instruction cache enabled (32 KB)" source:"Pedretti & Hudson 2005 s.5.1"`
	DCache bool        `param:"dcache" help:"data cache enabled (32 KB) for cacheable SRAM" source:"Pedretti & Hudson 2005 s.5.1"`

	InstrCycles         int `param:"instr_cycles" help:"cycles per instruction with the I-cache on (dual issue offset by stalls)" source:"assumed"`
	InstrUncachedCycles int `param:"instr_uncached_cycles" help:"cycles per instruction fetched from SRAM with the I-cache off" source:"assumed"`
	CachedCycles        int `param:"cached_cycles" help:"cycles of a load or store that hits the D-cache" source:"assumed"`
	SRAMReadCycles      int `param:"sram_read_cycles" help:"cycles of an uncached load from SRAM or a device register" source:"assumed"`
	SRAMWriteCycles     int `param:"sram_write_cycles" help:"cycles of an uncached store (posted, up to 4 outstanding)" source:"assumed; Pedretti & Hudson 2005 s.2: 4 outstanding stores"`
	HostReadCycles      int `param:"host_read_cycles" help:"cycles of a load from host memory through an HT window" source:"Pedretti & Hudson 2005 s.2: about ten times an SRAM read"`
	HostWriteCycles     int `param:"host_write_cycles" help:"cycles to issue a store to host memory (posted)" source:"assumed; Pedretti & Hudson 2005 s.2: up to 4 outstanding"`
	CommandStores       int `param:"command_stores" help:"uncached stores that write one command into the TX DMA, PIO or CAM command FIFO" source:"assumed: two register writes"`
	PollCycles          int `param:"poll_cycles" help:"cycles for the idle main loop to notice an event" source:"assumed: half a pass of the polling loop"`
	DispatchCycles      int `param:"dispatch_cycles" help:"cycles to dispatch a handler from the main loop" source:"assumed"`
	// WriteThrough is the write-through technique of the C firmware (Pedretti & Hudson
	// 2005 s.5.3): cached shadow copies of the command FIFOs' head and tail pointers,
	// the NIC control block and the mailboxes, read and updated in cache and written
	// through to uncached SRAM. Off, every such read is an uncached access: two per
	// command written to a FIFO (head and tail), one per handler (the control block's
	// counters), one per mailbox command (its head), and the host reads a mailbox's
	// head over HyperTransport before each command it posts.
	WriteThrough bool `param:"write_through" help:"cached shadow copies of FIFO pointers, NIC control block and mailboxes, written through (off: uncached reads instead)" source:"Pedretti & Hudson 2005 s.5.3: on in the measured firmware"`

	TraceEnabled bool            `param:"trace_enabled" help:"firmware trace points compiled in" source:"Pedretti & Hudson 2005 s.3.3"`
	TraceCost    actors.Duration `param:"trace_cost" help:"cost of one trace point when compiled in" source:"Pedretti & Hudson 2005 s.3.3: about 10 ns"`
	TraceRecords int             `param:"trace_records" help:"capacity of the trace ring (8-byte records)" source:"assumed"`

	SRAM  actors.Bytes `param:"sram" help:"local SRAM" source:"Pedretti & Hudson 2005 s.2"`
	Image actors.Bytes `param:"image" help:"firmware code and static data in SRAM" source:"Pedretti & Hudson 2005 s.4: 22 KB image"`
	Stack actors.Bytes `param:"stack" help:"firmware stack in SRAM" source:"assumed"`

	// Fault injection: a NIC that stalls.
	StallNode int             `param:"stall_node" help:"fault injection: the node whose PPC stalls (its main loop runs no handler from stall_at for stall_for; events wait), -1 for none" source:"fault injection, default none"`
	StallAt   actors.Duration `param:"stall_at" help:"fault injection: simulated time the stall starts" source:"fault injection"`
	StallFor  actors.Duration `param:"stall_for" help:"fault injection: how long the PPC stalls (0: no stall)" source:"fault injection, default 0"`
}

// DefaultParams returns the PowerPC of Red Storm's SeaStar with the C firmware's
// configuration (caches on, tracing off).
func DefaultParams() Params {
	return Params{
		Clock: 500 * actors.Megahertz, ICache: true, DCache: true,
		InstrCycles: 1, InstrUncachedCycles: 6, CachedCycles: 1, SRAMReadCycles: 12, SRAMWriteCycles: 2,
		HostReadCycles: 120, HostWriteCycles: 4, CommandStores: 2, PollCycles: 20, DispatchCycles: 10, WriteThrough: true,
		TraceEnabled: false, TraceCost: 10 * actors.Nanosecond, TraceRecords: 4096,
		SRAM: 384 * actors.KiB, Image: 22 * actors.KiB, Stack: 8 * actors.KiB,
		StallNode: -1,
	}
}

// Validate reports the first invalid field, naming its key.
func (p Params) Validate() error {
	if p.Clock <= 0 {
		return fmt.Errorf("clock must be > 0 (got %s)", p.Clock)
	}
	for _, c := range []struct {
		key string
		v   int
	}{{"instr_cycles", p.InstrCycles}, {"instr_uncached_cycles", p.InstrUncachedCycles}, {"cached_cycles", p.CachedCycles},
		{"sram_read_cycles", p.SRAMReadCycles}, {"sram_write_cycles", p.SRAMWriteCycles}, {"host_read_cycles", p.HostReadCycles},
		{"host_write_cycles", p.HostWriteCycles}, {"command_stores", p.CommandStores}, {"poll_cycles", p.PollCycles}, {"dispatch_cycles", p.DispatchCycles}} {
		if c.v < 0 {
			return fmt.Errorf("%s must be >= 0 (got %d)", c.key, c.v)
		}
	}
	switch {
	case p.TraceCost < 0:
		return fmt.Errorf("trace_cost must be >= 0 (got %s)", p.TraceCost)
	case p.TraceRecords < 1:
		return fmt.Errorf("trace_records must be >= 1 (got %d)", p.TraceRecords)
	case p.SRAM <= 0:
		return fmt.Errorf("sram must be > 0 (got %s)", p.SRAM)
	case p.Image < 0 || p.Stack < 0:
		return fmt.Errorf("image and stack must be >= 0 (got %s, %s)", p.Image, p.Stack)
	case p.Image+p.Stack > p.SRAM:
		return fmt.Errorf("image (%s) and stack (%s) exceed the sram (%s)", p.Image, p.Stack, p.SRAM)
	case p.StallNode < -1 || p.StallAt < 0 || p.StallFor < 0:
		return fmt.Errorf("stall_node must be >= -1, stall_at and stall_for >= 0")
	}
	return nil
}

// Cycles converts n cycles to time.
func (p Params) Cycles(n int64) actors.Duration { return p.Clock.Cycles(n) }
