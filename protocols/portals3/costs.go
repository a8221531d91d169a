package portals3

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
)

// Params are the costs and sizes of generic-mode Portals that the papers do not give:
// the free parameters of the model, all in one place, each with its rationale. The
// calibration targets (docs/design.md s.6: 4.89 us zero-byte put one way, 1051 MB/s at 100 KB,
// ~1108 MB/s at 2 MB; Brightwell et al. 2005 s.6) were met by adjusting the host kernel
// costs, which are the least constrained; firmware costs are instruction counts of the
// C firmware's handlers as estimated from its structure (Pedretti & Hudson 2005 s.4.3).
type Params struct {
	// Mode is how processes reach the NIC: generic (through the kernel, with
	// interrupts) or accelerated (user-level, matching in firmware).
	Mode string `param:"mode" enum:"generic|accelerated" help:"generic: the kernel does matching and the firmware interrupts it; accelerated: processes post to their own mailbox and the firmware matches" source:"docs/design.md s.8; Pedretti & Hudson 2005 s.4"`

	// Layout
	HeaderBytes  actors.Bytes `param:"header_bytes" help:"Portals header on the wire; with the inline payload and the CRC it fills the 64-byte header packet" source:"Brightwell et al. 2005 s.6: 12 bytes of user data fit in the 64 byte header packet; 48 + 12 + 4 (CRC) = 64 assumed"`
	InlineMax    actors.Bytes `param:"inline_max" help:"payload that rides inside the header packet (very small message path)" source:"Pedretti & Hudson 2005 s.5.2: 12 bytes"`
	PageBytes    actors.Bytes `param:"page_bytes" help:"host page size: one DMA command per page under Linux" source:"x86-64 small pages"`
	PortalTable  int          `param:"portal_table" help:"portal table entries per interface" source:"Brightwell et al. 2005 s.3.1: 64"`
	EQSlots      int          `param:"eq_slots" help:"entries of the generic event queue in host memory" source:"assumed"`
	EventBytes   actors.Bytes `param:"event_bytes" help:"size of an event the firmware writes into a host event queue slot (generic and accelerated)" source:"assumed: 32 B"`
	Sources      int          `param:"sources" help:"source structures in SRAM" source:"Pedretti & Hudson 2005 s.4.2: 1,024"`
	Pendings     int          `param:"pendings" help:"generic-process pendings (lower halves in SRAM)" source:"Pedretti & Hudson 2005 s.4.2: 1,274"`
	TxPendings   int          `param:"tx_pendings" help:"of the pendings, the host-managed transmit pool (the rest receive)" source:"assumed"`
	SourceBytes  actors.Bytes `param:"source_bytes" help:"size of a source structure in SRAM" source:"assumed"`
	PendingBytes actors.Bytes `param:"pending_bytes" help:"size of a lower pending in SRAM" source:"assumed"`

	// Firmware handlers (PPC instructions; accesses are stated in the handlers)
	FwTxInstr      int `param:"fw_tx_instr" help:"instructions to take a transmit command and queue its pending" source:"assumed (calibrated)"`
	FwTxStartInstr int `param:"fw_tx_start_instr" help:"instructions to program the TX DMA engine for a pending" source:"assumed (calibrated)"`
	FwSOMInstr     int `param:"fw_som_instr" help:"instructions to handle a new message: source, pending, header copy" source:"assumed (calibrated)"`
	FwRxInstr      int `param:"fw_rx_instr" help:"instructions to take a receive command and program the CAM" source:"assumed (calibrated)"`
	FwDoneInstr    int `param:"fw_done_instr" help:"instructions to retire a DMA and post its event" source:"assumed (calibrated)"`
	FwRelInstr     int `param:"fw_release_instr" help:"instructions to release a pending" source:"assumed"`
	FwStallInstr   int `param:"fw_stall_instr" help:"instructions to take note of an RX pipeline stall on the CAM" source:"assumed"`
	FwSourceInstr  int `param:"fw_source_instr" help:"instructions to look up the source structure of a peer node (a hash lookup), per transmit and per new message" source:"assumed"`

	// Host kernel (Portals library and SeaStar NAL)
	KernPut     actors.Duration `param:"kern_put" help:"library time of PtlPut/PtlGet: validate, allocate a TX pending, build the header" source:"assumed (calibrated)"`
	KernIRQ     actors.Duration `param:"kern_irq_event" help:"interrupt handler time per generic event, besides the matching" source:"assumed (calibrated)"`
	KernMatch   actors.Duration `param:"kern_match" help:"Portals matching: fixed part" source:"assumed (calibrated)"`
	KernMatchME actors.Duration `param:"kern_match_me" help:"Portals matching: per match entry traversed" source:"assumed"`
	KernEvent   actors.Duration `param:"kern_event" help:"posting one Portals event to a process event queue" source:"assumed (calibrated)"`
	KernEQ      actors.Duration `param:"kern_eq" help:"library time of PtlEQGet/PtlEQWait besides the trap" source:"assumed"`
	KernTable   actors.Duration `param:"kern_table" help:"library time of a match list or MD call (PtlMEAttach, PtlMEInsert, PtlMEUnlink, PtlMDAttach, PtlMDBind, PtlMDUnlink, PtlMDUpdate) besides the trap" source:"assumed: as kern_eq"`
	KernRxCmd   actors.Duration `param:"kern_rx_cmd" help:"building a receive command (DMA program) for the firmware" source:"assumed"`
	CmdBytes    actors.Bytes    `param:"cmd_bytes" help:"size of a mailbox command, per DMA region included" source:"assumed: 16-byte entries"`

	// Accelerated mode (Pedretti & Hudson 2005 s.4.1-4.3; Brightwell et al. 2005 s.4.1)
	AccelProcs      int             `param:"accel_processes" help:"accelerated (user-level) processes per node, each with its own mailbox, pendings and match lists in SRAM" source:"Pedretti & Hudson 2005 s.4.1: one or two on each Catamount compute node"`
	AccelPendings   int             `param:"accel_pendings" help:"pendings of each accelerated process (lower halves in SRAM)" source:"assumed: sized to fit the SRAM budget beside the generic process"`
	AccelTxPendings int             `param:"accel_tx_pendings" help:"of an accelerated process's pendings, its host-managed transmit pool" source:"assumed"`
	AccelObjects    int             `param:"accel_objects" help:"match entries plus memory descriptors an accelerated process may have: they live in SRAM for the firmware's matching" source:"assumed"`
	ObjectBytes     actors.Bytes    `param:"object_bytes" help:"SRAM size of a match entry or memory descriptor (accelerated mode)" source:"assumed: ids, match and ignore bits, list links in 32 bytes"`
	ResultBytes     actors.Bytes    `param:"result_bytes" help:"size of the record the firmware writes into host memory to answer an offloaded call (accelerated mode)" source:"assumed: one 8-byte word"`
	AccelEQSlots    int             `param:"accel_eq_slots" help:"entries of an accelerated process's firmware event queue in host memory" source:"assumed"`
	FwMatchInstr    int             `param:"fw_match_instr" help:"PPC instructions of Portals matching in firmware: fixed part (header checks, portal lookup)" source:"assumed"`
	FwMatchMEInstr  int             `param:"fw_match_me_instr" help:"PPC instructions per match entry traversed (compare ids and masked bits, follow the list)" source:"assumed"`
	FwMatchMELoads  int             `param:"fw_match_me_loads" help:"cached SRAM loads per match entry traversed (entry and its MD)" source:"assumed: a 64-byte entry is two cache lines"`
	FwDMAInstr      int             `param:"fw_dma_instr" help:"PPC instructions to build one DMA command from a contiguous buffer (accelerated mode: the firmware builds the DMA program)" source:"assumed"`
	FwTableInstr    int             `param:"fw_table_instr" help:"PPC instructions of an offloaded table call (ME/MD attach, insert, bind, unlink, update); none walks a list" source:"assumed"`
	AccelLibCall    actors.Duration `param:"accel_lib_call" help:"user-level library time of a Portals call in accelerated mode (no crossing): validate, build the command" source:"assumed: about half of kern_put, which also pays the kernel's validation"`
	AccelLibEvent   actors.Duration `param:"accel_lib_event" help:"user-level library time to turn a firmware record into Portals events" source:"assumed: as kern_event"`

	// Bridges
	LinuxSyscall actors.Duration `param:"linux_syscall" help:"system call into the Linux kernel and back (ukbridge)" source:"assumed"`
	PinPage      actors.Duration `param:"pin_page" help:"pinning and translating one user page (ukbridge)" source:"assumed"`

	// Recovery (generic and accelerated mode).
	Recovery   string          `param:"recovery" enum:"panic|gbn" help:"what the firmware does when it runs out of sources, RX pendings or CAM entries, or a message is lost: panic (the C firmware: exhaustion panics the node, a lost message stays lost) or gbn (go-back-n: messages carry a sequence number per destination; the target's NIC acknowledges each in-order message it can take and refuses the others; the sender's NIC keeps every message until acknowledged and resends from the refused or timed-out one on; the host's SEND_END waits for the acknowledgement); in generic and accelerated mode" source:"Pedretti & Hudson 2005 s.4.3.3 (panic); gbn: our design, docs/design.md s.4"`
	RTO        actors.Duration `param:"rto" help:"gbn: retransmission timeout of a destination's oldest unacknowledged message" source:"assumed: 200 us, far above a loaded round trip"`
	Retries    int             `param:"retries" help:"gbn: timeouts of a message (without an acknowledgement or a refusal) before the sender gives up on its destination: every unacknowledged message to it ends with PTL_NI_FAIL (SEND_END of a put, GET_END of a reply, REPLY_END of a get) and the sequence restarts" source:"assumed: 16"`
	NackDelay  actors.Duration `param:"nack_delay" help:"gbn: wait before resending after a refusal (the target was out of resources)" source:"assumed: 20 us"`
	FwCtlInstr int             `param:"fw_ctl_instr" help:"gbn: instructions to build or take an acknowledgement or refusal" source:"assumed: 40"`
	CtlBytes   actors.Bytes    `param:"ctl_bytes" help:"gbn: size of an acknowledgement or refusal, sent by PIO" source:"assumed: 16"`
}

