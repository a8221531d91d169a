package actors

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
)

// workerPool is a protoactor-go Dispatcher that runs mailboxes on a fixed set of worker
// goroutines: the run's --workers. protoactor's default dispatcher starts a goroutine
// per mailbox activation; a fixed pool bounds parallelism to the worker count and,
// because idle workers poll briefly before parking, hands a new window to a partition in
// well under a microsecond instead of the several microseconds a goroutine wake-up takes.
type workerPool struct {
	tasks   chan func()
	quit    chan struct{}
	spin    int
	stopped atomic.Bool
	wg      sync.WaitGroup
}

var _ actor.Dispatcher = (*workerPool)(nil)

// poolSpin is how many times an idle worker yields and re-polls before parking.
const poolSpin = 2000

// newWorkerPool starts workers goroutines. capacity bounds the tasks outstanding at once:
// a mailbox is scheduled at most once at a time, so the number of actors suffices.
func newWorkerPool(workers, capacity int) *workerPool {
	p := &workerPool{tasks: make(chan func(), capacity), quit: make(chan struct{})}
	if workers <= runtime.GOMAXPROCS(0) {
		p.spin = poolSpin // spinning only helps when every worker can own a CPU
	}
	p.wg.Add(workers)
	for range workers {
		go p.work()
	}
	return p
}

// Schedule implements actor.Dispatcher.
func (p *workerPool) Schedule(fn func()) {
	if p.stopped.Load() {
		go fn() // late system messages during shutdown
		return
	}
	p.tasks <- fn
}

// Throughput implements actor.Dispatcher: messages a mailbox handles before yielding.
func (p *workerPool) Throughput() int { return 300 }

func (p *workerPool) work() {
	defer p.wg.Done()
	for {
		if fn := p.poll(); fn != nil {
			fn()
			continue
		}
		select {
		case fn := <-p.tasks:
			fn()
		case <-p.quit:
			return
		}
	}
}

// poll looks for a task without parking, yielding between attempts.
func (p *workerPool) poll() func() {
	for i := 0; ; i++ {
		select {
		case fn := <-p.tasks:
			return fn
		default:
		}
		if i >= p.spin {
			return nil
		}
		runtime.Gosched()
	}
}

// stop ends the workers once the actors they serve have stopped.
func (p *workerPool) stop() {
	p.stopped.Store(true)
	close(p.quit)
	p.wg.Wait()
	for { // anything scheduled while stopping still runs
		select {
		case fn := <-p.tasks:
			go fn()
		default:
			return
		}
	}
}
