// Package wire is the packet StarT-JR's network hardware carries: what the FUNI firmware
// writes into a Squall transmit FIFO and what arrives in a receive FIFO, whichever
// network (two IEEE 1394 buses, package startjr/ieee1394, or the Arctic fabric, package
// startjr/arctic) links the nodes. The hardware sees only its addresses, priority and
// size; Body is the firmware's own content.
package wire
