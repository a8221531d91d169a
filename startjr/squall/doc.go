// Package squall models the Squall Interface Module of StarT-JR's network adaptor (Hoe
// & Ehrlich 1996 s.2.2.1) with its Physical Link Module (s.2.2.2): the FIFO interface
// between the FUNI coprocessor and the network, and the shared-memory hardware (the
// Address Capture Device and the Global Shared Memory Cache).
//
// FIFOs: a high and a low priority transmit FIFO carry packets from the i960 to the PLM,
// a high and a low priority receive FIFO carry arriving packets to the i960 (TI 723631
// synchronous FIFOs). The i960 accesses them one word or a four-word burst at a time
// (the burst more than doubles the bandwidth, s.2.2.1); those costs are the i960's
// (package startjr/i960). The PLM sends each priority's packets in order: on IEEE 1394,
// each priority has its own bus; on Arctic, one link carries both, high priority first.
// A packet that finds no room in its receive FIFO is discarded on IEEE 1394 (s.3.2.4:
// the partially transferred message is discarded) and the PLM flags the overflow; on
// Arctic it waits in the fabric (link-level flow control: nothing is lost).
//
// Shared memory: a host load in the shared region reaches the ACD through the PCI
// bridge. The ACD checks the two tag words of the two-way set-associative GSMC (16 KB of
// dual-ported SRAM: half data, a quarter tags, a quarter scratch for the firmware); on a
// hit the load completes from the GSMC data; on a miss the ACD retries the load and
// interrupts the FUNI coprocessor, which fills the line (Fill) and re-enables it.
//
//	message          port        effect
//	*Transmit        card        a packet written into a transmit FIFO; sent by the PLM
//	*Pop             card        the i960 read a packet out of a receive FIFO (frees room)
//	*Fill            card        the firmware installed a GSMC line; retried loads complete
//	*wire.Packet     net0, net1  an arriving packet: into its receive FIFO (Arrived to the
//	                             card), or discarded (Overflow to the card) or held
//	ieee1394.Sent    net0, net1  a packet left: its transmit FIFO room is free (TxFree)
//	*pci.TargetRead  acd         a host load in the shared region: TargetData on a hit,
//	                             ACDMiss to the card on a miss
//
// Emitted: *Arrived, Overflow, *TxFree, ACDMiss (card); packets (net); TargetData (acd).
package squall
