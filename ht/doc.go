// Package ht models the HyperTransport link between the Opteron host and the SeaStar:
// a 16-bit, 800 MHz DDR link, 3.2 GB/s raw and about 2.8 GB/s of payload per direction
// (Brightwell et al. 2005, s.2), with the host memory controller behind it.
//
// The link is one actor (Link) with a port per attached unit: "host" (the Opteron),
// "ppc" (the embedded PowerPC: SRAM mailboxes, its own host-memory accesses), "txdma"
// and "rxdma" (the DMA engines' dedicated HT ports, Pedretti & Hudson 2005 s.2). Each
// direction serializes its transfers in arrival order: a transfer of n bytes occupies
// the direction for ceil(n/64) HT packets of (payload + packet_overhead) bytes at the
// raw rate, then reaches the far side after the one-way latency.
//
//	message      from            effect
//	Write        any unit        posted write across the link; delivered to the target
//	                             unit if it carries a payload; WriteDone to the writer
//	                             when asked (the link has taken the bytes)
//	Read         txdma, ppc,     read of the far side's memory: request one way, memory
//	             host            (or SRAM) latency, data back the other way; ReadDone
//	                             (a *Read is answered in place with its *ReadDone)
//	Interrupt    ppc             interrupt to the host after the one-way latency
//
// Emitted: Delivery (a write's payload at its target), WriteDone, ReadDone or *ReadDone,
// Interrupt.
package ht
