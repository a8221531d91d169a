// Package portals4 is Portals 4 on the SeaStar node, offloaded: the PPC firmware holds
// every Portals object of the node's processes (the pure semantics of ptl4) and does
// the matching, list management, unexpected headers, counting events and triggered
// operations; messages, acks and replies cross the real TX and RX DMA engines, the CAM
// and the router. The host library is a thin user-level layer: every call is a
// command into the firmware's mailbox over HyperTransport and a busy-wait for its
// result, as the accelerated Portals 3.3 library does (Brightwell 2011, papers/002:
// the NIC co-design Portals 4 was designed for; Pedretti & Hudson 2005 for the
// mailbox and DMA mechanics the SeaStar firmware already has).
package portals4

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/machine"
	"github.com/seastar-sim/seastar/protocols/portals3"
)

// Params are the costs of Portals 4 on the SeaStar. Firmware costs are PPC
// instructions (the PPC's clock and cache model turn them into time); host costs are
// durations of the library on the Opteron.
type Params struct {
	NIC              string          `param:"nic" enum:"offload|onload|matchunit|ib" help:"where Portals 4 runs: offload (everything in the SeaStar PPC firmware), onload (the SeaStar moves bytes; the host's interrupt handler and library do the Portals work, onload_* costs), matchunit (the firmware, with list matching in the match unit beside the PPC, matchunit.*) or ib (an InfiniBand cluster, ib.*: Portals on the host over RC queue pairs, a progress thread per process; selected by machine=ib too)" source:"papers/002 s.5 (NIC co-design): the design points studied"`
	LibCall          actors.Duration `param:"lib_call" help:"host library time per Portals call: argument checks and building the mailbox command" source:"default portals.accel_lib_call (100 ns): the accelerated Portals 3.3 library does the same argument checks and command building"`
	CmdBytes         actors.Bytes    `param:"cmd_bytes" help:"size of a command written into the firmware mailbox" source:"assumed: one 64-byte HyperTransport posted write"`
	ResultBytes      actors.Bytes    `param:"result_bytes" help:"size of a call's result the firmware writes to host memory (an event is this size too)" source:"assumed: ptl_event_t is 80 bytes on LP64; rounded to 64+16"`
	BellBytes        actors.Bytes    `param:"bell_bytes" help:"size of the change notification the firmware writes to host memory when a process's queues or counters moved" source:"assumed: its address and the notification count, two 8-byte words"`
	HeaderBytes      actors.Bytes    `param:"header_bytes" help:"Portals 4 header on the wire (operation, ids, pt index, match bits, offsets, length, hdr_data, atomic op and type)" source:"assumed: 48 bytes, as portals.header_bytes: with the inline payload and the CRC it fills the 64-byte header packet"`
	InlineMax        actors.Bytes    `param:"inline_max" help:"payload that rides inside the header packet" source:"Pedretti & Hudson 2005 s.5.2: 12 bytes (as portals.inline_max)"`
	FwCallInstr      int             `param:"fw_call_instr" help:"PPC instructions to decode a mailbox command and dispatch the call" source:"default portals.fw_table_instr (60): a mailbox command of an accelerated process"`
	FwMatchInstr     int             `param:"fw_match_instr" help:"PPC instructions of matching an arriving message: fixed part (header checks, portal table lookup)" source:"default portals.fw_match_instr (40, the accelerated Portals 3.3 firmware matching)"`
	FwEntryInstr     int             `param:"fw_entry_instr" help:"PPC instructions per list entry or unexpected header examined" source:"default portals.fw_match_me_instr (12)"`
	FwEntryLoads     int             `param:"fw_entry_loads" help:"SRAM loads per list entry examined (bits, ignore, id, options, next)" source:"default portals.fw_match_me_loads (2: a 64-byte entry is two cache lines)"`
	FwEventInstr     int             `param:"fw_event_instr" help:"PPC instructions to build a full event and queue it for the host" source:"assumed: 30, filling the ten words of a ptl_event_t (the record write itself is a host write over HyperTransport)"`
	FwCountInstr     int             `param:"fw_count_instr" help:"PPC instructions of a counting-event update, with the threshold check of its triggered list" source:"assumed"`
	FwTrigInstr      int             `param:"fw_trig_instr" help:"PPC instructions to fire a triggered operation (on top of the operation itself)" source:"assumed"`
	FwAtomInstr      int             `param:"fw_atom_instr" help:"PPC instructions per atomic datatype element computed (no FPU assist on the PPC 440)" source:"assumed"`
	FwTxInstr        int             `param:"fw_tx_instr" help:"PPC instructions to build and queue the DMA program of a message" source:"default portals.fw_tx_instr + portals.fw_tx_start_instr (60 + 60, calibrated on the Portals 3.3 targets)"`
	FwDMAInstr       int             `param:"fw_dma_instr" help:"PPC instructions to move one built DMA command of a queued message into the TX DMA command FIFO" source:"assumed: 4, load the command and its FIFO slot"`
	FwSOMInstr       int             `param:"fw_som_instr" help:"PPC instructions to take a new message off the RX FIFO and program its receive" source:"default portals.fw_som_instr (100, calibrated)"`
	FwDoneInstr      int             `param:"fw_done_instr" help:"PPC instructions to retire a DMA completion" source:"default portals.fw_done_instr (60, calibrated)"`
	FwStallInstr     int             `param:"fw_stall_instr" help:"PPC instructions to take note of a CAM stall" source:"default portals.fw_stall_instr (10)"`
	BarrierBytes     actors.Bytes    `param:"barrier_bytes" help:"size of a runtime barrier message (the out-of-band job launcher's, carried by the NIC)" source:"assumed: 0, a header-only message"`
	OnloadProgress   string          `param:"onload_progress" enum:"interrupt|thread" help:"onload: who runs arriving messages: the interrupt handler (an interrupt per record; it runs all that have landed) or a progress thread on host core 1, polling the ring" source:"papers/002 s.5 (Portals over InfiniBand: one progress thread per process); interrupt as Portals 3.3 generic mode"`
	OnloadMatch      actors.Duration `param:"onload_match" help:"onload: host time to take an arriving header and start matching it (fixed part)" source:"default portals.kern_match (100 ns, calibrated: the generic-mode Portals 3.3 host matching)"`
	OnloadEntryHit   actors.Duration `param:"onload_entry_hit" help:"onload: host time per list entry examined when the entry is in cache" source:"default portals.kern_match_me (10 ns)"`
	OnloadEntryMiss  actors.Duration `param:"onload_entry_miss" help:"onload: host time per list entry examined when it misses the cache" source:"papers/002 s.5: a cache miss costs 70-120 ns; 100 ns"`
	OnloadEntryBytes actors.Bytes    `param:"onload_entry_bytes" help:"onload: host memory a list entry or unexpected header occupies (the walk's footprint)" source:"assumed: 64 B, one cache line"`
	OnloadCache      actors.Bytes    `param:"onload_cache" help:"onload: cache the lists compete for; the part of the footprint past it misses" source:"assumed: 1 MiB, the Opteron's L2"`
	OnloadEvent      actors.Duration `param:"onload_event" help:"onload: host time to write one full event" source:"default portals.kern_event (70 ns, calibrated)"`
	OnloadCount      actors.Duration `param:"onload_count" help:"onload: host time of a counting-event update or a triggered operation's firing" source:"assumed: 20 ns"`
	OnloadAtom       actors.Duration `param:"onload_atom" help:"onload: host time per atomic datatype element computed" source:"assumed: 2 ns, a few instructions at 2 GHz"`
	OnloadRecord     actors.Duration `param:"onload_record" help:"onload: interrupt handler time per NIC record read from the ring" source:"default portals.kern_irq_event (150 ns, calibrated)"`
	IBSGEMax         int             `param:"ib_sge_max" help:"machine=ib: largest payload a request sends by DMA with its send; beyond it the target reads the payload with an RDMA read" source:"papers/002 s.6 (DMA up to the inline SGE limit); 4096 B assumed"`
	PID              int             `param:"pid" help:"Portals process id of the first process on each node" source:"assumed"`
}

