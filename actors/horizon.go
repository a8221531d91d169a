package actors

import (
	"runtime"
	"slices"
	"sync/atomic"
	"time"
)

// Horizon mode: asynchronous conservative synchronization with per-neighbour horizons,
// inside epochs.
//
// Within an epoch, partition p publishes clock_p, a promise that every event it sends
// from now on is at or after clock_p + L(p,q) for each out-neighbour q. Its safe time
// is safe_p = min over in-neighbours q of clock_q + L(q,p): every event that will ever
// reach p earlier than safe_p is already in its inbox, so after draining the inbox p may
// deliver all its events earlier than safe_p, in key order, and then publishes
// clock_p = min(earliest event in its heap, safe_p). Clocks only grow, and with every
// lookahead > 0 the partition holding the earliest event can always proceed, so the
// protocol cannot deadlock. Batches are flushed before the clock that covers them is
// published, and the inbox is drained after the clocks are read, so the atomic clock
// accesses order every exchange.
//
// Idle partitions advance their clocks by one lookahead per round, so the coordinator
// bounds each epoch to horizonEpoch lookaheads and skips ahead between epochs exactly
// as in window mode. A partition leaves the epoch once nothing earlier than its end can
// still happen to it. A partition that fails stops and promises nothing more; the
// others finish the epoch, and the coordinator reports the earliest failure in key
// order, which is the one the serial engine meets.

// horizonEpoch is the width of a horizon-mode epoch in lookaheads: long enough to
// absorb load imbalance between partitions, short enough that idle partitions reach
// the epoch end in a few polling rounds.
const horizonEpoch = 64

// horizonChunk is how many events a partition delivers between two clock
// publications: small enough that neighbours follow closely, large enough that the
// flush and the atomic store stay cheap.
const horizonChunk = 32

// paddedClock keeps each partition's clock on its own cache line.
type paddedClock struct {
	atomic.Int64
	_ [56]byte
}

// wireHorizons gives every partition a clock and its in-neighbours with their
// lookahead: the minimum latency of the links into it from each other partition, and of
// direct sends.
func wireHorizons(r *prun) {
	n := len(r.parts)
	la := make([]Duration, n*n) // la[from*n+to]
	for i := range la {
		la[i] = Duration(MaxTime)
	}
	if d, ok := r.m.DirectLatency(); ok {
		for i := range la {
			la[i] = d
		}
	}
	for _, l := range r.m.links {
		q, p := r.owner[l.From], r.owner[l.To]
		la[int(q)*n+int(p)] = min(la[int(q)*n+int(p)], l.Latency)
	}
	clocks := make([]paddedClock, n)
	for pi, p := range r.parts {
		p.clock = &clocks[pi].Int64
		for q := range n {
			if q != pi && la[q*n+pi] != Duration(MaxTime) {
				p.in = append(p.in, inEdge{from: int32(q), lookahead: la[q*n+pi]})
			}
		}
		slices.SortFunc(p.in, func(a, b inEdge) int { return int(a.from - b.from) })
	}
}

// safe is the time before which every event for this partition has arrived.
func (p *partition) safe() Time {
	s := MaxTime
	for _, e := range p.in {
		s = min(s, Time(p.r.parts[e.from].clock.Load()).Add(e.lookahead))
	}
	return s
}

// setClock publishes the partition's promise.
func (p *partition) setClock(t Time) {
	p.clock.Store(int64(t))
	p.floor = t.Add(p.r.lookahead)
	p.publishProgress(t)
}

// runEpoch executes one epoch [start, end) in horizon mode. Time spent waiting for
// neighbours is taken off the partition's busy time.
func (p *partition) runEpoch(start, end Time) *SimError {
	p.winStart, p.floor = start, start.Add(p.r.lookahead)
	for !p.r.abort.Load() {
		safe := p.safe()
		p.drain()
		limit := min(safe, end)
		p.winStart = limit
		if p.queue.minTime() < limit {
			if err := p.protect(func() { p.executeHorizon(limit, safe) }); err != nil {
				p.out.flush(p.r.parts)
				p.clock.Store(int64(MaxTime)) // a failed partition sends nothing more
				return err
			}
			continue
		}
		p.out.flush(p.r.parts)
		if safe >= end {
			break
		}
		p.setClock(min(p.queue.minTime(), safe))
		p.idle++
		t1 := time.Now()
		runtime.Gosched() // wait for the neighbours to advance
		p.busy -= time.Since(t1)
	}
	p.setClock(end)
	return nil
}

// executeHorizon delivers the events earlier than limit, publishing the clock every
// horizonChunk events so that neighbours can follow.
func (p *partition) executeHorizon(limit, safe Time) {
	var e event
	n := 0
	for p.queue.popBefore(limit, &e) {
		if p.pf != nil {
			p.prefetchNext()
		}
		p.events++
		p.deliver(&e)
		if n++; n == horizonChunk {
			n = 0
			p.out.flush(p.r.parts)
			p.setClock(min(p.queue.minTime(), safe))
		}
	}
	p.out.flush(p.r.parts)
	p.setClock(min(p.queue.minTime(), safe))
}
