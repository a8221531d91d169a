// Package ieee1394 models one IEEE 1394-1995 High Performance Serial Bus at S100 as
// StarT-JR uses it (Hoe & Ehrlich 1996 s.2.1.2, s.2.2.2): a shared medium joining every
// node's Physical Link Module. StarT-JR has two: payload packets on one, acknowledgements
// on the other, which is never blocked by payload traffic (s.3.2.2).
//
// The bus carries one asynchronous packet at a time. A node with a packet to send
// arbitrates; among the nodes waiting, the bus grants them in turn (fair arbitration:
// each node sends once before any sends again). A packet occupies the bus for the
// arbitration, its framing (packet header, header CRC, data quadlets and data CRC) at
// the bus rate, and, for a packet addressed to one node, the acknowledge gap and the
// 8-bit link-layer acknowledgement; then a subaction gap separates it from the next.
// A broadcast (wire.Broadcast) reaches every other node and is not acknowledged.
//
// The receiving PLM may have no room for a packet; it then discards it (the Squall
// module decides, package startjr/squall): the bus only delivers.
//
//	message        port   effect
//	*wire.Packet   n<i>   node i queues the packet; it is delivered to the destination
//	                      port (every other port for a broadcast) when its data has
//	                      crossed the bus, and Sent goes back to node i
//
// Emitted: *wire.Packet to its destination(s), Sent to the sender.
package ieee1394
