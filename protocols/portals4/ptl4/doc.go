// Package ptl4 is Portals 4 semantics as a pure, transport-agnostic library, in the
// style of portals3/ptl: the network interfaces of one process (the four kinds,
// matching or not, logical or physical), their portal tables, priority and overflow
// lists of MEs and LEs with unexpected headers, memory descriptors, event queues,
// counting events, triggered operations and the decisions that API calls and
// arriving messages make on them (Barrett et al., The Portals 4.0 Network
// Programming Interface, SAND2012-10087; Brightwell 2011, papers/002).
//
// The library has no notion of time and moves bytes only through a Memory the
// caller supplies. Calls go in; messages to transmit come out of Outbox, and the
// caller (the NIC firmware model, or a test) carries them to the target's Deliver
// and the responses back to Complete. Blocking calls (PtlEQWait, PtlCTWait and the
// polls) are the caller's loops over the non-blocking EQGet/CTGet; the library bumps
// a per-process change counter (Changes) whenever an event queue or counter moves,
// which is what a waiting caller watches.
//
// Return codes are the C values (Ret); names and values of every constant follow
// portals4.h of the Sandia reference implementation, which is also what the library
// follows where the specification leaves a choice (the conformance suite in
// ../shared/conformance/portals4 is written against it).
package ptl4
