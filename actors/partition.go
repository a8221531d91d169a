package actors

import "slices"

// Partitioner groups the actors of a model into partitions, the units the parallel
// engine synchronizes. The choice affects speed only, never results.
type Partitioner interface {
	// Name is the strategy name shown in reports ("block", "node", "auto", ...).
	Name() string
	// Partition returns the partition of every actor, indexed by actor id, as dense
	// indices 0..P-1. workers is the run's worker count, a hint for balancing.
	Partition(m *Model, workers int) ([]int32, error)
}

// ParsePartitioner returns the built-in partitioner called name: "block", "node"
// (grouped by TopSegment), "auto" or "slab" (Slab, for models with coordinates).
func ParsePartitioner(name string) (Partitioner, error) {
	switch name {
	case "block":
		return Block{}, nil
	case "node":
		return Node{}, nil
	case "auto":
		return Auto{}, nil
	case "slab":
		return Slab{}, nil
	}
	return nil, configErrorf("unknown partitioning %q (want block, node, auto or slab)", name)
}

// Block puts every actor in its own partition: one protoactor actor, and so one
// schedulable unit, per hardware block.
type Block struct{}

// Name implements Partitioner.
func (Block) Name() string { return "block" }

// Partition implements Partitioner.
func (Block) Partition(m *Model, _ int) ([]int32, error) {
	of := make([]int32, m.NumActors())
	for i := range of {
		of[i] = int32(i)
	}
	return of, nil
}

// Node groups actors by a key computed from their names; actors with equal keys share a
// partition. The default key is TopSegment, so "node[1,2,3].ppc" and "node[1,2,3].ht"
// land together. Partitions are numbered in key order.
type Node struct {
	Group func(name string) string
}

// Name implements Partitioner.
func (Node) Name() string { return "node" }

// Partition implements Partitioner.
func (n Node) Partition(m *Model, _ int) ([]int32, error) {
	group := n.Group
	if group == nil {
		group = TopSegment
	}
	keys := make([]string, m.NumActors())
	for i := range keys {
		keys[i] = group(m.names[i])
	}
	uniq := slices.Clone(keys)
	slices.Sort(uniq)
	uniq = slices.Compact(uniq)
	of := make([]int32, len(keys))
	for i, k := range keys {
		j, _ := slices.BinarySearch(uniq, k)
		of[i] = int32(j)
	}
	return of, nil
}

// autoPartitionActors is the largest partition Auto makes: a model with more actors
// per worker is split into more partitions than workers (each worker runs several in
// every window). A window's events run partition by partition, each partition's in
// time order, so its nodes' state is reused while it is in the caches: halo3d on
// 16x16x16 (53,000 actors) runs about 1.3 times slower on one worker in one partition
// (time order across the whole machine) than in 26. Every partition costs an
// activation a window, and the events on its cut links travel in batches; the pending
// events of a large partition are in a calendar queue, whose cost does not grow with
// it (BENCHMARKS.md, twenty-third session: 2,048 against 512 actors, about 160 SeaStar
// nodes against 40, halo3d 16x16x16 and Red Storm 5-10% faster on one worker and on
// two processes, the same on two workers; larger partitions leave fewer that run
// ahead across processes).
const autoPartitionActors = 2048

// Auto balances actors over the workers while keeping the lookahead large: it merges
// actors joined by low-latency links into components, cutting only links at or above a
// latency threshold, and chooses the highest threshold whose components still split
// into Workers partitions (more for large models, see autoPartitionActors, rounded up
// to a multiple of Workers so that every worker has as many) with the
// largest within 10% of perfect balance, or within one
// component of it (a few large components, such as nine nodes on two workers, cannot do
// better). Components are laid out in id (name) order, so partitions are contiguous
// ranges of names and keep hierarchy local.
//
// MinActors, if set, runs a model of fewer actors as one partition: a few nodes keep
// few events in flight, so partitions would mostly wait for each other (a 2-node
// PortalPerf runs 4 times faster in one partition than in two on two workers). A run
// across processes ignores it.
type Auto struct{ MinActors int }

// Name implements Partitioner.
func (Auto) Name() string { return "auto" }

// Partition implements Partitioner.
func (a Auto) Partition(m *Model, workers int) ([]int32, error) {
	n := m.NumActors()
	workers = max(workers, 1)
	w := max(workers, n/autoPartitionActors)
	w = min((w+workers-1)/workers*workers, n) // the same number for every worker (process)
	if n < a.MinActors {
		w = 1
	}
	if w <= 1 {
		return make([]int32, n), nil
	}
	var best []int32
	ideal := (n + w - 1) / w
	for _, cut := range cutCandidates(m.links) {
		comp := components(n, m.links, cut)
		of, worst, largest := chunk(comp, w)
		best = of
		if worst*10 <= 11*ideal || (largest < ideal && worst <= ideal+largest) {
			break
		}
	}
	if best == nil { // no links: every actor is its own component
		best, _, _ = chunk(components(n, nil, 0), w)
	}
	return best, nil
}

