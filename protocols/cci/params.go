package cci

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
)

// Params are the sizes and costs of CCI on the SeaStar. Sizes follow Dillow & Atchley
// 2011 s.IV where the paper gives them; the costs of the host library and of the
// firmware handlers are the free parameters of the model, in host cycles and PPC
// instructions (so that they scale with the clocks), every one assumed with its
// rationale: the paper reports no per-operation costs. The performance of the model
// comes from its mechanisms (no interrupts, command queue and completion queue in
// memory polled by both sides, DMA programs built from kernel header tables, acks
// generated and sent by the NIC with PIO), not from these constants being fitted.
type Params struct {
	// Layout (Dillow & Atchley 2011 s.IV.B)
	MSS         actors.Bytes `param:"mss" help:"maximum send size of a message" source:"Dillow & Atchley 2011 s.IV.B: 4 KB in the prototype (8 KB possible)"`
	HeaderBytes actors.Bytes `param:"header_bytes" help:"CCI message header: first word (type, destination endpoint, length) + nonce + connection id, generation, sequence and source connection" source:"Dillow & Atchley 2011 s.IV.C: 8,192 messages of at most 40 B fit the 512 KB of TX areas, i.e. 64-byte slots holding 24 B of header"`
	WordBytes   actors.Bytes `param:"word_bytes" help:"first header word, DMAed from the kernel's header table and discarded by the receiving NIC" source:"Dillow & Atchley 2011 s.IV.B (one 64-bit word)"`
	SlotBytes   actors.Bytes `param:"slot_bytes" help:"alignment of messages in TX and RX areas" source:"Dillow & Atchley 2011 s.IV.C: 8,192 x 64 B = 512 KB"`
	RMAHeader   actors.Bytes `param:"rma_header_bytes" help:"header of an RMA write, read request or read response: the message header plus remote and local handles and offsets" source:"assumed: 24 B more than a message header"`
	ConnInfo    actors.Bytes `param:"conn_info_bytes" help:"connection request and reply payload besides the user data: attributes, the sender endpoint's nonce, accept flag" source:"assumed"`
	TxAreas     int          `param:"tx_areas" help:"TX areas per endpoint" source:"Dillow & Atchley 2011 s.IV.B: 32 areas of 16 KB, 96 full-size messages"`
	TxAreaBytes actors.Bytes `param:"tx_area_bytes" help:"size of one TX area; a message never spans two" source:"Dillow & Atchley 2011 s.IV.B"`
	RxAreas     int          `param:"rx_areas" help:"RX areas per endpoint" source:"Dillow & Atchley 2011 s.IV.B: up to 8,192 areas of 16 KB (128 MB)"`
	RxAreaBytes actors.Bytes `param:"rx_area_bytes" help:"size of one RX area; the NIC fills one at a time" source:"Dillow & Atchley 2011 s.IV.B"`
	CQSlots     int          `param:"cq_slots" help:"completion queue entries per endpoint (host memory, zeroed when empty)" source:"assumed"`
	CQEntry     actors.Bytes `param:"cq_entry_bytes" help:"size of a completion queue entry written by the NIC" source:"assumed: half a 64-byte cache line"`
	CmdSlots    int          `param:"cmd_slots" help:"entries of the NIC command queue in uncached SeaStar SRAM, shared by a node's processes" source:"assumed"`
	CmdBytes    actors.Bytes `param:"cmd_bytes" help:"size of a command queue entry" source:"assumed: 32 B (endpoint, header row, TX slot, length, piggy-backed credits)"`
	IndexBytes  actors.Bytes `param:"index_bytes" help:"size of the command consumer index the NIC writes into the host-side control page" source:"assumed: one 64-bit word"`
	ClosedBytes actors.Bytes `param:"closed_bytes" help:"size of the notice the NIC writes to the kernel when it has finished with a closed endpoint" source:"assumed: the endpoint and a status word, two 8-byte words"`
	CmdBatch    int          `param:"cmd_credit_batch" help:"the NIC writes its command consumer index to the host-side control page every this many commands" source:"assumed"`
	CreditBatch int          `param:"credit_batch" help:"completion queue credits the library accumulates before returning them with a dedicated command (else piggy-backed on sends)" source:"Dillow & Atchley 2011 s.IV.B.2 (dedicated command when several are pending); count assumed"`
	ReadyBatch  int          `param:"ready_batch" help:"ready RX areas the library accumulates before a dedicated command (else piggy-backed on sends)" source:"Dillow & Atchley 2011 s.IV.B.2; count assumed"`
	Endpoints   int          `param:"endpoints" help:"user-level endpoints per node (kernel header tables and NIC endpoint table)" source:"Dillow & Atchley 2011 s.IV.B: tables for 32 endpoints"`
	Conns       int          `param:"conns" help:"connections per endpoint (rows of its header table)" source:"assumed"`
	Events      int          `param:"events" help:"events per endpoint the library can hand to the application at once" source:"assumed"`
	ROWindow    int          `param:"ro_window" help:"messages a reliable-ordered connection may send beyond its oldest unacknowledged one (a send past it is CCI_ENOBUFS): the receiver's reorder buffer never holds more, however many are lost" source:"our design (Dillow & Atchley 2011 do not say how RO bounds reordering): half the events"`
	Tasks       int          `param:"tasks" help:"NIC task structures (transmits, receives, RMA) in SRAM" source:"assumed"`
	TaskBytes   actors.Bytes `param:"task_bytes" help:"size of a NIC task structure" source:"assumed"`
	LocalPeers  int          `param:"local_peers" help:"per-peer records (source state and spilled CAM contents) kept in SRAM; the rest live in host memory mapped cached" source:"Dillow & Atchley 2011 s.IV.B.2: a small amount in local memory; count assumed"`
	PeerBytes   actors.Bytes `param:"peer_bytes" help:"per-peer record: source state and a CAM entry's contents" source:"Dillow & Atchley 2011 s.IV.B.2: approximately 128 bytes per node"`
	MRs         int          `param:"mrs" help:"memory regions registered for RMA per node (NIC table)" source:"assumed"`
	MRBytes     actors.Bytes `param:"mr_bytes" help:"size of a NIC memory region entry" source:"assumed"`
	PIOAckMax   int          `param:"pio_queue" help:"answers (acks, refusals) the NIC queues in SRAM: outgoing ones while the PIO FIFO is full, and incoming ones per endpoint while it has no completion queue credit" source:"assumed"`
	RMAFragment actors.Bytes `param:"rma_fragment" help:"largest RMA transfer in one network message (each is acknowledged)" source:"assumed: 64 KB, a quarter of the largest RX command"`

	// Reliability
	RTO        actors.Duration `param:"rto" help:"retransmission timeout of a reliable message without ack" source:"assumed: above the ack time of a full TX window (96 x 4 KB at 2 GB/s is 0.2 ms)"`
	Retries    int             `param:"retries" help:"retransmissions before a reliable send fails with a timeout" source:"assumed"`
	RNRDelay   actors.Duration `param:"rnr_delay" help:"wait before resending a message the receiver answered 'not ready'" source:"assumed"`
	RNRRetries int             `param:"rnr_retries" help:"'not ready' answers before a reliable send fails" source:"assumed"`

	// Host library, in host CPU cycles
	LibSend    int             `param:"lib_send_cycles" help:"cci_send: tracking structure, TX area space, header from the connection" source:"assumed: a few hundred instructions"`
	LibEvent   int             `param:"lib_event_cycles" help:"processing one completion queue entry in cci_get_event (validation, sequence check, event)" source:"assumed"`
	LibReturn  int             `param:"lib_return_cycles" help:"cci_return_event: area accounting, event back to the pool" source:"assumed"`
	LibAtomic  int             `param:"lib_atomic_cycles" help:"atomic claim of a command queue credit in the shared control page" source:"assumed: a locked compare-and-swap on an Opteron"`
	LibRMA     int             `param:"lib_rma_cycles" help:"cci_rma: handle checks and fragment bookkeeping, per fragment" source:"assumed"`
	KernelCall actors.Duration `param:"kernel_call" help:"system call into the CCI driver (endpoint, connection and region setup only)" source:"assumed: a Linux ioctl with table updates"`
	PinPage    actors.Duration `param:"pin_page" help:"pinning and translating one page of a registered region" source:"assumed"`
	PageBytes  actors.Bytes    `param:"page_bytes" help:"host page size for registration" source:"x86-64 small pages"`

	// Firmware handlers, in PPC instructions (their SRAM and host accesses are stated in the handlers)
	FwCmd    int `param:"fw_cmd_instr" help:"taking a command from the queue and dispatching it" source:"assumed"`
	FwTx     int `param:"fw_tx_instr" help:"transmit: endpoint and credit checks, task, DMA program from the tables" source:"assumed"`
	FwTxDone int `param:"fw_tx_done_instr" help:"transmit done: post the completion, free the task" source:"assumed"`
	FwSOM    int `param:"fw_som_instr" help:"start of message: source, type, endpoint and resource checks, completion pre-built" source:"assumed"`
	FwRx     int `param:"fw_rx_instr" help:"programming the RX commands of a message (area offset, CAM)" source:"assumed"`
	FwRxDone int `param:"fw_rx_done_instr" help:"RX done: post the pre-built completion, free the task" source:"assumed"`
	FwAnswer int `param:"fw_answer_instr" help:"building an ack or refusal and writing it to the PIO FIFO" source:"assumed"`
	FwAckRx  int `param:"fw_ack_rx_instr" help:"an incoming ack or refusal: read it from the RX FIFO, post it, discard the packet" source:"assumed"`
	FwSwap   int `param:"fw_swap_instr" help:"choosing a CAM victim and swapping its entry" source:"assumed"`
	FwMR     int `param:"fw_mr_instr" help:"validating a memory region handle for RMA" source:"assumed"`
	FwPost   int `param:"fw_post_instr" help:"writing a completion queue entry: slot address and index" source:"assumed"`
	FwPeer   int `param:"fw_peer_instr" help:"finding the record of a message's source node (hash lookup)" source:"assumed"`
	FwRetire int `param:"fw_retire_instr" help:"TX DMA commands retired: FIFO accounting before programming queued tasks" source:"assumed"`
	FwPIO    int `param:"fw_pio_done_instr" help:"an answer left the PIO FIFO: buffer accounting before sending queued answers" source:"assumed"`
	FwStall  int `param:"fw_stall_instr" help:"noticing the RX pipeline stalled on the CAM" source:"assumed"`
	FwSpill  int `param:"fw_spill_instr" help:"taking a swapped-out CAM entry back to spill it into its peer's record" source:"assumed"`
	FwKernel int `param:"fw_kernel_instr" help:"a kernel command opening or closing an endpoint; registering a region takes half, a header row a quarter" source:"assumed"`
}

