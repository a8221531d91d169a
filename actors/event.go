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
//
// A small set (up to sortedMax events) is kept instead as a run sorted by key, h[lo:]:
// a pop takes its head, a push moves the entries on the shorter side of its place, so
// neither compares more keys than finding that place needs, where a heap's pop
// compares four children a level on branches no predictor learns (a 2-node CCI stream,
// ~23 events pending: the heap's siftDown was 18% of the run). A sorted run is a valid heap (a
// parent's index is below its children's), so growing past sortedMax only moves it to
// h[0:]; a heap that falls below sortedMin is sorted again. Both pop in key order, a
// total order, so which holds a set changes no result.
type eventHeap struct {
	h      []heapEntry
	lo     int  // the sorted run's head: the entries are h[lo:] (0 in heap mode)
	isHeap bool // h holds a 4-ary heap; the zero value starts as a sorted run
	msgs   msgSlots
}

// The set sizes at which an eventHeap changes between a sorted run and a heap (apart,
// so that a set near one size does not switch back and forth).
const (
	sortedMax = 64
	sortedMin = 24
)

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

func (h *eventHeap) len() int { return len(h.h) - h.lo }

// minTime is the time of the earliest event, MaxTime if empty.
func (h *eventHeap) minTime() Time {
	if h.lo == len(h.h) {
		return MaxTime
	}
	return h.h[h.lo].at // the heap's root (lo is 0) or the run's head
}

func (h *eventHeap) push(e event) {
	x := heapEntry{eventKey: e.eventKey, slot: h.msgs.park(e.msg), port: e.port}
	if !h.isHeap {
		if len(h.h)-h.lo < sortedMax {
			h.insert(x)
			return
		}
		h.toHeap()
	}
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
	top := q[h.lo]
	e.eventKey, e.port, e.msg = top.eventKey, top.port, h.msgs.take(top.slot)
	if !h.isHeap {
		if h.lo++; h.lo == len(q) {
			h.h, h.lo = q[:0], 0
		}
		return
	}
	n := len(q) - 1
	last := q[n]
	h.h = q[:n]
	if n > 0 {
		h.siftDown(last)
	}
	if n < sortedMin {
		h.toSorted()
	}
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
func (h *eventHeap) insert(x heapEntry) {
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
	q = append(q, heapEntry{})
	copy(q[i+1:], q[i:n])
	q[i] = x
	h.h = q
}

// toHeap makes the sorted run a heap: it is one already where it starts at h[0].
func (h *eventHeap) toHeap() {
	if h.lo > 0 {
		h.h = h.h[:copy(h.h, h.h[h.lo:])]
		h.lo = 0
	}
	h.isHeap = true
}

// toSorted makes the heap's few entries a sorted run (insertion sort: a heap is
// nearly sorted along its first entries).
func (h *eventHeap) toSorted() {
	q := h.h
	for i := 1; i < len(q); i++ {
		x := q[i]
		j := i
		for j > 0 && x.less(q[j-1].eventKey) {
			q[j] = q[j-1]
			j--
		}
		q[j] = x
	}
	h.isHeap = false
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
