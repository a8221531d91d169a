package actors

import "sync/atomic"

// batch is a run of events from one partition to another. Batches travel through a
// lock-free stack per destination (its inbox) and, once drained, back to their source
// through the source's free stack, so steady-state exchange allocates nothing.
type batch struct {
	ev    []event
	minAt Time // earliest event in ev
	next  *batch
	owner *partition
}

// stack is a lock-free LIFO of batches with many pushers and one consumer, which takes
// the whole stack at once (so the ABA problem of single-node pops cannot arise).
type stack struct{ head atomic.Pointer[batch] }

func (s *stack) push(b *batch) {
	for {
		h := s.head.Load()
		b.next = h
		if s.head.CompareAndSwap(h, b) {
			return
		}
	}
}

func (s *stack) takeAll() *batch { return s.head.Swap(nil) }

// outbox collects the events a partition sends to other partitions until flushed.
type outbox struct {
	owner   *partition
	dense   []*batch         // open batch by destination, when partitions are few
	sparse  map[int32]*batch // open batch by destination when many are open at once
	touched []int32          // destinations with an open batch
	open    []*batch         // the open batches, parallel to touched
	spare   *batch           // free batches taken back from the free stack
}

// outboxScanMax is how many open batches an outbox with many partitions searches
// linearly before it indexes them in a map: a partition usually sends to a few.
const outboxScanMax = 8

// denseOutboxMax is the partition count up to which an outbox indexes destinations by
// a slice (P pointers per partition) rather than a map.
const denseOutboxMax = 64

func (o *outbox) init(owner *partition, parts int) {
	o.owner = owner
	if parts <= denseOutboxMax {
		o.dense = make([]*batch, parts)
	} else {
		o.sparse = map[int32]*batch{}
	}
}

func (o *outbox) add(dst int32, k eventKey, port Port, m Msg) {
	b := o.lookup(dst)
	if b == nil {
		b = o.fresh()
		if o.dense != nil {
			o.dense[dst] = b
		} else if len(o.touched) >= outboxScanMax {
			o.sparse[dst] = b
		}
		o.touched = append(o.touched, dst)
		o.open = append(o.open, b)
	}
	b.ev = append(b.ev, event{eventKey: k, port: port, msg: m})
	b.minAt = min(b.minAt, k.at)
}

// lookup returns the open batch for dst, nil if there is none.
func (o *outbox) lookup(dst int32) *batch {
	if o.dense != nil {
		return o.dense[dst]
	}
	for i, d := range o.touched[:min(len(o.touched), outboxScanMax)] {
		if d == dst {
			return o.open[i]
		}
	}
	if len(o.touched) > outboxScanMax {
		return o.sparse[dst]
	}
	return nil
}

// fresh returns an empty batch, recycled when the free stack has one.
func (o *outbox) fresh() *batch { return freshBatch(o.owner, &o.spare) }

// freshBatch returns an empty batch owned by owner: the next of *spare, which is
// refilled from owner's free stack when empty, or a new one.
func freshBatch(owner *partition, spare **batch) *batch {
	if *spare == nil {
		*spare = owner.free.takeAll()
	}
	b := *spare
	if b == nil {
		return &batch{owner: owner, minAt: MaxTime}
	}
	*spare = b.next
	clear(b.ev)
	b.ev, b.next, b.minAt = b.ev[:0], nil, MaxTime
	return b
}

// flush hands every open batch to its destination's inbox.
func (o *outbox) flush(parts []*partition) {
	for i, dst := range o.touched {
		if o.dense != nil {
			o.dense[dst] = nil
		} else if i >= outboxScanMax {
			delete(o.sparse, dst)
		}
		parts[dst].receive(o.open[i])
		o.open[i] = nil
	}
	o.touched, o.open = o.touched[:0], o.open[:0]
}

// receive adds batch b to the partition's inbox. The batch is pushed before the inbox
// minimum is lowered, and drain resets the minimum before taking the batches, so a
// batch is never in the inbox without being counted (at worst it is counted after it
// was drained, which only costs a spurious activation).
func (p *partition) receive(b *batch) {
	p.inbox.push(b)
	for {
		cur := p.inMin.Load()
		if int64(b.minAt) >= cur || p.inMin.CompareAndSwap(cur, int64(b.minAt)) {
			return
		}
	}
}
