// Package router models the SeaStar router and the 3-D torus or mesh network it
// builds: seven ports per router (+-x, +-y, +-z and the NIC; Dillow & Atchley 2011
// s.II), 64-byte packets with a 16-bit link CRC and link-level retry, credit flow
// control, virtual channels and dimension-order routing with datelines.
//
// # Actors
//
// Every router port is an actor, "node[x,y,z].router.DIR" with DIR one of xp, xm,
// yp, ym, zp, zm, nic, so the node partitioner keeps a router with its node's NIC
// blocks. A port holds the input buffer of its incoming link (a FIFO per virtual
// channel, input_buffer_packets deep) and the output queues of its outgoing link (a
// FIFO per virtual channel and crossbar input, output_queue_packets deep: each input
// owns its share of every output queue, so crossbar flow control is plain credits
// with no request/grant round trip). Its actor ports are one crossbar port per other
// port of the router, named after that port's direction, plus "link" (the duplex
// cable) for a torus port, or "inject" and "eject" for the NIC port.
//
//	message       arrives on                  effect
//	*Packet       link / inject               into the input buffer of its VC (the sender
//	                                          held a credit), with its route
//	*Packet       crossbar port DIR           into DIR's share of the output queue
//	*Packet       self (NIC port only)        a packet for this node from this node
//	Credit        link / eject                one more free slot downstream for its VC
//	Credit        crossbar port DIR           one more free slot in DIR's output queue share
//	wake          self                        the outgoing link has finished a packet
//
//	message       leaves on                   when
//	*Packet       crossbar port DIR           the head of an input VC is routed to DIR and
//	                                          DIR's queue share has room (crossbar credit)
//	Credit        link / inject               an input buffer slot frees (to the sender)
//	*Packet       link / eject                the link is idle and the downstream buffer
//	                                          has a credit for the packet's VC
//	Credit        crossbar port DIR           an output queue slot frees (to input DIR)
//
// # Timing: latency sits on the links
//
// One packet occupies a link for PacketTime = packet_payload / link_bandwidth
// (25.6 ns by default) whatever its payload: a partial packet is padded on the wire,
// and statistics count its real payload bytes. The transmitting port sends the packet
// with PacketTime as extra delay, so each link is store and forward for one packet.
// A router traversal costs clock.Cycles(hop_cycles) (50 ns) of pipeline, accounted on
// links so that the lookahead between nodes is large:
//
//   - a cable carries wire_latency plus hop_cycles-1 cycles of the receiving router's
//     pipeline (53 ns by default); the crossbar link that follows carries one cycle;
//   - the crossbar links leaving the NIC port carry the whole pipeline of the source
//     router; a packet for its own node loops back through the NIC port after it;
//   - the links between the NIC port and the NIC blocks carry nic_latency each way.
//
// So a packet over h hops takes 2*nic_latency + (h+1)*pipeline + h*wire_latency +
// (h+2)*PacketTime unloaded (347 ns for three hops). Credits return over the reverse
// direction of the same link, with its latency. All crossbar links have a latency, so
// even the block partitioning is legal; node and auto partitioning cut only cables.
//
// # Virtual channels and routing
//
// vcs (4) virtual channels: two per traffic class (Packet.Class 0 for requests, 1 for
// responses, so replies never wait behind requests), and within a class a dateline
// bit. Routing is dimension order, x then y then z, the shorter way round a wrapped
// dimension (ties +), the only way on a mesh; see Topology.Route. A packet takes VC
// 2*class on injection and on entering a dimension, and 2*class+1 from the wrap link
// of a wrapped dimension on, which breaks the cycle of channel dependencies around
// each ring: dimension-order routing on the torus is deadlock-free. Output
// arbitration is round-robin over VCs, then over crossbar inputs within a VC.
//
// # Link errors
//
// With probability crc_error_rate a transmission on a cable fails its CRC (drawn from
// the port's random stream): the link is busy for the packet time, the packet is not
// delivered, and it is sent again retry_delay later, before any other packet. The
// downstream credit stays reserved, so nothing is lost or duplicated. Retries are
// counted.
//
// # NIC interface
//
// BuildNetwork returns the "inject" and "eject" ports of every node's NIC port. The
// NIC injects one packet per credit it holds (Injector keeps them and serializes the
// injection link) and gets a Credit back on inject for every slot that frees. The
// router ejects one packet per credit it holds for the NIC's receive buffer
// (ejectCredits per VC) and the NIC returns Credit(p.VC) on its link to eject when it
// frees the slot. Network.LinkNIC makes the four links.
//
// # Statistics
//
// CollectStats walks a finished model's ports: packets, bytes, busy time, retries and
// credit-stall time per port and totals per network, within an optional window
// (Network.SetStatsWindow). CheckDrained reports packets left inside routers: after a
// run whose events ran out, that is a deadlock.
package router
