// Package firmware is what the embedded processors of every NIC family share: the main
// loop of polling firmware. The firmware of a SeaStar's PowerPC (package ppc) and of a
// StarT-JR card's i960 (package startjr/i960) is a loop that polls its devices and runs
// one handler to completion per event found; an event that arrives while a handler runs
// waits for the loop to come round (one poll pass), in arrival order.
//
// A Loop is the queue and the clock of that loop, embedded in a processor's actor: the
// actor hands it every event (Enqueue), runs the handler of the event Next returns when
// the loop's timer (Tick) fires, and reports the handler's duration (Done). The costs of
// a handler (instructions, cycles per access) stay with the processor's own model.
//
//	message   port   effect
//	Tick      self   the loop is ready to dispatch the oldest event
package firmware

import "github.com/seastar-sim/seastar/actors"

// Tick is the loop's timer: the main loop is ready to dispatch the next event. It is
// sent by the loop to its own actor, which passes it back through Next.
type Tick struct{}

func (Tick) String() string { return "firmware.tick" }

// Stats counts a loop's work.
type Stats struct {
	Handled   int64           // handlers run
	Busy      actors.Duration // time spent in handlers
	QueueWait actors.Duration // time events waited for the core
	PeakQueue int
}

// Loop is the event queue and busy clock of a polling main loop. The zero value is an
// idle loop.
type Loop struct {
	q    actors.FIFO[queued] // events waiting for the main loop, in arrival order
	busy bool                // a dispatch is scheduled or a handler is running
	free actors.Time         // end of the last handler

	Stats Stats
}

// queued remembers when an event arrived.
type queued struct {
	at actors.Time
	ev actors.Msg
}

// Enqueue queues ev; if the loop is idle, it schedules a dispatch one poll pass after
// the later of now and the end of the last handler.
func (l *Loop) Enqueue(ctx actors.Context, ev actors.Msg, poll actors.Duration) {
	l.q.Push(queued{at: ctx.Now(), ev: ev})
	l.Stats.PeakQueue = max(l.Stats.PeakQueue, l.Queued())
	if !l.busy {
		l.busy = true
		at := max(ctx.Now(), l.free).Add(poll)
		ctx.SendSelf(Tick{}, at.Sub(ctx.Now()))
	}
}

// Next takes the oldest event (at a Tick) and returns it with the time it arrived.
func (l *Loop) Next(ctx actors.Context) (ev actors.Msg, arrived actors.Time) {
	qe := l.q.Pop()
	l.Stats.QueueWait += ctx.Now().Sub(qe.at)
	return qe.ev, qe.at
}

// Done records that the handler of the event Next returned took d, and schedules the
// next dispatch one poll pass after it if an event is waiting.
func (l *Loop) Done(ctx actors.Context, d, poll actors.Duration) {
	l.free = ctx.Now().Add(d)
	l.Stats.Handled++
	l.Stats.Busy += d
	if l.Queued() == 0 {
		l.busy = false
		return
	}
	ctx.SendSelf(Tick{}, d+poll)
}

// Free is the end of the last handler.
func (l *Loop) Free() actors.Time { return l.free }

// Queued is the number of events waiting.
func (l *Loop) Queued() int { return l.q.Len() }
