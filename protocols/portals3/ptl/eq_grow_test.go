package ptl

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An event queue holds its capacity of unread events whatever order reads and writes
// interleave in, although its buffer grows only as unread events accumulate; beyond
// the capacity the oldest are overwritten and reported (PTL_EQ_DROPPED).
func TestEQGrowsAsItFills(t *testing.T) {
	q := &eq{size: 1000}
	next := uint64(0) // the sequence number the reader expects
	read := func(n int) {
		for range n {
			ev, err := q.get()
			require.NoError(t, err)
			require.Equal(t, next, ev.Sequence)
			require.Equal(t, next, ev.Link, "event %d", next)
			next++
		}
	}
	write := func(n int) {
		for range n {
			q.push(Event{Link: q.write})
		}
	}
	write(3)
	read(2)
	assert.Len(t, q.ring, 8, "three unread at most: the first 8 slots")
	write(20)
	read(10)
	write(500)
	assert.Equal(t, 511, q.count())
	read(511)
	write(1000) // exactly the capacity, unread
	assert.Equal(t, 1000, q.count())
	assert.Len(t, q.ring, 1000)
	read(400)
	write(400)
	read(1000)
	_, err := q.get()
	assert.Equal(t, ErrEQEmpty, Code(err))

	write(1005) // five too many: the five oldest are lost
	ev, err := q.get()
	assert.Equal(t, ErrEQDropped, Code(err))
	assert.Equal(t, next+5, ev.Sequence)
}
