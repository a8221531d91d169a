package ptl

import "fmt"

// MEHandle names a match entry of one NI (ptl_handle_me_t). The zero value is
// PTL_INVALID_HANDLE. A handle outlives its object: using it after the object is
// unlinked or freed returns the matching *_INVALID code, because every handle carries
// the generation of its slot.
type MEHandle uint64

// MDHandle names a memory descriptor of one NI (ptl_handle_md_t). Headers carry the
// initiator's MDHandle so that the ack or reply finds its MD, and finds it gone if the
// MD was unlinked meanwhile. The zero value is PTL_INVALID_HANDLE.
type MDHandle uint64

// EQHandle names an event queue of one NI (ptl_handle_eq_t). The zero value is EQNone.
type EQHandle uint64

// InvalidHandle is PTL_INVALID_HANDLE, the zero value of every handle type.
const InvalidHandle = 0

// EQNone is PTL_EQ_NONE: a memory descriptor without an event queue, or MDUpdate
// without a test queue.
const EQNone EQHandle = 0

// String prints a match entry handle as me<slot>.<generation>.
func (h MEHandle) String() string { return fmtHandle("me", uint64(h)) }

// String prints a memory descriptor handle as md<slot>.<generation>.
func (h MDHandle) String() string { return fmtHandle("md", uint64(h)) }

// String prints an event queue handle as eq<slot>.<generation>, or PTL_EQ_NONE.
func (h EQHandle) String() string {
	if h == EQNone {
		return "PTL_EQ_NONE"
	}
	return fmtHandle("eq", uint64(h))
}

func fmtHandle(kind string, h uint64) string {
	if h == 0 {
		return "PTL_INVALID_HANDLE"
	}
	return fmt.Sprintf("%s%d.%d", kind, uint32(h)-1, h>>32)
}

// slots is a bounded table of objects named by handles: the low 32 bits of a handle are
// the slot index + 1, the high 32 bits the slot's generation, bumped at every
// allocation so that stale handles do not alias new objects. Free slots are reused
// last-freed first: deterministic.
type slots[T any] struct {
	s    []slot[T]
	free []int
	max  int
	n    int
}

// slot is one entry of a slots table: its object, generation and whether it is live, in
// one place (a lookup reads one cache line, and the table grows as one array).
type slot[T any] struct {
	v    T
	gen  uint32
	used bool
}

// slotsFirst is the capacity a table starts with: a process's first objects (MPI binds
// about 20 match entries and memory descriptors at its start) without a growth each.
const slotsFirst = 16

func newSlots[T any](max int) slots[T] { return slots[T]{max: max} }

// alloc stores v and returns its handle, or false when the table is full.
func (s *slots[T]) alloc(v T) (uint64, bool) {
	var i int
	switch {
	case len(s.free) > 0:
		i = s.free[len(s.free)-1]
		s.free = s.free[:len(s.free)-1]
	case len(s.s) < s.max:
		if s.s == nil {
			s.s = make([]slot[T], 0, min(s.max, slotsFirst))
			s.free = make([]int, 0, min(s.max, slotsFirst))
		}
		i = len(s.s)
		s.s = append(s.s, slot[T]{})
	default:
		return 0, false
	}
	x := &s.s[i]
	x.gen++
	x.v, x.used = v, true
	s.n++
	return uint64(x.gen)<<32 | uint64(i+1), true
}

// get returns the object named by h, or false if h is not a live handle.
func (s *slots[T]) get(h uint64) (T, bool) {
	var zero T
	i := int(uint32(h)) - 1
	if i < 0 || i >= len(s.s) || !s.s[i].used || s.s[i].gen != uint32(h>>32) {
		return zero, false
	}
	return s.s[i].v, true
}

// release frees the slot of a live handle h.
func (s *slots[T]) release(h uint64) {
	i := int(uint32(h)) - 1
	var zero T
	s.s[i].v, s.s[i].used = zero, false
	s.free = append(s.free, i)
	s.n--
}
