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
		horizon    bool // an epoch of horizon mode rather than a window
		solo       bool // the partition runs the window alone: see leaders
	}
	// windowsDone tells a process's share of a run across processes that every
	// partition it started has finished.
	windowsDone struct{}
)

// windowDone is a partition's report at the end of a window, read by the coordinator
// once the last partition has finished (the atomic countdown orders the accesses).
type windowDone struct {
	next Time // earliest event left in the partition's heap
	end  Time // where a solo window ended (see runWindow)
	err  *SimError
}

// runWindow executes one window: the Start calls in window 0, then every local event
// earlier than the window end, in key order; in horizon mode the window is an epoch.
func (p *partition) runWindow(w *windowStart) {
	p.activations++
	// Reading the clock costs about as much as a small window's work when there are
	// many partitions, so then only one activation in busySampling is timed.
	timed := len(p.r.parts) <= busyExactMax || p.activations%busySampling == 0
	var t0 time.Time
	if timed {
		t0 = time.Now()
	}
	p.winStart, p.winEnd, p.floor = w.start, w.end, w.end
	if p.solo = w.solo; p.solo {
		p.floor = w.start.Add(p.r.lookahead) // the other partitions are at w.start at most
	}
	var err *SimError
	switch {
	case p.failed != nil: // running ahead (exchange.runAhead): reported with the window
		err = p.failed
	case w.w == 0:
		err = p.protect(p.startActors)
	case w.horizon:
		err = p.runEpoch(w.start, w.end)
	default:
		err = p.protect(p.executeWindow)
	}
	p.out.flush(p.r.parts)
	p.failed = err
	p.done = windowDone{next: p.queue.minTime(), end: w.end, err: err}
	if p.solo { // its width, for the report: as far as it went, at least a lookahead
		p.done.end = min(p.winEnd, max(p.now, w.start.Add(p.r.lookahead)))
		p.solo = false
	}
	p.publishProgress(min(p.winEnd, p.done.next)) // an unbounded window (one partition) ends at its next event
	switch {
	case len(p.r.parts) <= busyExactMax:
		p.busy += time.Since(t0)
	case timed:
		p.busy += busySampling * time.Since(t0)
	}
}

// Busy time is measured exactly up to busyExactMax partitions and estimated from one
// activation in busySampling above.
const (
	busyExactMax = 64
	busySampling = 8
)

