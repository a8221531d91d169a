package portals4

import (
	"context"
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/host"
	"github.com/seastar-sim/seastar/machine"
	"github.com/seastar-sim/seastar/matchunit"
	"github.com/seastar-sim/seastar/ppc"
	"github.com/seastar-sim/seastar/protocols/portals4/ptl4"
	"github.com/seastar-sim/seastar/router"
)

// Job is a machine with one Portals 4 process per node (rank i on node i), the
// firmware holding its Portals state.
type Job struct {
	M     *machine.Machine
	FW    []*Firmware
	Ranks []*Rank
	g     *actors.Graph
}

// NewJob builds the machine of mp (its torus decides the node count) with the
// Portals 4 firmware on every node. A node's host and PPC share the process's
// memory (the firmware writes its buffers and runs its library calls), so they are
// colocated in one partition whatever the partitioner.
func NewJob(mp machine.Params, p Params) (*Job, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if mp.Machine == "ib" || p.NIC == "ib" {
		return newIBJob(mp, p)
	}
	if err := p.Fits(mp); err != nil {
		return nil, err
	}
	topo, err := mp.Topology()
	if err != nil {
		return nil, err
	}
	size := topo.Nodes()
	j := &Job{g: actors.NewGraph(), FW: make([]*Firmware, size)}
	unit := p.NIC == "matchunit"
	j.M, err = machine.Build(j.g, mp, func(id router.NodeID) ppc.Firmware {
		f := NewFirmware(id, size, p, mp.CAM, mp.TXDMA)
		f.onload = p.NIC == "onload"
		j.FW[id] = f
		if unit {
			f.unit = true
			return unitFirmware{f}
		}
		return f
	})
	if err != nil {
		return nil, err
	}
	if unit {
		for _, n := range j.M.Nodes {
			u := j.g.Add(n.Name+".matchunit", matchunit.New(mp.MatchUnit))
			j.g.Connect(n.PPCRef.Port("copro"), u.Port("ppc"), mp.OnChipLatency)
		}
	}
	for rank, n := range j.M.Nodes {
		r := &Rank{p: p, rank: rank, size: size, pid: uint32(p.PID), space: &ptl4.Space{}, sh: newShadow(),
			readHead: !mp.PPC.WriteThrough}
		lib := ptl4.New(r.space, uint32(n.ID), uint32(p.PID), TestUID)
		if p.NIC == "onload" {
			o := &onloadProc{lib: lib, pid: r.pid, cpu: n.Host}
			j.FW[rank].AddOnloadProcess(r.pid)
			if p.OnloadProgress == "thread" {
				if _, err := n.Host.Spawn(n.Name+".progress", 1, onloadProgress(p, o)); err != nil {
					return nil, err
				}
			} else {
				n.Host.HandleInterrupts(onloadIRQ(p, []*onloadProc{o}))
			}
			r.newAPI = func(hp *host.Proc) API { return o.newLib(r, hp) }
		} else {
			j.FW[rank].AddProcess(lib)
			r.newAPI = func(hp *host.Proc) API { return NewLib(r, hp) }
		}
		j.Ranks = append(j.Ranks, r)
		j.g.Colocate(n.HostName(), n.PPCName())
	}
	return j, nil
}

// Spawn starts the main program of rank on core 0 of its node.
func (j *Job) Spawn(rank int, name string, prog func(l API)) error {
	r := j.Ranks[rank]
	_, err := j.M.Nodes[rank].Host.Spawn(fmt.Sprintf("%s[%d]", name, rank), 0, func(p *host.Proc) { prog(r.newAPI(p)) })
	return err
}

// SpawnThreads gives rank n helper threads (conform.Env.Threads), on the node's other
// cores round-robin.
func (j *Job) SpawnThreads(rank, n int, name string) error {
	r := j.Ranks[rank]
	h := j.M.Nodes[rank].Host
	for k := range n {
		hp, err := h.Spawn(fmt.Sprintf("%s[%d].thread%d", name, rank, k), (k+1)%h.Params().Cores, r.helper(k))
		if err != nil {
			return err
		}
		r.helpers = append(r.helpers, hp)
	}
	return nil
}

// Export declares variables the program of rank fills in and results read, for runs
// split across processes (actors.Graph.Export): the process that ran the rank's node
// sends them to the others at the end. Call it before Run.
func (j *Job) Export(rank int, vars ...any) {
	j.M.ExportHost(j.g, router.NodeID(rank), vars...)
}

// Run runs the job.
func (j *Job) Run(ctx context.Context, opts actors.Options) (*actors.Report, error) {
	model, err := j.g.Build()
	if err != nil {
		return nil, err
	}
	return actors.Run(ctx, model, opts)
}

// PhysID is the physical id of rank.
func (j *Job) PhysID(rank int) ptl4.ProcessID {
	return ptl4.ProcessID{NID: uint32(rank), PID: j.Ranks[rank].pid}
}
