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
