package ptl4

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A payload comes from the class that fits it, zeroed even when its array held an
// earlier message's bytes; a payload above the largest class is allocated and not
// recycled.
func TestPayloadRecycledByClass(t *testing.T) {
	m := &Msg{}
	p := m.newPayload(100)
	require.Len(t, p, 100)
	require.Equal(t, 128, cap(p), "the 128-byte class")
	for i := range p {
		p[i] = 0xff
	}
	m.releasePayload()
	require.Nil(t, m.payload)
	n := &Msg{}
	q := n.newPayload(120)
	require.Len(t, q, 120)
	require.Equal(t, make([]byte, 120), q, "zeroed like a new one")
	n.releasePayload()

	big := &Msg{}
	require.Len(t, big.newPayload(1<<payloadMaxClass+1), 1<<payloadMaxClass+1)
	require.Nil(t, big.payload, "above the classes: allocated")
	empty := &Msg{}
	require.Empty(t, empty.newPayload(0))
	require.Nil(t, empty.payload)
}

// Releasing a message gives its payload back; a copy of a message (an unexpected
// header, a test's) does not, so the array is given back once.
func TestReleaseMsgGivesThePayloadBackOnce(t *testing.T) {
	m := msgs.New(Msg{Op: MsgPut})
	m.Data = m.newPayload(64)
	c := *m
	c.PoolMark = Msg{}.PoolMark
	ReleaseMsg(&c)
	require.NotNil(t, c.payload, "a copy keeps its hands off the payload")
	ReleaseMsg(m)
	require.Nil(t, m.payload)
	require.Nil(t, m.Data)
}
