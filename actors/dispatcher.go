package actors

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
)

// workerPool runs protoactor-go mailboxes on a fixed set of worker goroutines: the
// run's --workers. protoactor's default dispatcher starts a goroutine per mailbox
// activation; a fixed pool bounds parallelism to the worker count and, because idle
// workers poll lock-free queues before parking, hands a new window to a partition in
// well under a microsecond.
//
// Every worker has its own queue and every actor a home worker (Dispatcher(k)): a
// partition keeps running on the same CPU, so its heap and its actors' state stay in
// that CPU's cache. With one partition per block, hundreds of partitions run per
// window; if they wandered between workers their data would follow them across caches
// on every activation. A worker whose queue is empty steals from the queues of workers
// busy running a task before it parks, so an uneven share still keeps every worker busy;
// it leaves an idle worker's tasks to that worker, which is polling or has been woken
// for them.
type workerPool struct {
	workers  []poolWorker
	sleeping atomic.Int32 // workers parked or about to park
	quit     atomic.Bool
	spin     int
	// low: the workers' threads run at the lowest CPU priority (Options.LowPriority).
	// Each worker's goroutine is then locked to its thread, and no worker steals: a
	// host's coroutines may only be resumed on the thread they began on.
	low     bool
	stopped atomic.Bool
	wg      sync.WaitGroup
}

type poolWorker struct {
	q      taskQueue
	wake   chan struct{} // a token wakes the parked worker
	parked atomic.Bool
	// busy is set while the worker runs a task: only then may others steal from its
	// queue. An idle worker takes its own tasks within a poll (or is woken for them),
	// and a steal then would only move a partition's data to another CPU's cache: PHOLD
	// on two workers, two partitions, stole about 60,000 times in 38,000 windows.
	busy atomic.Bool
}

// poolSpin is how many times an idle worker yields and re-polls before parking.
const poolSpin = 2000

// newWorkerPool starts workers goroutines. capacity bounds the tasks outstanding at once
// on one worker: a mailbox is scheduled at most once at a time, so the number of actors
// suffices. Idle workers spin before parking if spin is set and every worker can own a
// CPU. A process of a run across processes does not spin: the wait for its next window
// is for messages from the other processes (about 100 us each here), which a wake-up
// barely adds to, and a spinning worker takes the CPU from a peer process on the same
// machine (halo3d 16x16x16 on two processes: 15.5-16.9 s spinning, 14.5-16.0 s not;
// cci-pingpong 1.85-1.97 s against 1.46-1.53 s, when a window was a round trip to the
// coordinator).
func newWorkerPool(workers, capacity int, spin, low bool) *workerPool {
	p := &workerPool{workers: make([]poolWorker, workers), low: low}
	if spin && workers <= runtime.GOMAXPROCS(0) {
		p.spin = poolSpin
	}
	for k := range p.workers {
		p.workers[k].q.init(capacity)
		p.workers[k].wake = make(chan struct{}, 1)
	}
	p.wg.Add(workers)
	for k := range p.workers {
		go p.work(k)
	}
	return p
}

// Dispatcher returns the protoactor dispatcher of the actors whose home is worker
// k mod the worker count.
func (p *workerPool) Dispatcher(k int) actor.Dispatcher {
	return poolDispatcher{p: p, k: k % len(p.workers)}
}

type poolDispatcher struct {
	p *workerPool
	k int
}

var _ actor.Dispatcher = poolDispatcher{}

// Schedule implements actor.Dispatcher.
func (d poolDispatcher) Schedule(fn func()) { d.p.schedule(d.k, fn) }

// Throughput implements actor.Dispatcher: messages a mailbox handles before yielding.
func (d poolDispatcher) Throughput() int { return 300 }

func (p *workerPool) schedule(k int, fn func()) {
	if p.stopped.Load() {
		go fn() // late system messages during shutdown
		return
	}
	for !p.workers[k].q.push(fn) {
		runtime.Gosched() // cannot happen with the capacity newWorkerPool is given
	}
	if p.sleeping.Load() == 0 {
		return
	}
	// Wake the home worker if it is parked, else any parked worker, to steal it (none
	// steals from a pool of locked threads: low).
	if !p.wakeWorker(k) && !p.low {
		for j := range p.workers {
			if p.wakeWorker(j) {
				return
			}
		}
	}
}

func (p *workerPool) wakeWorker(k int) bool {
	w := &p.workers[k]
	if !w.parked.Load() {
		return false
	}
	select {
	case w.wake <- struct{}{}:
	default: // a token is already pending
	}
	return true
}

func (p *workerPool) work(k int) {
	defer p.wg.Done()
	if p.low {
		// For good: the goroutine never unlocks, so the runtime ends the thread when
		// the worker returns, and no other goroutine runs at its priority.
		runtime.LockOSThread()
		_ = lowerThread() // ProbeLowPriority told the caller whether it can
	}
	w := &p.workers[k]
	for !p.quit.Load() {
		if fn := p.poll(k); fn != nil {
			p.run(k, fn)
			continue
		}
		// Park. Announce it first and look again, so that a task pushed before the
		// announcement is seen here and one pushed after it sends a wake token.
		w.parked.Store(true)
		p.sleeping.Add(1)
		if fn := p.take(k); fn != nil {
			w.parked.Store(false)
			p.sleeping.Add(-1)
			p.run(k, fn)
			continue
		}
		if !p.quit.Load() {
			<-w.wake
		}
		w.parked.Store(false)
		p.sleeping.Add(-1)
	}
}

// run runs task fn on worker k, its queue open to thieves meanwhile.
func (p *workerPool) run(k int, fn func()) {
	w := &p.workers[k]
	w.busy.Store(true)
	p.wakeFor(k)
	fn()
	w.busy.Store(false)
}

