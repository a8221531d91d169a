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
// depth of a binary heap and keep siblings in one or two cache lines.
type eventHeap struct {
	ev []event
}

func (h *eventHeap) len() int { return len(h.ev) }

// minTime is the time of the earliest event, MaxTime if empty.
func (h *eventHeap) minTime() Time {
	if len(h.ev) == 0 {
		return MaxTime
	}
	return h.ev[0].at
}

func (h *eventHeap) push(e event) {
	h.ev = append(h.ev, event{})
	ev := h.ev
	i := len(ev) - 1
	for i > 0 { // move the hole up instead of swapping: one copy per level
		p := (i - 1) / 4
		if !e.less(ev[p].eventKey) {
			break
		}
		ev[i] = ev[p]
		i = p
	}
	ev[i] = e
}

// pop removes the earliest event into *e.
func (h *eventHeap) pop(e *event) {
	ev := h.ev
	n := len(ev) - 1
	*e = ev[0]
	last := ev[n]
	ev[n] = event{}
	h.ev = ev[:n]
	if n > 0 {
		h.siftDown(last)
	}
}

// siftDown places x, which replaces the root, by moving the hole down.
func (h *eventHeap) siftDown(x event) {
	ev := h.ev
	n := len(ev)
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for j, end := c+1, min(c+4, n); j < end; j++ {
			if ev[j].less(ev[m].eventKey) {
				m = j
			}
		}
		if !ev[m].less(x.eventKey) {
			break
		}
		ev[i] = ev[m]
		i = m
	}
	ev[i] = x
}

// digestEvent folds one delivery into an actor's running digest.
func digestEvent(h uint64, e *event) uint64 {
	h = mix64(h ^ uint64(e.at))
	h = mix64(h ^ e.ds)
	h = mix64(h ^ bits.RotateLeft64(e.seq, 17) ^ uint64(uint32(e.port)))
	if f, ok := e.msg.(Fingerprinter); ok {
		h = mix64(h ^ f.Fingerprint())
	}
	return h
}
