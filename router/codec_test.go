package router

import (
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/actors/actorstest"
	"github.com/stretchr/testify/assert"
)

// A packet decodes into a pooled packet equal to the one encoded, as a NIC's are; once
// encoded for another process, the sender's packet goes back to the pool (Crossed).
func TestPacketAndCreditCodecs(t *testing.T) {
	p := NewPacket(actorstest.Populated[Packet]())
	p.Data = Credit(3) // any registered value; protocols test their own descriptors
	p.SOM, p.EOM = true, false
	got := actorstest.RoundTrip(t, p).(*Packet)
	assert.NotSame(t, p, got)
	p.Data = nil
	actorstest.RoundTrip(t, p)
	actorstest.RoundTrip(t, Credit(7))

	var crossed actors.Crosser = p
	crossed.Crossed()
	assert.Equal(t, Packet{}, *p, "released: zeroed")
}
