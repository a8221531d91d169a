package pci

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
)

// Params configures the bus. Start from DefaultParams; Validate before use.
type Params struct {
	Clock            actors.Freq     `param:"clock" help:"bus clock; one 32-bit data phase per clock" source:"Hoe & Ehrlich 1996 s.2.1.3; PCI Local Bus Specification 2.1: 33 MHz, 32 bits"`
	Arbitration      int             `param:"arbitration_clocks" help:"clocks from a request to the grant when the bus is idle" source:"assumed: 2 (PCI 2.1 arbitration is hidden behind a transfer when one is running)"`
	HostReadLatency  int             `param:"host_read_latency_clocks" help:"clocks from the address phase to the first data when the host bridge serves a read of host memory, snooping the Pentium's caches (a cache-coherent read)" source:"calibrated: FUNI occupancy per message word, Table 2 rows JAM_n=1 and JAM_n=20 (protocols/funi/calibration.go)"`
	HostWriteLatency int             `param:"host_write_latency_clocks" help:"clocks from the address phase to the first data when the host bridge accepts a write into host memory (posted into its buffer)" source:"assumed: 2"`
	CardLatency      int             `param:"card_latency_clocks" help:"clocks from the address phase to the first data when the PCI80960 bridge is the target (a mailbox register, the ACD window on its local bus)" source:"assumed: 8 (the bridge crosses to the i960 local bus)"`
	Turnaround       int             `param:"turnaround_clocks" help:"idle clocks between two transactions" source:"PCI Local Bus Specification 2.1: 1"`
	HostLink         actors.Duration `param:"link_latency" help:"latency between the bus and the host bridge or the card (the links between partitions)" source:"assumed: one clock, 30 ns"`
}

// DefaultParams returns the defaults.
func DefaultParams() Params {
	return Params{Clock: 33 * actors.Megahertz, Arbitration: 2, HostReadLatency: 18, HostWriteLatency: 2, CardLatency: 8, Turnaround: 1,
		HostLink: 30 * actors.Nanosecond}
}

// Validate reports the first invalid field, naming its key.
func (p Params) Validate() error {
	switch {
	case p.Clock <= 0:
		return fmt.Errorf("clock must be > 0 (got %s)", p.Clock)
	case p.Arbitration < 0 || p.HostReadLatency < 0 || p.HostWriteLatency < 0 || p.CardLatency < 0 || p.Turnaround < 0:
		return fmt.Errorf("arbitration_clocks, host_read_latency_clocks, host_write_latency_clocks, card_latency_clocks and turnaround_clocks must be >= 0")
	case p.HostLink <= 0:
		return fmt.Errorf("link_latency must be > 0 (got %s): the bus and its ends may run in different partitions", p.HostLink)
	}
	return nil
}

// clocks is the duration of n bus clocks.
func (p Params) clocks(n int) actors.Duration { return p.Clock.Cycles(int64(n)) }

// Transfer is the bus time of words 32-bit data phases to a target with the given
// initial latency: one transaction (burst) or one per word (single), each with its
// address phase, latency and turnaround; arbitration is paid once when the bus is idle.
func (p Params) Transfer(words int, burst bool, latency int) actors.Duration {
	words = max(words, 1)
	if burst {
		return p.clocks(1 + latency + words + p.Turnaround)
	}
	return p.clocks(words * (1 + latency + 1 + p.Turnaround))
}
