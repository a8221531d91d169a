package params

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSI(t *testing.T) {
	for _, c := range []struct{ kind, text, value, unit string }{
		{KindDuration, "75ns", "0.000000075", "s"},
		{KindDuration, "1.5us", "0.0000015", "s"},
		{KindTime, "2s", "2", "s"},
		{KindDuration, "1ps", "0.000000000001", "s"},
		{KindFreq, "250MHz", "250000000", "Hz"},
		{KindSize, "4KiB", "4096", "B"},
		{KindBandwidth, "2.5GB/s", "2500000000", "B/s"},
		{KindProb, "25%", "0.25", "1"},
		{KindInt, "30", "30", "count"},
		{KindUint, "18446744073709551615", "18446744073709551615", "count"},
		{KindFloat, "0.50", "0.5", ""},
	} {
		v, u, ok := SI(c.kind, c.text)
		assert.True(t, ok, c.text)
		assert.Equal(t, c.value, v, c.text)
		assert.Equal(t, c.unit, u, c.text)
	}
	for _, c := range [][2]string{{KindBool, "true"}, {KindEnum, "age"}, {KindString, "2x1x1"}, {KindFreq, "fast"}} {
		_, _, ok := SI(c[0], c[1])
		assert.False(t, ok, c)
	}
}
