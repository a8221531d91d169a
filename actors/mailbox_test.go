package actors

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recordingInvoker records what a mailbox hands it, in order.
type recordingInvoker struct {
	mu       sync.Mutex
	got      []string
	failures []any
	onUser   func(msg any)
}

func (r *recordingInvoker) add(s string) {
	r.mu.Lock()
	r.got = append(r.got, s)
	r.mu.Unlock()
}

func (r *recordingInvoker) InvokeSystemMessage(msg any) { r.add("sys:" + msg.(string)) }

func (r *recordingInvoker) InvokeUserMessage(msg any) {
	if r.onUser != nil {
		r.onUser(msg)
	}
	if s, ok := msg.(string); ok {
		r.add(s)
	}
}

func (r *recordingInvoker) EscalateFailure(reason, msg any) {
	r.mu.Lock()
	r.failures = append(r.failures, reason, msg)
	r.mu.Unlock()
}

// heldDispatcher keeps what the mailbox schedules until the test runs it.
type heldDispatcher struct{ fns []func() }

func (d *heldDispatcher) Schedule(fn func()) { d.fns = append(d.fns, fn) }
func (d *heldDispatcher) Throughput() int    { return 3 }

func (d *heldDispatcher) runAll() {
	for len(d.fns) > 0 {
		fn := d.fns[0]
		d.fns = d.fns[1:]
		fn()
	}
}

// The engine's mailbox keeps protoactor's contract: scheduled once while messages wait,
// system messages first, user messages held while suspended and handed over in order.
func TestEngineMailboxOrderAndSuspension(t *testing.T) {
	inv, d := &recordingInvoker{}, &heldDispatcher{}
	m := newEngineMailbox()
	m.RegisterHandlers(inv, d)
	m.Start()
	m.PostUserMessage("u1")
	m.PostUserMessage("u2")
	m.PostSystemMessage("s1")
	require.Len(t, d.fns, 1, "scheduled once while it waits to run")
	assert.Equal(t, 2, m.UserMessageCount())
	d.runAll()
	assert.Equal(t, []string{"sys:s1", "u1", "u2"}, inv.got)
	assert.Zero(t, m.UserMessageCount())

	inv.got = nil
	m.PostSystemMessage(&actor.SuspendMailbox{})
	d.runAll()
	for i := range 5 { // more than the throughput: the yield does not lose any
		m.PostUserMessage(string(rune('a' + i)))
	}
	d.runAll()
	assert.Empty(t, inv.got, "nothing handed over while suspended")
	assert.Equal(t, 5, m.UserMessageCount())
	m.PostSystemMessage(&actor.ResumeMailbox{})
	d.runAll()
	assert.Equal(t, []string{"a", "b", "c", "d", "e"}, inv.got)
	assert.Empty(t, d.fns)
}

// A panic in a handler goes to the invoker with the message, and the mailbox runs on.
func TestEngineMailboxEscalatesAPanic(t *testing.T) {
	inv, d := &recordingInvoker{}, &heldDispatcher{}
	inv.onUser = func(msg any) {
		if msg == "boom" {
			panic("handler failed")
		}
	}
	m := newEngineMailbox()
	m.RegisterHandlers(inv, d)
	m.PostUserMessage("boom")
	d.runAll()
	assert.Equal(t, []any{"handler failed", "boom"}, inv.failures)
	m.PostUserMessage("after")
	d.runAll()
	assert.Equal(t, []string{"after"}, inv.got)
}

// Posting and running allocate nothing once the queues have their arrays: protoactor's
// default mailbox allocated a method value each time it was scheduled.
func TestEngineMailboxSchedulesWithoutAllocating(t *testing.T) {
	inv, d := &recordingInvoker{}, &heldDispatcher{fns: make([]func(), 0, 4)}
	m := newEngineMailbox()
	m.RegisterHandlers(inv, d)
	msg := &windowStart{}
	allocs := testing.AllocsPerRun(1000, func() {
		m.PostUserMessage(msg)
		d.fns[0]()
		d.fns = d.fns[:0]
	})
	assert.Zero(t, allocs)
}

// Messages posted from many goroutines while the mailbox runs on the worker pool are
// each handled once, in each poster's order, and never by two workers at once.
func TestEngineMailboxConcurrentPosters(t *testing.T) {
	const posters, each = 4, 3000
	p := newWorkerPool(2, 8, true, false)
	defer p.stop()
	var running atomic.Int32
	next := make([]int, posters)
	var done sync.WaitGroup
	done.Add(posters * each)
	inv := &recordingInvoker{onUser: func(msg any) {
		if running.Add(1) != 1 {
			t.Error("two workers ran the mailbox at once")
		}
		v := msg.([2]int)
		if v[1] != next[v[0]] {
			t.Errorf("poster %d: message %d handled, %d expected", v[0], v[1], next[v[0]])
		}
		next[v[0]] = v[1] + 1
		running.Add(-1)
		done.Done()
	}}
	m := newEngineMailbox()
	m.RegisterHandlers(inv, p.Dispatcher(0))
	var posting sync.WaitGroup
	for k := range posters {
		posting.Add(1)
		go func() {
			defer posting.Done()
			for i := range each {
				m.PostUserMessage([2]int{k, i})
			}
		}()
	}
	posting.Wait()
	done.Wait()
	assert.Equal(t, []int{each, each, each, each}, next)
}
