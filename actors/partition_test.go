package actors

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ring builds nodes node[i] of k blocks each; blocks inside a node are chained with
// intra latency, node i's last block links to node i+1's first with inter latency.
func ring(t *testing.T, nodes, k int, intra, inter Duration) *Model {
	g := NewGraph()
	refs := make([][]Ref, nodes)
	for i := range nodes {
		for j := range k {
			refs[i] = append(refs[i], g.Add(Indexed("node", i)+"."+Indexed("b", j), ported("prev", "next")))
		}
	}
	for i := range nodes {
		for j := range k - 1 {
			g.Connect(refs[i][j].Port("next"), refs[i][j+1].Port("prev"), intra)
		}
		g.Connect(refs[i][k-1].Port("next"), refs[(i+1)%nodes][0].Port("prev"), inter)
	}
	m, err := g.Build()
	require.NoError(t, err)
	return m
}

func sizes(of []int32) map[int32]int {
	s := map[int32]int{}
	for _, p := range of {
		s[p]++
	}
	return s
}

// Auto cuts the highest-latency links: node-internal links stay inside partitions.
func TestAutoCutsHighestLatencyLinks(t *testing.T) {
	m := ring(t, 8, 3, Nanosecond, 100*Nanosecond)
	of, err := Auto{}.Partition(m, 2)
	require.NoError(t, err)
	info, err := checkPartitioning(m, of, "auto")
	require.NoError(t, err)
	assert.Equal(t, 2, info.parts)
	assert.Equal(t, 100*Nanosecond, info.lookahead)
	assert.Equal(t, map[int32]int{0: 12, 1: 12}, sizes(of))
	assert.Equal(t, 4, info.cut) // two duplex node-to-node cables
}

// When cutting only high-latency links cannot balance the load, Auto cuts lower ones.
func TestAutoFallsBackToLowerLatencyForBalance(t *testing.T) {
	m := ring(t, 1, 8, Nanosecond, 100*Nanosecond) // one node: the only cut is inside it
	of, err := Auto{}.Partition(m, 2)
	require.NoError(t, err)
	info, err := checkPartitioning(m, of, "auto")
	require.NoError(t, err)
	assert.Equal(t, map[int32]int{0: 4, 1: 4}, sizes(of))
	assert.Equal(t, Nanosecond, info.lookahead)
}

// Zero-latency links are never cut by Auto.
func TestAutoKeepsZeroLatencyLinksTogether(t *testing.T) {
	m := ring(t, 4, 2, 0, 10*Nanosecond)
	of, err := Auto{}.Partition(m, 4)
	require.NoError(t, err)
	_, err = checkPartitioning(m, of, "auto")
	require.NoError(t, err)
	for i := 0; i < len(of); i += 2 {
		assert.Equal(t, of[i], of[i+1], "blocks of one node split")
	}
}

func TestAutoSingleWorkerIsOnePartition(t *testing.T) {
	m := ring(t, 4, 2, Nanosecond, 10*Nanosecond)
	of, err := Auto{}.Partition(m, 1)
	require.NoError(t, err)
	assert.Equal(t, map[int32]int{0: 8}, sizes(of))
}

// With MinActors, a model of fewer actors is one partition whatever the workers; at
// MinActors it is split as usual; a run across processes ignores MinActors.
func TestAutoMinActorsKeepsSmallModelsWhole(t *testing.T) {
	m := ring(t, 4, 2, Nanosecond, 10*Nanosecond) // 8 actors
	of, err := Auto{MinActors: 9}.Partition(m, 2)
	require.NoError(t, err)
	assert.Equal(t, map[int32]int{0: 8}, sizes(of))
	of, err = Auto{MinActors: 8}.Partition(m, 2)
	require.NoError(t, err)
	assert.Equal(t, map[int32]int{0: 4, 1: 4}, sizes(of))

	o := Options{Partitioner: Auto{MinActors: 1000}, Cluster: &Cluster{}}
	require.NoError(t, o.setDefaults())
	assert.Equal(t, Auto{}, o.Partitioner, "every process needs partitions")
}

// A model with more than autoPartitionActors actors per worker is split into more
// partitions than workers, balanced, still cutting only the highest-latency links; the
// count is a multiple of the workers, so that each has as many.
func TestAutoSplitsLargeModelsBeyondWorkers(t *testing.T) {
	m := ring(t, 3*autoPartitionActors/2, 2, Nanosecond, 10*Nanosecond) // 3 partitions' worth
	want := map[int]map[int32]int{
		1: {0: autoPartitionActors, 1: autoPartitionActors, 2: autoPartitionActors},
		2: {0: 3 * autoPartitionActors / 4, 1: 3 * autoPartitionActors / 4, 2: 3 * autoPartitionActors / 4, 3: 3 * autoPartitionActors / 4},
	}
	for _, w := range []int{1, 2} {
		of, err := Auto{}.Partition(m, w)
		require.NoError(t, err)
		assert.Equal(t, want[w], sizes(of), "workers %d", w)
		for i := 0; i < len(of); i += 2 {
			assert.Equal(t, of[i], of[i+1], "blocks of one node split")
		}
	}
	of, err := Auto{}.Partition(m, 4)
	require.NoError(t, err)
	assert.Len(t, sizes(of), 4, "as many as workers when that is more")
	of, err = Auto{}.Partition(m, 0) // a caller's zero: one worker's partitions
	require.NoError(t, err)
	assert.Len(t, sizes(of), 3)
}

func TestNodeGroupsByTopSegment(t *testing.T) {
	m := ring(t, 3, 2, Nanosecond, 10*Nanosecond)
	of, err := Node{}.Partition(m, 1)
	require.NoError(t, err)
	assert.Equal(t, []int32{0, 0, 1, 1, 2, 2}, of)
	of, err = Node{Group: func(string) string { return "all" }}.Partition(m, 1)
	require.NoError(t, err)
	assert.Equal(t, []int32{0, 0, 0, 0, 0, 0}, of)
}

func TestBlockIsOnePartitionPerActor(t *testing.T) {
	m := ring(t, 2, 2, Nanosecond, 10*Nanosecond)
	of, err := Block{}.Partition(m, 1)
	require.NoError(t, err)
	assert.Equal(t, []int32{0, 1, 2, 3}, of)
}

func TestCheckPartitioningRejectsBadAssignments(t *testing.T) {
	m := ring(t, 2, 2, Nanosecond, 10*Nanosecond)
	_, err := checkPartitioning(m, []int32{0, 1}, "custom")
	assert.ErrorContains(t, err, "assigned 2 of 4 actors")
	_, err = checkPartitioning(m, []int32{0, 1, 9, 0}, "custom")
	assert.ErrorContains(t, err, "invalid partition 9")
}

func TestLongestRun(t *testing.T) {
	for _, c := range []struct {
		ids      []ActorID
		lo, span ActorID
	}{
		{nil, 0, 0},
		{[]ActorID{7}, 7, 1},
		{[]ActorID{3, 4, 5, 6}, 3, 4},
		{[]ActorID{0, 1, 5, 6, 7, 9}, 5, 3},
		{[]ActorID{0, 1, 4, 5, 9}, 0, 2}, // the earliest of equal runs
		{[]ActorID{2, 4, 6}, 2, 1},
	} {
		lo, span := longestRun(c.ids)
		assert.Equal(t, c.lo, lo, "%v", c.ids)
		assert.Equal(t, c.span, span, "%v", c.ids)
	}
}