func (p *partition) executeWindow() {
	if p.inbox.head.Load() != nil || p.inMin.Load() != int64(MaxTime) {
		p.drain() // also clears a stale inbox minimum, which would pin the next window
	}
	var e event
	for p.queue.popBefore(p.winEnd, &e) {
		if p.pf != nil {
			p.prefetchNext()
		}
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

// prefetchNext starts bringing the memory of the next two events into the cache while
// the event just popped runs: a hint, the events are popped in their order whatever it
// brings. Called in large models only (runner.pf set), so that a small one pays a
// predictable branch an event and no call.
func (p *partition) prefetchNext() {
	if d, m, d2, m2, ok := p.queue.peek(); ok {
		p.prefetch(d, m, d2, m2)
	}
}

// progressEvents is how often a long window publishes progress and checks for
// cancellation.
const progressEvents = 1 << 14

// coordinator runs the window barrier of a run in one process: its actor starts the
// run (runBegin), and the partition that finishes each window last runs
// onWindowsDone, which launches the next (partitionActor).
type coordinator struct {
	r    *prun
	next []Time // earliest pending event of every partition

	w        uint64
	windows  uint64
	epochs   uint64  // of the windows, horizon epochs
	widthSum float64 // seconds

	epoch      bool     // the window running is a horizon epoch
	solo       int32    // the partition running the window alone, or -1
	start, end Time     // the window running
	adapt      adaptive // horizon mode: epochs or windows
}

func (c *coordinator) Receive(ac actor.Context) {
	if _, ok := ac.Message().(runBegin); ok {
		c.begin(ac)
	}
}

func (c *coordinator) begin(ac actor.Context) {
	r := c.r
	r.active = r.active[:0]
	for i := range r.parts {
		r.active = append(r.active, int32(i))
	}
	c.launch(ac, 0, 0)
}

// launch starts window c.w over [start, end) in the partitions listed in r.active.
func (c *coordinator) launch(ac actor.Context, start, end Time) {
	r := c.r
	r.remaining.Store(int32(len(r.active)))
	for _, i := range r.active {
		s := &r.parts[i].startMsg
		s.w, s.start, s.end, s.horizon, s.solo = c.w, start, end, c.epoch, c.solo >= 0
		ac.Send(r.pids[i], s)
	}
}

func (c *coordinator) onWindowsDone(ac actor.Context) {
	r := c.r
	r.windowDone(c.w)
	var failure *SimError
	for _, i := range r.active {
		d := &r.parts[i].done
		c.next[i] = d.next
		if d.err != nil && (failure == nil || d.err.key.less(failure.key)) {
			failure = d.err
		}
	}
	end := c.end
	if c.solo >= 0 {
		end = r.parts[c.solo].done.end // as far as it went (runWindow)
	}
	c.widthSum += end.Sub(c.start).Seconds()
	lead := newLeaders()
	for i, p := range r.parts {
		c.next[i] = min(c.next[i], Time(p.inMin.Load())) // events waiting in inboxes
		lead.add(c.next[i], int32(i))
	}
	t := lead.t1
	switch {
	case failure != nil:
		r.finished <- failure
	case t >= r.end:
		r.finished <- nil
	case r.abort.Load():
		r.finished <- fmt.Errorf("aborted")
	default:
		c.nextWindow(ac, lead)
	}
}

// nextWindow starts the window [t, t+lookahead) in every partition with an event in it,
// in its heap or in its inbox, where t is the earliest event anywhere; or a solo window
// (see leaders). In horizon mode the window is an epoch of horizonEpoch lookaheads and
// every partition takes part, its clock starting at t.
func (c *coordinator) nextWindow(ac actor.Context, lead leaders) {
	r := c.r
	t := lead.t1
	c.epoch = r.mode == SyncHorizon && c.adapt.choose(r.parts, c.epoch)
	var end Time
	if c.epoch {
		width := Duration(MaxTime)
		if r.lookahead <= width/horizonEpoch {
			width = r.lookahead * horizonEpoch
		}
		end, c.solo = min(t.Add(width), r.end), -1
	} else {
		end, c.solo = lead.window(r.lookahead, r.end)
	}
	c.w++
	c.windows++
	if c.epoch {
		c.epochs++
	}
	c.start, c.end = t, end
	r.active = r.active[:0]
	for i, p := range r.parts {
		switch {
		case c.epoch:
			p.clock.Store(int64(t))
			r.active = append(r.active, int32(i))
		case c.solo >= 0:
			if int32(i) == c.solo {
				r.active = append(r.active, int32(i))
			}
		case c.next[i] < end:
			r.active = append(r.active, int32(i))
		}
	}
	r.showWindow(t, c.solo, lead.t2)
	c.launch(ac, t, end)
}

// showWindow publishes the window about to start for progress reports.
func (r *prun) showWindow(start Time, solo int32, others Time) {
	r.progSolo.Store(-1)
	r.progStart.Store(int64(start))
	r.progBound.Store(int64(others))
	r.progSolo.Store(int64(solo))
}

// leaders are the partitions with the two earliest pending events: partition p1's
// earliest event at t1, and the earliest event of any other partition at t2 (of
// partition p2). A reporter's leaders merged with add give the leaders of the union.
type leaders struct {
	t1, t2 Time
	p1, p2 int32
}

func newLeaders() leaders { return leaders{t1: MaxTime, t2: MaxTime, p1: -1, p2: -1} }

// add counts an event of partition p at t.
func (l *leaders) add(t Time, p int32) {
	switch {
	case p == l.p1:
		l.t1 = min(l.t1, t)
	case t < l.t1:
		l.t2, l.p2 = l.t1, l.p1
		l.t1, l.p1 = t, p
	case t < l.t2:
		l.t2, l.p2 = t, p
	}
}

// merge adds another reporter's leaders.
func (l *leaders) merge(o leaders) {
	l.add(o.t1, o.p1)
	l.add(o.t2, o.p2)
}

// shortWindow returns the end of the next window if it is one lookahead long (every
// partition with an event runs in it): t1+lookahead, or last.
func (l leaders) shortWindow(lookahead Duration, last Time) Time {
	return min(l.t1.Add(lookahead), last)
}

// window returns the end of the next window, which starts at t1, and the partition
// that runs it alone, or -1 for a window of one lookahead in which every partition with
// an event runs.
//
// When no other partition has an event before t1+lookahead, p1 runs alone, and
// further than one lookahead: nothing can reach it before t2+lookahead (every other
// partition's events are at t2 or later) nor before a+lookahead for the first event it
// sends to another partition, arriving at a. So the window ends at t2+lookahead, and p1
// ends it earlier as it sends (partition.enqueue). A ping-pong between two partitions
// then costs a window per crossing instead of one per lookahead; the events delivered,
// and their order, are those of windows of one lookahead.
func (l leaders) window(lookahead Duration, last Time) (end Time, solo int32) {
	end = l.shortWindow(lookahead, last)
	if l.t2 < end || end == last {
		return end, -1
	}
	return min(l.t2.Add(lookahead), last), l.p1
}

// Horizon mode pays for the time it lets partitions run ahead with polling rounds: an
// idle partition advances its clock by one lookahead per round, and each round costs
// about what a window barrier costs. When events are sparse (a ping-pong between two
// nodes: one message in flight, one partition working while the other waits) an epoch
// is mostly such rounds, and windows, which skip idle stretches at once, are cheaper.
// So after an epoch whose partitions polled more than a quarter of its lookaheads on
// average, the coordinator runs windows for a while (64 at first, doubling while epochs
// stay idle, at most 4096) and then tries an epoch again. Results do not depend on it:
// both modes deliver every event in key order.
const (
	fallbackMin = 64
	fallbackMax = 4096
)

// adaptive is the coordinator's choice between epochs and windows in horizon mode.
type adaptive struct {
	idle     uint64 // the partitions' polling rounds at the start of the last epoch
	windowed int    // windows left before the next epoch
	fallback int    // length of the current fall-back, doubling while it lasts
}

// choose returns whether the next barrier is an epoch; epoch tells whether the last
// one was.
func (a *adaptive) choose(parts []*partition, epoch bool) bool {
	var idle uint64 // the coordinator reads the counters between barriers
	for _, p := range parts {
		idle += p.idle
	}
	if epoch {
		if idle-a.idle > uint64(len(parts))*horizonEpoch/4 {
			a.fallback = min(max(fallbackMin, 2*a.fallback), fallbackMax)
			a.windowed = a.fallback
		} else {
			a.fallback = 0
		}
	}
	a.idle = idle
	if a.windowed > 0 {
		a.windowed--
		return false
	}
	return true
}
