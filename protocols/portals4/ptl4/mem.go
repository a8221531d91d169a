package ptl4

import "sort"

// Space is a process's address space for the model: allocations of real bytes at
// addresses that are never reused, with unmapped holes between them, so that NULL,
// a wild pointer or a freed buffer fails the access instead of aliasing live memory.
type Space struct {
	next   uint64
	blocks []block // by address
}

type block struct {
	addr uint64
	b    []byte
}

// spaceBase is the first address handed out; spaceGap separates allocations.
const (
	spaceBase = 0x10000000
	spaceGap  = 0x1000
)

// Alloc returns the address of n new zeroed bytes.
func (s *Space) Alloc(n uint64) uint64 {
	if s.next == 0 {
		s.next = spaceBase
	}
	a := s.next
	s.blocks = append(s.blocks, block{addr: a, b: make([]byte, n)})
	s.next += (n+spaceGap-1)/spaceGap*spaceGap + spaceGap
	return a
}

// Free unmaps the allocation at addr.
func (s *Space) Free(addr uint64) {
	i := sort.Search(len(s.blocks), func(i int) bool { return s.blocks[i].addr >= addr })
	if i < len(s.blocks) && s.blocks[i].addr == addr {
		s.blocks = append(s.blocks[:i], s.blocks[i+1:]...)
	}
}

// Bytes returns the mapped bytes at [addr, addr+n), or nil.
func (s *Space) Bytes(addr, n uint64) []byte {
	i := sort.Search(len(s.blocks), func(i int) bool { return s.blocks[i].addr > addr }) - 1
	if i < 0 {
		return nil
	}
	b := s.blocks[i]
	off := addr - b.addr
	if off > uint64(len(b.b)) || n > uint64(len(b.b))-off {
		return nil
	}
	return b.b[off : off+n]
}

// Read implements Memory.
func (s *Space) Read(addr uint64, p []byte) bool {
	b := s.Bytes(addr, uint64(len(p)))
	if b == nil && len(p) > 0 {
		return false
	}
	copy(p, b)
	return true
}

// Write implements Memory.
func (s *Space) Write(addr uint64, p []byte) bool {
	b := s.Bytes(addr, uint64(len(p)))
	if b == nil && len(p) > 0 {
		return false
	}
	copy(b, p)
	return true
}
