package results

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The statistics of a hand-computed case: 1, 2, 3, 4.
func TestSummarize(t *testing.T) {
	st := Summarize([]float64{1, 2, 3, 4})
	assert.Equal(t, 4, st.n)
	assert.InDelta(t, 2.5, st.mean, 1e-12)
	assert.InDelta(t, math.Sqrt(5.0/3), st.sd, 1e-12) // sum of squares 5, n-1 = 3
	half := 3.182 * math.Sqrt(5.0/3) / 2              // t(0.975, 3) * sd / sqrt(4)
	assert.InDelta(t, 2.5-half, st.lo, 1e-12)
	assert.InDelta(t, 2.5+half, st.hi, 1e-12)
	one := Summarize([]float64{7})
	assert.Equal(t, 7.0, one.mean)
	assert.True(t, math.IsNaN(one.sd) && math.IsNaN(one.lo), "no spread from one value")
	assert.InDelta(t, 1.96, t975(100000), 1e-3)
	assert.InDelta(t, 2.0395, t975(31), 1e-3)
}
