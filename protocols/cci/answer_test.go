package cci

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seastar-sim/seastar/router"
)

// An answer's two holders (the receiving RX DMA engine and the receiving endpoint)
// each drop it once; the second recycles it, not before. A message that is not an
// answer is never recycled, however often it is dropped.
func TestAnswerRecycledByItsLastHolder(t *testing.T) {
	a := newAnswer(Wire{Type: TypeAck, DstEP: 3, ID: 7, H: Header{Seq: 9}})
	var _ router.Counted = a
	a.Drop()
	require.Equal(t, uint64(7), a.ID, "one holder left: intact")
	require.Equal(t, uint32(9), a.H.Seq)
	a.Drop()
	require.Zero(t, a.ID, "the last holder recycled it")

	m := &Wire{Type: TypeMsg, ID: 5}
	for range 3 {
		m.Drop()
	}
	require.Equal(t, uint64(5), m.ID)
}