// cutCandidates lists the thresholds worth trying, highest first: each distinct
// positive latency (links at or above it are cut, links below it merged).
func cutCandidates(links []Link) []Duration {
	var lats []Duration
	for _, l := range links {
		if l.Latency > 0 && l.From != l.To {
			lats = append(lats, l.Latency)
		}
	}
	slices.Sort(lats)
	lats = slices.Compact(lats)
	slices.Reverse(lats)
	return lats
}

// components labels every actor with the smallest id of its component, where links
// with latency below cut (and zero-latency links) join actors.
func components(n int, links []Link, cut Duration) []int32 {
	parent := make([]int32, n)
	for i := range parent {
		parent[i] = int32(i)
	}
	var find func(int32) int32
	find = func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for _, l := range links {
		if l.Latency < cut || l.Latency == 0 {
			a, b := find(int32(l.From)), find(int32(l.To))
			if a != b {
				parent[max(a, b)] = min(a, b)
			}
		}
	}
	for i := range parent {
		parent[i] = find(int32(i))
	}
	return parent
}

// chunk assigns components to w partitions as contiguous runs in order of their
// smallest id, each component to the partition containing its midpoint in the
// cumulative actor count, and returns the assignment, the largest partition size and
// the largest component size.
func chunk(root []int32, w int) ([]int32, int, int) {
	n := len(root)
	size := make([]int, n)
	for _, r := range root {
		size[r]++
	}
	partOf := make([]int32, n) // by component root
	load := make([]int, w)
	cum := 0
	for r := 0; r < n; r++ { // roots are component minima, so this is min-id order
		if size[r] == 0 {
			continue
		}
		mid := cum + size[r]/2
		p := min(w-1, mid*w/n)
		partOf[r] = int32(p)
		load[p] += size[r]
		cum += size[r]
	}
	of := make([]int32, n)
	for i, r := range root {
		of[i] = partOf[r]
	}
	return compactPartitions(of), slices.Max(load), slices.Max(size)
}

// compactPartitions renumbers partition indices densely, in order of first use.
func compactPartitions(of []int32) []int32 {
	remap := map[int32]int32{}
	for i, p := range of {
		q, ok := remap[p]
		if !ok {
			q = int32(len(remap))
			remap[p] = q
		}
		of[i] = q
	}
	return of
}

// cutInfo describes how a partitioning cuts the model.
type cutInfo struct {
	parts     int
	lookahead Duration // min latency over links and direct sends crossing partitions
	cut       int      // links crossing partitions
}

// checkPartitioning validates an assignment and derives its lookahead. A zero-latency
// link between partitions is a configuration error: the conservative engine could
// never advance past it.
func checkPartitioning(m *Model, of []int32, strategy string) (cutInfo, error) {
	info := cutInfo{lookahead: Duration(MaxTime)}
	if len(of) != m.NumActors() {
		return info, configErrorf("partitioning %s: assigned %d of %d actors", strategy, len(of), m.NumActors())
	}
	for i, p := range of {
		if p < 0 || int(p) >= len(of) {
			return info, configErrorf("partitioning %s: actor %s has invalid partition %d", strategy, m.names[i], p)
		}
		info.parts = max(info.parts, int(p)+1)
	}
	for _, l := range m.links {
		if of[l.From] == of[l.To] {
			continue
		}
		info.cut++
		if l.Latency <= 0 {
			return info, configErrorf("partitioning %s: link %s.%s -> %s.%s has zero latency but crosses partitions; "+
				"zero-latency links must stay inside one partition (choose another partitioning or give the link a latency)",
				strategy, m.names[l.From], m.PortName(l.From, l.FromPort), m.names[l.To], m.PortName(l.To, l.ToPort))
		}
		info.lookahead = min(info.lookahead, l.Latency)
	}
	if m.direct >= 0 && info.parts > 1 {
		if m.direct <= 0 {
			return info, configErrorf("partitioning %s: direct sends have zero latency but the model has %d partitions; "+
				"the lookahead must be > 0 for the parallel engine with more than one partition", strategy, info.parts)
		}
		info.lookahead = min(info.lookahead, m.direct)
	}
	return info, nil
}

// colocated merges the partitions that a colocation group of m spans (Graph.Colocate)
// into the group's first member's. Assignments with invalid partitions are left for
// checkPartitioning to report.
func colocated(m *Model, of []int32) []int32 {
	if len(m.colocate) == 0 || len(of) != m.NumActors() {
		return of
	}
	parent := map[int32]int32{}
	find := func(p int32) int32 {
		for {
			q, ok := parent[p]
			if !ok || q == p {
				return p
			}
			p = q
		}
	}
	for _, grp := range m.colocate {
		if len(grp) == 0 {
			continue
		}
		root := find(of[grp[0]])
		for _, id := range grp[1:] {
			if r := find(of[id]); r != root {
				parent[r] = root
			}
		}
	}
	out := make([]int32, len(of))
	for i, p := range of {
		out[i] = find(p)
	}
	return out
}
