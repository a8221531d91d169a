package actors

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// The fast exponential must give the durations of its definition, bit for bit: PHOLD's
// digest and every model that draws exponentials depend on it.
func TestExpRoundIsExpExact(t *testing.T) {
	means := []float64{1, 7, 1000, 12345, 1e6, 3.7e9, expFastMaxMean, 2 * expFastMaxMean}
	r := NewRand(1, "exp")
	n := 2_000_000
	if testing.Short() {
		n = 200_000
	}
	for i := range n {
		u := float64(r.Uint64()>>11+1) * 0x1p-53
		m := means[i%len(means)]
		require.Equal(t, expExact(u, m), expRound(u, m), "u %v (%#x) mean %v", u, math.Float64bits(u), m)
	}
	// The extremes of u and the edges of fastLog's table, where its reduction changes.
	for _, m := range means {
		for k := uint64(1); k < 1<<12; k++ {
			for _, u := range []float64{float64(k) * 0x1p-53, 1 - float64(k)*0x1p-53, math.Ldexp(1, -int(k%53))} {
				require.Equal(t, expExact(u, m), expRound(u, m), "u %v mean %v", u, m)
			}
		}
		for i := range uint64(1 << logTableBits) {
			edge := uint64(0x3fe6000000000000) + i<<(52-logTableBits)
			for _, b := range []uint64{edge - 1, edge, edge + 1} {
				for e := 0; e < 53; e += 13 {
					u := math.Ldexp(math.Float64frombits(b), -e)
					if u > 1 {
						continue
					}
					require.Equal(t, expExact(u, m), expRound(u, m), "u %v mean %v", u, m)
				}
			}
		}
	}
}

// Products that fall on a rounding boundary (n + 1/2, within the logarithms' error)
// must be answered by math.Log: build u from the boundary and check both the result
// and that the fast path alone would not have been trusted there.
func TestExpRoundDefersAtRoundingBoundaries(t *testing.T) {
	deferred := 0
	for _, m := range []float64{2, 1000, 1e6} {
		for n := 0.0; n < 30*m; n += m / 7 {
			u := math.Exp(-(math.Floor(n) + 0.5) / m)
			if u <= 0 || u > 1 {
				continue
			}
			require.Equal(t, expExact(u, m), expRound(u, m), "u %v mean %v", u, m)
			d := -fastLog(u) * m
			if f := d - math.Floor(d); math.Abs(f-0.5) <= m*3e-13+d*3e-15 {
				deferred++
			}
		}
	}
	require.Positive(t, deferred, "no constructed boundary case reached the exact path")
}

func TestFastLogError(t *testing.T) {
	r := NewRand(2, "log")
	for range 1_000_000 {
		u := float64(r.Uint64()>>11+1) * 0x1p-53
		for _, x := range []float64{u, math.Ldexp(u, -int(r.Uint64()%53))} {
			if x < 0x1p-53 {
				continue
			}
			require.InDelta(t, math.Log(x), fastLog(x), 2e-14, "x %v", x)
		}
	}
}

// BenchmarkExp compares the exponential variate with its definition (math.Log).
func BenchmarkExp(b *testing.B) {
	for _, c := range []struct {
		name string
		f    func(u, m float64) Duration
	}{{"fast", expRound}, {"exact", expExact}} {
		b.Run(c.name, func(b *testing.B) {
			r := NewRand(1, "bench")
			var sum Duration
			for b.Loop() {
				sum += c.f(float64(r.Uint64()>>11+1)*0x1p-53, 1000)
			}
			if sum < 0 {
				b.Fatal(sum)
			}
		})
	}
}
