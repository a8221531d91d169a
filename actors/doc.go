// Package actors is the simulation kernel: simulated time and units, the actor model,
// the graph builder, and two engines that execute a model deterministically. Nothing
// here knows about SeaStar; hardware blocks and protocols are actors built on it.
//
// # Model
//
// An Actor handles one message at a time in Receive(ctx, msg) and acts only through its
// Context: Now, Send over a port (delivered after the link's latency plus an extra delay
// the sender models), SendTo (direct, for all-to-all workloads), SendSelf (a timer),
// Reserve and SendSelfAt (a timer sent later in the place among the actor's own events
// reserved earlier, for a timer re-sent rather than left stale), Rand (a per-actor
// stream derived from the run seed and the actor's name), Tracer and Fatalf. Actors
// are added to a Graph under hierarchical names such as "node[1,2,3].ppc"; links join
// ports and carry the latency. Graph.Build validates the graph and assigns actor ids in
// name order.
//
// # Determinism
//
// Events are totally ordered by (time, destination id, source id, source sequence
// number). Every engine delivers each actor's events in that order, so a run's results
// depend only on the model, the seed and the parameters: never on the engine, the
// worker count, the partitioning or the wall clock. Each run reports a digest of the
// delivered-event stream (per actor, in key order, combined in id order) to prove it.
//
// # Engines
//
// The serial engine is the reference: one binary heap. The parallel engine is
// conservative and window-synchronized; see parallel.go for its design. Partitioners
// (Block, Node, Auto, or any implementation of Partitioner) decide which actors share a
// partition; the lookahead is the minimum latency of links crossing partitions.
//
// In a large model the partitions prefetch, while an event runs, the memory the next
// ones read first: their actors' structs (up to PrefetchBytes, for an actor that
// implements PrefetchSizer), messages, routes and engine state, and the lines an actor
// named for its next event with Prefetch. These are hints: they change no result.
//
// # Units
//
// Time and Duration are integer picoseconds. Freq, Bytes, Bandwidth and Prob complete
// the set of unit-carrying values; all of them parse and print exactly through one
// parser (units.go), which configuration and command-line code use for every parameter.
package actors