// DefaultParams returns CCI as Dillow & Atchley 2011 s.IV describes the prototype, with
// assumed costs.
func DefaultParams() Params {
	return Params{
		MSS: 4 * actors.KiB, HeaderBytes: 24, WordBytes: 8, SlotBytes: 64, RMAHeader: 48, ConnInfo: 16,
		TxAreas: 32, TxAreaBytes: 16 * actors.KiB, RxAreas: 8192, RxAreaBytes: 16 * actors.KiB,
		CQSlots: 1024, CQEntry: 32, CmdSlots: 64, CmdBytes: 32, IndexBytes: 8, ClosedBytes: 16, CmdBatch: 8, CreditBatch: 32, ReadyBatch: 4,
		Endpoints: 32, Conns: 1024, Events: 1024, ROWindow: 512, Tasks: 512, TaskBytes: 64, LocalPeers: 128, PeerBytes: 128,
		MRs: 256, MRBytes: 32, PIOAckMax: 256, RMAFragment: 64 * actors.KiB,
		RTO: actors.Millisecond, Retries: 16, RNRDelay: 20 * actors.Microsecond, RNRRetries: 1000,
		LibSend: 300, LibEvent: 200, LibReturn: 80, LibAtomic: 50, LibRMA: 300,
		KernelCall: actors.Microsecond, PinPage: 100 * actors.Nanosecond, PageBytes: 4 * actors.KiB,
		FwCmd: 30, FwTx: 60, FwTxDone: 40, FwSOM: 80, FwRx: 50, FwRxDone: 40, FwAnswer: 30, FwAckRx: 40, FwSwap: 60, FwMR: 20,
		FwPost: 10, FwPeer: 20, FwRetire: 5, FwPIO: 10, FwStall: 10, FwSpill: 20, FwKernel: 40,
	}
}

