package actors

import "sync/atomic"

// Pool recycles values of type T between actors, across the engine's workers: a value
// one actor releases may come back from another actor's New on another worker (a
// network packet the receiving NIC is done with, taken again by a sending NIC). Only
// the last holder of a value may Release it, and which value New returns must not
// matter to the model (it does not: New overwrites it), so results do not depend on
// it. Its values are kept in a stash, which the garbage collector does not empty (a
// sync.Pool allocates again after each collection): model packages stay free of
// shared-memory concurrency. T embeds PoolMark, which New sets, so that Release
// recycles only the values New made (not a shared immutable one or a test's; a
// decoder may take its values from a Pool, see Crosser). The message types recycled
// this way: network packets (decoded ones too), HT writes, TX commands, the DMA
// engines' Dones, the TX DMA engine's Retired counts, the CAM's bindings, pushes,
// grants and stall reports, Portals 3.3's generic events, wire descriptors (with Refs:
// several holders) and the kernel's transmit and receive commands.
type Pool[T any, P Poolable[T]] struct{ st stash[T] }

// PoolMark, embedded in a type recycled through a Pool, records that a value came from
// the Pool's New. It must live in the value: the holder that releases it knows only the
// value.
type PoolMark struct{ pooled bool }

func (m *PoolMark) markPooled()    { m.pooled = true }
func (m *PoolMark) isPooled() bool { return m.pooled }

// Poolable is a pointer to a type that embeds PoolMark.
type Poolable[T any] interface {
	*T
	markPooled()
	isPooled() bool
}

// New returns a pooled value set to v: recycled, or new.
func (p *Pool[T, P]) New(v T) *T {
	x := p.st.get()
	if x == nil {
		x = p.st.fresh()
	}
	*x = v
	P(x).markPooled()
	return x
}

// Release recycles v, zeroed (so that it keeps nothing alive), if it came from New; the
// caller must be its last holder.
func (p *Pool[T, P]) Release(v *T) {
	if !P(v).isPooled() {
		return
	}
	var zero T
	*v = zero
	p.st.put(v)
}

// FreeList recycles values of type T within one actor (a record it sends itself and
// takes back when it is delivered): no synchronization, unlike Pool. The zero value is
// empty and makes values one at a time.
type FreeList[T any] struct {
	free []*T
	// Chunk, if above 1, is how many values an empty list makes at once, in one array:
	// for a holder that takes many before it gives any back (a program registering a
	// thousand triggered operations before the first fires). The values of a chunk
	// stay allocated while any of them is in use.
	Chunk int
}

// Get returns a recycled value, or a new one; the caller sets every field.
func (l *FreeList[T]) Get() *T {
	if n := len(l.free); n > 0 {
		v := l.free[n-1]
		l.free = l.free[:n-1]
		return v
	}
	if l.Chunk > 1 {
		c := make([]T, l.Chunk)
		for i := len(c) - 1; i > 0; i-- { // handed out in order, &c[1] next
			l.free = append(l.free, &c[i])
		}
		return &c[0]
	}
	return new(T)
}

// New returns a recycled or new value set to v.
func (l *FreeList[T]) New(v T) *T {
	x := l.Get()
	*x = v
	return x
}

// Put recycles v; the caller must not use it afterwards.
func (l *FreeList[T]) Put(v *T) { l.free = append(l.free, v) }

// Take returns the value v holds and recycles v, zeroed (so that it keeps nothing
// alive): the receiving end of New.
func (l *FreeList[T]) Take(v *T) T {
	x := *v
	var zero T
	*v = zero
	l.Put(v)
	return x
}

// Array is a slice whose array Arrays recycles: S is the caller's to fill.
type Array[E any] struct {
	S []E
	PoolMark
}

// Arrays recycles the arrays of slices of E between actors, across the engine's
// workers, as Pool recycles values: a program of commands one node's firmware built
// and ran, whose array another's builds its next one in. Like Pool it keeps them in a
// stash, so the arrays kept are about those the run's busiest moment needs (a holder
// keeping its own array would keep one for every holder that ever needed one).
type Arrays[E any] struct{ st stash[Array[E]] }

// Get returns an array with an empty S, recycled (with its capacity) or new.
func (a *Arrays[E]) Get() *Array[E] {
	if x := a.st.get(); x != nil {
		return x
	}
	x := &Array[E]{}
	x.markPooled()
	return x
}

// Put recycles x, its elements cleared so that they keep nothing alive; the caller
// must be its last holder and must not use x.S afterwards.
func (a *Arrays[E]) Put(x *Array[E]) {
	if !x.isPooled() {
		return
	}
	clear(x.S)
	x.S = x.S[:0]
	a.st.put(x)
}

// Releaser is a message its receiver gives back once done with it: a notice a block
// made from a Pool (a DMA or CAM completion, a coprocessor's answer, a packet's
// arrival), which a firmware core releases once the handler it went to has run
// (handlers take what they keep by value). A Releaser not made from a Pool releases
// nothing.
type Releaser interface{ Release() }

// Refs counts the holders of a value recycled through a Pool when it has several, on
// any of the engine's workers (a message descriptor its sender, the receiving NIC and
// the receiver all hold): the one whose Drop returns true was the last and releases
// it. A value that was never Set counts below zero and is never released.
type Refs struct{ n int32 }

// Set starts the count at n holders.
func (r *Refs) Set(n int32) { atomic.StoreInt32(&r.n, n) }

// Hold adds a holder; the caller must be a holder itself (the count is above zero).
func (r *Refs) Hold() { atomic.AddInt32(&r.n, 1) }

// Drop ends one holder's hold and reports whether it was the last.
func (r *Refs) Drop() bool { return atomic.AddInt32(&r.n, -1) == 0 }
