package router

import (
	"testing"

	"github.com/seastar-sim/seastar/actors/actorstest"
	"github.com/stretchr/testify/assert"
)

func TestPacketAndCreditCodecs(t *testing.T) {
	p := actorstest.Populated[Packet]()
	p.Data = Credit(3) // any registered value; protocols test their own descriptors
	p.SOM, p.EOM = true, false
	got := actorstest.RoundTrip(t, &p).(*Packet)
	assert.NotSame(t, &p, got)
	p.Data = nil
	actorstest.RoundTrip(t, &p)
	actorstest.RoundTrip(t, Credit(7))
}
