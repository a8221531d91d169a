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

// A message with n holders is released by the last DropMsg, payload and all; one
// whose holders were never set is never released.
func TestDropMsgReleasesAtTheLastHolder(t *testing.T) {
	m := msgs.New(Msg{Op: MsgPut, Match: 4})
	m.Data = m.newPayload(64)
	m.SetHolders(2)
	DropMsg(m)
	require.Equal(t, uint64(4), m.Match, "one holder left")
	require.NotNil(t, m.payload)
	DropMsg(m)
	require.Zero(t, m.Match, "released")
	require.Nil(t, m.payload)

	k := msgs.New(Msg{Op: MsgGet, Match: 6})
	for range 3 {
		DropMsg(k)
	}
	require.Equal(t, uint64(6), k.Match)
}