// DefaultParams returns the defaults. Where the Portals 4 firmware does what the
// accelerated Portals 3.3 firmware does (take a mailbox command, build a DMA program,
// take a new message, match, retire a DMA), the cost is the Portals 3.3 one, whose
// values are calibrated on the visible targets (docs/design.md section 6): one model of the
// SeaStar firmware, not a second set of numbers.
func DefaultParams() Params {
	p3 := portals3.DefaultParams()
	return Params{NIC: "offload", LibCall: p3.AccelLibCall, CmdBytes: 64, ResultBytes: 80, BellBytes: 16, HeaderBytes: p3.HeaderBytes, InlineMax: p3.InlineMax,
		FwCallInstr: p3.FwTableInstr, FwMatchInstr: p3.FwMatchInstr, FwEntryInstr: p3.FwMatchMEInstr,
		FwEntryLoads: p3.FwMatchMELoads, FwEventInstr: 30, FwCountInstr: 30, FwTrigInstr: 40, FwAtomInstr: 20,
		FwTxInstr: p3.FwTxInstr + p3.FwTxStartInstr, FwDMAInstr: 4, FwSOMInstr: p3.FwSOMInstr, FwDoneInstr: p3.FwDoneInstr,
		FwStallInstr: p3.FwStallInstr, BarrierBytes: 0, PID: 1,
		OnloadProgress: "interrupt", IBSGEMax: 4096, OnloadMatch: p3.KernMatch, OnloadEntryHit: p3.KernMatchME, OnloadEntryMiss: 100 * actors.Nanosecond,
		OnloadEntryBytes: 64, OnloadCache: actors.MiB, OnloadEvent: p3.KernEvent, OnloadCount: 20 * actors.Nanosecond,
		OnloadAtom: 2 * actors.Nanosecond, OnloadRecord: p3.KernIRQ}
}

