package funi

import (
	"context"
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/machine"
)

// Primitive is a JAM primitive as Table 2 of Hoe & Ehrlich 1996 names it.
type Primitive struct {
	Name  string
	Kind  Kind
	Reply bool
	N     int // arguments (JAM_n) or words (mfer, DMA)
}

// Table2 lists the primitives of Table 2, in its order.
var Table2 = []Primitive{
	{"JAM_4", AM4, false, 4}, {"JAM_reply_4", AM4, true, 4},
	{"JAM_n=1", AMN, false, 1}, {"JAM_n=20", AMN, false, 20},
	{"JAM_reply_n=1", AMN, true, 1}, {"JAM_reply_n=20", AMN, true, 20},
	{"JAM_xfer_4", Xfer4, false, 4}, {"JAM_reply_xfer_4", Xfer4, true, 4},
	{"JAM_mfer_n=16", Mfer, false, 16}, {"JAM_reply_mfer_n=16", Mfer, true, 16},
	{"JAM_dma_n=640", DMA, false, 640}, {"JAM_reply_dma_n=640", DMA, true, 640},
}

// PrimitiveByName returns a primitive of Table2.
func PrimitiveByName(name string) (Primitive, bool) {
	for _, p := range Table2 {
		if p.Name == name {
			return p, true
		}
	}
	return Primitive{}, false
}

// send issues one prim from j to dst.
func (pr Primitive) send(j *JAM, dst, h int) {
	switch pr.Kind {
	case AM4:
		j.AM4(dst, h, [4]uint32{1, 2, 3, 4}, pr.Reply)
	case AMN:
		args := make([]uint32, pr.N)
		j.AMN(dst, h, args, pr.Reply)
	case Xfer4:
		j.Xfer4(dst, 1, [4]uint32{1, 2, 3, 4}, pr.Reply)
	case Mfer:
		j.Mfer(dst, 1, pr.N, pr.Reply)
	case DMA:
		j.DMA(dst, 1, pr.N, pr.Reply)
	}
}

// payload is the user bytes one message moves.
func (pr Primitive) payload() int64 {
	if pr.Kind == AM4 || pr.Kind == Xfer4 {
		return 16
	}
	return int64(4 * pr.N)
}

func (pr Primitive) prio() int {
	if pr.Reply {
		return 1
	}
	return 0
}

// Row is one row of Table 2.
type Row struct {
	SendOverhead, RecvOverhead actors.Duration // mean time of the primitive on the sending host; of taking the message on the receiving host
	SendPer, RecvPer           actors.Duration // per message in a stream, at the sender (call to call) and at the receiver
	SendMBps, RecvMBps         float64         // payload bytes over those times
	Latency                    actors.Duration // one-way user to user: half a ping-pong round trip
	// SendBusy and RecvBusy are the i960's occupancy per message of the stream on the
	// sending and the receiving node: handler time plus host-load stalls.
	SendBusy, RecvBusy actors.Duration
}

// TableConfig is the methodology's sizes.
type TableConfig struct {
	Overheads int // isolated messages timed for the overheads
	Stream    int // messages of the throughput stream (the second half is timed)
	PingPongs int // round trips timed for the latency
}

// DefaultTableConfig returns the sizes run bench jam uses.
func DefaultTableConfig() TableConfig { return TableConfig{Overheads: 8, Stream: 200, PingPongs: 10} }

