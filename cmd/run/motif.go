package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/internal/results"
	"github.com/seastar-sim/seastar/motifs"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

const motifLong = `A motif is a whole-machine communication pattern run as an MPI job over Portals 3.3
(generic or accelerated: portals.mode), one rank per node, on the torus of --torus
(default: the machine preset's, 27x16x24 for redstorm):

  pingpong   ranks r and r+P/2 exchange one message of --size each way per iteration
  halo3d     each rank exchanges a face of --size (--face) with its 6 neighbours in a
             3-D process grid with periodic boundaries (the torus when every node is
             a rank), after --compute of work
  alltoall   MPI_Alltoall with blocks of --size (pairwise exchange)
  allreduce  MPI_Allreduce of a vector of --size bytes (recursive doubling)
  random     each rank sends --messages messages of --size to uniformly drawn ranks
  hotspot    as random, with a share --hot-fraction of the messages to --hot-rank

--placement linear (contiguous: rank i on node i, x fastest) or random (a permutation
drawn from --seed). --ranks runs the job on that many nodes (default all).

Every rank synchronizes with a barrier, runs --warmup untimed iterations and --iters
timed ones. The row reports the iteration time (the span of the timed iterations over
all ranks / iters) and the slowest iteration of one rank, the aggregate and per-rank
bandwidth, and the message latency percentiles (point-to-point motifs: from the
sender's MPI_Isend to the completion of the receive; collectives: the call), with the
MPI library's counters. MPI parameters are the mpi group (run params mpi).`

const motifExample = `  run motif halo3d --torus 4x4x4 --face 8K --iters 10
  run motif halo3d --iters 1 --warmup 0 --face 8K          # the whole Red Storm (10,368 nodes)
  run motif halo3d --torus 8x8x8 --placement random --compute 20us
  run motif alltoall --torus 4x4x2 --size 1K
  run motif hotspot --torus 8x8x8 --hot-fraction 0.5 --messages 8
  run sweep --bench motif --vary mpi.eager_max=4K,128000 -- --motif halo3d --torus 4x4x4 --face 64K`

func init() {
	registerBenchmark(&benchmark{
		name:    "motif",
		short:   "Whole-machine MPI motifs (halo3d, alltoall, ...): also run motif NAME",
		long:    "bench motif --motif NAME is run motif NAME, for sweeps.\n\n" + motifLong,
		example: motifExample,
		ids:     []string{"motif", "placement", "ranks", "size_bytes"},
		flags:   func(f *pflag.FlagSet) any { return motifFlags(f, true) },
		check: func(cfg *Config, state any) error {
			_, err := state.(*motifState).plan(cfg, 0)
			return err
		},
		run: runMotif,
	})
}

// newMotifCmd is `run motif NAME`.
func newMotifCmd(c *common) *cobra.Command {
	var state *motifState
	names := make([]string, len(motifs.Names))
	for i, n := range motifs.Names {
		names[i] = string(n)
	}
	cmd := &cobra.Command{
		Use:       "motif NAME",
		Short:     "Run a whole-machine communication motif: " + strings.Join(names, ", "),
		Long:      motifLong,
		Example:   motifExample,
		ValidArgs: names,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usage(fmt.Errorf("motif: want one motif name (%s)", strings.Join(names, ", ")))
			}
			if _, err := motifs.ParseName(args[0]); err != nil {
				return usage(err)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			state.motif = args[0]
			return c.runBench(cmd, benchmarks["motif"], state)
		},
	}
	state = motifFlags(cmd.Flags(), false)
	return cmd
}

// motifState is what the flags of a motif set.
type motifState struct {
	motif, placement, grid string
	cfg                    motifs.Config
	flags                  *pflag.FlagSet // to tell --ranks 0 from no --ranks
}

func motifFlags(f *pflag.FlagSet, withName bool) *motifState {
	s := &motifState{motif: string(motifs.Halo3D), placement: string(motifs.Linear)}
	s.cfg = motifs.DefaultConfig(motifs.Halo3D)
	c := &s.cfg
	if withName {
		f.StringVar(&s.motif, "motif", s.motif, "the motif: pingpong, halo3d, alltoall, allreduce, random or hotspot")
	}
	f.String("torus", "", "torus dimensions XxYxZ (the key torus; default the preset's)")
	bindKey(f, "torus", "torus")
	f.IntVar(&c.Ranks, "ranks", 0, "ranks of the job, one per node (default: every node)")
	s.flags = f
	f.StringVar(&s.placement, "placement", s.placement, "linear (contiguous) or random (seeded by --seed)")
	f.IntVar(&c.Iters, "iters", c.Iters, "timed iterations")
	f.IntVar(&c.Warmup, "warmup", c.Warmup, "untimed iterations before them")
	f.Var(newTextValue(&c.Size, "bytes"), "size", "message size: halo3d face, alltoall block, allreduce vector, pingpong/random message")
	f.Var(newTextValue(&c.Size, "bytes"), "face", "halo3d face size (the same as --size)")
	f.Var(newTextValue(&c.Compute, "duration"), "compute", "work per rank per iteration before communicating")
	f.IntVar(&c.Messages, "messages", c.Messages, "random, hotspot: messages per rank per iteration")
	f.IntVar(&c.HotRank, "hot-rank", c.HotRank, "hotspot: the rank that gets the hot traffic")
	f.Var(newTextValue(&c.HotFraction, "prob"), "hot-fraction", "hotspot: probability that a message goes to the hot rank")
	f.StringVar(&s.grid, "grid", "", "halo3d process grid PxQxR (default: the torus when every node is a rank, else factored)")
	return s
}

