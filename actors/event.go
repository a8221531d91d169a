package actors

import "math/bits"

// eventKey totally orders events independently of partitioning: by time, then
// destination id, then source id, then the source's send sequence number. Destination
// and source share one word (dst<<32 | src) so the comparison is three integer compares.
type eventKey struct {
	at  Time
	ds  uint64
	seq uint64
}

func makeKey(at Time, dst, src ActorID, seq uint64) eventKey {
	return eventKey{at: at, ds: uint64(dst)<<32 | uint64(src), seq: seq}
}

func (k eventKey) dst() ActorID { return ActorID(k.ds >> 32) }
func (k eventKey) src() ActorID { return ActorID(uint32(k.ds)) }

func (k eventKey) less(o eventKey) bool {
	if k.at != o.at {
		return k.at < o.at
	}
	if k.ds != o.ds {
		return k.ds < o.ds
	}
	return k.seq < o.seq
}

// event is a message in flight.
type event struct {
	eventKey
	port Port
	msg  Msg
}

// sortedRun holds a partition's pending events while they are few (pendingQueue:
// up to sortedMax; a calendar queue holds more): a run sorted by key, h[lo:], of
// 32-byte entries (key, port and the slot of the message in a side table, so that
// entries stay small and pointer-free while they move). A pop takes the head; a push
// moves the entries on the shorter side of its place, so neither compares more keys
// than finding that place needs (the 4-ary heap it replaced compared four children a
// level on branches no predictor learns: a 2-node CCI stream keeps about 23 events
// pending, and the heap's siftDown was 18% of its run).
type sortedRun struct {
	h    []pendingEntry
	lo   int // the run's head: the entries are h[lo:]
	msgs msgSlots
}

// msgSlots is the side table of a pending-event structure (the sorted run, the calendar
// queue): its entries carry a slot number instead of the message, so that they stay
// small and pointer-free while they move.
type msgSlots struct {
	msgs []Msg    // message of each slot
	free []uint32 // free slots, reused last-in first-out to stay cache-warm
}

// park stores m in a free slot and returns the slot.
func (s *msgSlots) park(m Msg) uint32 {
	if n := len(s.free); n > 0 {
		slot := s.free[n-1]
		s.free = s.free[:n-1]
		s.msgs[slot] = m
		return slot
	}
	s.msgs = append(s.msgs, m)
	return uint32(len(s.msgs) - 1)
}

// take returns the message of slot and frees the slot.
func (s *msgSlots) take(slot uint32) Msg {
	m := s.msgs[slot]
	s.msgs[slot] = nil
	s.free = append(s.free, slot)
	return m
}

type pendingEntry struct {
	eventKey
	slot uint32
	port Port
}

func (h *sortedRun) len() int { return len(h.h) - h.lo }

// minTime is the time of the earliest event, MaxTime if empty.
func (h *sortedRun) minTime() Time {
	if h.lo == len(h.h) {
		return MaxTime
	}
	return h.h[h.lo].at
}

// push adds the event of key k to port with message m (its parts: see sink).
func (h *sortedRun) push(k eventKey, port Port, m Msg) {
	h.insert(pendingEntry{eventKey: k, slot: h.msgs.park(m), port: port})
}

// pop removes the earliest event into *e.
func (h *sortedRun) pop(e *event) {
	q := h.h
	top := q[h.lo]
	e.eventKey, e.port, e.msg = top.eventKey, top.port, h.msgs.take(top.slot)
	if h.lo++; h.lo == len(q) {
		h.h, h.lo = q[:0], 0
	}
}

// peek returns the destinations of the next two events and the addresses of their
// messages' slots (the first twice if the run holds one): a hint for prefetching only.
func (h *sortedRun) peek() (ActorID, *Msg, ActorID, *Msg, bool) {
	if h.lo == len(h.h) {
		return 0, nil, 0, nil, false
	}
	x, y := &h.h[h.lo], &h.h[h.lo]
	if h.lo+1 < len(h.h) {
		y = &h.h[h.lo+1]
	}
	return x.dst(), &h.msgs.msgs[x.slot], y.dst(), &h.msgs.msgs[y.slot], true
}

// insert places x in the sorted run. Its place is after the tail (a hold model's
// pattern) or found by a scan from the head: a NIC model's new events mostly go before
// most of those pending (a CCI stream's long timers wait at the tail), and a scan's one
// mispredicted branch, at its end, costs less than a binary search's several on sets
// this small (cachegrind, CCI stream: 26% fewer mispredictions in the whole run than
// with the heap, 9% fewer than with a search past the first eight). Then the shorter
// side moves: the entries before the place down into the popped slot before the head,
// or those after it up by one. A run that has reached its array's end moves down to
// h[0:] if the popped slots before it are at least as many as its entries, and the
// array grows otherwise, so that moves stay few per push.
func (h *sortedRun) insert(x pendingEntry) {
	q := h.h
	n := len(q)
	i := n
	if n > h.lo && x.less(q[n-1].eventKey) {
		i = h.lo
		for q[i].at < x.at { // by time first: one comparison an entry
			i++
		}
		for q[i].at == x.at && q[i].less(x.eventKey) { // then among x's time
			i++
		} // both stop at n-1 at the latest
	}
	if h.lo > 0 && i-h.lo <= n-i {
		copy(q[h.lo-1:], q[h.lo:i])
		h.lo--
		q[i-1] = x
		return
	}
	if n == cap(q) && h.lo >= n-h.lo {
		n = copy(q, q[h.lo:])
		q, i, h.lo = q[:n], i-h.lo, 0
	}
	q = append(q, pendingEntry{})
	copy(q[i+1:], q[i:n])
	q[i] = x
	h.h = q
}

// digestEvent folds one delivery into an actor's running digest.
// The event's fields are spread by distinct odd multipliers (each a bijection, so a
// change in any one field changes the word) and combined, then one mix64 folds the word
// into the chain: one dependent mix per delivery instead of four (the mixing was 13 % of
// a PortalPerf run). plain is the caller's memory of the last message type found not to
// be a Fingerprinter (the first word of its interface value, the same for every value
// of one type): a message of that type skips the assertion, which cost about 20
// instructions an event (PHOLD, whose one message type has no fingerprint; 22 on halo3d
// 8x8x8, where 4.3 M of 7.3 M events have none).
func digestEvent(h uint64, e *event, plain *uintptr) uint64 {
	x := uint64(e.at)*0x9e3779b97f4a7c15 ^ e.ds*0xc2b2ae3d27d4eb4f ^
		bits.RotateLeft64(e.seq, 17)*0x165667b19e3779f9 ^ uint64(uint32(e.port))*0xd6e8feb86659fd93
	if tab := ifaceWords(&e.msg)[0]; tab != *plain {
		if f, ok := e.msg.(Fingerprinter); ok {
			x ^= bits.RotateLeft64(f.Fingerprint(), 29) * 0xff51afd7ed558ccd
		} else {
			*plain = tab
		}
	}
	return mix64(h ^ x)
}
