package actors

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// Rand is a per-actor pseudo-random stream (PCG-DXSM, 128-bit state). Its seed is
// derived from the run seed and the actor's hierarchical name only, so the numbers an
// actor draws do not depend on partitioning, worker count or process count.
type Rand struct {
	src rand.PCG
}

// NewRand returns the stream of the actor named name in a run seeded with seed.
func NewRand(seed uint64, name string) Rand {
	h := mix64(seed ^ hashString(name))
	var r Rand
	r.src.Seed(h, mix64(h^0x9e3779b97f4a7c15))
	return r
}

// Uint64 returns a uniformly distributed 64-bit value.
func (r *Rand) Uint64() uint64 { return r.src.Uint64() }

// Float64 returns a uniformly distributed value in [0, 1) with 53 bits of precision.
func (r *Rand) Float64() float64 { return float64(r.src.Uint64()>>11) * 0x1p-53 }

// IntN returns a uniformly distributed integer in [0, n) without modulo bias
// (Lemire's multiply-and-reject method). It panics if n <= 0.
func (r *Rand) IntN(n int) int {
	if n <= 0 {
		panic("actors: Rand.IntN with n <= 0")
	}
	hi, lo := bits.Mul64(r.src.Uint64(), uint64(n))
	if lo < uint64(n) {
		thresh := -uint64(n) % uint64(n)
		for lo < thresh {
			hi, lo = bits.Mul64(r.src.Uint64(), uint64(n))
		}
	}
	return int(hi)
}

// Exp returns an exponentially distributed duration with the given mean, rounded to
// the nearest picosecond (inverse-transform sampling). A non-positive mean yields 0.
func (r *Rand) Exp(mean Duration) Duration {
	if mean <= 0 {
		return 0
	}
	// u in (0, 1], so the logarithm is finite.
	return expRound(float64(r.src.Uint64()>>11+1)*0x1p-53, float64(mean))
}

// expRound returns Round(-Log(u) * m) as a Duration, exactly as expExact does, but
// mostly without math.Log (about a quarter of a PHOLD event's time on amd64): it
// computes the product with fastLog, whose error is known, and answers from it unless
// the product lies so near a rounding boundary (n + 1/2) that the error could put
// math.Log's product on the other side; then, about once in 10^8 draws at a mean of a
// nanosecond, it asks math.Log. The bound: fastLog is within 2e-14 of log u (below),
// math.Log within one ulp (under 8e-15 for u >= 2^-53), so the two logarithms differ
// by under 3e-14 and the two products by under m*3e-14 plus two roundings of d (each
// d*2^-53); eps is ten times that.
func expRound(u, m float64) Duration {
	if m <= expFastMaxMean {
		d := -fastLog(u) * m
		f := d - float64(int64(d)) // d >= -1e-13: truncation is the floor, or 0
		if eps := m*3e-13 + d*3e-15; math.Abs(f-0.5) > eps {
			// d + 1/2 is rounded at most by ulp(d) < eps, so it stays on its side of
			// the boundary and its truncation is the rounded d.
			return Duration(d + 0.5)
		}
	}
	return expExact(u, m)
}

// expExact is the definition expRound answers for.
func expExact(u, m float64) Duration {
	d := -math.Log(u) * m
	if d >= math.MaxInt64 {
		return Duration(math.MaxInt64)
	}
	return Duration(math.Round(d))
}

// expFastMaxMean bounds the means expRound computes itself: -log u <= 36.8 for
// u >= 2^-53, so the product stays below 2^46 and its floor and fraction are exact.
const expFastMaxMean = 1e12

// fastLog returns log x for x in [2^-53, 1] within 2e-14 (absolute): x = 2^k z with z
// in [0.6875, 1.375); z times the reciprocal of the centre c of its 1/128th of that
// range is 1 + r with |r| <= 2^-8, and log x = k ln2 + log c + log1p(r), with log1p(r)
// from its Taylor series to r^5 (the rest is under 6e-16). The errors: k ln2 (k <= 53)
// rounded, 4e-15; log c from math.Log, one ulp, 1e-16; r from one rounded product near
// 1, 1.2e-16; the series and the two sums a few ulps of their results, 1e-14 at most.
func fastLog(x float64) float64 {
	ix := math.Float64bits(x)
	tmp := ix - logRangeStart
	i := (tmp >> (52 - logTableBits)) % (1 << logTableBits)
	k := float64(int64(tmp) >> 52)
	z := math.Float64frombits(ix - tmp&(0xfff<<52))
	e := &logTable[i]
	r := z*e.invc - 1
	// log1p(r) = r - r^2/2 + r^3/3 - r^4/4 + r^5/5, grouped to shorten the chain of
	// dependent operations (Estrin's scheme)
	r2 := r * r
	p := r + r2*(-1.0/2+r*(1.0/3)) + r2*r2*(-1.0/4+r*(1.0/5))
	return k*math.Ln2 + e.logc + p
}

const logTableBits = 7

// logRangeStart is the bit pattern of 0.6875, where fastLog's range of z begins.
const logRangeStart = 0x3fe6000000000000

// logTable holds, for each 1/128th of [0.6875, 1.375), the reciprocal of its centre
// and that reciprocal's negated logarithm (so that log z = logc + log1p(z*invc - 1)
// whatever rounding invc took). The sub-range that ends at 1 has its centre replaced by
// 1, so that x just below 1 gives r = x - 1 exactly and log x keeps its small size.
var logTable = func() (t [1 << logTableBits]struct{ invc, logc float64 }) {
	for i := range t {
		lo := math.Float64frombits(logRangeStart + uint64(i)<<(52-logTableBits))
		hi := math.Float64frombits(logRangeStart + uint64(i+1)<<(52-logTableBits))
		c := (lo + hi) / 2
		if lo < 1 && 1 <= hi {
			c = 1
		}
		t[i].invc = 1 / c
		t[i].logc = -math.Log(t[i].invc)
	}
	return t
}()

// hashString is 64-bit FNV-1a.
func hashString(s string) uint64 {
	h := uint64(0xcbf29ce484222325)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 0x100000001b3
	}
	return h
}

// Mix64 is the SplitMix64 finalizer, a bijective avalanche of 64 bits: the hash the
// engine's digests are built with, for packages that derive ids the same way (traces).
func Mix64(x uint64) uint64 { return mix64(x) }

// mix64 is the SplitMix64 finalizer: a bijective avalanche of 64 bits.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
