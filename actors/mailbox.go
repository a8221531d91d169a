package actors

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
)

// engineMailbox is the protoactor mailbox of the engine's own actors: the partitions
// and the coordinators. protoactor's default mailbox gives its dispatcher a new method
// value each time it goes from idle to scheduled, a heap allocation per partition per
// window (13 bytes an event in BenchmarkPHOLD/parallel/block/workers=2, whose windows
// hold few events); this one binds its run once, when it is made. It keeps the default
// mailbox's contract: scheduled at most once at a time (the worker pool's queues are
// sized on that), system messages before user messages, no user message while
// suspended, a panic escalated to the invoker, a yield after the dispatcher's
// throughput.
type engineMailbox struct {
	mu        sync.Mutex
	user, sys FIFO[any] // under mu
	scheduled atomic.Bool
	suspended atomic.Bool

	invoker    actor.MessageInvoker
	dispatcher actor.Dispatcher
	process    func() // m.processMessages, bound once
}

var _ actor.Mailbox = (*engineMailbox)(nil)

func newEngineMailbox() actor.Mailbox {
	m := &engineMailbox{}
	m.process = m.processMessages
	return m
}

// PostUserMessage implements actor.Mailbox. The engine's actors are sent their own
// message types only, never protoactor's batches.
func (m *engineMailbox) PostUserMessage(msg any) { m.post(&m.user, msg) }

// PostSystemMessage implements actor.Mailbox.
func (m *engineMailbox) PostSystemMessage(msg any) { m.post(&m.sys, msg) }

func (m *engineMailbox) post(q *FIFO[any], msg any) {
	m.mu.Lock()
	q.Push(msg)
	m.mu.Unlock()
	m.schedule()
}

// RegisterHandlers implements actor.Mailbox.
func (m *engineMailbox) RegisterHandlers(invoker actor.MessageInvoker, dispatcher actor.Dispatcher) {
	m.invoker, m.dispatcher = invoker, dispatcher
}

// Start implements actor.Mailbox.
func (m *engineMailbox) Start() {}

// UserMessageCount implements actor.Mailbox.
func (m *engineMailbox) UserMessageCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.user.Len()
}

func (m *engineMailbox) schedule() {
	if m.scheduled.CompareAndSwap(false, true) {
		m.dispatcher.Schedule(m.process)
	}
}

func (m *engineMailbox) processMessages() {
	for {
		m.run()
		m.scheduled.Store(false)
		// A message posted after run found nothing to take but before the flag fell
		// did not schedule the mailbox: run again for it, unless its poster has
		// since scheduled it.
		if !m.ready() || !m.scheduled.CompareAndSwap(false, true) {
			return
		}
	}
}

// ready reports whether a message may be taken.
func (m *engineMailbox) ready() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.sys.Len() > 0 || m.user.Len() > 0 && !m.suspended.Load()
}

// next takes the next message to handle: a system message first, then a user
// message unless the mailbox is suspended.
func (m *engineMailbox) next() (msg any, system bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sys.Len() > 0 {
		return m.sys.Pop(), true
	}
	if m.user.Len() > 0 && !m.suspended.Load() {
		return m.user.Pop(), false
	}
	return nil, false
}

func (m *engineMailbox) run() {
	var msg any
	defer func() {
		if r := recover(); r != nil {
			m.invoker.EscalateFailure(r, msg)
		}
	}()
	for i, t := 0, m.dispatcher.Throughput(); ; i++ {
		if i > t {
			i = 0
			runtime.Gosched()
		}
		var system bool
		if msg, system = m.next(); msg == nil {
			return
		}
		if !system {
			m.invoker.InvokeUserMessage(msg)
			continue
		}
		switch msg.(type) {
		case *actor.SuspendMailbox:
			m.suspended.Store(true)
		case *actor.ResumeMailbox:
			m.suspended.Store(false)
		default:
			m.invoker.InvokeSystemMessage(msg)
		}
	}
}
