package traffic

import (
	"math"
	"math/bits"

	"github.com/seastar-sim/seastar/actors"
)

// Histogram counts durations in log-linear buckets: exact below 128 ps, then 64
// buckets per power of two, so a bucket is at most 1/64 of its values wide and a
// quantile, reported as the middle of its bucket, is within 0.8% of the exact
// sample quantile. Counting is deterministic and costs no allocation once the
// bucket array has grown to the largest value seen. The zero value is empty.
type Histogram struct {
	counts []uint32
	n      uint64
	sum    actors.Duration
	max    actors.Duration
}

const (
	subBits = 6
	sub     = 1 << subBits // buckets per power of two
)

func bucketOf(v uint64) int {
	if v < 2*sub {
		return int(v)
	}
	e := bits.Len64(v) - (subBits + 1)
	return 2*sub + (e-1)*sub + int(v>>e) - sub
}

// bucketMid returns the middle of bucket i (its only value when exact).
func bucketMid(i int) actors.Duration {
	if i < 2*sub {
		return actors.Duration(i)
	}
	e := (i-2*sub)/sub + 1
	low := uint64((i-2*sub)%sub+sub) << e
	return actors.Duration(low + (uint64(1)<<e)/2)
}

// Add counts one duration (negative durations count as 0).
func (h *Histogram) Add(d actors.Duration) {
	d = max(d, 0)
	i := bucketOf(uint64(d))
	if i >= len(h.counts) {
		h.counts = append(h.counts, make([]uint32, i+1-len(h.counts))...)
	}
	h.counts[i]++
	h.n++
	h.sum += d
	h.max = max(h.max, d)
}

// Merge adds the counts of o to h.
func (h *Histogram) Merge(o *Histogram) {
	if len(o.counts) > len(h.counts) {
		h.counts = append(h.counts, make([]uint32, len(o.counts)-len(h.counts))...)
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.sum += o.sum
	h.max = max(h.max, o.max)
}

// Count is the number of durations added.
func (h *Histogram) Count() uint64 { return h.n }

// Mean is the exact mean, 0 if empty.
func (h *Histogram) Mean() actors.Duration {
	if h.n == 0 {
		return 0
	}
	return h.sum / actors.Duration(h.n)
}

// Max is the largest duration added.
func (h *Histogram) Max() actors.Duration { return h.max }

// Quantile returns the q-quantile (0 < q <= 1): the middle of the bucket holding the
// ceil(q*n)-th smallest duration, capped at Max; 0 if empty.
func (h *Histogram) Quantile(q float64) actors.Duration {
	if h.n == 0 {
		return 0
	}
	// The tolerance keeps q*n for an exact product (0.99*100) from rounding up.
	rank := uint64(math.Ceil(q*float64(h.n) - 1e-9))
	rank = min(max(rank, 1), h.n)
	var seen uint64
	for i, c := range h.counts {
		seen += uint64(c)
		if seen >= rank {
			return min(bucketMid(i), h.max)
		}
	}
	return h.max
}
