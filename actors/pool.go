package actors

import "sync"

// Pool recycles values of type T between actors, across the engine's workers: a value
// one actor recycles may come back from another actor's New on another worker (a
// network packet the receiving NIC is done with, taken again by a sending NIC). Only
// the last holder of a value may Recycle it, and which value New returns must not
// matter to the model (it does not: New overwrites it), so results do not depend on
// it. It is the engine's sync.Pool: model packages stay free of shared-memory
// concurrency. The message types recycled this way (network packets, HT writes, TX
// commands, CAM grants and pushes) carry a flag saying they came from New, set in v,
// so that their Release recycles only those (not a shared or test-built one).
type Pool[T any] struct{ p sync.Pool }

// New returns a pooled value set to v: recycled, or new.
func (p *Pool[T]) New(v T) *T {
	x, ok := p.p.Get().(*T)
	if !ok {
		x = new(T)
	}
	*x = v
	return x
}

// Recycle zeroes v (so that it keeps nothing alive) and puts it back; the caller must
// be its last holder.
func (p *Pool[T]) Recycle(v *T) {
	var zero T
	*v = zero
	p.p.Put(v)
}

// FreeList recycles values of type T within one actor (a record it sends itself and
// takes back when it is delivered): no synchronization, unlike Pool. The zero value is
// empty.
type FreeList[T any] struct{ free []*T }

// Get returns a recycled value, or a new one; the caller sets every field.
func (l *FreeList[T]) Get() *T {
	if n := len(l.free); n > 0 {
		v := l.free[n-1]
		l.free = l.free[:n-1]
		return v
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
