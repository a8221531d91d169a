package actors

import (
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// Messages of the parallel engine's protocol.
type (
	// runBegin starts a run at the coordinator.
	runBegin struct{}
	// windowStart tells a partition to run one window; one per partition, reused.
	windowStart struct {
		w          uint64
		start, end Time
	}
	// windowsDone tells the coordinator that every partition it started has finished.
	windowsDone struct{}
)

// windowDone is a partition's report at the end of a window, read by the coordinator
// once the last partition has finished (the atomic countdown orders the accesses).
type windowDone struct {
	next Time // earliest event left in the partition's heap
	err  *SimError
}

// runWindow executes one window: the Start calls in window 0, then every local event
// earlier than the window end, in key order; in horizon mode the window is an epoch.
func (p *partition) runWindow(w *windowStart) {
	t0 := time.Now()
	p.activations++
	p.winStart, p.winEnd, p.floor = w.start, w.end, w.end
	var err *SimError
	switch {
	case w.w == 0:
		err = p.protect(p.startActors)
	case p.r.mode == SyncHorizon:
		err = p.runEpoch(w.start, w.end)
	default:
		err = p.protect(p.executeWindow)
	}
	p.out.flush(p.r.parts)
	p.done = windowDone{next: p.heap.minTime(), err: err}
	p.publishProgress(w.end)
	p.busy += time.Since(t0)
}

func (p *partition) executeWindow() {
	p.drain()
	var e event
	for len(p.heap.ev) > 0 && p.heap.ev[0].at < p.winEnd {
		p.heap.pop(&e)
		p.events++
		p.deliver(&e)
		if p.events%progressEvents == 0 { // a window can be the whole run
			p.publishProgress(e.at)
			if p.r.abort.Load() {
				return
			}
		}
	}
}

// progressEvents is how often a long window publishes progress and checks for
// cancellation.
const progressEvents = 1 << 14

// coordinator runs the window barrier (window mode) or just starts and collects the
// partitions (horizon mode).
type coordinator struct {
	r      *prun
	pids   []*actor.PID
	next   []Time  // earliest pending event of every partition
	active []int32 // partitions running the current window

	w        uint64
	windows  uint64
	widthSum float64 // seconds
}

func (c *coordinator) Receive(ac actor.Context) {
	switch ac.Message().(type) {
	case runBegin:
		c.begin(ac)
	case windowsDone:
		c.onWindowsDone(ac)
	}
}

func (c *coordinator) begin(ac actor.Context) {
	r := c.r
	c.active = c.active[:0]
	for i := range r.parts {
		c.active = append(c.active, int32(i))
	}
	c.launch(ac, 0, 0)
}

// launch starts window c.w over [start, end) in the partitions listed in c.active.
func (c *coordinator) launch(ac actor.Context, start, end Time) {
	c.r.remaining.Store(int32(len(c.active)))
	for _, i := range c.active {
		s := &c.r.parts[i].startMsg
		s.w, s.start, s.end = c.w, start, end
		ac.Send(c.pids[i], s)
	}
}

func (c *coordinator) onWindowsDone(ac actor.Context) {
	r := c.r
	var failure *SimError
	for _, i := range c.active {
		d := &r.parts[i].done
		c.next[i] = d.next
		if d.err != nil && (failure == nil || d.err.key.less(failure.key)) {
			failure = d.err
		}
	}
	t := MaxTime
	for i, p := range r.parts {
		c.next[i] = min(c.next[i], Time(p.inMin.Load())) // events waiting in inboxes
		t = min(t, c.next[i])
	}
	switch {
	case failure != nil:
		r.finished <- failure
	case t >= r.end:
		r.finished <- nil
	case r.abort.Load():
		r.finished <- fmt.Errorf("aborted")
	default:
		c.nextWindow(ac, t)
	}
}

// nextWindow starts the window [t, t+lookahead) in every partition with an event in it,
// in its heap or in its inbox. In horizon mode the window is an epoch of
// horizonEpoch lookaheads and every partition takes part, its clock starting at t.
func (c *coordinator) nextWindow(ac actor.Context, t Time) {
	r := c.r
	width := r.lookahead
	if r.mode == SyncHorizon {
		width = Duration(Time(0).Add(width * horizonEpoch)) // saturating
		if width < r.lookahead {
			width = Duration(MaxTime)
		}
	}
	end := min(t.Add(width), r.end)
	c.w++
	c.windows++
	c.widthSum += end.Sub(t).Seconds()
	c.active = c.active[:0]
	for i := range r.parts {
		if r.mode == SyncHorizon {
			p := r.parts[i]
			p.clock.Store(int64(t))
			c.active = append(c.active, int32(i))
		} else if c.next[i] < end {
			c.active = append(c.active, int32(i))
		}
	}
	c.launch(ac, t, end)
}
