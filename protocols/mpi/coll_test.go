package mpi

import (
	"fmt"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// No rank leaves the barrier before the last rank has entered it.
func TestBarrierHoldsEveryRank(t *testing.T) {
	for _, n := range []int{2, 5, 8} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			enter := make([]actors.Time, n)
			leave := make([]actors.Time, n)
			_, _, err := job(t, n, testParams(), serial, func(c *Comm) error {
				c.Compute(actors.Duration(c.Rank()*7) * actors.Microsecond)
				enter[c.Rank()] = c.Wtime()
				err := c.Barrier()
				leave[c.Rank()] = c.Wtime()
				return err
			})
			require.NoError(t, err)
			last := enter[n-1]
			for r := range n {
				assert.Greater(t, leave[r], last, "rank %d left at %s, the last rank entered at %s", r, leave[r], last)
			}
		})
	}
}

// Bcast delivers the root's bytes to every rank, for short and long messages and a
// root other than 0.
func TestBcastData(t *testing.T) {
	for _, n := range []int{5, 8} {
		for _, size := range []int{16, 3000} {
			t.Run(fmt.Sprintf("P=%d/%dB", n, size), func(t *testing.T) {
				got := make([][]byte, n)
				_, _, err := job(t, n, testParams(), serial, func(c *Comm) error {
					b := c.Alloc(int64(size))
					if c.Rank() == 2 {
						copy(b.Data, pattern(size, 77))
					}
					err := c.Bcast(b, 2)
					got[c.Rank()] = b.Data
					return err
				})
				require.NoError(t, err)
				for r := range n {
					assert.Equal(t, pattern(size, 77), got[r], "rank %d", r)
				}
			})
		}
	}
}

// Allreduce gives every rank the same exact sum (and max) of every rank's vector, for
// power-of-two and other sizes, short and long vectors.
func TestAllreduceSums(t *testing.T) {
	for _, n := range []int{2, 5, 6, 8} {
		for _, elems := range []int{3, 400} {
			t.Run(fmt.Sprintf("P=%d/%d", n, elems), func(t *testing.T) {
				sums := make([][]float64, n)
				maxs := make([][]float64, n)
				_, _, err := job(t, n, testParams(), serial, func(c *Comm) error {
					v := make([]float64, elems)
					for i := range v {
						v[i] = float64((c.Rank()+1)*(i+1)) + 0.25
					}
					send, recv := c.Alloc(int64(8*elems)), c.Alloc(int64(8*elems))
					putFloats(send, v)
					if err := c.Allreduce(send, recv, OpSum); err != nil {
						return err
					}
					sums[c.Rank()] = floats(recv)
					if err := c.Allreduce(send, recv, OpMax); err != nil {
						return err
					}
					maxs[c.Rank()] = floats(recv)
					return nil
				})
				require.NoError(t, err)
				tri := float64(n * (n + 1) / 2)
				for r := range n {
					for i := range elems {
						require.Equal(t, tri*float64(i+1)+0.25*float64(n), sums[r][i], "rank %d element %d", r, i)
						require.Equal(t, float64(n*(i+1))+0.25, maxs[r][i], "rank %d element %d", r, i)
					}
				}
			})
		}
	}
}

// Alltoall moves block j of rank i to block i of rank j, for power-of-two and other
// sizes.
func TestAlltoallBlocks(t *testing.T) {
	for _, n := range []int{4, 6} {
		for _, block := range []int{8, 1500} {
			t.Run(fmt.Sprintf("P=%d/%dB", n, block), func(t *testing.T) {
				got := make([][]byte, n)
				_, _, err := job(t, n, testParams(), serial, func(c *Comm) error {
					send, recv := c.Alloc(int64(n*block)), c.Alloc(int64(n*block))
					for j := range n {
						copy(send.Data[j*block:], pattern(block, byte(10*c.Rank()+j)))
					}
					err := c.Alltoall(send, recv, int64(block))
					got[c.Rank()] = recv.Data
					return err
				})
				require.NoError(t, err)
				for i := range n {
					for j := range n {
						assert.Equal(t, pattern(block, byte(10*j+i)), got[i][j*block:(j+1)*block], "rank %d block %d", i, j)
					}
				}
			})
		}
	}
}

// A job gives the same digest and the same results under the serial engine and the
// parallel engine with 1, 2 and 4 workers and node or block partitioning.
func TestDeterministicAcrossEngines(t *testing.T) {
	prog := func(out []actors.Time) func(c *Comm) error {
		return func(c *Comm) error {
			v := c.Alloc(64)
			putFloats(v, []float64{float64(c.Rank()), 1, 2, 3, 4, 5, 6, 7})
			if err := c.Allreduce(v, c.Alloc(64), OpSum); err != nil {
				return err
			}
			if err := c.Alltoall(c.Alloc(6*2000), c.Alloc(6*2000), 2000); err != nil {
				return err
			}
			if err := c.Barrier(); err != nil {
				return err
			}
			out[c.Rank()] = c.Wtime()
			return nil
		}
	}
	var digests []string
	var times [][]actors.Time
	for _, o := range []actors.Options{serial, {Workers: 1}, {Workers: 2}, {Workers: 4},
		{Workers: 2, Partitioner: actors.Node{}}, {Workers: 2, Partitioner: actors.Block{}}} {
		out := make([]actors.Time, 6)
		_, rep, err := job(t, 6, testParams(), o, prog(out))
		require.NoError(t, err)
		digests = append(digests, rep.Digest)
		times = append(times, out)
	}
	for i := range digests[1:] {
		assert.Equal(t, digests[0], digests[i+1], "options %d", i+1)
		assert.Equal(t, times[0], times[i+1], "options %d", i+1)
	}
}

// AllreduceRequests and AlltoallRequests count the requests the collectives start on
// each rank (progress reports divide by them), for power-of-two and other sizes.
func TestCollectiveRequestCounts(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5, 6, 8} {
		t.Run(fmt.Sprintf("P=%d", n), func(t *testing.T) {
			_, _, err := job(t, n, testParams(), serial, func(c *Comm) error {
				send, recv := c.Alloc(int64(8*n)), c.Alloc(int64(8*n))
				started := func() int64 { return c.Stats.Sends + c.Stats.Recvs }
				s0 := started()
				if err := c.Allreduce(send.Slice(0, 8), recv.Slice(0, 8), OpSum); err != nil {
					return err
				}
				assert.Equal(t, c.AllreduceRequests(), started()-s0, "Allreduce, rank %d", c.Rank())
				s0 = started()
				if err := c.Alltoall(send, recv, 8); err != nil {
					return err
				}
				assert.Equal(t, c.AlltoallRequests(), started()-s0, "Alltoall, rank %d", c.Rank())
				return nil
			})
			require.NoError(t, err)
		})
	}
}