// Validate reports the first invalid field, naming its key.
func (p Params) Validate() error {
	switch {
	case p.WordBytes < 1 || p.HeaderBytes <= p.WordBytes:
		return fmt.Errorf("header_bytes (%s) must exceed word_bytes (%s) >= 1B", p.HeaderBytes, p.WordBytes)
	case p.RMAHeader < p.HeaderBytes:
		return fmt.Errorf("rma_header_bytes (%s) must be >= header_bytes (%s)", p.RMAHeader, p.HeaderBytes)
	case p.SlotBytes < 1:
		return fmt.Errorf("slot_bytes must be >= 1B (got %s)", p.SlotBytes)
	case p.MSS < 0 || p.ConnInfo < 0:
		return fmt.Errorf("mss and conn_info_bytes must be >= 0")
	case p.ConnInfo > p.MSS:
		return fmt.Errorf("conn_info_bytes (%s) must fit in the mss (%s)", p.ConnInfo, p.MSS)
	case p.TxAreas < 1 || p.RxAreas < 1:
		return fmt.Errorf("tx_areas and rx_areas must be >= 1 (got %d, %d)", p.TxAreas, p.RxAreas)
	case p.TxAreaBytes < p.RMAHeader+p.MSS || p.RxAreaBytes < p.HeaderBytes+p.MSS+64:
		return fmt.Errorf("tx_area_bytes (%s) and rx_area_bytes (%s) must hold a full-size message with its header (mss %s)",
			p.TxAreaBytes, p.RxAreaBytes, p.MSS)
	case p.CQSlots < 8:
		return fmt.Errorf("cq_slots must be >= 8 (got %d)", p.CQSlots)
	case p.CQEntry < 1 || p.CmdBytes < 1 || p.TaskBytes < 1 || p.PeerBytes < 1 || p.MRBytes < 1 || p.IndexBytes < 1 || p.ClosedBytes < 1:
		return fmt.Errorf("cq_entry_bytes, cmd_bytes, task_bytes, peer_bytes, mr_bytes, index_bytes and closed_bytes must be >= 1B")
	case p.CmdSlots < 1 || p.CmdBatch < 1 || p.CmdSlots%p.CmdBatch != 0:
		return fmt.Errorf("cmd_slots (%d) must be a positive multiple of cmd_credit_batch (%d)", p.CmdSlots, p.CmdBatch)
	case p.CmdSlots < 2*p.CmdBatch:
		// The library keeps one slot for commands that only return credits, so it can
		// have cmd_slots-1 transmits outstanding; the NIC writes its consumer index
		// back every cmd_credit_batch commands. With fewer slots than two batches, a
		// sender with no credits to return waits for a write-back that never comes.
		return fmt.Errorf("cmd_slots (%d) must be at least twice cmd_credit_batch (%d): one slot is kept for credit returns, and the NIC reports consumed commands only every cmd_credit_batch", p.CmdSlots, p.CmdBatch)
	case p.CreditBatch < 1 || p.CreditBatch > p.CQSlots/4:
		return fmt.Errorf("credit_batch must be in 1..cq_slots/4 = %d (got %d)", p.CQSlots/4, p.CreditBatch)
	case p.ReadyBatch < 1 || (p.ReadyBatch > 1 && p.ReadyBatch > p.RxAreas/4):
		return fmt.Errorf("ready_batch must be 1, or in 1..rx_areas/4 = %d (got %d)", p.RxAreas/4, p.ReadyBatch)
	case p.Endpoints < 1 || p.Endpoints > 1<<16:
		return fmt.Errorf("endpoints must be in 1..65536 (got %d)", p.Endpoints)
	case p.ROWindow < 1 || p.ROWindow >= p.Events:
		return fmt.Errorf("ro_window must be >= 1 and below events (%d), so that the reorder buffer leaves events to deliver (got %d)", p.Events, p.ROWindow)
	case p.Conns < 1 || p.Events < 1 || p.Tasks < 1 || p.LocalPeers < 0 || p.MRs < 1 || p.PIOAckMax < 1:
		return fmt.Errorf("conns, events, tasks, mrs and pio_queue must be >= 1 and local_peers >= 0")
	case p.RMAFragment < 1:
		return fmt.Errorf("rma_fragment must be >= 1B (got %s)", p.RMAFragment)
	case p.RTO <= 0 || p.RNRDelay <= 0:
		return fmt.Errorf("rto and rnr_delay must be > 0 (got %s, %s)", p.RTO, p.RNRDelay)
	case p.Retries < 0 || p.RNRRetries < 0:
		return fmt.Errorf("retries and rnr_retries must be >= 0")
	case p.KernelCall < 0 || p.PinPage < 0 || p.PageBytes < 1:
		return fmt.Errorf("kernel_call and pin_page must be >= 0 and page_bytes >= 1B")
	}
	for _, c := range []struct {
		key string
		v   int
	}{{"lib_send_cycles", p.LibSend}, {"lib_event_cycles", p.LibEvent}, {"lib_return_cycles", p.LibReturn},
		{"lib_atomic_cycles", p.LibAtomic}, {"lib_rma_cycles", p.LibRMA}, {"fw_cmd_instr", p.FwCmd}, {"fw_tx_instr", p.FwTx},
		{"fw_tx_done_instr", p.FwTxDone}, {"fw_som_instr", p.FwSOM}, {"fw_rx_instr", p.FwRx}, {"fw_rx_done_instr", p.FwRxDone},
		{"fw_answer_instr", p.FwAnswer}, {"fw_ack_rx_instr", p.FwAckRx}, {"fw_swap_instr", p.FwSwap}, {"fw_mr_instr", p.FwMR},
		{"fw_post_instr", p.FwPost}, {"fw_peer_instr", p.FwPeer}, {"fw_retire_instr", p.FwRetire}, {"fw_pio_done_instr", p.FwPIO},
		{"fw_stall_instr", p.FwStall}, {"fw_spill_instr", p.FwSpill}, {"fw_kernel_instr", p.FwKernel}} {
		if c.v < 0 {
			return fmt.Errorf("%s must be >= 0 (got %d)", c.key, c.v)
		}
	}
	return nil
}

// slot rounds n bytes up to whole area slots.
func (p Params) slot(n actors.Bytes) actors.Bytes {
	return (n + p.SlotBytes - 1) / p.SlotBytes * p.SlotBytes
}