// wakeFor passes a wake-up on: worker k, about to run the task it took, wakes another
// parked worker when a queue still holds a task. A producer that saw k parked counted
// on k for its task, but k may have taken another one, and a task can run for long (in
// horizon mode a partition spins until its neighbours run too): without the hand-on,
// the producer's task would wait in a queue while parked workers sleep, and an epoch
// whose partitions all need a worker would never end. k has already cleared its parked
// flag, so either the producer saw that and woke another worker, or k sees the task.
// In a pool of locked threads (low) a task waits for its own worker only, which the
// producer woke or which finds it in its queue: no hand-on.
func (p *workerPool) wakeFor(k int) {
	if p.low || p.sleeping.Load() == 0 {
		return
	}
	n := len(p.workers)
	for j := range p.workers {
		if p.workers[j].q.pending() {
			for i := 1; i < n; i++ {
				if p.wakeWorker((k + i) % n) {
					return
				}
			}
			return
		}
	}
}

// take returns a task of worker k's own queue, else one stolen from a busy worker
// (unless the pool's threads are locked: low).
func (p *workerPool) take(k int) func() {
	if fn := p.workers[k].q.pop(); fn != nil || p.low {
		return fn
	}
	for i := 1; i < len(p.workers); i++ {
		v := &p.workers[(k+i)%len(p.workers)]
		if !v.busy.Load() {
			continue
		}
		if fn := v.q.pop(); fn != nil {
			return fn
		}
	}
	return nil
}

// poolStealAfter is how many polls of its own queue an idle worker makes before it
// steals. The coordinator hands out a window while it runs on its worker, so without
// the wait the other worker stole the coordinator's own partition as soon as it was
// queued, and the coordinator's worker then stole the thief's: PHOLD on two workers
// (two partitions) swapped its partitions between the CPUs at most windows, about
// 60,000 steals in 38,000.
const poolStealAfter = 64

// poll looks for a task without parking, yielding between attempts.
func (p *workerPool) poll(k int) func() {
	for i := 0; ; i++ {
		if i < poolStealAfter {
			if fn := p.workers[k].q.pop(); fn != nil {
				return fn
			}
		} else if fn := p.take(k); fn != nil {
			return fn
		}
		if i >= p.spin {
			return nil
		}
		runtime.Gosched()
	}
}

// lowerThread lowers the calling thread's priority (lowerPriority); a test of the
// locking alone replaces it.
var lowerThread = lowerPriority

// finish calls the Finish of the actors of every partition, each on the worker that
// ran it, home[i] for partition parts[i], and waits: on a pool of locked threads
// (low), a host's coroutines may only be stopped on the thread that resumed them.
func (p *workerPool) finish(m *Model, parts []*partition, home []int) {
	var wg sync.WaitGroup
	wg.Add(len(parts))
	for i, pt := range parts {
		p.schedule(home[i], func() {
			defer wg.Done()
			for _, id := range pt.actors {
				finish(m.actors[id])
			}
		})
	}
	wg.Wait()
}

// stop ends the workers once the actors they serve have stopped.
func (p *workerPool) stop() {
	p.stopped.Store(true)
	p.quit.Store(true)
	for k := range p.workers {
		select {
		case p.workers[k].wake <- struct{}{}:
		default:
		}
	}
	p.wg.Wait()
	for k := range p.workers {
		for fn := p.workers[k].q.pop(); fn != nil; fn = p.workers[k].q.pop() {
			go fn() // anything scheduled while stopping still runs
		}
	}
}

// taskQueue is a bounded lock-free multi-producer multi-consumer queue (Vyukov's
// algorithm): each cell carries a sequence number that tells producers and consumers
// whose turn it is, so an operation is one compare-and-swap on the shared position.
type taskQueue struct {
	cells []taskCell
	mask  uint64
	_     [56]byte
	enq   atomic.Uint64
	_     [56]byte
	deq   atomic.Uint64
	_     [56]byte
}

type taskCell struct {
	seq atomic.Uint64
	fn  func()
}

func (q *taskQueue) init(capacity int) {
	n := 2
	for n < capacity {
		n *= 2
	}
	q.cells = make([]taskCell, n)
	q.mask = uint64(n - 1)
	for i := range q.cells {
		q.cells[i].seq.Store(uint64(i))
	}
}

// push appends fn; false if the queue is full.
func (q *taskQueue) push(fn func()) bool {
	pos := q.enq.Load()
	for {
		c := &q.cells[pos&q.mask]
		switch d := int64(c.seq.Load()) - int64(pos); {
		case d == 0:
			if q.enq.CompareAndSwap(pos, pos+1) {
				c.fn = fn
				c.seq.Store(pos + 1)
				return true
			}
			pos = q.enq.Load()
		case d < 0:
			return false
		default:
			pos = q.enq.Load()
		}
	}
}

// pending reports whether the queue holds a task (or one being pushed).
func (q *taskQueue) pending() bool { return q.enq.Load() != q.deq.Load() }

// pop removes the oldest task; nil if the queue is empty.
func (q *taskQueue) pop() func() {
	pos := q.deq.Load()
	for {
		c := &q.cells[pos&q.mask]
		switch d := int64(c.seq.Load()) - int64(pos+1); {
		case d == 0:
			if q.deq.CompareAndSwap(pos, pos+1) {
				fn := c.fn
				c.fn = nil
				c.seq.Store(pos + q.mask + 1)
				return fn
			}
			pos = q.deq.Load()
		case d < 0:
			return nil
		default:
			pos = q.deq.Load()
		}
	}
}
