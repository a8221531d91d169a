// Package pci models the 33 MHz, 32-bit PCI bus of a StarT-JR node (PCI Local Bus
// Specification 2.1; Hoe & Ehrlich 1996 s.2.1.3) between the Pentium's host bridge and
// the PCI80960 card. It is one actor with three ports: "host" (the host bridge: the
// Pentium's uncached stores and loads), "card" (the PCI80960 bridge as a master: the
// i960's loads and stores of host memory and its DMA engine) and "acd" (the Squall
// module's Address Capture Device, reached through the card's bridge as a target).
//
// One transaction uses the bus at a time, in order of request (the arbiter grants the
// requests in the order they came; the host bridge and the card alternate when both
// wait). A transaction costs the arbitration, one address phase, the target's initial
// latency (the host bridge snooping the Pentium's cache for a read of host memory, the
// card bridge crossing to its local bus), one clock per 32-bit data phase, and a
// turnaround. A single-word access is a transaction per word; a burst pays the address
// and latency once.
//
//	message        port   effect
//	*Write         host   posted store into the card (a mailbox register); its payload
//	                      reaches the card when the data phase ends
//	Read           host   load from the card: a bridge register (below RegisterWindow,
//	                      to the card) or the shared region (to the ACD), as
//	                      *TargetRead; ReadDone to the host when the target answers
//	TargetData     card,  the target completes a read (the ACD after retrying it while
//	               acd    the FUNI coprocessor filled the cache)
//	*MasterRead    card   the i960 reads Words of host memory; *MasterReadDone back
//	*MasterWrite   card   the card writes Words into host memory (posted in its bridge);
//	                      the payload lands in host memory when the data phases end
//
// Emitted: the payloads, *TargetRead, ReadDone, *MasterReadDone.
package pci
