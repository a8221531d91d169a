package actors

// Msg is a simulated message: a small immutable value named after a hardware noun or
// verb (Command, Packet, Credit). String must be stable: logs, goldens and traces use it.
// Zero-size message types cost no allocation when sent; a non-pointer value larger than
// a word is boxed, an allocation per send, so the messages of every packet are pointers
// to memory that is reused: records an actor sends itself (ht's readReady), requests
// answered in place (Reused), immutable shared values (one *ht.Write per size), or
// values recycled through a Pool once their last holder is done (router.Packet).
type Msg interface {
	String() string
}

// Reused is implemented by a message its sender reuses once the message has been
// answered (a request the requester owns and lends to the receiver, such as the TX DMA
// engine's *ht.Read): its content is valid until the answer. Anything that keeps a
// message past its delivery (a test's recorder) keeps Snapshot(), a copy, instead.
type Reused interface {
	Msg
	Snapshot() Msg
}

// Fingerprinter is implemented by messages whose content should enter the run digest.
// Without it a delivery contributes only its key (time, destination, source, sequence,
// port) to the digest.
type Fingerprinter interface {
	Fingerprint() uint64
}

// Actor is a simulated hardware block or software agent. Receive handles one message at
// the current simulated time; every effect goes through ctx. Receive must not block,
// start goroutines, read the wall clock or use global random numbers: the engine owns
// all concurrency and every run must be reproducible from its seed.
type Actor interface {
	Receive(ctx Context, m Msg)
}

// Starter is implemented by actors that act at time zero, typically to schedule their
// first events. Start runs once per actor, in actor id order within each partition.
type Starter interface {
	Start(ctx Context)
}

// Finisher is implemented by actors that hold resources beyond the run (a host's
// workload coroutines): Finish is called once when the run ends, however it ends, in
// actor id order, from a single goroutine.
type Finisher interface {
	Finish()
}

// Ported is implemented by actors with ports. Ports returns the port names; the index of
// a name is the Port value the actor passes to Context.Send and receives from
// Context.Port. The list must not change after the actor is added to a Graph.
type Ported interface {
	Ports() []string
}

// ActorID identifies an actor within a built Model. Ids are assigned in byte order of
// the actors' hierarchical names, so they do not depend on construction order.
type ActorID uint32

// Port is the index of a port in its actor's Ports list.
type Port int32

// Pseudo-ports reported by Context.Port for messages that did not arrive over a link.
const (
	// NoPort marks a message sent with Context.SendTo, and the Start call.
	NoPort Port = -1
	// SelfPort marks a message an actor sent itself with Context.SendSelf.
	SelfPort Port = -2
)

// Context is an actor's only window on the simulation while it handles a message.
// A Context is valid only during the Receive or Start call it was passed to.
type Context interface {
	// Now is the current simulated time.
	Now() Time
	// Self is the running actor's id.
	Self() ActorID
	// Name is the running actor's hierarchical name, e.g. "node[1,2,3].ppc".
	Name() string
	// Port is the port the current message arrived on, or NoPort / SelfPort.
	Port() Port
	// Send sends m over the link attached to port p. It is delivered at
	// Now + link latency + extraDelay; extraDelay must be >= 0 (serialization,
	// queueing or processing time the sender models).
	Send(p Port, m Msg, extraDelay Duration)
	// SendTo sends m directly to actor dst without a link, delivered at
	// Now + Graph.SetDirectLatency + extraDelay. It fails if the graph did not enable
	// direct sends. Used by workloads with all-to-all traffic such as PHOLD.
	SendTo(dst ActorID, m Msg, extraDelay Duration)
	// SendSelf schedules m to the running actor itself at Now + delay (delay >= 0):
	// a timer. It never leaves the actor's partition.
	SendSelf(m Msg, delay Duration)
	// Reserve returns a place among the running actor's own events for a timer it may
	// send itself later with SendSelfAt: sent then, the timer orders among the events
	// of its time as if it had been sent now. A reservation costs the actor's order of
	// events what a SendSelf does (its sequence number) and is used at most once.
	Reserve() Reservation
	// SendSelfAt sends m to the running actor itself at time at, in the place r
	// (Reserve); the place must come after the event being handled.
	SendSelfAt(r Reservation, m Msg, at Time)
	// Rand is the running actor's random stream, derived from the run seed and the
	// actor's name: it does not depend on partitioning or worker count.
	Rand() *Rand
	// Tracer is the tracing hook, nil when tracing is off; callers test for nil so
	// that tracing costs nothing when disabled.
	Tracer() Tracer
	// Fatalf ends the run with an error naming the actor and the simulated time.
	// It does not return.
	Fatalf(format string, args ...any)
}

// Reservation is a place among an actor's own events (Context.Reserve): its sequence
// number, which orders the actor's events of one time, plus one (the zero Reservation
// reserves nothing).
type Reservation struct{ seq uint64 }

// ReservationOf returns the reservation of place n (> 0), for a Context other than the
// engine's that orders an actor's own events by such numbers (actorstest's Harness).
func ReservationOf(n uint64) Reservation { return Reservation{seq: n} }

// Place is the reservation's number, 0 for the zero Reservation.
func (r Reservation) Place() uint64 { return r.seq }
