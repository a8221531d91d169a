// Package mpi is an MPI-style message-passing library over Portals 3.3, built the way
// MPI sat on Portals on Red Storm: the design of Brightwell, Riesen & Maccabe ("Design,
// implementation, and performance of MPI on Portals 3.0", 2003, the MPI that Pedretti
// & Hudson 2005 s.5 measure with the OSU benchmarks). Each rank is a Portals process
// (protocols/portals3); the library runs inside the rank's program, in its calls: as
// in generic mode, there is no progress thread, and incoming messages are matched and
// deposited by the Portals library on its own (Brightwell et al. 2005 s.4.1).
//
// # Envelope
//
// The MPI envelope travels in the 64 match bits of a put:
//
//	bit 63      long-protocol flag
//	bits 62..48 context (15 bits): point-to-point and collective traffic of the world
//	bits 47..24 source rank (24 bits: up to 16 M ranks)
//	bits 23..0  tag (24 bits: MPI_TAG_UB = 16,777,215)
//
// A receive's match entry sets the ignore bits of the long flag always, of the source
// for MPI_ANY_SOURCE and of the tag for MPI_ANY_TAG. The job id of every entry is the
// job's, so that no other job's message matches. The header data of a long message
// carries the id under which its sender exposes the data.
//
// # Match list of PtRecv
//
//	[posted receives, in posting order] [mark] [unexpected buffers ...] [long catcher]
//
// Posted receives go just before the mark (PtlMEInsert), so that a message matches the
// oldest posted receive it fits. The unexpected buffers (mpi.unexpected_buffers of
// mpi.unexpected_buffer_bytes) match short messages (long flag clear) of any source
// and tag at a locally managed offset; with PTL_MD_MAX_SIZE = eager_max each retires
// when an eager message might no longer fit, Portals unlinks it, and the library
// re-posts it once every message in it has been received. The long catcher matches
// long messages with a zero-length, truncating memory descriptor: it keeps only the
// header (its events give source, tag, length and the sender's id) and acknowledges
// zero bytes. Events of the unexpected entries go to their own event queue.
//
// # Protocols
//
//   - Short (eager), at most mpi.eager_max bytes: one put without ack from a
//     memory descriptor over the user's buffer; the send completes at SEND_END. The
//     message lands in a posted receive, or in an unexpected buffer, from which a later
//     receive copies it (host memcpy).
//   - Long: the sender attaches its buffer to a match entry on PtRead (only the
//     receiver may read it, under a fresh id) and puts the whole message with an ack
//     request. If a posted receive takes it, the data goes straight into the user's
//     buffer and the ack reports every byte: the send is complete. If it is
//     unexpected, the long catcher keeps the header and the ack reports zero bytes;
//     when the receive is posted, the receiver gets the data from PtRead (the
//     rendezvous is a get from the receiver) and the send completes at GET_END.
//     Long messages therefore cost one transfer when the receive is pre-posted, and a
//     header plus a get round trip when it is not; a posted receive that truncates a
//     long message releases the sender with a get of zero bytes.
//
// # Posting a receive without a race
//
// A receive first searches the unexpected queue (the messages the library has taken
// from the unexpected event queue, in arrival order; START events give the order, so
// a short message whose data is still arriving can be matched and is copied at its END
// event). If none matches, the receive's match entry is inserted with an inactive
// memory descriptor, and PtlMDUpdate activates it only if the unexpected event queue
// is empty and owed nothing: atomically in the Portals library. On refusal the library
// drains that queue, searches the newcomers, and either takes one (unlinking its entry)
// or tries again. This is the atomic search-and-post that Brightwell 2011 notes cost
// MPI a round trip to the library per receive on the SeaStar.
//
// # Collectives (in a context of their own)
//
//   - Barrier: dissemination, ceil(log2 P) rounds of zero-byte messages to rank+2^k.
//   - Bcast: binomial tree from the root, ceil(log2 P) steps.
//   - Allreduce: recursive doubling on float64 vectors (sum, max, min), with the
//     usual fold of the ranks beyond the largest power of two.
//   - Alltoall: pairwise exchange, P-1 steps (XOR partners for a power of two).
//
// Details and references are on each function.
//
// # Costs
//
// Every Portals call costs what portals3 charges (its bridge crossing and library
// work). The library adds mpi.call_cost per MPI call, mpi.search_cost per unexpected
// message examined, a host memcpy for data copied out of an unexpected buffer, and
// mpi.reduce_bandwidth for reductions. Waiting is PtlEQWait on the queue the request
// needs.
//
// # Limits
//
// One rank per node, MPI_COMM_WORLD only, no MPI_Cancel, probes or persistent
// requests. Unexpected short messages that find every buffer full are dropped by
// Portals; Finalize reports them. An event queue that overflows is an error.
package mpi
