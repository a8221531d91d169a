// Package rxdma models the SeaStar receive DMA engine (Dillow & Atchley 2011, s.II): the
// RX FIFO fed by the router's NIC port (bounded; credits back-pressure the network),
// Start-Of-Message notification to the PPC with a pointer to the FIFO entry, the PPC's
// peek and discard of packets, and the pipeline that disposes of the packet at the FIFO
// head according to the RX command of its source (from the CAM): discard, or DMA to host
// memory over the engine's HT port; optional end-of-length CRC check and notification.
// A CAM miss or an empty command queue stalls the whole pipeline until the PPC acts.
//
//	message          port    effect
//	*router.Packet   router  enters the RX FIFO (SOM: the PPC is told)
//	cam.Grant        cam     the command for the head packet's source
//	ht.WriteDone     ht      a DMA write has left for host memory
//	Discard          ppc     drop a packet (read by the PPC) when it reaches the head
//
// Emitted: router.Credit (router), cam.Lookup (cam), *ht.Write (ht), SOM and *Done (ppc).
package rxdma
