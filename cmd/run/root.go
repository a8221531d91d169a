package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"

	"github.com/seastar-sim/seastar/actors"
	"github.com/spf13/cobra"
)

// common holds the flags every simulation command shares (docs/design.md section 8).
type common struct {
	seed          uint64
	workers       int
	partition     string
	engine        string
	sync          string
	format        string
	quiet         bool
	cpuprof       string
	memprof       string
	hugePages     bool
	lowPriority   bool
	sets          []string
	config        string
	out           string
	args          []string // the command line, for run.json and the --resume hint
	configContent []byte   // a worker's: the configuration its coordinator sent (in place of --config's file)
	trace         traceFlags
	cluster       clusterFlags // runs across processes (worker.go)
	preset        string       // machine preset when none is set: the benchmark's (benchmark.preset), else redstorm
}

func (c *common) register(cmd *cobra.Command) {
	f := cmd.PersistentFlags()
	f.Uint64Var(&c.seed, "seed", 1, "root seed of every random stream")
	f.IntVar(&c.workers, "workers", runtime.GOMAXPROCS(0), "worker goroutines of the parallel engine (results do not depend on it)")
	f.StringVar(&c.partition, "partition", "auto", "partitioning: block, node, slab (torus slabs) or auto (balanced; one partition below 128 actors, about ten nodes); results do not depend on it")
	f.StringVar(&c.engine, "engine", "parallel", "engine: serial (reference) or parallel")
	f.StringVar(&c.sync, "sync", "auto", "parallel synchronization: window (barrier per lookahead), horizon (per-neighbour clocks, a worker per partition) or auto")
	f.StringVar(&c.format, "format", "table", "output format: table, csv or json")
	f.BoolVar(&c.quiet, "quiet", false, "no progress output on stderr")
	f.StringVar(&c.cpuprof, "cpuprofile", "", "write a Go CPU profile of the run to this file (for go tool pprof)")
	f.StringVar(&c.memprof, "memprofile", "", "write a Go allocation profile of the run to this file at its end (go tool pprof -sample_index=alloc_objects)")
	f.BoolVar(&c.hugePages, "huge-pages", true, "back a large model's memory with transparent huge pages where the kernel does so on request "+
		"(Linux, transparent_hugepage=madvise; Red Storm's halo3d on one worker 8% faster over nine alternating pairs, 14% and 26% in two later pairs), faulted in ahead by a thread of its own while the model is built; results do not depend on it")
	f.BoolVar(&c.lowPriority, "low-priority", false, "run the engine's worker threads at the lowest CPU priority (Linux SCHED_IDLE), so that any other thread, "+
		"those carrying the reports of a run across processes first, takes a CPU from them at once (halo3d 16x16x16 on two processes of a 2-core machine: 4% faster at the median of 18 alternating pairs in one measurement, no faster at the median of 6 in a later one, 6% in 4 pairs in a third); "+
		"for a machine given to the run: other load then comes first; workers do not steal partitions; results do not depend on it")
	f.StringArrayVar(&c.sets, "set", nil, "set a parameter, KEY=VALUE with units (repeatable; see run params)")
	f.StringVar(&c.config, "config", "", "YAML file of parameters (nested by group); --set and flags override it")
	f.StringVar(&c.out, "out", "", "results directory (default "+resultsRoot+"/COMMAND-UTCTIME; none: write no files)")
	c.trace.register(f)
	c.cluster.register(f)
}

// smallModelActors: --partition auto runs models of fewer actors (about ten nodes) as one
// partition, which is faster than several for them (see actors.Auto).
const smallModelActors = 128

// options turns the common flags into engine options.
func (c *common) options() (actors.Options, error) {
	eng, err := actors.ParseEngine(c.engine)
	if err != nil {
		return actors.Options{}, usage(fmt.Errorf("--engine: %w", err))
	}
	part, err := actors.ParsePartitioner(c.partition)
	if err != nil {
		return actors.Options{}, usage(fmt.Errorf("--partition: %w", err))
	}
	if a, ok := part.(actors.Auto); ok {
		a.MinActors = smallModelActors
		part = a
	}
	sync, err := actors.ParseSyncMode(c.sync)
	if err != nil {
		return actors.Options{}, usage(fmt.Errorf("--sync: %w", err))
	}
	if c.workers < 1 {
		return actors.Options{}, usage(fmt.Errorf("--workers must be >= 1 (got %d)", c.workers))
	}
	switch c.format {
	case "table", "csv", "json":
	default:
		return actors.Options{}, usage(fmt.Errorf("--format: unknown format %q (want table, csv or json)", c.format))
	}
	if c.lowPriority {
		if err := actors.ProbeLowPriority(); err != nil {
			return actors.Options{}, usage(fmt.Errorf("--low-priority: this system refuses it: %w", err))
		}
	}
	return actors.Options{Seed: c.seed, Engine: eng, Workers: c.workers, Partitioner: part, Sync: sync, LowPriority: c.lowPriority}, nil
}