// DefaultParams returns the calibrated generic-mode costs.
func DefaultParams() Params {
	return Params{
		Mode:        "generic",
		HeaderBytes: 48, InlineMax: 12, PageBytes: 4 * actors.KiB, PortalTable: 64, EQSlots: 4096, EventBytes: 32,
		Sources: 1024, Pendings: 1274, TxPendings: 250, SourceBytes: 64, PendingBytes: 128,
		FwTxInstr: 60, FwTxStartInstr: 60, FwSOMInstr: 100, FwRxInstr: 100, FwDoneInstr: 60, FwRelInstr: 30, FwSourceInstr: 20, FwStallInstr: 10,
		KernPut: 200 * actors.Nanosecond, KernIRQ: 150 * actors.Nanosecond, KernMatch: 100 * actors.Nanosecond,
		KernMatchME: 10 * actors.Nanosecond, KernEvent: 70 * actors.Nanosecond, KernEQ: 50 * actors.Nanosecond,
		KernTable: 50 * actors.Nanosecond, KernRxCmd: 200 * actors.Nanosecond, CmdBytes: 16,
		AccelProcs: 2, AccelPendings: 128, AccelTxPendings: 32, AccelObjects: 512, ObjectBytes: 32, ResultBytes: 8, AccelEQSlots: 1024,
		FwMatchInstr: 40, FwMatchMEInstr: 12, FwMatchMELoads: 2, FwDMAInstr: 10, FwTableInstr: 60,
		AccelLibCall: 100 * actors.Nanosecond, AccelLibEvent: 70 * actors.Nanosecond,
		LinuxSyscall: 250 * actors.Nanosecond, PinPage: 100 * actors.Nanosecond,
		Recovery: "panic", RTO: 200 * actors.Microsecond, Retries: 16, NackDelay: 20 * actors.Microsecond, FwCtlInstr: 40, CtlBytes: 16,
	}
}

