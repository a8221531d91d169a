package mpi

import (
	"errors"
	"fmt"

	"github.com/seastar-sim/seastar/protocols/portals3"
	"github.com/seastar-sim/seastar/protocols/portals3/ptl"
)

// JobConfig describes how a job is launched.
type JobConfig struct {
	Params Params
	Data   bool // carry real bytes (semantics tests); false: messages by size only
	Bridge portals3.Bridge
	JID    ptl.JID
	UID    ptl.UID
	PID    ptl.PID // the Portals process id of every rank
}

// DefaultJobConfig returns a size-only job 1 of user 1000, pid 0, under Catamount
// (qkbridge).
func DefaultJobConfig() JobConfig {
	return JobConfig{Params: DefaultParams(), Bridge: portals3.QKBridge, JID: 1, UID: 1000}
}

// BridgeFor returns the bridge of an application process under a host operating
// system (host.os): qkbridge under Catamount, ukbridge under Linux.
func BridgeFor(os string) portals3.Bridge {
	if os == "linux" {
		return portals3.UKBridge
	}
	return portals3.QKBridge
}

// Job is an MPI job: one rank per node in a list, rank i on node Nodes[i].
type Job struct {
	Nodes []int
	World *World
	Comms []*Comm // set when a rank has initialized
	Done  []bool  // the rank's program returned and it finalized

	remote []remoteRank // ranks run by other processes (Export)
}

// Launch spawns rank i of a job on stacks[nodes[i]] (core 0), running prog after Init
// and followed by Finalize. An error of Init, prog or Finalize ends the simulation
// with that error, naming the rank. After the run, Check reports ranks that did not
// finish.
func Launch(stacks []*portals3.Stack, nodes []int, cfg JobConfig, prog func(*Comm) error) (*Job, error) {
	if err := cfg.Params.Validate(); err != nil {
		return nil, fmt.Errorf("mpi.%w", err)
	}
	if len(nodes) == 0 || len(nodes) > MaxRanks {
		return nil, fmt.Errorf("mpi: a job needs 1 to %d ranks (got %d)", MaxRanks, len(nodes))
	}
	w := &World{Procs: make([]ptl.ProcessID, len(nodes)), JID: cfg.JID}
	seen := make([]bool, len(stacks))
	for i, n := range nodes {
		if n < 0 || n >= len(stacks) {
			return nil, fmt.Errorf("mpi: rank %d on node %d, but the machine has %d nodes", i, n, len(stacks))
		}
		if seen[n] {
			return nil, fmt.Errorf("mpi: two ranks on node %d (one rank per node)", n)
		}
		seen[n] = true
		w.Procs[i] = ptl.ProcessID{NID: ptl.NID(n), PID: cfg.PID}
	}
	j := &Job{Nodes: nodes, World: w, Comms: make([]*Comm, len(nodes)), Done: make([]bool, len(nodes))}
	for i, n := range nodes {
		rank := i
		err := stacks[n].Spawn(fmt.Sprintf("rank%d", rank), 0, cfg.PID, cfg.JID, cfg.UID, cfg.Bridge, func(pr *portals3.Process) {
			c, err := Init(pr, w, rank, cfg.Params, cfg.Data)
			if err == nil {
				j.Comms[rank] = c
				err = prog(c)
			}
			if err == nil {
				err = c.Finalize()
			}
			if err != nil {
				pr.Proc().Fatalf("%v", err)
			}
			j.Done[rank] = true
		})
		if err != nil {
			return nil, err
		}
	}
	return j, nil
}

// Check returns an error naming the ranks that did not finish and what they were
// waiting for (at most a few of them), nil if every rank finished.
func (j *Job) Check() error {
	var errs []error
	stuck := 0
	for i, done := range j.Done {
		if done {
			continue
		}
		stuck++
		if stuck > 4 {
			continue
		}
		what := "it never started"
		if c := j.Comms[i]; c != nil {
			what = "in its program"
			if w := c.Waiting(); w != "" {
				what = "waiting for " + w
			}
		} else if r := j.remoteRank(i); r != nil {
			what = "in its program"
			if r.waiting != "" {
				what = "waiting for " + r.waiting
			}
		}
		errs = append(errs, fmt.Errorf("rank %d did not finish: %s", i, what))
	}
	if stuck > 4 {
		errs = append(errs, fmt.Errorf("and %d more ranks", stuck-4))
	}
	if len(errs) > 0 {
		return fmt.Errorf("mpi: the job did not complete (deadlock or lost messages): %w", errors.Join(errs...))
	}
	return nil
}

// Stats sums the library statistics of every rank.
func (j *Job) Stats() Stats {
	var s Stats
	for i, c := range j.Comms {
		var t Stats
		switch r := j.remoteRank(i); {
		case c != nil:
			t = c.Stats
		case r != nil:
			t = r.stats
		default:
			continue
		}
		s.Sends += t.Sends
		s.Recvs += t.Recvs
		s.BytesSent += t.BytesSent
		s.Received += t.Received
		s.BytesReceived += t.BytesReceived
		s.Eager += t.Eager
		s.Long += t.Long
		s.Unexpected += t.Unexpected
		s.UnexpectedLong += t.UnexpectedLong
		s.PostRetries += t.PostRetries
		s.Searched += t.Searched
		s.BuffersReposted += t.BuffersReposted
		s.EventsMain += t.EventsMain
		s.EventsUnexpected += t.EventsUnexpected
	}
	return s
}

// remoteRank is rank i's state restored from another process, nil if there is none.
func (j *Job) remoteRank(i int) *remoteRank {
	if j.remote == nil || !j.remote[i].ok {
		return nil
	}
	return &j.remote[i]
}
