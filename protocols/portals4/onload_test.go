package portals4

import (
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/protocols/portals4/ptl4"
	"github.com/stretchr/testify/require"
)

// A list walk costs a hit per entry while the lists fit the cache, and the missing
// fraction of the footprint at the miss cost once they do not.
func TestOnloadWalkCostFollowsTheCache(t *testing.T) {
	p := DefaultParams() // hit 10 ns, miss 100 ns, 64 B an entry
	p.OnloadCache = 64 * 64
	lib := ptl4.New(&ptl4.Space{}, 0, 1, 1)
	lib.Init()
	ni, _, r := lib.NIInit(ptl4.IfaceDef, ptl4.NIMatching|ptl4.NIPhysical, ptl4.PIDAny, &ptl4.Limits{MaxEntries: 512, MaxListSize: 512})
	require.Equal(t, ptl4.OK, r)
	pt, _ := lib.PTAlloc(ni, 0, ptl4.EQNone, 0)
	o := &onloadProc{lib: lib}
	walk := func() actors.Duration {
		w0 := lib.Work
		lib.Work.Walked += 10 // a walk of ten entries
		return o.cost(p, w0)
	}
	add := func(n int) {
		for range n {
			_, r := lib.Append(ni, pt, ptl4.ME{MatchBits: 99, CT: ptl4.CTNone, UID: ptl4.UIDAny}, ptl4.Priority, 0, false)
			require.Equal(t, ptl4.OK, r)
		}
	}
	add(64) // 64 entries: exactly the cache
	require.Equal(t, 10*p.OnloadEntryHit, walk())
	add(64) // 128 entries: half of them miss
	require.Equal(t, 10*(p.OnloadEntryHit+(p.OnloadEntryMiss-p.OnloadEntryHit)/2), walk())
}
