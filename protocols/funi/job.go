package funi

import (
	"context"
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/host"
	"github.com/seastar-sim/seastar/machine"
	"github.com/seastar-sim/seastar/startjr"
	"github.com/seastar-sim/seastar/startjr/i960"
)

// Job is a StarT-JR cluster running FUNI, with apps applications (GIDs) time-sharing
// the nodes.
type Job struct {
	M    *startjr.Machine
	FW   []*Firmware
	P    Params
	apps int
	g    *actors.Graph
	sch  []*schedule
}

// NewJob builds the cluster of mp (a startjr or startjr-arctic machine) with FUNI on
// every node and apps applications (1 or 2).
func NewJob(mp machine.Params, p Params, apps int) (*Job, error) {
	if !mp.IsStarTJR() {
		return nil, familyError(fmt.Sprintf("machine=%s is not a StarT-JR cluster: the FUNI/JAM benchmarks need --set machine=startjr or machine=startjr-arctic", mp.Machine))
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if apps < 1 || apps > 2 {
		return nil, fmt.Errorf("funi: %d applications (1 or 2 time-share the nodes)", apps)
	}
	sp := mp.StarTJR
	j := &Job{P: p, apps: apps, g: actors.NewGraph(), FW: make([]*Firmware, sp.Nodes), sch: make([]*schedule, sp.Nodes)}
	for n := range sp.Nodes {
		j.sch[n] = &schedule{apps: apps, quantum: p.GIDQuantum, offset: p.GIDQuantum * actors.Duration(n) / actors.Duration(sp.Nodes)}
	}
	m, err := startjr.Build(j.g, mp.Host, sp, func(n int) i960.Firmware {
		s := j.sch[n]
		j.FW[n] = NewFirmware(p, sp, n, s.at)
		return j.FW[n]
	})
	if err != nil {
		return nil, err
	}
	j.M = m
	return j, nil
}

// Spawn starts application gid's process on node with prog; setup registers the
// handlers (the same order on every node) before prog runs.
func (j *Job) Spawn(node, gid int, name string, prog func(j *JAM)) (*JAM, error) {
	n := j.M.Nodes[node]
	lib := &JAM{prm: j.P, node: node, gid: gid, card: n.Card, sched: j.sch[node], ids: map[uint64]bool{}, Segments: map[int]int64{}}
	_, err := n.Host.Spawn(fmt.Sprintf("%s[%d.%d]", name, node, gid), 0, func(p *host.Proc) {
		lib.p = p
		prog(lib)
	})
	return lib, err
}

// Run runs the job.
func (j *Job) Run(ctx context.Context, opts actors.Options) (*actors.Report, error) {
	model, err := j.g.Build()
	if err != nil {
		return nil, err
	}
	return actors.Run(ctx, model, opts)
}

// familyError refuses a machine of another NIC family: a configuration error.
type familyError string

func (e familyError) Error() string        { return string(e) }
func (e familyError) Is(target error) bool { return target == actors.ErrConfig }
