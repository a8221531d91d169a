package ptl4

import (
	"math/bits"

	"github.com/seastar-sim/seastar/actors"
)

// Payloads the library copies into messages (a put's data read out of its MD at the
// call, a get's reply) come from arrays recycled by size class: class k holds arrays
// of 2^k bytes, from payloadMinClass up to payloadMaxClass. A longer payload is
// allocated, and left to the garbage collector.
const (
	payloadMinClass = 6  // 64 B
	payloadMaxClass = 20 // 1 MiB
)

var payloads [payloadMaxClass + 1]actors.Arrays[byte]

// newPayload returns n zeroed bytes for m's Data, from the class that fits them; m
// keeps the array to give back (ReleaseMsg).
func (m *Msg) newPayload(n uint64) []byte {
	k := max(payloadMinClass, bits.Len64(n-1))
	if n == 0 || k > payloadMaxClass {
		return make([]byte, n)
	}
	a := payloads[k].Get()
	if cap(a.S) < 1<<k {
		a.S = make([]byte, 1<<k)
	}
	a.S = a.S[:n]
	clear(a.S) // as make would: a short MD leaves the rest as it was
	m.payload = a
	return a.S
}

// releasePayload gives m's payload array back to its class.
func (m *Msg) releasePayload() {
	if a := m.payload; a != nil {
		m.payload = nil
		payloads[bits.Len64(uint64(cap(a.S))-1)].Put(a)
	}
}
