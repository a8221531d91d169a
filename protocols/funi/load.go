package funi

import (
	"context"
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/machine"
)

// Patterns of the multi-node workloads (run bench funi).
var Patterns = []string{"pingpong", "hotspot", "alltoall", "gids"}

// LoadResult is a workload's outcome: what was sent and taken, and the protocol's
// counters summed over the nodes.
type LoadResult struct {
	Time                               actors.Duration // until the last process finished
	Sent, Received, Duplicates, Misdel int64
	Bytes                              int64
	FW                                 Stats // summed over the nodes
	Discarded                          int64 // packets the PLMs dropped (receive FIFO full)
}

// Lost is the messages that did not arrive exactly once at the right application.
func (r LoadResult) Lost() int64 { return r.Sent - (r.Received - r.Duplicates - r.Misdel) }

// Load runs pattern on every node of mp with msgs JAM_n=20 messages per sender:
//   - pingpong: nodes paired (0-1, 2-3, ...), msgs round trips each;
//   - hotspot: every node but 0 streams msgs messages to node 0;
//   - alltoall: every node sends msgs messages to every other, round robin;
//   - gids: two applications time-share every node (funi.gid_quantum, the nodes'
//     schedules shifted), each running alltoall among its own processes.
//
// Each handler computes for work on the receiving host (the application's use of the
// message); a hotspot receiver slower than its senders fills its Rx queue.
func Load(ctx context.Context, mp machine.Params, p Params, pattern string, msgs int, work actors.Duration, opts actors.Options) (LoadResult, *actors.Report, error) {
	var res LoadResult
	apps := 1
	if pattern == "gids" {
		apps = 2
	}
	job, err := NewJob(mp, p, apps)
	if err != nil {
		return res, nil, err
	}
	nodes := mp.StarTJR.Nodes
	args := make([]uint32, MaxArgs)
	var libs []*JAM
	var ends []actors.Time
	for gid := range apps {
		for node := range nodes {
			var prog func(j *JAM)
			switch pattern {
			case "pingpong":
				peer := node ^ 1
				if peer >= nodes {
					continue
				}
				prog = func(j *JAM) {
					for range msgs {
						if node%2 == 0 {
							j.AMN(peer, 0, args, false)
							j.Wait(0)
						} else {
							j.Wait(0)
							j.AMN(peer, 0, args, false)
						}
					}
				}
			case "hotspot":
				prog = func(j *JAM) {
					if node == 0 {
						for range msgs * (nodes - 1) {
							j.Wait(0)
						}
						return
					}
					for range msgs {
						j.AMN(0, 0, args, false)
					}
				}
			case "alltoall", "gids":
				prog = func(j *JAM) {
					want := msgs * (nodes - 1)
					for i := range msgs * (nodes - 1) {
						j.AMN((node+1+i%(nodes-1))%nodes, 0, args, false)
						for j.Poll() {
							want--
						}
					}
					for ; want > 0; want-- {
						j.Wait(0)
					}
				}
			default:
				return res, nil, fmt.Errorf("funi: unknown pattern %q (want pingpong, hotspot, alltoall or gids)", pattern)
			}
			idx := len(ends)
			ends = append(ends, 0)
			lib, err := job.Spawn(node, gid, pattern, func(j *JAM) {
				j.Register(func(j *JAM, _ *Message) { j.Proc().Compute(work) })
				prog(j)
				ends[idx] = j.Proc().Now()
			})
			if err != nil {
				return res, nil, err
			}
			libs = append(libs, lib)
		}
	}
	rep, err := job.Run(ctx, opts)
	if err != nil {
		return res, rep, err
	}
	var done []bool
	for _, e := range ends {
		done = append(done, e > 0)
	}
	if err := unfinished(done); err != nil {
		return res, rep, err
	}
	for _, e := range ends {
		res.Time = max(res.Time, e.Sub(0))
	}
	for _, l := range libs {
		res.Sent += int64(l.next)
		res.Received += l.Received
		res.Duplicates += l.Duplicates
		res.Misdel += l.Misdelivered
		res.Bytes += l.Bytes
	}
	for i, f := range job.FW {
		s := &res.FW
		t := f.Stats
		s.Sent += t.Sent
		s.Received += t.Received
		s.Acks += t.Acks
		s.Nacks += t.Nacks
		s.Retries += t.Retries
		s.Restarts += t.Restarts
		s.Rounds += t.Rounds
		s.Stale += t.Stale
		s.GIDRejected += t.GIDRejected
		s.QueueFull += t.QueueFull
		s.Duplicates += t.Duplicates
		s.Overflows += t.Overflows
		res.Discarded += job.M.Nodes[i].SIM.Stats.Discarded
	}
	return res, rep, nil
}