// execute runs the command line args and returns the exit status. Errors are printed
// on stderr; nothing is printed on stdout unless the command succeeds.
func execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRoot(stdout, stderr, args)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "run: %v\n", err)
		if exitCode(err) == exitUsage && !strings.Contains(err.Error(), "--help") {
			fmt.Fprintln(stderr, "run: see 'run --help' or 'run COMMAND --help'")
		}
	}
	return exitCode(err)
}

func newRoot(stdout, stderr io.Writer, args []string) *cobra.Command {
	return newRootOf(&common{args: args}, stdout, stderr)
}

// newRootOf is the root command with its common flags in c.
func newRootOf(c *common, stdout, stderr io.Writer) *cobra.Command {
	var defaultState any
	root := &cobra.Command{
		Use:   "run",
		Short: "SeaStar network interface simulator",
		Long: `run simulates Cray SeaStar network interfaces (Red Storm / Cray XT3 and XT5) on a
conservative parallel discrete-event kernel.

Without a command, run is the default scenario: PortalPerf put latency and bandwidth
between two Red Storm nodes over generic-mode Portals 3.3 (Brightwell et al. 2005
s.5.1), sizes 0 B to 2 MB; it takes the flags of run bench portalperf (--op, --sizes,
--iters, --bridge, ...). Commands: bench NAME (the benchmarks), sweep (a benchmark over
parameter values), phold (the kernel benchmark), params (every parameter), replay (re-run
a results directory and check its digest), plot (any metric against any column of a
results directory), validate (the model against the papers), faults (a fault campaign),
conform (Portals 4 conformance tests), trace show (a message's waterfall). run --version
prints the version and commit.

Simulation commands write a results directory (--out DIR; default
results/COMMAND-UTCTIME; --out none for none): config.yaml (the resolved
configuration with the topology actually built, a valid --config input), run.json
(command line, the benchmark's flags, version, commit, Go, OS and CPU, seed, digests,
engine reports), results.csv and results.json (tidy: one record per point,
row and metric) and, for benchmarks over message sizes, latency and bandwidth plots
(PNG and SVG).`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.runBench(cmd, benchmarks["portalperf"], defaultState)
		},
	}
	// The default scenario takes the flags of run bench portalperf.
	defaultState = benchmarks["portalperf"].flags(root.Flags())
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usage(err) })
	c.register(root)
	root.Version = versionString()
	root.SetVersionTemplate("run {{.Version}}\n")
	root.AddCommand(newPholdCmd(c), newBenchCmd(c), newSweepCmd(c), newMotifCmd(c), newParamsCmd(c), newConformCmd(c),
		newReplayCmd(), newPlotCmd(), newValidateCmd(c), newFaultsCmd(c), newTraceCmd(), newTracedumpCmd(), newWorkerCmd(c))
	return root
}

// profile starts the CPU profile requested by --cpuprofile and opens the file of
// --memprofile; call the result to stop the first and write the second.
func (c *common) profile() (stop func(), err error) {
	var cpu, mem *os.File
	if c.memprof != "" {
		if mem, err = os.Create(c.memprof); err != nil {
			return nil, usage(fmt.Errorf("--memprofile: %w", err))
		}
	}
	if c.cpuprof != "" {
		if cpu, err = os.Create(c.cpuprof); err == nil {
			if err = pprof.StartCPUProfile(cpu); err != nil {
				cpu.Close()
			}
		}
		if err != nil {
			if mem != nil {
				mem.Close()
			}
			return nil, usage(fmt.Errorf("--cpuprofile: %w", err))
		}
	}
	return func() {
		if cpu != nil {
			pprof.StopCPUProfile()
			cpu.Close()
		}
		if mem != nil {
			// A heap profile is as of the last collection: without one here, the
			// allocations since (a run's last seconds) were missing from it.
			runtime.GC()
			if err := pprof.Lookup("allocs").WriteTo(mem, 0); err != nil {
				fmt.Fprintf(os.Stderr, "run: --memprofile: %v\n", err)
			}
			mem.Close()
		}
	}, nil
}
