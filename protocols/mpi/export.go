package mpi

import "github.com/seastar-sim/seastar/actors"

// Export declares, for runs split across processes (actors.Graph.Export), what each
// rank leaves for Check and Stats: whether it finished, its library statistics and
// what it was waiting for. host(node) names the actor that runs the programs of a
// node (its host). Call it before building the graph.
func (j *Job) Export(g *actors.Graph, host func(node int) string) {
	j.remote = make([]remoteRank, len(j.Nodes))
	for i, n := range j.Nodes {
		g.Export(host(n), rankState{j: j, rank: i})
	}
}

// remoteRank is a rank's state as restored from the process that ran it.
type remoteRank struct {
	ok      bool // restored: the rank initialized there
	stats   Stats
	waiting string
}

// rankState is the Snapshotter of one rank of a job.
type rankState struct {
	j    *Job
	rank int
}

func (s rankState) Snapshot(e *actors.Encoder) {
	j := s.j
	e.Bool(j.Done[s.rank])
	c := j.Comms[s.rank]
	e.Bool(c != nil)
	if c != nil {
		actors.Vars{&c.Stats}.Snapshot(e)
		e.String(c.Waiting())
	}
}

func (s rankState) Restore(d *actors.Decoder) {
	j := s.j
	j.Done[s.rank] = d.Bool()
	r := &j.remote[s.rank]
	if r.ok = d.Bool(); r.ok {
		actors.Vars{&r.stats}.Restore(d)
		r.waiting = d.String()
	}
}
