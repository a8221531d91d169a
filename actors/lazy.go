package actors

// LazyArray is a fixed-length array of T whose elements come into existence, zero, a
// chunk at a time when one of them is first touched. A model's per-node tables sized
// for the worst case (a NIC's 1,530 pendings, a CAM's 256 entries) are mostly never
// used; with their users taking the lowest free index first, a machine of thousands of
// nodes then pays for the few chunks each node touches, not for the whole tables.
type LazyArray[T any] struct {
	chunks [][]T
	chunk  int
	n      int
}

// NewLazyArray returns an array of n elements allocated chunk at a time.
func NewLazyArray[T any](n, chunk int) LazyArray[T] {
	return LazyArray[T]{chunks: make([][]T, (n+chunk-1)/chunk), chunk: chunk, n: n}
}

// Len is the number of elements.
func (a *LazyArray[T]) Len() int { return a.n }

// At returns element i (0 <= i < Len()).
func (a *LazyArray[T]) At(i int) *T {
	c := a.chunks[i/a.chunk]
	if c == nil {
		c = make([]T, a.chunk)
		a.chunks[i/a.chunk] = c
	}
	return &c[i%a.chunk]
}
