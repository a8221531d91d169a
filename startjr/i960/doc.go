// Package i960 models the PCI80960 card of a StarT-JR node (Hoe & Ehrlich 1996
// s.2.1.3; Cyclone Microsystems' PCI80960 Intelligent Communication Controller): a
// 33 MHz i960CF running polling firmware from its 2 MB local DRAM, and the bus bridge
// that gives it load/store access and a DMA engine to host memory and eight 32-bit
// mailbox registers visible to both sides.
//
// The firmware (the FUNI coprocessor firmware, package protocols/funi) is a state
// machine run by the main loop shared with the SeaStar's PowerPC (package firmware): one
// handler per event, to completion, its work stated through Exec and converted to time
// with the card's cost model: instructions, local DRAM accesses, bridge register
// (mailbox) accesses, Squall FIFO words (single or four-word bursts). A load of host
// memory stalls the i960 for a PCI transaction per word (Exec.HostRead: the handler
// continues when the data comes back); stores into host memory are posted in the bridge
// (Exec.HostWrite); the DMA engine moves blocks in PCI bursts while the i960 runs on.
//
//	message                port     effect
//	anything else          pci,     an event for the firmware: queued for the main loop
//	                       squall   (a mailbox store from the host, an arriving packet, a
//	                                free transmit FIFO, an ACD miss, ...)
//	*pci.MasterReadDone    pci      a host load finished: the stalled handler continues;
//	                                or a DMA read finished: its event is queued
//	firmware.Tick          self     the main loop dispatches the next event
//
// Emitted: *pci.MasterRead, *pci.MasterWrite (pci); *squall.Transmit, *squall.Pop,
// *squall.Fill (squall).
package i960
