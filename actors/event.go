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

// eventHeap is a 4-ary min-heap of events by key. Four children per node halve the
// depth of a binary heap. The heap itself holds 32-byte entries (key, port and the slot
// of the message in a side table), so a node's four children span two cache lines;
// messages stay put in the side table until their event is popped.
type eventHeap struct {
	h    []heapEntry
	msgs msgSlots
}

// msgSlots is the side table of a pending-event structure (the heap, the calendar
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

type heapEntry struct {
	eventKey
	slot uint32
	port Port
}

func (h *eventHeap) len() int { return len(h.h) }

// minTime is the time of the earliest event, MaxTime if empty.
func (h *eventHeap) minTime() Time {
	if len(h.h) == 0 {
		return MaxTime
	}
	return h.h[0].at
}

func (h *eventHeap) push(e event) {
	x := heapEntry{eventKey: e.eventKey, slot: h.msgs.park(e.msg), port: e.port}
	h.h = append(h.h, heapEntry{})
	q := h.h
	i := len(q) - 1
	for i > 0 { // move the hole up instead of swapping: one copy per level
		p := (i - 1) / 4
		if !x.less(q[p].eventKey) {
			break
		}
		q[i] = q[p]
		i = p
	}
	q[i] = x
}

// pop removes the earliest event into *e.
func (h *eventHeap) pop(e *event) {
	q := h.h
	top := q[0]
	e.eventKey, e.port, e.msg = top.eventKey, top.port, h.msgs.take(top.slot)
	n := len(q) - 1
	last := q[n]
	h.h = q[:n]
	if n > 0 {
		h.siftDown(last)
	}
}

// siftDown places x, which replaces the root. It moves the hole down along the path of
// smallest children to a leaf without comparing against x, then moves x up from there
// (Floyd's bottom-up method): x usually comes from the bottom of the heap and belongs
// near it, so this takes about one comparison per level less than the textbook sift.
func (h *eventHeap) siftDown(x heapEntry) {
	q := h.h
	n := len(q)
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for j, end := c+1, min(c+4, n); j < end; j++ {
			if q[j].less(q[m].eventKey) {
				m = j
			}
		}
		q[i] = q[m]
		i = m
	}
	for i > 0 {
		p := (i - 1) / 4
		if !x.less(q[p].eventKey) {
			break
		}
		q[i] = q[p]
		i = p
	}
	q[i] = x
}

// digestEvent folds one delivery into an actor's running digest.
// The event's fields are spread by distinct odd multipliers (each a bijection, so a
// change in any one field changes the word) and combined, then one mix64 folds the word
// into the chain: one dependent mix per delivery instead of four (the mixing was 13 % of
// a PortalPerf run).
func digestEvent(h uint64, e *event) uint64 {
	x := uint64(e.at)*0x9e3779b97f4a7c15 ^ e.ds*0xc2b2ae3d27d4eb4f ^
		bits.RotateLeft64(e.seq, 17)*0x165667b19e3779f9 ^ uint64(uint32(e.port))*0xd6e8feb86659fd93
	if f, ok := e.msg.(Fingerprinter); ok {
		x ^= bits.RotateLeft64(f.Fingerprint(), 29) * 0xff51afd7ed558ccd
	}
	return mix64(h ^ x)
}
