// Package txdma models the SeaStar transmit DMA engine (Dillow & Atchley 2011, s.II;
// Pedretti & Hudson 2005, s.2): a FIFO of 31 commands written by the PPC (or, for raw
// DMA, by the host through HyperTransport stores), four command kinds (load destination,
// transmit data, end packet, end message with optional notify and CRC32), DMA only from
// host memory over the engine's own HT port, packetization into 64-byte network packets
// with Start-Of-Message on the first, injection into the router's NIC port under credit
// flow control, and the PIO path (a 256-byte buffer and a 4-command FIFO for short
// messages sent without DMA, interlocked against an in-progress DMA message to the same
// destination).
//
// Data moves as a byte stream: the engine issues HT reads of up to one packet ahead of
// the packetizer (bounded by outstanding reads and a staging buffer), the packetizer
// consumes commands in order, and packets leave at the engine's sustained rate when the
// router has a credit for them.
//
//	message        port    effect
//	Command        ppc/ht  append to the command FIFO (an overflow is a writer bug)
//	PIO            ppc     append to the PIO FIFO (payload written into the PIO buffer)
//	*ht.ReadDone   ht      data for the packetizer (the answer to one of the engine's reads)
//	router.Credit  router  a slot freed in the router's NIC input buffer
//
// Emitted: *ht.Read (ht; one per outstanding read, reused), *router.Packet (router), *Done and *Retired (ppc).
package txdma