// Validate reports the first invalid field, naming its key.
func (p Params) Validate() error {
	switch {
	case p.Mode != "generic" && p.Mode != "accelerated":
		return fmt.Errorf("mode must be generic or accelerated (got %q)", p.Mode)
	case p.HeaderBytes < 1:
		return fmt.Errorf("header_bytes must be >= 1B (got %s)", p.HeaderBytes)
	case p.InlineMax < 0 || p.InlineMax > p.HeaderBytes:
		return fmt.Errorf("inline_max must be in 0..header_bytes (got %s)", p.InlineMax)
	case p.PageBytes < 1:
		return fmt.Errorf("page_bytes must be >= 1B (got %s)", p.PageBytes)
	case p.PortalTable < 1:
		return fmt.Errorf("portal_table must be >= 1 (got %d)", p.PortalTable)
	case p.EQSlots < 1:
		return fmt.Errorf("eq_slots must be >= 1 (got %d)", p.EQSlots)
	case p.EventBytes < 1 || p.ResultBytes < 1:
		return fmt.Errorf("event_bytes and result_bytes must be >= 1B (got %s, %s)", p.EventBytes, p.ResultBytes)
	case p.Sources < 1 || p.Pendings < 1:
		return fmt.Errorf("sources and pendings must be >= 1 (got %d, %d)", p.Sources, p.Pendings)
	case p.TxPendings < 1 || p.TxPendings >= p.Pendings:
		return fmt.Errorf("tx_pendings must be in 1..pendings-1 (got %d)", p.TxPendings)
	case p.SourceBytes < 1 || p.PendingBytes < 1:
		return fmt.Errorf("source_bytes and pending_bytes must be >= 1B")
	case p.AccelProcs < 0:
		return fmt.Errorf("accel_processes must be >= 0 (got %d)", p.AccelProcs)
	case p.AccelTxPendings < 1 || p.AccelTxPendings >= p.AccelPendings:
		return fmt.Errorf("accel_tx_pendings must be in 1..accel_pendings-1 (got %d of %d)", p.AccelTxPendings, p.AccelPendings)
	case p.AccelObjects < 2 || p.ObjectBytes < 1 || p.AccelEQSlots < 1:
		return fmt.Errorf("accel_objects must be >= 2, object_bytes >= 1B and accel_eq_slots >= 1")
	case p.FwTxInstr < 0 || p.FwTxStartInstr < 0 || p.FwSOMInstr < 0 || p.FwRxInstr < 0 || p.FwDoneInstr < 0 ||
		p.FwRelInstr < 0 || p.FwSourceInstr < 0 || p.FwStallInstr < 0 ||
		p.FwMatchInstr < 0 || p.FwMatchMEInstr < 0 || p.FwMatchMELoads < 0 || p.FwDMAInstr < 0 || p.FwTableInstr < 0:
		return fmt.Errorf("firmware instruction counts must be >= 0")
	}
	switch {
	case p.Recovery != "panic" && p.Recovery != "gbn":
		return fmt.Errorf("recovery must be panic or gbn (got %q)", p.Recovery)
	case p.RTO <= 0 || p.NackDelay < 0 || p.FwCtlInstr < 0 || p.CtlBytes < 1 || p.Retries < 1:
		return fmt.Errorf("rto must be > 0, nack_delay and fw_ctl_instr >= 0, ctl_bytes >= 1B, retries >= 1")
	}
	for _, d := range []actors.Duration{p.KernPut, p.KernIRQ, p.KernMatch, p.KernMatchME, p.KernEvent, p.KernEQ,
		p.KernTable, p.KernRxCmd, p.LinuxSyscall, p.PinPage, p.AccelLibCall, p.AccelLibEvent} {
		if d < 0 {
			return fmt.Errorf("kernel and bridge costs must be >= 0")
		}
	}
	return nil
}
