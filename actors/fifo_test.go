package actors

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Values come out in the order they went in, whatever the mix of pushes and pops, and
// a queue kept below its largest size does not allocate.
func TestFIFOOrderAndReuse(t *testing.T) {
	var f FIFO[int]
	next, want := 0, 0
	for round := range 50 {
		for range round%7 + 1 {
			f.Push(next)
			next++
		}
		for range round%5 + 1 {
			if f.Len() == 0 {
				break
			}
			assert.Equal(t, want, *f.Front())
			require.Equal(t, want, f.Pop())
			want++
		}
	}
	for f.Len() > 0 {
		require.Equal(t, want, f.Pop())
		want++
	}
	assert.Equal(t, next, want)

	for range 8 {
		f.Push(1)
	}
	for f.Len() > 0 {
		f.Pop()
	}
	allocs := testing.AllocsPerRun(100, func() {
		for range 8 {
			f.Push(1)
			f.Pop()
			f.Push(2)
		}
		for f.Len() > 0 {
			f.Pop()
		}
	})
	assert.Zero(t, allocs, "pushed and popped within its largest size")
}

// A lazy array behaves as a zeroed array of its length; only the chunks touched exist.
func TestLazyArray(t *testing.T) {
	a := NewLazyArray[int](50, 16)
	assert.Equal(t, 50, a.Len())
	*a.At(49) = 7
	*a.At(3) = 1
	assert.Equal(t, 7, *a.At(49))
	assert.Equal(t, 1, *a.At(3))
	assert.Zero(t, *a.At(20))
	assert.Same(t, a.At(49), a.At(49))
	touched := 0
	for _, c := range a.chunks {
		if c != nil {
			touched++
		}
	}
	assert.Equal(t, 3, touched, "chunks of elements 3, 20 and 49")
}

func TestFIFODeleteFuncKeepsOrder(t *testing.T) {
	var f FIFO[int]
	for i := range 10 {
		f.Push(i)
	}
	f.Pop()
	f.Pop() // 2..9 queued, behind a taken front
	f.DeleteFunc(func(v int) bool { return v%3 == 0 })
	require.Equal(t, []int{2, 4, 5, 7, 8}, f.Queued())
	f.Push(10)
	var got []int
	for f.Len() > 0 {
		got = append(got, f.Pop())
	}
	require.Equal(t, []int{2, 4, 5, 7, 8, 10}, got)
	f.Push(1)
	f.DeleteFunc(func(int) bool { return true })
	require.Zero(t, f.Len())
	f.Push(3)
	require.Equal(t, 3, f.Pop(), "usable after everything was deleted")
}

// Next points at the slot the next Pop reads, or in an empty queue the one the next
// Push fills, once the array has it; nil before.
func TestFIFONextIsTheHeadSlot(t *testing.T) {
	var f FIFO[int]
	assert.Nil(t, f.Next(), "no array yet")
	f.Push(1)
	f.Push(2)
	require.NotNil(t, f.Next())
	assert.Equal(t, 1, *f.Next())
	assert.Same(t, f.Front(), f.Next())
	f.Pop()
	assert.Equal(t, 2, *f.Next())
	f.Pop() // empty: the next Push fills the first slot again
	n := f.Next()
	require.NotNil(t, n)
	f.Push(3)
	assert.Same(t, n, f.Front())
	assert.Equal(t, 3, *n)
}
