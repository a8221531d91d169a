package portals4

import (
	"context"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/machine"
	"github.com/seastar-sim/seastar/protocols/portals4/ptl4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The firmware (offload, matchunit) or the host library (onload, ib) rings a
// process's bell in host memory at every change of its queues and counters. A
// notification is forgotten once it has landed (a thread that waits for it later
// reads it as if it were there): after twenty puts whose events the target took and a
// call, nothing is left in either host's memory but, under onload and ib (whose host
// forgets at the next change), the last notification (each stayed there for good
// before).
func TestSeenBellsAreForgotten(t *testing.T) {
	for _, nic := range []string{"offload", "matchunit", "onload", "ib"} {
		t.Run(nic, func(t *testing.T) { testBellsForgotten(t, nic) })
	}
}

func testBellsForgotten(t *testing.T, nic string) {
	const puts = 20
	mp := machine.Default()
	mp.Torus, mp.Wrap = "2x1x1", "mesh"
	p := DefaultParams()
	p.NIC = nic
	j, err := NewJob(mp, p)
	require.NoError(t, err)
	lim := ptl4.Limits{MaxMsgSize: 64, MaxEntries: 8, MaxListSize: 8, MaxUnexpectedHeaders: 8, MaxMDs: 8}
	got := 0
	for rank := range 2 {
		require.NoError(t, j.Spawn(rank, "bells", func(l API) {
			ni := open(l, ptl4.NIPhysical|ptl4.NIMatching, lim)
			eq, r := l.EQAlloc(ni, 64)
			must(l, "PtlEQAlloc", r)
			pt, r := l.PTAlloc(ni, 0, eq, 0)
			must(l, "PtlPTAlloc", r)
			buf := l.Memory().Alloc(64)
			if rank == 1 {
				_, r := l.Append(ni, pt, ptl4.ME{Start: buf, Length: 64, Options: ptl4.MEOpPut, MatchID: anyID,
					CT: ptl4.CTNone, UID: ptl4.UIDAny}, ptl4.Priority, 0, false)
				must(l, "PtlMEAppend", r)
			}
			l.Barrier()
			if rank == 0 {
				md, r := l.MDBind(ni, ptl4.MD{Start: buf, Length: 64, EQ: ptl4.EQNone, CT: ptl4.CTNone})
				must(l, "PtlMDBind", r)
				for range puts {
					must(l, "PtlPut", l.Start(ptl4.Args{Kind: ptl4.MsgPut, MD: md, Length: 64, Target: j.PhysID(1), PT: pt}))
				}
			} else {
				for got < puts {
					ev, r := l.EQWait(eq)
					must(l, "PtlEQWait", r)
					if ev.Type == ptl4.EvPut {
						got++
					}
				}
			}
			l.Barrier()
			must(l, "PtlEQFree", l.EQFree(eq)) // a call: its result tells the notifications
		}))
	}
	_, err = j.Run(context.Background(), actors.Options{Engine: actors.Serial})
	require.NoError(t, err)
	require.Equal(t, puts, got)
	for rank, n := range j.M.Nodes {
		left := n.Host.Entries()
		if nic == "onload" || nic == "ib" {
			// The host forgets a notification at the next change after it landed, so
			// the last one of the run stays.
			bells := 0
			for k := range uint64(4 * puts) {
				if m, ok := n.Host.Memory(bellAddr(j.Ranks[rank].pid, k+1)); ok {
					assert.IsType(t, &Bell{}, m)
					bells++
				}
			}
			assert.LessOrEqual(t, bells, 1, "rank %d: notifications left in host memory", rank)
			left -= bells
		}
		assert.Zero(t, left, "rank %d: entries left in host memory", rank)
	}
}

// A thread that only waits on an event queue's slots never reads the change
// notifications, yet they are forgotten once landed (offload and matchunit): before,
// each stayed in host memory for the rest of the run, one per message here.
func TestBellsForgottenForAQueueWaiter(t *testing.T) {
	for _, nic := range []string{"offload", "matchunit"} {
		t.Run(nic, func(t *testing.T) {
			const puts = 20
			mp := machine.Default()
			mp.Torus, mp.Wrap = "2x1x1", "mesh"
			p := DefaultParams()
			p.NIC = nic
			j, err := NewJob(mp, p)
			require.NoError(t, err)
			lim := ptl4.Limits{MaxMsgSize: 64, MaxEntries: 8, MaxListSize: 8, MaxUnexpectedHeaders: 8, MaxMDs: 8}
			got := 0
			for rank := range 2 {
				require.NoError(t, j.Spawn(rank, "waiter", func(l API) {
					ni := open(l, ptl4.NIPhysical|ptl4.NIMatching, lim)
					eq, r := l.EQAlloc(ni, 64)
					must(l, "PtlEQAlloc", r)
					pt, r := l.PTAlloc(ni, 0, eq, 0)
					must(l, "PtlPTAlloc", r)
					buf := l.Memory().Alloc(64)
					if rank == 0 {
						_, r := l.Append(ni, pt, ptl4.ME{Start: buf, Length: 64, Options: ptl4.MEOpPut, MatchID: anyID,
							CT: ptl4.CTNone, UID: ptl4.UIDAny}, ptl4.Priority, 0, false)
						must(l, "PtlMEAppend", r)
					}
					md, r := l.MDBind(ni, ptl4.MD{Start: buf, Length: 64, EQ: ptl4.EQNone, CT: ptl4.CTNone})
					must(l, "PtlMDBind", r)
					l.Barrier()
					if rank == 1 {
						for range puts {
							must(l, "PtlPut", l.Start(ptl4.Args{Kind: ptl4.MsgPut, MD: md, Length: 64, Target: j.PhysID(0), PT: pt}))
						}
						return
					}
					for got < puts { // rank 0 only waits on its queue: no call after the barrier
						ev, r := l.EQWait(eq)
						must(l, "PtlEQWait", r)
						if ev.Type == ptl4.EvPut {
							got++
						}
					}
				}))
			}
			_, err = j.Run(context.Background(), actors.Options{Engine: actors.Serial})
			require.NoError(t, err)
			require.Equal(t, puts, got)
			bells := 0
			for k := range uint64(4 * puts) {
				if _, ok := j.M.Nodes[0].Host.Memory(bellAddr(j.Ranks[0].pid, k+1)); ok {
					bells++
				}
			}
			assert.LessOrEqual(t, bells, 1, "notifications left in rank 0's host memory after %d puts", puts)
		})
	}
}
