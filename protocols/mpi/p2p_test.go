package mpi

import (
	"fmt"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Messages with the same source and tag are received in the order they were sent
// (MPI non-overtaking), while a receive for another tag takes a later message first:
// here every message is unexpected (the receiver is busy when they arrive).
func TestTaggedMatchingOrderUnexpected(t *testing.T) {
	type got struct {
		tag  int
		data []byte
	}
	var recvd []got
	var stats Stats
	_, _, err := job(t, 2, testParams(), serial, func(c *Comm) error {
		if c.Rank() == 0 {
			for i, tag := range []int{5, 6, 5, 7} {
				if err := c.Send(withData(c, pattern(100, byte(i))), 1, tag); err != nil {
					return err
				}
			}
			return nil
		}
		c.Compute(100 * actors.Microsecond) // every message arrives before a receive is posted
		for _, tag := range []int{6, 5, AnyTag, 7} {
			b := c.Alloc(100)
			st, err := c.Recv(b, 0, tag)
			if err != nil {
				return err
			}
			recvd = append(recvd, got{st.Tag, b.Data})
		}
		stats = c.Stats
		return nil
	})
	require.NoError(t, err)
	require.Len(t, recvd, 4)
	assert.Equal(t, got{6, pattern(100, 1)}, recvd[0])
	assert.Equal(t, got{5, pattern(100, 0)}, recvd[1], "the first tag-5 message first")
	assert.Equal(t, got{5, pattern(100, 2)}, recvd[2], "AnyTag takes the oldest remaining message")
	assert.Equal(t, got{7, pattern(100, 3)}, recvd[3])
	assert.Equal(t, int64(4), stats.Unexpected)
}

// Receives posted before their messages arrive match in posting order; nothing goes
// through the unexpected queue.
func TestPostedReceivesMatchInPostingOrder(t *testing.T) {
	var data [3][]byte
	var sts [3]Status
	var stats Stats
	_, _, err := job(t, 2, testParams(), serial, func(c *Comm) error {
		if c.Rank() == 0 {
			c.Compute(50 * actors.Microsecond) // the receives are posted by now
			for i := range 3 {
				if err := c.Send(withData(c, pattern(64, byte(10+i))), 1, 9); err != nil {
					return err
				}
			}
			return nil
		}
		var rs []*Request
		var bufs []Buf
		for range 3 {
			b := c.Alloc(64)
			r, err := c.Irecv(b, AnySource, 9)
			if err != nil {
				return err
			}
			rs, bufs = append(rs, r), append(bufs, b)
		}
		if err := c.Waitall(rs, sts[:]); err != nil {
			return err
		}
		for i, b := range bufs {
			data[i] = b.Data
		}
		stats = c.Stats
		return nil
	})
	require.NoError(t, err)
	for i := range 3 {
		assert.Equal(t, pattern(64, byte(10+i)), data[i], "receive %d", i)
		assert.Equal(t, 0, sts[i].Source)
		assert.Equal(t, int64(64), sts[i].Count)
	}
	assert.Zero(t, stats.Unexpected)
}

// MPI_ANY_SOURCE takes messages from every sender, and the status names each sender
// and tag; a receive for a specific source skips the others' messages.
func TestWildcardSourceAndTag(t *testing.T) {
	type rec struct{ src, tag int }
	var got []rec
	var fromTwo []byte
	_, _, err := job(t, 4, testParams(), serial, func(c *Comm) error {
		if c.Rank() != 0 {
			c.Compute(actors.Duration(c.Rank()) * 20 * actors.Microsecond) // arrive in rank order
			return c.Send(withData(c, pattern(40, byte(c.Rank()))), 0, 100+c.Rank())
		}
		c.Compute(100 * actors.Microsecond)
		b := c.Alloc(40)
		if _, err := c.Recv(b, 2, AnyTag); err != nil {
			return err
		}
		fromTwo = b.Data
		for range 2 {
			st, err := c.Recv(c.Alloc(40), AnySource, AnyTag)
			if err != nil {
				return err
			}
			got = append(got, rec{st.Source, st.Tag})
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, pattern(40, 2), fromTwo)
	assert.Equal(t, []rec{{1, 101}, {3, 103}}, got)
}

// Short and long messages, received into posted receives and from the unexpected
// queue, arrive intact; the protocol follows the eager limit.
func TestEagerAndLongDataCorrectness(t *testing.T) {
	sizes := []int{0, 1, 12, 13, 1024, 1025, 5000, 100 << 10}
	for _, late := range []bool{false, true} {
		t.Run(fmt.Sprintf("unexpected=%v", late), func(t *testing.T) {
			got := make([][]byte, len(sizes))
			var s0, s1 Stats
			_, _, err := job(t, 2, testParams(), serial, func(c *Comm) error {
				if c.Rank() == 0 {
					if !late {
						c.Compute(50 * actors.Microsecond)
					}
					for i, n := range sizes {
						if err := c.Send(withData(c, pattern(n, byte(i))), 1, i); err != nil {
							return err
						}
					}
					s0 = c.Stats
					return nil
				}
				var rs []*Request
				var bufs []Buf
				if late {
					// the long sends block until fetched, so receive one at a time
					c.Compute(200 * actors.Microsecond)
				}
				for i, n := range sizes {
					b := c.Alloc(int64(n))
					r, err := c.Irecv(b, 0, i)
					if err != nil {
						return err
					}
					if late {
						if _, err := c.Wait(r); err != nil {
							return err
						}
					} else {
						rs = append(rs, r)
					}
					bufs = append(bufs, b)
				}
				if err := c.Waitall(rs, nil); err != nil {
					return err
				}
				for i, b := range bufs {
					got[i] = b.Data
				}
				s1 = c.Stats
				return nil
			})
			require.NoError(t, err)
			for i, n := range sizes {
				assert.Equal(t, pattern(n, byte(i)), got[i], "size %d", n)
			}
			assert.Equal(t, int64(5), s0.Eager)
			assert.Equal(t, int64(3), s0.Long)
			if late {
				// the first message is unexpected; each long send blocks until its data
				// is fetched, so the later ones meet posted receives or the long catcher
				assert.Positive(t, s1.Unexpected)
				assert.Positive(t, s1.UnexpectedLong)
			} else {
				assert.Zero(t, s1.Unexpected)
			}
		})
	}
}

// A message longer than the receive buffer fills it and reports MPI_ERR_TRUNCATE; the
// sender of a long message is released and completes.
func TestTruncation(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		late bool
	}{{"short posted", 500, false}, {"short unexpected", 500, true}, {"long posted", 4000, false}, {"long unexpected", 4000, true},
		// the unexpected entry discards more than one RX command can (256 KiB)
		{"long unexpected beyond one RX command", 300 << 10, true}} {
		t.Run(tc.name, func(t *testing.T) {
			var st Status
			var rerr error
			var b Buf
			sent := false
			_, _, err := job(t, 2, testParams(), serial, func(c *Comm) error {
				if c.Rank() == 0 {
					if !tc.late {
						c.Compute(50 * actors.Microsecond)
					}
					err := c.Send(withData(c, pattern(tc.n, 3)), 1, 1)
					sent = err == nil
					return err
				}
				if tc.late {
					c.Compute(100 * actors.Microsecond)
				}
				b = c.Alloc(100)
				st, rerr = c.Recv(b, 0, 1)
				return nil
			})
			require.NoError(t, err)
			assert.True(t, sent)
			assert.ErrorIs(t, rerr, ErrTruncate)
			assert.ErrorIs(t, st.Err, ErrTruncate)
			assert.Equal(t, int64(100), st.Count)
			assert.Equal(t, pattern(tc.n, 3)[:100], b.Data)
		})
	}
}

// Unexpected messages beyond one buffer spill into the next buffers; a retired buffer
// is re-posted once its messages are received, so a long stream of unexpected messages
// flows through a few buffers.
func TestUnexpectedBuffersRepost(t *testing.T) {
	const msgs, size = 40, 1000 // 40 KB through four 8 KB buffers
	ok := 0
	var stats Stats
	_, _, err := job(t, 2, testParams(), serial, func(c *Comm) error {
		if c.Rank() == 0 {
			for round := range 4 {
				for i := range msgs / 4 {
					if err := c.Send(withData(c, pattern(size, byte(round*10+i))), 1, round*10+i); err != nil {
						return err
					}
				}
				if _, err := c.Recv(Buf{}, 1, 999); err != nil { // wait for the receiver
					return err
				}
			}
			return nil
		}
		for round := range 4 {
			c.Compute(100 * actors.Microsecond)
			for i := range msgs / 4 {
				b := c.Alloc(size)
				if _, err := c.Recv(b, 0, round*10+i); err != nil {
					return err
				}
				if string(b.Data) == string(pattern(size, byte(round*10+i))) {
					ok++
				}
			}
			if err := c.Send(Buf{}, 0, 999); err != nil {
				return err
			}
		}
		stats = c.Stats
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, msgs, ok)
	assert.Equal(t, int64(msgs), stats.Unexpected)
	assert.Positive(t, stats.BuffersReposted)
}

// More unexpected short data than the buffers hold is dropped by Portals, and
// Finalize says so.
func TestUnexpectedBufferExhaustionIsReported(t *testing.T) {
	_, _, err := job(t, 2, testParams(), serial, func(c *Comm) error {
		if c.Rank() == 0 {
			for i := range 40 { // 40 KB at once into 32 KB of buffers
				if err := c.Send(withData(c, pattern(1000, byte(i))), 1, 1); err != nil {
					return err
				}
			}
			return nil
		}
		c.Compute(300 * actors.Microsecond)
		return nil
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "dropped")
	assert.Contains(t, err.Error(), "mpi.unexpected_buffers")
}

// A receive that no message ever matches leaves the job unfinished, and the error
// names the rank and what it waits for.
func TestDeadlockIsReported(t *testing.T) {
	_, _, err := job(t, 2, testParams(), serial, func(c *Comm) error {
		if c.Rank() == 1 {
			_, err := c.Recv(c.Alloc(8), 0, 42)
			return err
		}
		return nil
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "rank 1 did not finish: waiting for a receive of 8 B from 0 tag 42")
}

// A rank can send to itself (the message loops back through its NIC).
func TestSendToSelf(t *testing.T) {
	var got []byte
	_, _, err := job(t, 2, testParams(), serial, func(c *Comm) error {
		if c.Rank() != 1 {
			return nil
		}
		b := c.Alloc(3000)
		r, err := c.Irecv(b, 1, 4)
		if err != nil {
			return err
		}
		if err := c.Send(withData(c, pattern(3000, 9)), 1, 4); err != nil {
			return err
		}
		_, err = c.Wait(r)
		got = b.Data
		return err
	})
	require.NoError(t, err)
	assert.Equal(t, pattern(3000, 9), got)
}

// Bad arguments are errors, not panics.
func TestBadArguments(t *testing.T) {
	var errs []error
	_, _, err := job(t, 2, testParams(), serial, func(c *Comm) error {
		if c.Rank() != 0 {
			return nil
		}
		_, e1 := c.Isend(Buf{}, 2, 0)
		_, e2 := c.Isend(Buf{}, 1, -1)
		_, e3 := c.Irecv(Buf{Len: 4, Data: []byte{1}}, 1, 0)
		_, e4 := c.Irecv(Buf{}, -3, 0)
		errs = []error{e1, e2, e3, e4}
		return nil
	})
	require.NoError(t, err)
	for i, e := range errs {
		assert.Error(t, e, "case %d", i)
	}
	bad := DefaultParams()
	bad.UnexpectedBufferBytes = 100
	assert.ErrorContains(t, bad.Validate(), "unexpected_buffer_bytes")
}

// Posting a receive races with arriving messages: a message that arrives while the
// receive is being posted goes to the unexpected queue, and the receive must still
// take it before a later message with the same envelope. The sender's start is swept
// over the receiver's posting window in 50 ns steps: every run receives the messages
// in order, and some runs hit the race (PtlMDUpdate refused the post).
func TestPostRaceNeverOvertakes(t *testing.T) {
	retried, unexpected, posted := 0, 0, 0
	for d := 3 * actors.Microsecond; d <= 10*actors.Microsecond; d += 50 * actors.Nanosecond {
		var a, b []byte
		var stats Stats
		_, _, err := job(t, 2, testParams(), serial, func(c *Comm) error {
			if c.Rank() == 0 {
				c.Compute(d)
				if err := c.Send(withData(c, pattern(8, 1)), 1, 1); err != nil {
					return err
				}
				return c.Send(withData(c, pattern(8, 2)), 1, 1)
			}
			c.Compute(10 * actors.Microsecond)
			b1, b2 := c.Alloc(8), c.Alloc(8)
			r1, err := c.Irecv(b1, 0, 1)
			if err != nil {
				return err
			}
			r2, err := c.Irecv(b2, 0, 1)
			if err != nil {
				return err
			}
			err = c.Waitall([]*Request{r1, r2}, nil)
			a, b, stats = b1.Data, b2.Data, c.Stats
			return err
		})
		require.NoError(t, err, "sender start %s", d)
		require.Equal(t, pattern(8, 1), a, "sender start %s: first receive", d)
		require.Equal(t, pattern(8, 2), b, "sender start %s: second receive", d)
		if stats.PostRetries > 0 {
			retried++
		}
		if stats.Unexpected > 0 {
			unexpected++
		} else {
			posted++
		}
	}
	assert.Positive(t, retried, "the sweep never hit the posting window")
	assert.Positive(t, unexpected)
	assert.Positive(t, posted)
}

// The library is the same over accelerated-mode Portals (matching in the firmware, no
// interrupts): the semantics tests pass unchanged.
func TestSemanticsAcceleratedMode(t *testing.T) {
	testMode = "accelerated"
	defer func() { testMode = "generic" }()
	for _, tc := range []struct {
		name string
		f    func(*testing.T)
	}{
		{"TaggedMatchingOrderUnexpected", TestTaggedMatchingOrderUnexpected},
		{"PostedReceivesMatchInOrder", TestPostedReceivesMatchInPostingOrder},
		{"WildcardSourceAndTag", TestWildcardSourceAndTag},
		{"EagerAndLongDataCorrectness", TestEagerAndLongDataCorrectness},
		{"Truncation", TestTruncation},
		{"UnexpectedBuffersRepost", TestUnexpectedBuffersRepost},
		{"PostRaceNeverOvertakes", TestPostRaceNeverOvertakes},
		{"SendToSelf", TestSendToSelf},
		{"BarrierHoldsEveryRank", TestBarrierHoldsEveryRank},
		{"AllreduceSums", TestAllreduceSums},
		{"AlltoallBlocks", TestAlltoallBlocks},
		{"BcastData", TestBcastData},
		{"UnexpectedBufferExhaustionIsReported", TestUnexpectedBufferExhaustionIsReported},
	} {
		t.Run(tc.name, tc.f)
	}
}
