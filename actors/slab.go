package actors

import (
	"fmt"
	"slices"
)

// Coordinates places actors on a grid of up to three dimensions (unused dimensions are
// 0), for the slab partitioner: it returns the position of the actor named name, and
// false for actors that have none. A model builder that knows its geometry (a torus
// builder, say) sets it with Graph.SetCoordinates; the kernel knows nothing else about
// the geometry.
type Coordinates func(name string) (pos [3]int, ok bool)

// SetCoordinates gives the model a grid placement of its actors, used by the slab
// partitioner. Actors that share a position should be joined by links with a short
// latency (the blocks of one node); links between positions should be the long ones
// (cables), because slabs cut only those.
func (g *Graph) SetCoordinates(f Coordinates) { g.coords = f }

// Slab cuts the model's grid (Graph.SetCoordinates) into contiguous slabs of planes
// along one dimension, one slab per worker, balanced by actor count. It picks the
// dimension whose slabs are best balanced, then the one that cuts fewest links. On a
// torus built with one position per node, slabs cut only router-to-router cables, so
// the lookahead is the cable latency, and each slab talks to two neighbours only.
// Actors without a position join the slab of the first positioned actor they are
// linked to (partition 0 if none).
type Slab struct {
	// Axis forces the dimension cut: 1, 2 or 3 for the first, second or third
	// coordinate; 0 chooses.
	Axis int
}

// Name implements Partitioner.
func (Slab) Name() string { return "slab" }

// Partition implements Partitioner.
func (s Slab) Partition(m *Model, workers int) ([]int32, error) {
	n := m.NumActors()
	if m.coords == nil {
		return nil, configErrorf("partitioning slab: the model has no grid coordinates (it is not built on a torus or mesh); " +
			"use auto, node or block")
	}
	pos := make([][3]int, n)
	has := make([]bool, n)
	var size [3]int
	positioned := 0
	for i := range n {
		p, ok := m.coords(m.names[i])
		if !ok {
			continue
		}
		for d := range 3 {
			if p[d] < 0 {
				return nil, configErrorf("partitioning slab: actor %s has negative coordinate %v", m.names[i], p)
			}
			size[d] = max(size[d], p[d]+1)
		}
		pos[i], has[i] = p, true
		positioned++
	}
	if positioned == 0 {
		return nil, configErrorf("partitioning slab: no actor has grid coordinates")
	}
	if s.Axis < 0 || s.Axis > 3 {
		return nil, configErrorf("partitioning slab: axis %d is not 1, 2 or 3 (or 0 to choose)", s.Axis)
	}
	best := -1
	var bestOf []int32
	bestLoad, bestCut := 0, 0
	for d := range 3 {
		if (s.Axis > 0 && d != s.Axis-1) || (s.Axis == 0 && size[d] < 2 && best >= 0) {
			continue
		}
		of := slabAssign(pos, has, size[d], d, workers)
		attachUnpositioned(m, of)
		load, cut := slabCost(m, of)
		if best < 0 || load < bestLoad || (load == bestLoad && cut < bestCut) {
			best, bestOf, bestLoad, bestCut = d, of, load, cut
		}
	}
	return bestOf, nil
}

// slabAssign splits the planes 0..planes-1 of dimension d into min(workers, planes)
// contiguous slabs balanced by actor count: each plane goes to the slab containing the
// midpoint of its actors in the cumulative count.
func slabAssign(pos [][3]int, has []bool, planes, d, workers int) []int32 {
	count := make([]int, planes)
	total := 0
	for i := range pos {
		if has[i] {
			count[pos[i][d]]++
			total++
		}
	}
	k := max(1, min(workers, planes))
	slabOf := make([]int32, planes)
	cum := 0
	for p, c := range count {
		mid := cum + c/2
		slabOf[p] = int32(min(k-1, mid*k/max(1, total)))
		cum += c
	}
	of := make([]int32, len(pos))
	for i := range pos {
		if has[i] {
			of[i] = slabOf[pos[i][d]]
		} else {
			of[i] = -1
		}
	}
	return of
}

// attachUnpositioned gives every actor without a position the slab of a linked actor,
// spreading along links until nothing changes; the rest go to slab 0.
func attachUnpositioned(m *Model, of []int32) {
	for changed := true; changed; {
		changed = false
		for _, l := range m.links {
			a, b := l.From, l.To
			if of[a] < 0 && of[b] >= 0 {
				of[a], changed = of[b], true
			} else if of[b] < 0 && of[a] >= 0 {
				of[b], changed = of[a], true
			}
		}
	}
	for i := range of {
		if of[i] < 0 {
			of[i] = 0
		}
	}
}

// slabCost is the largest slab's actor count and the number of links crossing slabs.
func slabCost(m *Model, of []int32) (load, cut int) {
	sizes := map[int32]int{}
	for _, p := range of {
		sizes[p]++
	}
	for _, c := range sizes { //lint:ordered max is order-independent
		load = max(load, c)
	}
	for _, l := range m.links {
		if of[l.From] != of[l.To] {
			cut++
		}
	}
	return load, cut
}

// Layout describes how a parallel run is split, for the line a front end prints at
// the start of a run (Options.OnLayout).
type Layout struct {
	Partitioning string
	Partitions   []int // actors per partition
	CutLinks     int   // links crossing partitions
	Lookahead    Duration
	Sync         SyncMode
	Processes    int   // OS processes sharing the run (1 without a Cluster)
	ProcessParts []int // partitions per process
}

// String renders the layout on one line, e.g. "slab: 2 partitions of 1296 and 1296
// actors, 128 cut links, lookahead 53ns".
func (l Layout) String() string {
	s := fmt.Sprintf("%s: %d partitions", l.Partitioning, len(l.Partitions))
	if len(l.Partitions) > 0 {
		lo, hi := slices.Min(l.Partitions), slices.Max(l.Partitions)
		if len(l.Partitions) <= 8 {
			s += fmt.Sprintf(" of %v actors", l.Partitions)
		} else {
			s += fmt.Sprintf(" of %d..%d actors", lo, hi)
		}
	}
	s += fmt.Sprintf(", %d cut links", l.CutLinks)
	if l.Lookahead < Duration(MaxTime) {
		s += ", lookahead " + l.Lookahead.String()
	}
	if l.Sync != "" {
		s += ", sync " + string(l.Sync)
	}
	if l.Processes > 1 {
		s += fmt.Sprintf(", %d processes with %v partitions", l.Processes, l.ProcessParts)
	}
	return s
}
