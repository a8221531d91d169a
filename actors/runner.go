package actors

import (
	"fmt"
	"reflect"
	"runtime/debug"
	"unsafe"
)

// actorState is the engine's per-actor bookkeeping. A slice of these, indexed by actor
// id, is shared by all partitions of a run; each partition touches only its own actors.
type actorState struct {
	clock  Time   // time of the last delivery: no event may be delivered before it
	seq    uint64 // next per-source sequence number
	digest uint64 // running digest of the events delivered to this actor
	events uint64 // events delivered to this actor
	rand   Rand
	actor  Actor // the Model's actor: an event's state and its receiver in one line
}

// actorStateSize is actorState's size: one cache line, so that delivering an event
// reads one line of engine state (and the table of them is line-aligned when it is
// large enough to matter, since the runtime page-aligns large allocations). With the
// actor beside the state instead of in the Model's table, an event in a large
// machine misses one line less (TestActorStateIsALine).
const actorStateSize = cacheLine

// cacheLine is the CPU's cache line in bytes (x86-64 and arm64 alike): the unit the
// engine's layout and prefetches count in.
const cacheLine = 64

func newActorStates(m *Model, seed uint64) []actorState {
	st := make([]actorState, m.NumActors())
	for i := range st {
		st[i].rand = NewRand(seed, m.names[i])
		st[i].actor = m.actors[i]
	}
	return st
}

// sink receives the events a runner's actors send. An event travels from Send to its
// queue as its parts (key, port, message), here and in the queues' push: an event
// struct is six words, which the compiler keeps in memory and copies 16 bytes at a time
// from the 8-byte stores that built it, a copy the processor cannot forward from its
// store buffer (4% of Red Storm's CPU profile stalled there). An event struct is built
// only where one is stored (an outbox batch, the serial engine's heap).
type sink interface {
	enqueue(k eventKey, port Port, m Msg)
}

// runner executes actors and is the Context they see. Both engines embed it: the
// serial engine with one sink for everything, the parallel engine with one runner per
// partition whose sink routes events to the local heap or to other partitions.
type runner struct {
	m      *Model
	st     []actorState
	pf     []prefetchRec // by actor, what prefetching its next event reads (newPrefetchRecs); nil: the partition does not prefetch
	sink   sink
	tracer Tracer
	gauges GaugeTracer // tracer's gauge recorder if it records gauges, else nil (setTracer)

	now  Time
	cur  ActorID
	port Port
	key  eventKey // key of the event being handled, to order failures

	plain uintptr // the last message type delivered that has no Fingerprint (digestEvent)
}

var _ Context = (*runner)(nil)

// prefetch starts bringing into the cache what delivering the next two events reads
// first, while the event before them runs. For the next event (actor d, message slot
// m): d itself (every line its struct spans up to its PrefetchBytes: a router port's
// fields that a credit or a packet reads, its queue states, credits, crossbar credits
// and statistics, seven lines of ten at four channels), the message's first line, the
// first two lines of d's outgoing links (a Send's route reads one of them) and the
// lines d named for its next event (Prefetch: a DMA engine's ring head); for the one
// after it (d2, m2), the engine state the next call reads the actor from (one line: its
// interface value is in it), the message slot and d2's prefetch record (which the call
// for d2 reads to find the rest: 1.4% of Red Storm's CPU profile waited on its hints
// when they had a table of their own, and halo3d 12x12x12 ran 5% faster with them
// prefetched). In a machine of thousands of nodes every window touches every node's
// state afresh after the other partitions have evicted it, and these are the first
// misses of each event. The actor and the message are found from the data word of
// their interface values (the second of its two words), the rest from d's record. Of
// d2 only addresses are computed, never read, and a prefetch never faults: they need no
// bounds check.
func (r *runner) prefetch(d ActorID, m *Msg, d2 ActorID, m2 *Msg) {
	st2 := uintptr(unsafe.Pointer(unsafe.SliceData(r.st))) + uintptr(d2)*unsafe.Sizeof(actorState{})
	pf2 := uintptr(unsafe.Pointer(unsafe.SliceData(r.pf))) + uintptr(d2)*unsafe.Sizeof(prefetchRec{})
	prefetchEvent(ifaceWords(&r.st[d].actor)[1], &r.pf[d], ifaceWords(m)[1], st2, uintptr(unsafe.Pointer(m2)), pf2)
}

