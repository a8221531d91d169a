package actors

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every task scheduled on the pool runs exactly once, whatever the interleaving of
// producers, spinning workers and parked workers.
func TestWorkerPoolRunsEveryTaskOnce(t *testing.T) {
	for _, workers := range []int{1, 2, 4, -1, -2} { // negative: as many, never spinning
		p := newWorkerPool(max(workers, -workers), 64, workers > 0, false)
		require.Equal(t, 300, p.Dispatcher(0).Throughput())
		const producers, perProducer = 4, 2000
		var ran [producers * perProducer]atomic.Int32
		var done sync.WaitGroup
		done.Add(producers * perProducer)
		var inflight sync.WaitGroup
		for g := range producers {
			inflight.Add(1)
			go func() {
				defer inflight.Done()
				for i := range perProducer {
					k := g*perProducer + i
					p.Dispatcher(k).Schedule(func() { ran[k].Add(1); done.Done() })
					if i%64 == 63 {
						runtime.Gosched() // let workers drain and park now and then
					}
				}
			}()
		}
		inflight.Wait()
		done.Wait()
		p.stop()
		for k := range ran {
			require.Equal(t, int32(1), ran[k].Load(), "task %d with %d workers", k, workers)
		}
	}
}

func TestTaskQueueBoundsAndOrder(t *testing.T) {
	var q taskQueue
	q.init(3) // rounded up to 4
	var order []int
	for i := range 4 {
		require.True(t, q.push(func() { order = append(order, i) }))
	}
	assert.False(t, q.push(func() {}), "full queue accepts no more")
	for fn := q.pop(); fn != nil; fn = q.pop() {
		fn()
	}
	assert.Equal(t, []int{0, 1, 2, 3}, order)
	assert.Nil(t, q.pop())
}
