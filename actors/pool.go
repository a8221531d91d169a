package actors

import "sync"

// Pool recycles values of type T between actors, across the engine's workers: a value
// one actor Puts may come back from another actor's Get on another worker (a network
// packet the receiving NIC is done with, taken again by a sending NIC). Get returns a
// recycled value or a new one, so the caller sets every field; only the last holder of
// a value may Put it, and which value Get returns must not matter to the model (it
// does not: the caller overwrites it), so results do not depend on it. It is the
// engine's sync.Pool: model packages stay free of shared-memory concurrency.
type Pool[T any] struct{ p sync.Pool }

// Get returns a value to overwrite: recycled, or new.
func (p *Pool[T]) Get() *T {
	if v, ok := p.p.Get().(*T); ok {
		return v
	}
	return new(T)
}

// Put recycles v; the caller must not use it afterwards.
func (p *Pool[T]) Put(v *T) { p.p.Put(v) }

// New returns a pooled value set to v. The message types recycled this way (network
// packets, HT writes, TX commands, CAM grants) carry a flag saying they came from New,
// set in v, so that their Release recycles only those (not a shared or test-built one).
func (p *Pool[T]) New(v T) *T {
	x := p.Get()
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

// Put recycles v; the caller must not use it afterwards.
func (l *FreeList[T]) Put(v *T) { l.free = append(l.free, v) }
