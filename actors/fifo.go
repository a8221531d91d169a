package actors

import "slices"

// FIFO is a first-in first-out queue that keeps its array: Pop advances a head index
// and Push reclaims the taken front half before it appends, so a queue pushed and
// popped for a whole run allocates only when it holds more than it ever held. (A slice
// popped by reslicing, q = q[1:], loses its front: every append past its end then
// reallocates, an allocation every few operations.) The zero value is an empty queue.
type FIFO[T any] struct {
	q []T
	h int // q[h:] are queued
}

// Len is the number of values queued.
func (f *FIFO[T]) Len() int { return len(f.q) - f.h }

// Push appends v.
func (f *FIFO[T]) Push(v T) {
	if f.h > 0 && f.h >= len(f.q)/2 { // reclaim the taken half
		n := copy(f.q, f.q[f.h:])
		clear(f.q[n:])
		f.q, f.h = f.q[:n], 0
	}
	f.q = append(f.q, v)
}

// Front returns the first value (Len() > 0), to read or change in place.
func (f *FIFO[T]) Front() *T { return &f.q[f.h] }

// Queued returns the values queued, first first, to read or change in place; the
// caller must not append to it or keep it past the next Push or Pop.
func (f *FIFO[T]) Queued() []T { return f.q[f.h:] }

// Next returns where the value the next Pop returns is or, in an empty queue, where
// the next Push puts its value, if the queue's array has that slot already; nil
// otherwise. For prefetch hints (Prefetch): the slot may hold nothing yet.
func (f *FIFO[T]) Next() *T {
	if f.h < cap(f.q) {
		return &f.q[:f.h+1][f.h]
	}
	return nil
}

// Pop removes and returns the first value (Len() > 0).
func (f *FIFO[T]) Pop() T {
	v := f.q[f.h]
	var zero T
	f.q[f.h] = zero // no reference kept for the garbage collector
	if f.h++; f.h == len(f.q) {
		f.q, f.h = f.q[:0], 0
	}
	return v
}

// DeleteFunc removes the queued values for which del returns true; the others keep
// their order.
func (f *FIFO[T]) DeleteFunc(del func(T) bool) {
	kept := slices.DeleteFunc(f.q[f.h:], del) // clears the values it drops
	f.q = f.q[:f.h+len(kept)]
	if f.h == len(f.q) {
		f.q, f.h = f.q[:0], 0
	}
}
