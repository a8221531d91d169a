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
	h.ev = append(h.ev, e)
	i := len(h.ev) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !h.ev[i].less(h.ev[p].eventKey) {
			break
		}
		h.ev[i], h.ev[p] = h.ev[p], h.ev[i]
		i = p
	}
}

// pop removes the earliest event into *e.
func (h *eventHeap) pop(e *event) {
	n := len(h.ev) - 1
	*e = h.ev[0]
	h.ev[0] = h.ev[n]
	h.ev[n] = event{}
	h.ev = h.ev[:n]
	h.down(0)
}

func (h *eventHeap) down(i int) {
	ev := h.ev
	n := len(ev)
	for {
		c := 4*i + 1
		if c >= n {
			return
		}
		m := c
		end := c + 4
		if end > n {
			end = n
		}
		for j := c + 1; j < end; j++ {
			if ev[j].less(ev[m].eventKey) {
				m = j
			}
		}
		if !ev[m].less(ev[i].eventKey) {
			return
		}
		ev[i], ev[m] = ev[m], ev[i]
		i = m
	}
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
