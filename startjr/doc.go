// Package startjr assembles StarT-JR (Hoe & Ehrlich 1996), the second NIC family on the
// engine: a cluster of Pentium PCs (package host), each with a 33 MHz PCI bus
// (startjr/pci) to a PCI80960 card whose i960 runs the FUNI firmware (startjr/i960),
// a Squall interface module with FIFOs and the shared-memory cache (startjr/squall), and
// either two IEEE 1394 buses (startjr/ieee1394: payload, acknowledgements) or the MIT
// Arctic fabric (startjr/arctic) between the nodes. The packet the network hardware
// carries is in startjr/wire; the firmware and the host library are in protocols/funi.
//
// The host model, the engine, the firmware main loop (package firmware), the fat tree
// (package fattree) and the parameter, trace and CLI machinery are the ones the SeaStar
// family uses; this package only wires the blocks of a node and the network.
package startjr
