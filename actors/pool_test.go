package actors

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type pooledThing struct {
	n int
	p *int
	PoolMark
}

func TestPoolRecyclesOnlyItsOwn(t *testing.T) {
	var pool Pool[pooledThing, *pooledThing]
	v := 7
	x := pool.New(pooledThing{n: 1, p: &v})
	require.Equal(t, 1, x.n)
	pool.Release(x)
	require.Zero(t, x.n, "released values are zeroed")
	require.Nil(t, x.p, "and keep nothing alive")
	y := &pooledThing{n: 2}
	pool.Release(y) // not from New: left alone
	require.Equal(t, 2, y.n)
}

func TestArraysKeepCapacityAndClear(t *testing.T) {
	var arrays Arrays[*int]
	a := arrays.Get()
	require.Empty(t, a.S)
	v := 3
	for range 10 {
		a.S = append(a.S, &v)
	}
	s := a.S
	arrays.Put(a)
	require.Empty(t, a.S)
	require.GreaterOrEqual(t, cap(a.S), 10, "the array stays with its holder")
	for i := range s {
		require.Nil(t, s[i], "elements are cleared, keeping nothing alive")
	}
	other := &Array[*int]{S: []*int{&v}}
	arrays.Put(other) // not from Get: left alone
	require.Len(t, other.S, 1)
}

// The holder whose Drop finds the count at zero is the last, however many holders
// joined (Hold) after the count was set.
func TestRefsLastHolder(t *testing.T) {
	var r Refs
	r.Set(1)
	r.Hold()
	r.Hold()
	require.False(t, r.Drop())
	require.False(t, r.Drop())
	require.True(t, r.Drop(), "the third drop of three holders is the last")
	var never Refs
	require.False(t, never.Drop(), "a count never set is never last")
}

// TestFreeListChunk checks that a chunked free list hands out distinct values, a chunk
// at a time, and takes back what it is given first.
func TestFreeListChunk(t *testing.T) {
	l := FreeList[int]{Chunk: 4}
	seen := map[*int]bool{}
	var got []*int
	for range 10 {
		v := l.Get()
		require.False(t, seen[v], "a value handed out twice")
		seen[v] = true
		got = append(got, v)
	}
	assert.Equal(t, 2, len(l.free), "three chunks of 4 made for 10 values")
	l.Put(got[3])
	assert.Same(t, got[3], l.Get(), "the value given back comes out first")
	var plain FreeList[int]
	a, b := plain.Get(), plain.Get()
	assert.NotSame(t, a, b)
	assert.Empty(t, plain.free)
}

// A pool with nothing to recycle makes freshValues values in one allocation: the next
// ones New hands out, all distinct, come from it. Values of 64 bytes come 8 at a time,
// in an array no larger than a small object (freshBytes).
func TestPoolMakesFreshValuesTogether(t *testing.T) {
	if raceDetector {
		t.Skip("with the race detector the stash keeps every value in its overflow, one at a time")
	}
	var pool Pool[pooledThing, *pooledThing]
	n := freshValues[pooledThing]()
	require.Greater(t, n, 1)
	got := make([]*pooledThing, 0, 2*n)
	allocs := testing.AllocsPerRun(1, func() {
		for i := range n {
			got = append(got, pool.New(pooledThing{n: i}))
		}
	})
	seen := map[*pooledThing]bool{}
	for _, x := range got {
		require.False(t, seen[x], "a value handed out twice")
		seen[x] = true
	}
	assert.Len(t, seen, 2*n) // AllocsPerRun runs the function once before it counts
	assert.LessOrEqual(t, allocs, 1.0, "one array for freshValues values")
	assert.Equal(t, 8, freshValues[[64]byte]())
	assert.Equal(t, freshMax, freshValues[int8]())
	assert.Equal(t, 1, freshValues[[1024]byte]())
	assert.Equal(t, 1, freshValues[struct{}]())
}
