package ppc

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
)

// Record is one firmware trace record: 8 bytes in the SRAM ring on the real SeaStar
// (program counter, timestamp, 8-bit value; Pedretti & Hudson 2005 s.3.3). The program
// counter is kept symbolic, as the function name and offset the tracedump tool prints.
type Record struct {
	At     actors.Time
	Func   string
	Offset uint32
	Value  uint8
}

func (r Record) String() string {
	return fmt.Sprintf("%s: %d: %s+%04x", r.At, r.Value, r.Func, r.Offset)
}

// TraceRing is the ring of the most recent trace records. Its memory is allocated at
// the first record, so that nodes with tracing compiled out cost nothing.
type TraceRing struct {
	r     []Record
	size  int
	next  int
	total int64
}

func newRing(n int) TraceRing { return TraceRing{size: n} }

func (t *TraceRing) add(rec Record) {
	t.total++
	if t.r == nil {
		t.r = make([]Record, 0, t.size)
	}
	if len(t.r) < cap(t.r) {
		t.r = append(t.r, rec)
		return
	}
	t.r[t.next] = rec
	t.next = (t.next + 1) % len(t.r)
}

// Records returns the records in the ring, oldest first.
func (t *TraceRing) Records() []Record {
	out := make([]Record, 0, len(t.r))
	out = append(out, t.r[t.next:]...)
	return append(out, t.r[:t.next]...)
}

// Total is the number of records ever written (older ones were overwritten).
func (t *TraceRing) Total() int64 { return t.total }
