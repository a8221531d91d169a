package cci

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seastar-sim/seastar/router"
)

// A recycled wire's holders each drop it once; the last recycles it, not before: an
// answer has two (the receiving RX DMA engine and endpoint), a message three (its
// sender too). A wire built otherwise (a handshake, RMA, one decoded from another
// process) is never recycled, however often it is dropped.
func TestWiresRecycledByTheirLastHolder(t *testing.T) {
	for _, c := range []struct {
		w       Wire
		holders int32
	}{
		{Wire{Type: TypeAck, DstEP: 3, ID: 7, H: Header{Seq: 9}}, answerHolders},
		{Wire{Type: TypeMsgRel, DstEP: 1, ID: 8, H: Header{Seq: 4}, Len: 64}, messageHolders},
	} {
		w := newWire(c.w, c.holders)
		var _ router.Counted = w
		for range c.holders - 1 {
			w.Drop()
		}
		require.Equal(t, c.w.ID, w.ID, "%s: one holder left: intact", c.w.Type)
		require.Equal(t, c.w.H.Seq, w.H.Seq)
		w.Drop()
		require.Zero(t, w.ID, "%s: the last holder recycled it", c.w.Type)
	}

	m := &Wire{Type: TypeConnReq, ID: 5}
	for range 4 {
		m.Drop()
	}
	require.Equal(t, uint64(5), m.ID)
}
