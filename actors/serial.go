package actors

import (
	"context"
	"fmt"
	"time"
)

// serialEngine is the reference engine: one event queue for the whole model, events
// delivered strictly in key order. It is deliberately simple (a textbook binary heap,
// no windows, no partitions) so that the parallel engine can be checked against it.
type serialEngine struct {
	runner
	q keyHeap
}

// keyHeap is a binary min-heap of events by key, independent of the parallel engine's
// pending queues (sorted runs and calendar queues).
type keyHeap []event

func (h *keyHeap) push(e event) {
	*h = append(*h, e)
	q := *h
	for i := len(q) - 1; i > 0 && q[i].less(q[(i-1)/2].eventKey); i = (i - 1) / 2 {
		q[i], q[(i-1)/2] = q[(i-1)/2], q[i]
	}
}

func (h *keyHeap) pop() event {
	q := *h
	e := q[0]
	n := len(q) - 1
	q[0], q[n] = q[n], event{}
	q = q[:n]
	for i := 0; ; {
		m, l, r := i, 2*i+1, 2*i+2
		if l < n && q[l].less(q[m].eventKey) {
			m = l
		}
		if r < n && q[r].less(q[m].eventKey) {
			m = r
		}
		if m == i {
			break
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
	*h = q
	return e
}

func (s *serialEngine) enqueue(k eventKey, port Port, m Msg) {
	s.q.push(event{eventKey: k, port: port, msg: m})
}

func runSerial(ctx context.Context, m *Model, opts *Options) (*Report, error) {
	s := &serialEngine{runner: runner{m: m, st: newActorStates(m, opts.Seed)}}
	s.sink = s
	s.setTracer(newTracer(opts, m, 0))
	rep := &Report{Engine: Serial, Workers: 1, Partitioning: "none", Partitions: 1,
		Lookahead: Duration(MaxTime), End: opts.End}
	wall := time.Now()
	prog := newProgressTicker(opts, wall)
	err := s.protect(func() {
		for id := range m.actors {
			s.start(ActorID(id))
		}
	})
	rep.startMallocs = mallocs()
	var e event
	for err == nil && len(s.q) > 0 && s.q[0].at < opts.End {
		if rep.Events&4095 == 0 {
			if cerr := ctx.Err(); cerr != nil {
				// What ran before the interruption: the simulated time reached, the events.
				rep.Wall, rep.SimTime = time.Since(wall), s.now
				rep.finish(s.st)
				return rep, fmt.Errorf("serial engine at t=%s: %w (%v)", s.now, ErrInterrupted, cerr)
			}
			prog.tick(s.q[0].at, rep.Events)
		}
		e = s.q.pop()
		err = s.protect(func() { s.deliver(&e) })
		rep.Events++
	}
	if err != nil {
		return nil, err
	}
	rep.Wall = time.Since(wall)
	rep.SimTime = simTimeCovered(s.st, len(s.q) > 0, opts.End)
	rep.Parts = []PartitionStats{{Name: "serial", Actors: m.NumActors(), Events: rep.Events, Busy: rep.Wall, Activations: 1}}
	rep.finish(s.st)
	return rep, nil
}
