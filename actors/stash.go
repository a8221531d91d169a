package actors

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe" // procPin and procUnpin below; freshValues
)

// procPin pins the calling goroutine to its P (processor), so that nothing else runs
// on that P until procUnpin, and returns the P's index. The runtime keeps both for
// packages such as this one (go.dev/issue/67401); sync.Pool uses its own copies.
//
//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()

// stashBatch is the number of values a stash moves between a P's list and the shared
// overflow at a time: a P's list holds up to two batches.
const stashBatch = 64

// stash is a set of recycled *T that the engine's workers share and that the garbage
// collector never empties, unlike sync.Pool's (whose lists are dropped at every
// collection and allocated again by the next Put: about 600 allocations a collection
// for the engine's pools, most of the allocations per packet left). Each P has a list
// of its own, taken and filled without a lock while the goroutine is pinned to the P;
// batches move between the lists and a shared overflow under a lock. A stash keeps
// the values the run's busiest moment released, for the next one to take.
//
// With the race detector the per-P lists are not used: the detector cannot know that a
// pinned goroutine has its P's list to itself, and every value goes through the
// overflow, under its lock.
type stash[T any] struct {
	local atomic.Pointer[[]stashList[T]] // one per P, made on first use
	mu    sync.Mutex
	over  []*T // the overflow, under mu
}

// stashList is a P's list: a fixed array, so that taking a value writes no pointer,
// padded so that two Ps' lists do not share a cache line.
type stashList[T any] struct {
	n int
	s [2 * stashBatch]*T
	_ [56]byte
}

// list returns the list of P pid, or nil if the stash has none for it: none made yet
// (get and put make them, unpinned, and go through the overflow meanwhile), the race
// detector, or a P added by a later GOMAXPROCS.
func (st *stash[T]) list(pid int) *stashList[T] {
	if l := st.local.Load(); l != nil && pid < len(*l) {
		return &(*l)[pid]
	}
	return nil
}

// makeLists makes the per-P lists, once (unless the race detector is on).
func (st *stash[T]) makeLists() {
	if raceDetector || st.local.Load() != nil {
		return
	}
	ls := make([]stashList[T], runtime.GOMAXPROCS(0))
	st.local.CompareAndSwap(nil, &ls)
}

// get returns a recycled value, or nil if the stash has none.
func (st *stash[T]) get() *T {
	pid := procPin()
	if l := st.local.Load(); l != nil && pid < len(*l) {
		if c := &(*l)[pid]; c.n > 0 {
			c.n--
			x := c.s[c.n]
			procUnpin()
			return x
		}
	}
	procUnpin()
	st.makeLists()
	return st.refill()
}

// refill takes a batch from the overflow: one to return, the rest for the P's list
// (which was empty, but the goroutine may be on another P by now: what does not fit
// goes back). Not inlined: its buffer would be cleared at every get.
//
//go:noinline
func (st *stash[T]) refill() *T {
	var buf [stashBatch]*T
	st.mu.Lock()
	n := min(len(st.over), len(buf))
	if raceDetector {
		n = min(n, 1)
	}
	k := len(st.over) - n
	copy(buf[:], st.over[k:])
	clear(st.over[k:])
	st.over = st.over[:k]
	st.mu.Unlock()
	if n == 0 {
		return nil
	}
	st.keep(buf[:n-1])
	return buf[n-1]
}

// keep puts xs on the P's list, as many as fit, and the rest in the overflow.
func (st *stash[T]) keep(xs []*T) {
	if len(xs) == 0 {
		return
	}
	pid := procPin()
	if c := st.list(pid); c != nil {
		m := copy(c.s[c.n:], xs)
		c.n += m
		xs = xs[m:]
	}
	procUnpin()
	if len(xs) > 0 {
		st.spill(xs)
	}
}

// fresh returns a new value for a stash that had none to give (get returned nil): it
// makes freshValues[T]() of them in one array and keeps the others (keep). A pool grows
// by thousands of values while a large model starts (Red Storm's packets: about a
// million, each an allocation of its own before); the values of one array stay
// allocated while any of them is in use, which a stash, keeping every value it is
// given, does anyway.
func (st *stash[T]) fresh() *T {
	n := freshValues[T]()
	vs := make([]T, n)
	var buf [freshMax - 1]*T
	rest := buf[:n-1]
	for i := range rest {
		rest[i] = &vs[i+1]
	}
	st.keep(rest)
	return &vs[0]
}

// freshMax bounds the values fresh makes at once; freshBytes bounds their array: up to
// 512 bytes the runtime keeps a small object's pointer bitmap in its span, not in a
// header before the object, so the array starts where a lone value would (a size
// class's slot), and values sized to a cache line stay one to a line (a router packet:
// TestPacketIsALine).
const (
	freshMax   = 32
	freshBytes = 512
)

// freshValues is how many values of T fresh makes at once.
func freshValues[T any]() int {
	size := int(unsafe.Sizeof(*new(T)))
	if size == 0 {
		return 1
	}
	return max(1, min(freshMax, freshBytes/size))
}

// put recycles x.
func (st *stash[T]) put(x *T) {
	pid := procPin()
	if l := st.local.Load(); l != nil && pid < len(*l) {
		c := &(*l)[pid]
		if c.n < len(c.s) {
			c.s[c.n] = x
			c.n++
			procUnpin()
			return
		}
		st.halve(c, x)
		return
	}
	procUnpin()
	st.makeLists()
	st.spill([]*T{x})
}

// halve moves the older half of P's full list c to the overflow and puts x on c; it
// runs pinned, and unpins. Not inlined: its buffer would be cleared at every put.
//
//go:noinline
func (st *stash[T]) halve(c *stashList[T], x *T) {
	var buf [stashBatch]*T
	copy(buf[:], c.s[:stashBatch])
	c.n = copy(c.s[:], c.s[stashBatch:])
	c.s[c.n] = x
	c.n++
	clear(c.s[c.n:])
	procUnpin()
	st.spill(buf[:])
}

// spill moves xs to the overflow.
func (st *stash[T]) spill(xs []*T) {
	st.mu.Lock()
	st.over = append(st.over, xs...)
	st.mu.Unlock()
}
