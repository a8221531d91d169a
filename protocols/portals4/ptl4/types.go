package ptl4

import "encoding/binary"

// ProcessID is ptl_process_t: a physical (NID, PID) pair, or a logical rank, which
// shares the NID's place as the C union does.
type ProcessID struct {
	NID, PID uint32
}

// Rank is the logical rank of a logical-NI process ID.
func (p ProcessID) Rank() uint32 { return p.NID }

// Limits is ptl_ni_limits_t.
type Limits struct {
	MaxEntries           int
	MaxUnexpectedHeaders int
	MaxMDs               int
	MaxCTs               int
	MaxEQs               int
	MaxPTIndex           int
	MaxIovecs            int
	MaxListSize          int
	MaxTriggeredOps      int
	MaxMsgSize           uint64
	MaxAtomicSize        uint64
	MaxFetchAtomicSize   uint64
	MaxWAWOrderedSize    uint64
	MaxWAROrderedSize    uint64
	MaxVolatileSize      uint64
	Features             uint32
}

// MD is ptl_md_t.
type MD struct {
	Start   uint64
	Length  uint64
	Options uint32
	EQ      Handle
	CT      Handle
}

// ME is ptl_me_t; an LE is an ME whose matching fields are ignored.
type ME struct {
	Start      uint64
	Length     uint64
	CT         Handle
	UID        uint32
	Options    uint32
	MatchID    ProcessID
	MatchBits  uint64
	IgnoreBits uint64
	MinFree    uint64
}

// Event is ptl_event_t.
type Event struct {
	Type         EventKind
	Initiator    ProcessID
	PTIndex      uint32
	UID          uint32
	MatchBits    uint64
	RLength      uint64
	MLength      uint64
	RemoteOffset uint64
	Start        uint64
	UserPtr      uint64
	HdrData      uint64
	NIFail       NIFail
	AtomicOp     Op
	AtomicType   Datatype
	List         List
}

// CTEvent is ptl_ct_event_t.
type CTEvent struct {
	Success, Failure uint64
}

// Memory is the address space of the process that owns the library: what its MDs,
// MEs and LEs describe. A read or write outside mapped memory reports false.
type Memory interface {
	Read(addr uint64, p []byte) bool
	Write(addr uint64, p []byte) bool
}

// IovecBytes is the size of one ptl_iovec_t {iov_base, iov_len} in memory.
const IovecBytes = 16

// seg is a piece of a buffer.
type seg struct{ addr, n uint64 }

// buffer is the memory an MD, ME or LE describes: one contiguous piece (one, kept in
// the buffer: no array of its own), or the iovec list it points to (segs), read when
// the object is created.
type buffer struct {
	segs  []seg
	one   [1]seg
	iov   bool
	total uint64
}

// pieces returns the buffer's pieces, in order.
func (b *buffer) pieces() []seg {
	if b.iov {
		return b.segs
	}
	return b.one[:]
}

func newBuffer(mem Memory, start, length uint64, iovec bool, maxIov int) (buffer, bool) {
	if !iovec {
		return buffer{one: [1]seg{{start, length}}, total: length}, true
	}
	if length > uint64(maxIov) {
		return buffer{}, false
	}
	b := buffer{iov: true}
	var raw [IovecBytes]byte
	for i := uint64(0); i < length; i++ {
		if !mem.Read(start+i*IovecBytes, raw[:]) {
			return buffer{}, false
		}
		s := seg{binary.LittleEndian.Uint64(raw[0:]), binary.LittleEndian.Uint64(raw[8:])}
		b.segs = append(b.segs, s)
		b.total += s.n
	}
	return b, true
}

// addr is the address of byte off of the buffer (the event's start).
func (b *buffer) addr(off uint64) uint64 {
	segs := b.pieces()
	for _, s := range segs {
		if off < s.n {
			return s.addr + off
		}
		off -= s.n
	}
	if len(segs) > 0 {
		last := segs[len(segs)-1]
		return last.addr + last.n + off
	}
	return 0
}

// read copies len(p) bytes from offset off.
func (b *buffer) read(mem Memory, off uint64, p []byte) bool {
	return b.walk(off, uint64(len(p)), func(addr, at, n uint64) bool { return mem.Read(addr, p[at:at+n]) })
}

// write copies p to offset off.
func (b *buffer) write(mem Memory, off uint64, p []byte) bool {
	return b.walk(off, uint64(len(p)), func(addr, at, n uint64) bool { return mem.Write(addr, p[at:at+n]) })
}

func (b *buffer) walk(off, n uint64, f func(addr, at, n uint64) bool) bool {
	at := uint64(0)
	for _, s := range b.pieces() {
		if n == 0 {
			break
		}
		if off >= s.n {
			off -= s.n
			continue
		}
		k := min(s.n-off, n)
		if !f(s.addr+off, at, k) {
			return false
		}
		at += k
		n -= k
		off = 0
	}
	return n == 0
}