// prefetchRec is what a partition that prefetches keeps of an actor to start the misses
// of its next event: 32 bytes, two to a line, so that one prefetch of the record (with
// the event before) brings all of it.
type prefetchRec struct {
	hints [2]uintptr // the lines its next event reads outside its struct (Prefetch), 0 for none
	out   uintptr    // the address of its first outgoing link in the Model's port table (newPrefetchRecs: also for an actor with no port)
	lines uintptr    // the cache lines its struct spans (prefetchLines)
}

// newPrefetchRecs returns the prefetch records of m's actors, whose states are st. An
// actor with no port gets the address where its ports would start (the next actor's
// first link, or the table's end): it is only prefetched, which never faults.
func newPrefetchRecs(m *Model, st []actorState) []prefetchRec {
	lines := prefetchLines(st)
	out := uintptr(unsafe.Pointer(unsafe.SliceData(m.out)))
	recs := make([]prefetchRec, len(st))
	for i := range recs {
		recs[i] = prefetchRec{out: out + uintptr(m.portBase[i])*unsafe.Sizeof(outLink{}), lines: uintptr(lines[i])}
	}
	return recs
}

// ifaceWords returns the two words of the interface value *v (an Actor or a Msg): its
// type word, one for every value of a dynamic type, and its data word, the value itself
// if it is a pointer, else the address of its copy. The engine reads them for hints
// (prefetch, prefetchLines) and for the digest's memory of a type (digestEvent), never
// to reach the value.
func ifaceWords[I any](v *I) *[2]uintptr { return (*[2]uintptr)(unsafe.Pointer(v)) }

// Prefetch tells the engine which lines outside its struct the calling actor's next
// event will read first, a and b (nil for none): a ring's head slot, the packet in it.
// A partition that prefetches brings them in with the actor's own lines while the
// event before runs, as it does the actor's struct; they stay named until the actor
// calls Prefetch again (a router port, whose rings do not move, names them once in its
// Start). A hint only, for what the actor's state already says: it changes no result,
// and costs a small model nothing.
func Prefetch[A, B any](ctx Context, a *A, b *B) {
	if r, ok := ctx.(*runner); ok && r.pf != nil {
		r.pf[r.cur].hints = [2]uintptr{uintptr(unsafe.Pointer(a)), uintptr(unsafe.Pointer(b))}
	}
}

// maxPrefetchLines bounds the lines prefetched of one actor: an actor's struct larger
// than this (none of the SeaStar model's is) has its first lines prefetched only.
const maxPrefetchLines = 16

// PrefetchSizer is implemented by an actor whose events read only the first
// PrefetchBytes bytes of its struct (tables sized for the largest configuration, of
// which this one uses the first entries): the engine prefetches those lines only.
type PrefetchSizer interface {
	PrefetchBytes() uintptr
}

// prefetchLines returns, for every actor of st, the cache lines its struct spans where
// it lies in memory (from the line of its first byte to that of its last, so that an
// object not aligned to a line is covered), up to its PrefetchBytes if it says, at
// most maxPrefetchLines; 1 for an actor that is not a pointer (its interface value
// points at a copy).
func prefetchLines(st []actorState) []uint8 {
	lines := make([]uint8, len(st))
	for i := range st {
		n := uintptr(1)
		if t := reflect.TypeOf(st[i].actor); t != nil && t.Kind() == reflect.Pointer {
			addr := ifaceWords(&st[i].actor)[1]
			size := t.Elem().Size()
			if s, ok := st[i].actor.(PrefetchSizer); ok {
				size = min(size, s.PrefetchBytes())
			}
			if size > 0 {
				n = (addr+size-1)/cacheLine - addr/cacheLine + 1
			}
		}
		lines[i] = uint8(min(n, maxPrefetchLines))
	}
	return lines
}

// prefetchMinActors is the model size from which partitions prefetch. The hints cost
// about 7% of an event whose memory is in the cache (PHOLD's 1,024 LPs; 4% on halo3d
// 4x4x4, 832 actors) and pay once the model outgrows a core's caches: halo3d 8x8x8
// (6,656 actors) runs about 9% faster, 12x12x12 about 23%, 16x16x16 about 15% and Red
// Storm (134,784) 10-25%. At a few hundred bytes an actor, 4,096 actors are about a
// 2 MiB L2. (A variable: tests make every partition prefetch.)
var prefetchMinActors = 4096

