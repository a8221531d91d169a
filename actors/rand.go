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
	u := float64(r.src.Uint64()>>11+1) * 0x1p-53
	d := -math.Log(u) * float64(mean)
	if d >= math.MaxInt64 {
		return Duration(math.MaxInt64)
	}
	return Duration(math.Round(d))
}

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
