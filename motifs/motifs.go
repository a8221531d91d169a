package motifs

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/machine"
	"github.com/seastar-sim/seastar/protocols/mpi"
	"github.com/seastar-sim/seastar/protocols/portals3"
	"github.com/seastar-sim/seastar/router"
)

// Name is a motif.
type Name string

// Motifs.
const (
	PingPong  Name = "pingpong"
	Halo3D    Name = "halo3d"
	Alltoall  Name = "alltoall"
	Allreduce Name = "allreduce"
	Random    Name = "random"
	Hotspot   Name = "hotspot"
)

// Names lists the motifs.
var Names = []Name{PingPong, Halo3D, Alltoall, Allreduce, Random, Hotspot}

// ParseName parses a motif name.
func ParseName(s string) (Name, error) {
	if slices.Contains(Names, Name(s)) {
		return Name(s), nil
	}
	names := make([]string, len(Names))
	for i, n := range Names {
		names[i] = string(n)
	}
	return "", fmt.Errorf("unknown motif %q (want %s)", s, strings.Join(names, ", "))
}

// collective reports whether a motif is one MPI collective per iteration.
func (n Name) collective() bool { return n == Alltoall || n == Allreduce }

// Placement is how ranks are put on nodes.
type Placement string

// Placements.
const (
	Linear       Placement = "linear" // rank i on node i (contiguous)
	RandomPlaced Placement = "random" // a seeded permutation of the nodes
)

// ParsePlacement parses linear (or contiguous) or random.
func ParsePlacement(s string) (Placement, error) {
	switch s {
	case "linear", "contiguous":
		return Linear, nil
	case "random":
		return RandomPlaced, nil
	}
	return "", fmt.Errorf("unknown placement %q (want linear, contiguous or random)", s)
}

// VerifyMinSize is the smallest message Config.Verify can check: a payload starts with
// its 8-byte identity (sender, iteration, number).
const VerifyMinSize = 8

// Config is a motif run.
type Config struct {
	Machine machine.Params
	Portals portals3.Params
	MPI     mpi.Params

	Motif       Name
	Ranks       int // 0: one rank on every node
	Placement   Placement
	Seed        uint64          // placement and traffic draws
	Iters       int             // timed iterations
	Warmup      int             // untimed iterations before them
	Size        actors.Bytes    // message, face, block or vector size
	Compute     actors.Duration // work per iteration before communicating (every motif)
	Messages    int             // random, hotspot: messages each rank sends per iteration
	HotRank     int             // hotspot: the hot rank
	HotFraction actors.Prob     // hotspot: probability that a message goes to the hot rank
	Grid        [3]int          // halo3d process grid; zero: from the torus or factored
	// Verify carries real bytes. Point-to-point motifs (pingpong, halo3d, random,
	// hotspot): every message's payload is a pattern derived from its sender,
	// iteration and number, landing in a buffer of its own, and every receive checks
	// it (checksums per message: no message corrupt, lost or received twice).
	// Alltoall: every block is such a payload, checked in the receiver's buffer.
	// Allreduce (MPI_SUM): every rank's vector holds small integers and every rank
	// checks its result against the exact sum (each contribution once).
	Verify bool
}

// DefaultConfig returns motif n on the redstorm preset with every node a rank, linear
// placement, 5 timed iterations after 1 warm-up, 8 KiB messages (faces), 4 messages
// per rank per iteration for random traffic, and a hot rank 0 that gets a quarter of
// the hotspot traffic.
func DefaultConfig(n Name) Config {
	return Config{Machine: machine.Default(), Portals: portals3.DefaultParams(), MPI: mpi.DefaultParams(),
		Motif: n, Placement: Linear, Iters: 5, Warmup: 1, Size: 8 * actors.KiB, Messages: 4,
		HotFraction: actors.MustParseProb("0.25")}
}

// nodes is the number of nodes of the machine.
func (c Config) nodes() (int, error) {
	topo, err := c.Machine.Topology()
	if err != nil {
		return 0, err
	}
	return topo.Nodes(), nil
}

// ranks is the job size.
func (c Config) ranks() int {
	n, _ := c.nodes()
	if c.Ranks == 0 {
		return n
	}
	return c.Ranks
}

