package actors

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

type stashed struct{ holder atomic.Int32 }

func TestStashSurvivesCollections(t *testing.T) {
	// One P, so that every value is on its list or in the overflow, where this
	// goroutine takes them from.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var st stash[stashed]
	xs := make([]*stashed, 3*stashBatch) // more than a P's list: some go to the overflow
	for i := range xs {
		xs[i] = new(stashed)
		st.put(xs[i])
	}
	runtime.GC()
	runtime.GC() // a sync.Pool would be empty now
	got := map[*stashed]bool{}
	for range xs {
		x := st.get()
		require.NotNil(t, x, "every value put is there after two collections")
		require.False(t, got[x], "a value comes back once")
		got[x] = true
	}
	require.Nil(t, st.get(), "and no other")
}

func TestStashHandsAValueToOneHolder(t *testing.T) {
	var st stash[stashed]
	workers, rounds := 4, 20000
	if raceDetector {
		rounds = 2000
	}
	var wg sync.WaitGroup
	var twice atomic.Int32
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var held []*stashed
			for i := range rounds {
				x := st.get()
				if x == nil {
					x = new(stashed)
				}
				if !x.holder.CompareAndSwap(0, int32(w+1)) {
					twice.Add(1)
				}
				held = append(held, x)
				// Release in bursts, so that lists fill and spill to the overflow.
				if i%(3*stashBatch) == 0 || len(held) > 5*stashBatch {
					for _, y := range held {
						y.holder.Store(0)
						st.put(y)
					}
					held = held[:0]
				}
			}
		}()
	}
	wg.Wait()
	require.Zero(t, twice.Load(), "no value was handed to two holders at once")
}

// BenchmarkPoolNewRelease is a recycled value's round trip (New, then Release) through
// a Pool, alone and on every P at once, beside the same through a sync.Pool (the
// Pool's store before the stash): the ratio is what the stash costs or saves.
func BenchmarkPoolNewRelease(b *testing.B) {
	var held [16]*pooledThing // a holder keeps a few, as a NIC keeps packets in flight
	b.Run("stash", func(b *testing.B) {
		var p Pool[pooledThing, *pooledThing]
		b.ReportAllocs()
		for i := range b.N {
			k := i % len(held)
			if held[k] != nil {
				p.Release(held[k])
			}
			held[k] = p.New(pooledThing{n: i})
		}
	})
	b.Run("sync.Pool", func(b *testing.B) {
		var p sync.Pool
		b.ReportAllocs()
		for i := range b.N {
			k := i % len(held)
			if held[k] != nil {
				*held[k] = pooledThing{}
				p.Put(held[k])
			}
			x, _ := p.Get().(*pooledThing)
			if x == nil {
				x = new(pooledThing)
			}
			*x = pooledThing{n: i}
			held[k] = x
		}
	})
	b.Run("stash-parallel", func(b *testing.B) {
		var p Pool[pooledThing, *pooledThing]
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				p.Release(p.New(pooledThing{n: 1}))
			}
		})
	})
	b.Run("sync.Pool-parallel", func(b *testing.B) {
		var p sync.Pool
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				x, _ := p.Get().(*pooledThing)
				if x == nil {
					x = new(pooledThing)
				}
				*x = pooledThing{n: 1}
				*x = pooledThing{}
				p.Put(x)
			}
		})
	})
}
