package sweep

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seastar-sim/seastar/params"
)

func TestCombine(t *testing.T) {
	lists := []List{{Key: "a", Values: []string{"1", "2"}}, {Key: "b", Values: []string{"x", "y", "z"}}}
	str := func(pts [][]params.KV) string {
		var s []string
		for _, p := range pts {
			var kv []string
			for _, v := range p {
				kv = append(kv, v.Key+v.Value)
			}
			s = append(s, strings.Join(kv, ""))
		}
		return strings.Join(s, " ")
	}
	pts, err := Combine(lists, false)
	require.NoError(t, err)
	assert.Equal(t, "a1bx a1by a1bz a2bx a2by a2bz", str(pts))
	_, err = Combine(lists, true)
	assert.ErrorContains(t, err, "--vary a has 2 values and --vary b has 3")
	pts, err = Combine([]List{lists[1], {Key: "c", Values: []string{"p", "q", "r"}}}, true)
	require.NoError(t, err)
	assert.Equal(t, "bxcp bycq bzcr", str(pts))
	big := List{Key: "k", Values: make([]string, 101)}
	_, err = Combine([]List{big, big, big}, false)
	assert.ErrorContains(t, err, "more than 10000 points")
}

// The progress of a resumed sweep, from several workers at once.
func TestProgress(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, false, 10, 4, 3)
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() { p.PointDone(true) })
	}
	wg.Wait()
	p.Finish()
	assert.Contains(t, buf.String(), "sweep: 10 points, 4 finished before (--resume), 6 to run, 3 at a time\n")
	assert.Contains(t, buf.String(), "sweep: 10/10 points, ETA 0s\n")
}

// Run runs every item once, and the first error stops launching the rest.
func TestRun(t *testing.T) {
	var ran atomic.Int64
	seen := make([]atomic.Bool, 50)
	require.NoError(t, Run(context.Background(), 50, 4, func(_ context.Context, i int) error {
		ran.Add(1)
		assert.False(t, seen[i].Swap(true), "item %d twice", i)
		return nil
	}))
	assert.Equal(t, int64(50), ran.Load())

	boom := errors.New("boom")
	ran.Store(0)
	err := Run(context.Background(), 1000, 1, func(ctx context.Context, i int) error {
		ran.Add(1)
		if i == 3 {
			return boom
		}
		return ctx.Err()
	})
	assert.ErrorIs(t, err, boom)
	assert.Less(t, ran.Load(), int64(10), "launching stops at the first error")
}

// ParseVary checks keys and values against the parameter tree, and takes seeds.
func TestParseVary(t *testing.T) {
	cfg := struct {
		Clock string `param:"clock" help:"h" source:"s"`
	}{Clock: "x"}
	tr, err := params.New(&cfg)
	require.NoError(t, err)
	ls, err := ParseVary(tr, []string{"seed=1:3:+1"})
	require.NoError(t, err)
	assert.Equal(t, []List{{Key: "seed", Values: []string{"1", "2", "3"}}}, ls)
	_, err = ParseVary(tr, []string{"seed=1", "seed=2"})
	assert.ErrorContains(t, err, "given twice")
	_, err = ParseVary(tr, []string{"clock"})
	assert.ErrorContains(t, err, "want KEY=LIST")
}