// Table measures prim between nodes 0 and 1 as Table 2 does, in three simulations:
// overheads (isolated messages, each sent long after the last and received once it has
// landed), a stream (throughput), and a ping-pong (latency).
func Table(ctx context.Context, mp machine.Params, p Params, pr Primitive, c TableConfig, opts actors.Options) (Row, []*actors.Report, error) {
	var row Row
	var reps []*actors.Report
	gap := 500 * actors.Microsecond // far longer than a message's trip: each send and receive is alone
	// Overheads.
	var sendT, recvT actors.Duration
	rep, _, err := runPair(ctx, mp, p, opts, func(j *JAM) {
		for range c.Overheads {
			t := j.Proc().Now()
			pr.send(j, 1, 0)
			sendT += j.Proc().Now().Sub(t)
			j.Proc().Compute(gap)
		}
	}, func(j *JAM) {
		j.Proc().Compute(actors.Duration(c.Overheads+1) * gap) // every message has landed
		for range c.Overheads {
			t := j.Proc().Now()
			j.Wait(pr.prio())
			recvT += j.Proc().Now().Sub(t)
		}
	})
	if err != nil {
		return row, reps, err
	}
	reps = append(reps, rep)
	row.SendOverhead = sendT / actors.Duration(c.Overheads)
	row.RecvOverhead = recvT / actors.Duration(c.Overheads)
	// Stream.
	half := c.Stream / 2
	var s0, s1, r0, r1 actors.Time
	rep, job, err := runPair(ctx, mp, p, opts, func(j *JAM) {
		for i := range c.Stream {
			pr.send(j, 1, 0)
			if i == half {
				s0 = j.Proc().Now()
			}
		}
		s1 = j.Proc().Now()
	}, func(j *JAM) {
		for i := range c.Stream {
			j.Wait(pr.prio())
			if i == half {
				r0 = j.Proc().Now()
			}
		}
		r1 = j.Proc().Now()
	})
	if err != nil {
		return row, reps, err
	}
	reps = append(reps, rep)
	n := actors.Duration(c.Stream - 1 - half)
	row.SendPer, row.RecvPer = s1.Sub(s0)/n, r1.Sub(r0)/n
	busy := func(n int) actors.Duration {
		card := job.M.Nodes[n].Card
		return (card.Stats.Busy + card.Extra.Stall) / actors.Duration(c.Stream)
	}
	row.SendBusy, row.RecvBusy = busy(0), busy(1)
	row.SendMBps = float64(pr.payload()) / row.SendPer.Microseconds()
	row.RecvMBps = float64(pr.payload()) / row.RecvPer.Microseconds()
	// Latency.
	var l0, l1 actors.Time
	rep, _, err = runPair(ctx, mp, p, opts, func(j *JAM) {
		pr.send(j, 1, 0) // warm-up
		j.Wait(pr.prio())
		l0 = j.Proc().Now()
		for range c.PingPongs {
			pr.send(j, 1, 0)
			j.Wait(pr.prio())
		}
		l1 = j.Proc().Now()
	}, func(j *JAM) {
		for range c.PingPongs + 1 {
			j.Wait(pr.prio())
			pr.send(j, 0, 0)
		}
	})
	if err != nil {
		return row, reps, err
	}
	reps = append(reps, rep)
	row.Latency = l1.Sub(l0) / actors.Duration(2*c.PingPongs)
	return row, reps, nil
}

// runPair runs a on node 0 and b on node 1 of a fresh cluster; each registers one
// handler that does nothing (the measured code does its own work).
func runPair(ctx context.Context, mp machine.Params, p Params, opts actors.Options, a, b func(j *JAM)) (*actors.Report, *Job, error) {
	job, err := NewJob(mp, p, 1)
	if err != nil {
		return nil, nil, err
	}
	nop := func(*JAM, *Message) {}
	var done [2]bool
	for node, prog := range []func(*JAM){a, b} {
		if _, err := job.Spawn(node, 0, "jam", func(j *JAM) { j.Register(nop); prog(j); done[node] = true }); err != nil {
			return nil, nil, err
		}
	}
	rep, err := job.Run(ctx, opts)
	if err == nil {
		err = unfinished(done[:])
	}
	return rep, job, err
}

// unfinished reports the nodes whose program did not finish when the run ran out of
// events: a message that never arrived.
func unfinished(done []bool) error {
	for n, d := range done {
		if !d {
			return fmt.Errorf("funi: the program of node %d never finished: a message it waited for never arrived (the run ran out of events)", n)
		}
	}
	return nil
}

// ShmRead measures a single-word read of a shared-memory location cached in the local
// GSMC (Hoe & Ehrlich 1996 s.1: about 2 us), and of one that misses (the FUNI
// coprocessor fetches the line from its home node): reads reads of each, means.
func ShmRead(ctx context.Context, mp machine.Params, p Params, reads int, opts actors.Options) (hit, miss actors.Duration, rep *actors.Report, err error) {
	job, err := NewJob(mp, p, 1)
	if err != nil {
		return 0, 0, nil, err
	}
	line := uint64(4 * lineWord)
	_, err = job.Spawn(0, 0, "shm", func(j *JAM) {
		for i := range reads {
			// A line homed on node 1 (line number odd with two nodes): the first read misses.
			addr := ShmBase + uint64(2*i+1)*line*uint64(job.M.Params.Nodes/2)
			t := j.Proc().Now()
			j.ShmRead(addr)
			miss += j.Proc().Now().Sub(t)
			t = j.Proc().Now()
			j.ShmRead(addr)
			hit += j.Proc().Now().Sub(t)
		}
	})
	if err != nil {
		return 0, 0, nil, err
	}
	if rep, err = job.Run(ctx, opts); err != nil {
		return 0, 0, rep, err
	}
	if s := job.M.Nodes[0].SIM.Stats; s.ACDMisses != int64(reads) || s.ACDHits != int64(reads) {
		return 0, 0, rep, fmt.Errorf("funi: shared-memory reads: %d hits and %d misses, want %d each", s.ACDHits, s.ACDMisses, reads)
	}
	return hit / actors.Duration(reads), miss / actors.Duration(reads), rep, nil
}
