package rxdma

import (
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/actors/actorstest"
	"github.com/seastar-sim/seastar/router"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With DropRate, whole messages are lost on arrival: the PPC hears of no packet of a
// lost message, every packet of it returns its credit at once and never enters the
// FIFO, while messages of other sources and classes interleaved with it arrive intact.
// The losses are drawn from the engine's seeded stream.
func TestDropRateLosesWholeMessages(t *testing.T) {
	for _, c := range []struct {
		rate string
		seed uint64
	}{{"0", 1}, {"1", 1}, {"0.5", 7}} {
		p := unitParams()
		p.DropRate = actors.MustParseProb(c.rate)
		e := New(&p, 4)
		h, _ := actorstest.NewHarness("rx", e, c.seed)
		// Three-packet messages from two sources and two classes, interleaved packet by packet.
		type key struct {
			src   router.NodeID
			class uint8
		}
		var msgs int
		at := actors.Time(0)
		for m := range 10 {
			for seq := range int32(3) {
				for _, k := range []key{{1, 0}, {2, 0}, {1, 1}} {
					pk := &router.Packet{Src: k.src, Class: k.class, VC: 2 * k.class, Payload: 64, SOM: seq == 0, EOM: seq == 2, Seq: seq,
						Data: [2]int{int(k.src)*10 + int(k.class), m}}
					h.Inject(at, PortRouter, pk)
					at += actors.Time(actors.Nanosecond)
				}
			}
			msgs += 3
		}
		var soms, credits int
		for _, s := range h.Run(at) {
			switch s.Msg.(type) {
			case SOM:
				soms++
			case router.Credit:
				credits++
			}
		}
		st := e.Stats
		assert.Equal(t, int64(msgs), st.Dropped+int64(soms), "rate %s: every message is either lost or announced", c.rate)
		assert.Equal(t, 3*st.Dropped, st.DroppedPkts, "rate %s: a lost message loses all its packets", c.rate)
		assert.Equal(t, int(st.DroppedPkts), credits, "rate %s: lost packets return their credits at once (the rest wait for CAM commands)", c.rate)
		assert.Equal(t, 3*soms, e.n, "rate %s: the packets of announced messages are all in the FIFO", c.rate)
		switch c.rate {
		case "0":
			assert.Zero(t, st.Dropped)
		case "1":
			assert.Equal(t, int64(msgs), st.Dropped)
		default:
			require.Greater(t, st.Dropped, int64(0))
			require.Greater(t, soms, 0)
		}
		assert.Empty(t, e.dropping, "no message is left half dropped")
	}
}

// With DropNode, only the messages arriving at that node are lost.
func TestDropNodeConfinesLosses(t *testing.T) {
	for _, c := range []struct {
		node, dst int
		lost      bool
	}{{-1, 3, true}, {3, 3, true}, {4, 3, false}} {
		p := unitParams()
		p.DropRate, p.DropNode = actors.MustParseProb("1"), c.node
		e := New(&p, 4)
		h, _ := actorstest.NewHarness("rx", e, 1)
		h.Inject(0, PortRouter, &router.Packet{Src: 1, Dst: router.NodeID(c.dst), Payload: 64, SOM: true, EOM: true})
		h.Run(actors.Time(actors.Microsecond))
		assert.Equal(t, c.lost, e.Stats.Dropped == 1, "drop_node %d, message to node %d", c.node, c.dst)
	}
}