// deliver hands e to its destination actor.
func (r *runner) deliver(e *event) {
	d := e.dst()
	s := &r.st[d]
	r.now, r.cur, r.port, r.key = e.at, d, e.port, e.eventKey
	if e.at < s.clock {
		r.Fatalf("kernel: causality violation: event from %s at %s delivered after the actor's clock reached %s",
			r.m.names[e.src()], e.at, s.clock)
	}
	s.clock = e.at
	s.digest = digestEvent(s.digest, e, &r.plain)
	s.events++
	s.actor.Receive(r, e.msg)
}

// start calls the Start method of actor id, if it has one, at time zero.
func (r *runner) start(id ActorID) {
	r.now, r.cur, r.port = 0, id, NoPort
	r.key = eventKey{at: -1, ds: uint64(id)<<32 | uint64(id)}
	if s, ok := r.st[id].actor.(Starter); ok {
		s.Start(r)
	}
}

// protect runs f and turns a Fatalf or a panic inside an actor into a SimError.
func (r *runner) protect(f func()) (err *SimError) {
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		err = &SimError{Actor: r.m.names[r.cur], Time: r.now, key: r.key}
		if f, ok := p.(fatal); ok {
			err.Msg = f.msg
		} else {
			err.Msg = fmt.Sprintf("panic: %v", p)
			err.Stack = string(debug.Stack())
		}
	}()
	f()
	return nil
}

func (r *runner) Now() Time      { return r.now }
func (r *runner) Self() ActorID  { return r.cur }
func (r *runner) Name() string   { return r.m.names[r.cur] }
func (r *runner) Port() Port     { return r.port }
func (r *runner) Rand() *Rand    { return &r.st[r.cur].rand }
func (r *runner) Tracer() Tracer { return r.tracer }

func (r *runner) Fatalf(format string, args ...any) {
	panic(fatal{msg: fmt.Sprintf(format, args...)})
}

func (r *runner) Send(p Port, m Msg, extraDelay Duration) {
	l, ok := r.m.route(r.cur, p)
	if !ok {
		r.Fatalf("send on port %s, which has no outgoing link", r.m.PortName(r.cur, p))
	}
	r.send(l.dst, l.dstPort, m, l.latency, extraDelay)
}

func (r *runner) SendTo(dst ActorID, m Msg, extraDelay Duration) {
	if r.m.direct < 0 {
		r.Fatalf("SendTo used but the graph did not enable direct sends (Graph.SetDirectLatency)")
	}
	if int(dst) >= len(r.m.names) {
		r.Fatalf("SendTo to unknown actor id %d", dst)
	}
	r.send(dst, NoPort, m, r.m.direct, extraDelay)
}

func (r *runner) SendSelf(m Msg, delay Duration) {
	r.send(r.cur, SelfPort, m, 0, delay)
}

func (r *runner) Reserve() Reservation {
	s := &r.st[r.cur]
	s.seq++
	return Reservation{seq: s.seq} // the place taken, plus one
}

func (r *runner) SendSelfAt(res Reservation, m Msg, at Time) {
	if res.seq == 0 || res.seq > r.st[r.cur].seq {
		r.Fatalf("SendSelfAt %s at %s: the place was not reserved (Reserve)", m, at)
	}
	key := makeKey(at, r.cur, r.cur, res.seq-1)
	if !r.key.less(key) {
		r.Fatalf("SendSelfAt %s at %s: its place comes before the event being handled", m, at)
	}
	// send's hand-over, written out in both: as a function of its own it is not
	// inlined (cost 135), and send, on every event's path, would pay a call.
	if p, ok := r.sink.(*partition); ok {
		p.enqueue(key, SelfPort, m)
		return
	}
	r.sink.enqueue(key, SelfPort, m)
}

func (r *runner) send(dst ActorID, port Port, m Msg, latency, extra Duration) {
	if extra < 0 {
		r.Fatalf("negative delay %s sending %s", extra, m)
	}
	s := &r.st[r.cur]
	key := makeKey(r.now.Add(latency).Add(extra), dst, r.cur, s.seq)
	s.seq++
	if p, ok := r.sink.(*partition); ok { // a direct call, not through the interface
		p.enqueue(key, port, m)
		return
	}
	r.sink.enqueue(key, port, m)
}
