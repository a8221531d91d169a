package actorstest

import (
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/stretchr/testify/assert"
)

type ping struct{}

func (ping) String() string { return "ping" }

type echo struct{}

func (echo) Receive(ctx actors.Context, m actors.Msg) {
	if ctx.Port() == 1 {
		ctx.Fatalf("no echo on port 1 at %s", ctx.Now())
	}
	ctx.Send(0, m, actors.Nanosecond)
	ctx.SendSelf(m, 2*actors.Nanosecond)
}

func TestRecordingContext(t *testing.T) {
	c := New("a", 1)
	sent := c.Deliver(echo{}, 10, 0, ping{})
	assert.Equal(t, "port0 +1ns ping\nself +2ns ping\n", Format(sent))
	assert.Equal(t, actors.Time(10+1000), sent[0].At)
	assert.Equal(t, "no echo on port 1 at 5ps", Catch(func() { c.Deliver(echo{}, 5, 1, ping{}) }))
	assert.Empty(t, c.Take())
}
