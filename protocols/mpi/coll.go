package mpi

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	"github.com/seastar-sim/seastar/actors"
)

// Tags of the collectives, in their own context.
const (
	tagBarrier = iota + 1
	tagBcast
	tagAllreduce
	tagAlltoall
)

// Op is a reduction operation on vectors of float64 (little-endian bytes in Buf.Data).
type Op uint8

// Reduction operations.
const (
	OpSum Op = iota // MPI_SUM
	OpMax           // MPI_MAX
	OpMin           // MPI_MIN
)

// String returns the MPI name.
func (o Op) String() string {
	switch o {
	case OpSum:
		return "MPI_SUM"
	case OpMax:
		return "MPI_MAX"
	case OpMin:
		return "MPI_MIN"
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// combine sets dst[i] = a[i] op b[i] over float64 elements; dst may be a or b. The
// operand order is fixed (a is the lower rank's) so that partners compute identical
// bits.
func (o Op) combine(dst, a, b []byte) {
	for i := 0; i+8 <= len(dst); i += 8 {
		x := math.Float64frombits(binary.LittleEndian.Uint64(a[i:]))
		y := math.Float64frombits(binary.LittleEndian.Uint64(b[i:]))
		var z float64
		switch o {
		case OpMax:
			z = max(x, y)
		case OpMin:
			z = min(x, y)
		default:
			z = x + y
		}
		binary.LittleEndian.PutUint64(dst[i:], math.Float64bits(z))
	}
}

// reduce combines a received operand into mine (host time at reduce_bandwidth):
// mine = lower op higher, where mineLower says whose operand is the lower rank's.
func (c *Comm) reduce(o Op, mine, in Buf, mineLower bool) {
	c.pr.Proc().Compute(c.p.ReduceBandwidth.TransferTime(actors.Bytes(mine.Len)))
	if mine.Data == nil || in.Data == nil {
		return
	}
	if mineLower {
		o.combine(mine.Data, mine.Data, in.Data)
	} else {
		o.combine(mine.Data, in.Data, mine.Data)
	}
}

// copyBuf copies src into dst (host memcpy).
func (c *Comm) copyBuf(dst, src Buf) {
	c.pr.Proc().Memcpy(actors.Bytes(src.Len))
	if dst.Data != nil && src.Data != nil {
		copy(dst.Data, src.Data)
	}
}

// Barrier is MPI_Barrier by dissemination (Hensgen, Finkel & Manber 1988): in round k
// (k = 0 .. ceil(log2 P)-1) every rank sends a zero-byte message to rank+2^k and
// receives one from rank-2^k (mod P). After the last round every rank has heard,
// directly or not, from every other: ceil(log2 P) rounds for any P.
func (c *Comm) Barrier() error {
	c.call()
	p := c.Size()
	for k := 1; k < p; k <<= 1 {
		dst, src := (c.rank+k)%p, (c.rank-k+p)%p
		if _, err := c.sendrecv(Buf{}, dst, tagBarrier, Buf{}, src, tagBarrier, ctxColl); err != nil {
			return err
		}
	}
	return nil
}

// Bcast is MPI_Bcast by a binomial tree (MPICH's algorithm): with ranks renumbered
// relative to root, a rank receives from the rank that differs in its lowest set bit,
// then sends to rank+mask for every smaller power of two mask, largest first.
// ceil(log2 P) steps; every message is the whole buffer.
func (c *Comm) Bcast(buf Buf, root int) error {
	c.call()
	p := c.Size()
	if root < 0 || root >= p {
		return fmt.Errorf("mpi: rank %d: Bcast root %d of %d", c.rank, root, p)
	}
	rel := (c.rank - root + p) % p
	mask := 1
	for ; mask < p; mask <<= 1 {
		if rel&mask != 0 {
			if _, err := c.recvColl(buf, (c.rank-mask+p)%p, tagBcast); err != nil {
				return err
			}
			break
		}
	}
	for mask >>= 1; mask > 0; mask >>= 1 {
		if rel+mask < p {
			if err := c.sendColl(buf, (c.rank+mask)%p, tagBcast); err != nil {
				return err
			}
		}
	}
	return nil
}

// Allreduce is MPI_Allreduce by recursive doubling (Thakur, Rabenseifner & Gropp 2005,
// MPICH's algorithm for short vectors): with pof2 the largest power of two <= P and
// rem = P - pof2, the first 2*rem ranks pair up and the even one of each pair hands
// its vector to the odd one and sits out; the pof2 remaining ranks then exchange full
// vectors with the partner at distance 1, 2, 4, ... and combine, log2(pof2) steps;
// finally each odd rank of the first pairs returns the result to its even partner.
// send and recv have the same length, a multiple of 8 bytes (float64 elements) when
// the job carries data.
func (c *Comm) Allreduce(send, recv Buf, o Op) error {
	c.call()
	if send.Len != recv.Len {
		return fmt.Errorf("mpi: rank %d: Allreduce buffers of %d and %d B", c.rank, send.Len, recv.Len)
	}
	if recv.Data != nil && recv.Len%8 != 0 {
		return fmt.Errorf("mpi: rank %d: Allreduce of %d B is not a vector of float64", c.rank, recv.Len)
	}
	c.copyBuf(recv, send)
	p := c.Size()
	if p == 1 {
		return nil
	}
	tmp := c.Alloc(recv.Len)
	pof2, rem := allreduceSplit(p)
	newrank := c.rank - rem
	if c.rank < 2*rem {
		if c.rank%2 == 0 { // hand the vector to the odd partner and sit out
			if err := c.sendColl(recv, c.rank+1, tagAllreduce); err != nil {
				return err
			}
			newrank = -1
		} else {
			if _, err := c.recvColl(tmp, c.rank-1, tagAllreduce); err != nil {
				return err
			}
			c.reduce(o, recv, tmp, false)
			newrank = c.rank / 2
		}
	}
	if newrank >= 0 {
		for mask := 1; mask < pof2; mask <<= 1 {
			nd := newrank ^ mask
			dst := nd + rem
			if nd < rem {
				dst = nd*2 + 1
			}
			if _, err := c.sendrecv(recv, dst, tagAllreduce, tmp, dst, tagAllreduce, ctxColl); err != nil {
				return err
			}
			c.reduce(o, recv, tmp, c.rank < dst)
		}
	}
	if c.rank < 2*rem {
		if c.rank%2 == 1 {
			return c.sendColl(recv, c.rank-1, tagAllreduce)
		}
		_, err := c.recvColl(recv, c.rank+1, tagAllreduce)
		return err
	}
	return nil
}

// AllreduceRequests is how many requests (Stats.Sends and Recvs) Allreduce starts on
// this rank: two a round of recursive doubling over the largest power of two of ranks,
// and for the first 2*(P - that power) ranks one hand-over each way, the even ones
// sitting the rounds out. Progress reports use it.
func (c *Comm) AllreduceRequests() int64 {
	p := c.Size()
	if p == 1 {
		return 0
	}
	pof2, rem := allreduceSplit(p)
	rounds := int64(bits.TrailingZeros(uint(pof2))) // log2(pof2)
	switch {
	case c.rank < 2*rem && c.rank%2 == 0:
		return 2 // hands its vector over, gets the result back
	case c.rank < 2*rem:
		return 2 + 2*rounds
	}
	return 2 * rounds
}

// allreduceSplit is how Allreduce divides p ranks: pof2, the largest power of two <= p,
// exchange by recursive doubling; the first 2*rem ranks (rem = p - pof2) pair up first.
func allreduceSplit(p int) (pof2, rem int) {
	pof2 = 1 << (bits.Len(uint(p)) - 1)
	return pof2, p - pof2
}

// AlltoallRequests is how many requests (Stats.Sends and Recvs) Alltoall starts on this
// rank: a send and a receive in each of its P-1 steps. Progress reports use it.
func (c *Comm) AlltoallRequests() int64 { return 2 * int64(c.Size()-1) }

// Alltoall is MPI_Alltoall by pairwise exchange (MPICH's algorithm for long messages):
// send and recv hold P blocks of n bytes, block i for (from) rank i. A rank copies its
// own block, then in step i = 1 .. P-1 exchanges with one partner: rank XOR i when P is
// a power of two, else it sends to rank+i and receives from rank-i (mod P). P-1 steps,
// one message each way per step.
func (c *Comm) Alltoall(send, recv Buf, n int64) error {
	c.call()
	p := int64(c.Size())
	if n < 0 || send.Len < p*n || recv.Len < p*n {
		return fmt.Errorf("mpi: rank %d: Alltoall of %d B blocks needs %d B buffers (got %d and %d)", c.rank, n, p*n, send.Len, recv.Len)
	}
	r := int64(c.rank)
	c.copyBuf(recv.Slice(r*n, n), send.Slice(r*n, n))
	pow2 := p&(p-1) == 0
	for i := int64(1); i < p; i++ {
		dst, src := (r+i)%p, (r-i+p)%p
		if pow2 {
			dst, src = r^i, r^i
		}
		if _, err := c.sendrecv(send.Slice(dst*n, n), int(dst), tagAlltoall, recv.Slice(src*n, n), int(src), tagAlltoall, ctxColl); err != nil {
			return err
		}
	}
	return nil
}

// sendColl and recvColl are blocking point-to-point calls in the collective context.
func (c *Comm) sendColl(buf Buf, dst, tag int) error {
	r, err := c.isend(buf, dst, tag, ctxColl)
	if err != nil {
		return err
	}
	_, err = c.wait(r)
	return err
}

func (c *Comm) recvColl(buf Buf, src, tag int) (Status, error) {
	r, err := c.irecv(buf, src, tag, ctxColl)
	if err != nil {
		return Status{}, err
	}
	return c.wait(r)
}
