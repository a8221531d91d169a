package params

import (
	"strings"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSizes(t *testing.T) {
	for in, want := range map[string][]actors.Bytes{
		"0,8,1K":       {0, 8, 1024},
		"0:16:x2":      {0, 1, 2, 4, 8, 16},
		"1K:4K:x2":     {1024, 2048, 4096},
		"0:4K:+1K":     {0, 1024, 2048, 3072, 4096},
		"100:250:+100": {100, 200},
		"0:2M:x2, 3":   append(append([]actors.Bytes{0}, pow2(0, 21)...), 3),
		" 64B , 100K ": {64, 102400},
		"5:5:x2":       {5},
		"0:0:+1":       {0},
		"1M:3M:x3":     {1 << 20, 3 << 20},
	} {
		got, err := ParseSizes(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
}

func pow2(lo, hi int) []actors.Bytes {
	var out []actors.Bytes
	for i := lo; i <= hi; i++ {
		out = append(out, actors.Bytes(1)<<i)
	}
	return out
}

func TestParseSizesErrors(t *testing.T) {
	for in, want := range map[string]string{
		"":           "empty size list",
		"5 furlongs": `"5 furlongs"`,
		"-8":         "negative",
		"8:4:x2":     "end 4B is below start 8B",
		"0:4K:x1":    `factor "x1"`,
		"0:4K:*2":    `step "*2"`,
		"0:4K:+0":    `step "+0"`,
		"0:4K":       "want a:b:xk",
		"0:1T:+1":    "more than 10000 sizes",
		"1,,2":       "invalid size",
	} {
		_, err := ParseSizes(in)
		require.Error(t, err, in)
		assert.True(t, strings.Contains(err.Error(), want), "%q: %v", in, err)
	}
}

// FuzzParseSizes: no panic, no huge lists, every rejection is an error with a message.
func FuzzParseSizes(f *testing.F) {
	for _, s := range []string{"0,8,1K", "0:2M:x2", "0:4K:+512", "", "1:2:x", "9223372036854775807:9223372036854775807:x2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseSizes(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		if len(got) == 0 || len(got) > MaxListLen {
			t.Fatalf("%q: %d sizes", s, len(got))
		}
		for _, b := range got {
			if b < 0 {
				t.Fatalf("%q: negative size %d", s, b)
			}
		}
	})
}