// Validate checks the settings.
func (c Config) Validate() error {
	if _, err := ParseName(string(c.Motif)); err != nil {
		return err
	}
	if _, err := ParsePlacement(string(c.Placement)); err != nil {
		return err
	}
	n, err := c.nodes()
	if err != nil {
		return err
	}
	r := c.ranks()
	switch {
	case c.Ranks < 0 || c.Ranks > n:
		return fmt.Errorf("ranks must be in 0..%d, the nodes of the torus (got %d)", n, c.Ranks)
	case c.Motif == PingPong && r < 2:
		return fmt.Errorf("pingpong needs at least 2 ranks")
	case c.Iters < 1:
		return fmt.Errorf("iters must be >= 1 (got %d)", c.Iters)
	case c.Warmup < 0:
		return fmt.Errorf("warmup must be >= 0 (got %d)", c.Warmup)
	case c.Size < 0:
		return fmt.Errorf("size must be >= 0B (got %s)", c.Size)
	case c.Verify && c.Size < VerifyMinSize:
		return fmt.Errorf("verify needs messages of at least %s, to carry their identity (got %s)", actors.Bytes(VerifyMinSize), c.Size)
	case c.Motif == Allreduce && c.Size%8 != 0:
		return fmt.Errorf("allreduce size must be a multiple of 8B (float64 elements; got %s)", c.Size)
	case c.Compute < 0:
		return fmt.Errorf("compute must be >= 0 (got %s)", c.Compute)
	case c.Messages < 0:
		return fmt.Errorf("messages must be >= 0 (got %d)", c.Messages)
	case c.HotRank < 0 || c.HotRank >= r:
		return fmt.Errorf("hot rank %d is not a rank (0..%d)", c.HotRank, r-1)
	}
	if c.Grid != [3]int{} && c.Grid[0]*c.Grid[1]*c.Grid[2] != r {
		return fmt.Errorf("grid %dx%dx%d does not hold %d ranks", c.Grid[0], c.Grid[1], c.Grid[2], r)
	}
	if err := c.MPI.Validate(); err != nil {
		return fmt.Errorf("mpi.%w", err)
	}
	return nil
}

// Result is a motif run.
type Result struct {
	Motif     Name
	Ranks     int
	Nodes     int
	Placement Placement
	Grid      [3]int // halo3d
	Iters     int
	Size      actors.Bytes

	IterTime   actors.Duration // span of the timed iterations over all ranks / Iters
	IterMax    actors.Duration // the longest iteration of one rank
	Bytes      int64           // bytes sent by all ranks in the timed iterations
	Messages   int64           // messages sent by all ranks in the timed iterations (collectives: their internal messages)
	Bandwidth  float64         // aggregate: Bytes / span, bytes per second
	PerRank    float64         // Bandwidth / Ranks
	Latencies  int             // samples behind the percentiles
	LatencyP50 actors.Duration // message latency (collectives: call duration), median
	LatencyP99 actors.Duration
	LatencyMax actors.Duration

	MPI mpi.Stats // the library's counters over the whole run
	// Verified, Corrupt and Duplicates count the received payloads Verify checked:
	// intact, not the pattern of their sender, and received a second time; Sent counts
	// the payloads sent, warm-up included: the point-to-point messages, the alltoall
	// blocks for other ranks, one allreduce result per rank and call.
	Verified, Corrupt, Duplicates, Sent int64
	// Retries are the router transmissions that failed their CRC and were repeated
	// (router.crc_error_rate): link-level recovery.
	Retries uint64
	// GBN sums the go-back-n counters of every node's firmware
	// (portals.recovery=gbn): end-to-end recovery.
	GBN    portals3.GBNStats
	Report *actors.Report
}

// Run builds the machine, places and launches the job and runs it.
func Run(ctx context.Context, cfg Config, opts actors.Options) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	g := actors.NewGraph()
	m, stacks, err := portals3.Build(g, cfg.Machine, cfg.Portals)
	if err != nil {
		return nil, err
	}
	e, err := newEnv(cfg, len(m.Nodes))
	if e != nil {
		e.work = opts.Work
	}
	if err != nil {
		return nil, err
	}
	jc := mpi.DefaultJobConfig()
	jc.Params, jc.Bridge, jc.Data = cfg.MPI, mpi.BridgeFor(cfg.Machine.Host.OS), cfg.Verify
	job, err := mpi.Launch(stacks, e.nodes, jc, e.program)
	if err != nil {
		return nil, err
	}
	// For runs split across processes: what the results read.
	job.Export(g, m.HostName)
	for r, n := range e.nodes {
		g.Export(m.HostName(n), &e.logs[r])
	}
	model, err := g.Build()
	if err != nil {
		return nil, err
	}
	rep, err := actors.Run(ctx, model, opts)
	res := &Result{Motif: cfg.Motif, Ranks: len(e.nodes), Nodes: len(m.Nodes), Placement: cfg.Placement, Grid: e.grid,
		Iters: cfg.Iters, Size: cfg.Size, Report: rep}
	if err == nil && opts.Cluster == nil { // across processes each holds only its share of the ports
		res.Retries = router.CollectStats(model).Retries
		for _, n := range m.Nodes {
			res.GBN.Add(n.PPC.Firmware().(*portals3.Firmware).GBN)
		}
	}
	if err != nil {
		return res, err
	}
	res.MPI = job.Stats()
	if err := job.Check(); err != nil {
		return res, err
	}
	e.summarize(res)
	return res, nil
}