// Validate checks the parameters.
func (p Params) Validate() error {
	switch {
	case p.NIC != "offload" && p.NIC != "onload" && p.NIC != "matchunit" && p.NIC != "ib":
		return fmt.Errorf("portals4.nic must be offload, onload, matchunit or ib (got %q)", p.NIC)
	case p.OnloadMatch < 0 || p.OnloadEntryHit < 0 || p.OnloadEntryMiss < p.OnloadEntryHit || p.OnloadEvent < 0 ||
		p.OnloadCount < 0 || p.OnloadAtom < 0 || p.OnloadRecord < 0:
		return fmt.Errorf("portals4.onload_* times must be >= 0, and onload_entry_miss >= onload_entry_hit")
	case p.IBSGEMax < 0:
		return fmt.Errorf("portals4.ib_sge_max must be >= 0 (got %d)", p.IBSGEMax)
	case p.OnloadProgress != "interrupt" && p.OnloadProgress != "thread":
		return fmt.Errorf("portals4.onload_progress must be interrupt or thread (got %q)", p.OnloadProgress)
	case p.OnloadEntryBytes <= 0 || p.OnloadCache < 0:
		return fmt.Errorf("portals4.onload_entry_bytes must be > 0 and onload_cache >= 0")
	case p.LibCall < 0:
		return fmt.Errorf("portals4.lib_call must be >= 0 (got %s)", p.LibCall)
	case p.CmdBytes <= 0 || p.ResultBytes <= 0 || p.BellBytes <= 0 || p.HeaderBytes <= 0:
		return fmt.Errorf("portals4.cmd_bytes, result_bytes, bell_bytes and header_bytes must be > 0")
	case p.InlineMax < 0 || p.BarrierBytes < 0:
		return fmt.Errorf("portals4.inline_max and barrier_bytes must be >= 0")
	case p.FwCallInstr < 0 || p.FwMatchInstr < 0 || p.FwEntryInstr < 0 || p.FwEntryLoads < 0 ||
		p.FwEventInstr < 0 || p.FwCountInstr < 0 || p.FwTrigInstr < 0 || p.FwAtomInstr < 0 || p.FwTxInstr < 0 ||
		p.FwDMAInstr < 0 || p.FwSOMInstr < 0 || p.FwDoneInstr < 0 || p.FwStallInstr < 0:
		return fmt.Errorf("portals4 firmware instruction counts must be >= 0")
	case p.PID < 0 || p.PID >= 0xffff:
		return fmt.Errorf("portals4.pid must be in [0, 65535) (got %d)", p.PID)
	}
	return nil
}

// Fits checks the parameters against the machine: a header with an inline payload
// and the CRC must fit one packet, for a message to be whole in its first packet, and
// a progress thread needs a core of its own.
func (p Params) Fits(mp machine.Params) error {
	if mp.Machine == "ib" && p.NIC != "ib" && p.NIC != "offload" {
		return fmt.Errorf("portals4.nic=%s needs a SeaStar machine, and machine=ib is an InfiniBand cluster (leave portals4.nic, or set it to ib)", p.NIC)
	}
	if mp.Machine == "ib" || p.NIC == "ib" {
		return nil
	}
	if p.HeaderBytes+p.InlineMax+mp.TXDMA.CRCBytes > mp.TXDMA.PacketPayload {
		return fmt.Errorf("portals4.header_bytes (%s) + portals4.inline_max (%s) + the CRC (%s) exceed a packet (%s)",
			p.HeaderBytes, p.InlineMax, mp.TXDMA.CRCBytes, mp.TXDMA.PacketPayload)
	}
	if p.NIC == "onload" && p.OnloadProgress == "thread" && mp.Host.Cores < 2 {
		return fmt.Errorf("portals4.onload_progress=thread needs host.cores >= 2 (got %d): the host model does not share "+
			"a core between processes, so a progress thread on the application's core would run for free", mp.Host.Cores)
	}
	if p.BarrierBytes > p.InlineMax {
		return fmt.Errorf("portals4.barrier_bytes (%s) must fit inline (portals4.inline_max %s)", p.BarrierBytes, p.InlineMax)
	}
	return nil
}
