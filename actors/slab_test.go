package actors

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gridPos reads "g[x,y,z]" top segments.
func gridPos(name string) (pos [3]int, ok bool) {
	top, _, _ := strings.Cut(name, ".")
	body, found := strings.CutPrefix(top, "g[")
	if !found {
		return pos, false
	}
	for i, f := range strings.Split(strings.TrimSuffix(body, "]"), ",") {
		pos[i], _ = strconv.Atoi(f)
	}
	return pos, true
}

// gridModel is an X by Y by Z torus of positions, each holding two actors joined by a
// short link, neighbours joined by long links, plus an unpositioned actor linked to
// g[0,0,0].
func gridModel(t testing.TB, x, y, z int, seed uint64) *Model {
	g := NewGraph()
	g.SetCoordinates(gridPos)
	type node struct{ a, b Ref }
	nodes := map[[3]int]node{}
	for i := range x {
		for j := range y {
			for k := range z {
				name := Indexed("g", i, j, k)
				nodes[[3]int{i, j, k}] = node{
					g.Add(name+".a", &randActor{ports: []string{"xp", "yp", "zp", "b"}, budget: 20, state: seed}),
					g.Add(name+".b", &randActor{ports: []string{"a", "xm", "ym", "zm"}, budget: 20, state: seed + 1}),
				}
			}
		}
	}
	mon := g.Add("monitor", &randActor{ports: []string{"out"}, budget: 5})
	for c, n := range nodes { //lint:ordered link order does not matter to Build
		g.Connect(n.a.Port("b"), n.b.Port("a"), 0)
		for d, port := range []string{"xp", "yp", "zp"} {
			nb := c
			nb[d] = (c[d] + 1) % [3]int{x, y, z}[d]
			g.Connect(n.a.Port(port), nodes[nb].b.Port([]string{"xm", "ym", "zm"}[d]), 5*Nanosecond)
		}
	}
	g.Link(mon.Port("out"), nodes[[3]int{}].a.Port("b"), Nanosecond)
	m, err := g.Build()
	require.NoError(t, err)
	for id := range m.NumActors() {
		m.Actor(ActorID(id)).(*randActor).n = m.NumActors()
	}
	return m
}

func TestSlabCutsOnlyBetweenPositions(t *testing.T) {
	m := gridModel(t, 6, 3, 2, 1)
	of, err := Slab{}.Partition(m, 2)
	require.NoError(t, err)
	// The longest dimension (x, 6 planes) gives two slabs of three planes.
	mon, _ := m.ID("monitor")
	g0, _ := m.ID("g[0,0,0].a")
	assert.Equal(t, of[g0], of[mon], "the unpositioned actor joins its neighbour's slab")
	sizes := map[int32]int{}
	for id, p := range of {
		sizes[p]++
		if pos, ok := gridPos(m.Name(ActorID(id))); ok {
			assert.Equal(t, int32(pos[0]/3), p, m.Name(ActorID(id)))
		}
	}
	assert.Len(t, sizes, 2)
	info, err := checkPartitioning(m, of, "slab")
	require.NoError(t, err)
	assert.Equal(t, 5*Nanosecond, info.lookahead, "only the long links between positions are cut")
	assert.Equal(t, 2*3*2*2, info.cut, "two boundaries (the torus wraps) of 3x2 positions, both ways")
}

func TestSlabChoosesBalanceThenFewestCuts(t *testing.T) {
	m := gridModel(t, 5, 4, 2, 1)
	of, err := Slab{}.Partition(m, 2)
	require.NoError(t, err)
	// x (5 planes) splits 3/2; y (4 planes) splits evenly and wins.
	for id, p := range of {
		if pos, ok := gridPos(m.Name(ActorID(id))); ok {
			assert.Equal(t, int32(pos[1]/2), p, m.Name(ActorID(id)))
		}
	}
	of, err = Slab{Axis: 3}.Partition(m, 8) // forced z: only 2 planes, so 2 slabs
	require.NoError(t, err)
	for id, p := range of {
		if pos, ok := gridPos(m.Name(ActorID(id))); ok {
			assert.Equal(t, int32(pos[2]), p, m.Name(ActorID(id)))
		}
	}
	_, err = Slab{Axis: 4}.Partition(m, 2)
	assert.ErrorIs(t, err, ErrConfig)
}

func TestSlabNeedsCoordinates(t *testing.T) {
	rm := randomModel{seed: 3}
	_, err := rm.run(t, Options{Partitioner: Slab{}, Workers: 2})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), "no grid coordinates")
	p, err := ParsePartitioner("slab")
	require.NoError(t, err)
	assert.Equal(t, "slab", p.Name())
}

// Slabs give the serial engine's results for every worker count.
func TestSlabMatchesSerial(t *testing.T) {
	for seed := range uint64(4) {
		ref, err := Run(context.Background(), gridModel(t, 4, 3, 2, seed), Options{Engine: Serial, Seed: seed})
		require.NoError(t, err)
		for _, w := range []int{1, 2, 3, 4} {
			var layout Layout
			rep, err := Run(context.Background(), gridModel(t, 4, 3, 2, seed), Options{Seed: seed, Workers: w,
				Partitioner: Slab{}, OnLayout: func(l Layout) { layout = l }})
			require.NoError(t, err)
			assert.Equal(t, ref.Digest, rep.Digest, fmt.Sprintf("seed %d, %d workers", seed, w))
			assert.Equal(t, ref.Events, rep.Events)
			assert.Equal(t, "slab", layout.Partitioning)
			assert.Len(t, layout.Partitions, min(w, 4))
			if w > 1 {
				assert.Equal(t, 5*Nanosecond, layout.Lookahead)
			}
		}
	}
}
