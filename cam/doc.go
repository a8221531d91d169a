// Package cam models the SeaStar receive-side source CAM: 256 entries, each matching the
// source node of incoming messages and holding a queue of seven RX commands (Dillow &
// Atchley 2011, s.II). The PPC programs entries and pushes commands; the RX DMA engine
// asks for the command that applies to the packet at the head of its FIFO. A miss (no
// entry for the source) or an empty queue stalls the RX pipeline until the PPC acts.
//
// Table is the CAM as a pure data structure (property-tested against a linear scan).
// Block is the CAM as an actor between the PPC and the RX DMA engine:
//
//	message      from    effect
//	*SetEntry    ppc     bind an entry to a source node (recycled)
//	ClearEntry   ppc     free an entry (its command queue must be empty)
//	Swap         ppc     rebind an entry in use to another source; its old contents
//	                     go back to the PPC in Swapped (CAM swapping)
//	PushCommand  ppc     append an RX command to an entry's queue
//	Lookup       rxdma   the next command for a source: Grant now, or when it exists
//	Cancel       rxdma   withdraw the pending Lookup (its packet was discarded)
//
// Emitted: Grant (to rxdma), Stalled (to ppc, once per stall: the RX pipeline is
// waiting for an entry or a command for that source), Swapped (to ppc).
package cam
