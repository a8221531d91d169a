package ptl

// eq is an event queue: a circular buffer of fixed capacity. The writer never waits:
// when the queue is full a new event overwrites the oldest one, and the reader learns
// of the loss from the sequence numbers (PTL_EQ_DROPPED), as in the reference
// implementation. The buffer grows (up to the capacity) when it is full of unread
// events, so that a large queue costs only the most events it ever held unread.
type eq struct {
	h     EQHandle
	ring  []Event // event s is at s % len(ring)
	size  uint64  // capacity
	write uint64  // sequence number of the next event posted
	read  uint64  // sequence number the reader expects next
	// owed counts events that operations in flight have committed to post here (their
	// SEND_START before SendStarted, their END events): MDUpdate treats the queue as
	// not empty while any is owed.
	owed int
}

// push posts ev and returns it with its sequence number.
func (q *eq) push(ev Event) Event {
	ev.Sequence = q.write
	if n := uint64(len(q.ring)); q.write-q.read >= n && n < q.size {
		q.grow()
	}
	q.ring[q.write%uint64(len(q.ring))] = ev
	q.write++
	return ev
}

// grow doubles the ring (at least 8 slots, at most the capacity), keeping the unread
// events. It is only called while no event has been lost, so they are all there.
func (q *eq) grow() {
	n := min(q.size, max(8, 2*uint64(len(q.ring))))
	ring := make([]Event, n)
	for s := q.read; s < q.write; s++ {
		ring[s%n] = q.ring[s%uint64(len(q.ring))]
	}
	q.ring = ring
}

// oldest is the sequence number of the oldest event still in the ring.
func (q *eq) oldest() uint64 {
	if n := uint64(len(q.ring)); q.write > n {
		return q.write - n
	}
	return 0
}

// count is the number of events the reader can still get.
func (q *eq) count() int { return int(q.write - max(q.read, q.oldest())) }

// get returns the next event: ErrEQEmpty if there is none, ErrEQDropped (with the
// oldest event still available) if events were overwritten since the last get.
func (q *eq) get() (Event, error) {
	if q.read == q.write {
		return Event{}, ErrEQEmpty
	}
	var err error
	if o := q.oldest(); q.read < o {
		q.read, err = o, ErrEQDropped
	}
	ev := q.ring[q.read%uint64(len(q.ring))]
	q.read++
	return ev, err
}

// EQAlloc allocates an event queue of count entries (PtlEQAlloc; there is no event
// handler). Errors: ErrNoSpace if count < 1 or the NI has Limits.MaxEQs queues.
func (ni *NI) EQAlloc(count int) (EQHandle, error) {
	if err := ni.check(); err != nil {
		return EQNone, err
	}
	if count < 1 {
		return EQNone, ErrNoSpace
	}
	q := &eq{size: uint64(count)}
	h, ok := ni.eqs.alloc(q)
	if !ok {
		return EQNone, ErrNoSpace
	}
	q.h = EQHandle(h)
	return q.h, nil
}

// EQFree frees an event queue (PtlEQFree). Memory descriptors that still name it keep
// working; the events they would post are discarded. Errors: ErrEQInvalid.
func (ni *NI) EQFree(h EQHandle) error {
	if err := ni.check(); err != nil {
		return err
	}
	if _, ok := ni.eqs.get(uint64(h)); !ok {
		return ErrEQInvalid
	}
	ni.eqs.release(uint64(h))
	return nil
}

// EQGet takes the next event from a queue without waiting (PtlEQGet): nil error, or
// ErrEQDropped with a valid event when events were lost to overflow since the last
// successful get (the event is the oldest one still queued). Errors: ErrEQEmpty,
// ErrEQInvalid. The blocking PtlEQWait is the caller's: wait for a Posted on h, then
// EQGet.
func (ni *NI) EQGet(h EQHandle) (Event, error) {
	if err := ni.check(); err != nil {
		return Event{}, err
	}
	q, ok := ni.eqs.get(uint64(h))
	if !ok {
		return Event{}, ErrEQInvalid
	}
	return q.get()
}

// EQPoll is PtlEQPoll with a zero timeout: it takes the next event of the first queue
// in hs (in the order given) that has one, and returns its index in hs. Errors:
// ErrEQInvalid if any handle is invalid, ErrEQEmpty if all queues are empty; like
// EQGet, ErrEQDropped comes with a valid event.
func (ni *NI) EQPoll(hs ...EQHandle) (Event, int, error) {
	if err := ni.check(); err != nil {
		return Event{}, -1, err
	}
	qs := make([]*eq, len(hs))
	for i, h := range hs {
		q, ok := ni.eqs.get(uint64(h))
		if !ok {
			return Event{}, -1, ErrEQInvalid
		}
		qs[i] = q
	}
	for i, q := range qs {
		if q.count() > 0 {
			ev, err := q.get()
			return ev, i, err
		}
	}
	return Event{}, -1, ErrEQEmpty
}

// EQCount returns the number of events waiting in a queue (not part of the 3.3 API:
// what a blocking EQWait tests). Errors: ErrEQInvalid.
func (ni *NI) EQCount(h EQHandle) (int, error) {
	if err := ni.check(); err != nil {
		return 0, err
	}
	q, ok := ni.eqs.get(uint64(h))
	if !ok {
		return 0, ErrEQInvalid
	}
	return q.count(), nil
}