// plan completes the motif configuration from the machine configuration, the flags
// and the seed; its errors are usage errors.
func (s *motifState) plan(cfg *Config, seed uint64) (motifs.Config, error) {
	mc := s.cfg
	mc.Machine, mc.Portals, mc.MPI, mc.Seed = cfg.Params, cfg.Portals, cfg.MPI, seed
	var err error
	if mc.Motif, err = motifs.ParseName(s.motif); err != nil {
		return mc, usage(fmt.Errorf("--motif: %w", err))
	}
	if mc.Placement, err = motifs.ParsePlacement(s.placement); err != nil {
		return mc, usage(fmt.Errorf("--placement: %w", err))
	}
	if s.grid != "" {
		if _, err := fmt.Sscanf(s.grid, "%dx%dx%d", &mc.Grid[0], &mc.Grid[1], &mc.Grid[2]); err != nil || mc.Grid[0] < 1 || mc.Grid[1] < 1 || mc.Grid[2] < 1 {
			return mc, usage(fmt.Errorf("--grid %q: want PxQxR, e.g. 4x4x2", s.grid))
		}
	}
	if s.flags != nil && s.flags.Changed("ranks") && mc.Ranks < 1 {
		return mc, usage(fmt.Errorf("--ranks must be >= 1 (got %d); leave it out to run a rank on every node", mc.Ranks))
	}
	if err := checkSize("--size", int64(mc.Size)); err != nil {
		return mc, err
	}
	if err := mc.Validate(); err != nil {
		return mc, usage(fmt.Errorf("motif %s: %w (flags --ranks, --iters, --warmup, --size, --grid, --hot-rank, ...)", mc.Motif, err))
	}
	if topo, err := mc.Machine.Topology(); err == nil {
		if err := checkMemory("motif "+string(mc.Motif), topo.Nodes(), motifNodeBytes); err != nil {
			return mc, err
		}
	}
	return mc, nil
}

// runMotif runs the motif: one row.
func runMotif(ctx context.Context, cfg *Config, opts actors.Options, state any) (*benchOutput, error) {
	mc, err := state.(*motifState).plan(cfg, opts.Seed)
	if err != nil {
		return nil, err
	}
	res, err := motifs.Run(ctx, mc, opts)
	out := &benchOutput{params: map[string]string{"motif": string(mc.Motif), "placement": string(mc.Placement)}}
	if res == nil {
		return out, err
	}
	if res.Report != nil {
		out.reports = append(out.reports, res.Report)
	}
	if err != nil {
		return out, err
	}
	if mc.Motif == motifs.Halo3D {
		out.params["grid"] = fmt.Sprintf("%dx%dx%d", res.Grid[0], res.Grid[1], res.Grid[2])
	}
	var r results.Row
	r.Set("motif", string(res.Motif))
	r.Set("placement", string(res.Placement))
	r.Set("ranks", res.Ranks)
	r.Set("size_bytes", int64(res.Size))
	r.Set("iters", res.Iters)
	r.Set("iter_time_us", res.IterTime.Microseconds())
	r.Set("iter_max_us", res.IterMax.Microseconds())
	r.Set("bandwidth_MBps", res.Bandwidth/1e6)
	r.Set("rank_bandwidth_MBps", res.PerRank/1e6)
	r.Set("latency_p50_us", res.LatencyP50.Microseconds())
	r.Set("latency_p99_us", res.LatencyP99.Microseconds())
	r.Set("latency_max_us", res.LatencyMax.Microseconds())
	r.Set("messages", res.Messages)
	r.Set("bytes", res.Bytes)
	r.Set("mpi_long", res.MPI.Long)
	r.Set("mpi_unexpected", res.MPI.Unexpected)
	r.Set("mpi_post_retries", res.MPI.PostRetries)
	out.rows = append(out.rows, r)
	return out, nil
}
