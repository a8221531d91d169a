package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/internal/results"
	"github.com/seastar-sim/seastar/params"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// A benchmark is defined once, registered from an init function of its own file, and
// driven by both `run bench NAME` and `run sweep --bench NAME`:
//
//	func init() {
//		registerBenchmark(&benchmark{name: "pingpong", short: "...", long: "...", example: "...",
//			ids: []string{"op", "size_bytes"}, flags: pingpongFlags, check: checkPingpong, run: runPingpong})
//	}
//
// The contract:
//
//   - flags registers the benchmark's own flags (--sizes, --iters, --mode, ...) on fs
//     and returns the state they fill. It is called once per command line and, in a
//     sweep, once per point: every call of check and run gets a fresh state, which
//     they may modify. A flag that sets a configuration key is bound with bindKey
//     (fs, flag, key), so that it takes precedence over --set and --config.
//   - check (optional) validates the state against a resolved configuration without
//     simulating. `run sweep` calls it for every point before running any, so that a
//     bad flag is reported once, up front. Its errors are usage errors (exit 2).
//   - run simulates: one or more actors.Run calls over cfg, with opts (seed, engine,
//     workers; Progress set by the caller or nil, End not set). It must take every
//     parameter from cfg and state and nothing from globals, so that sweep points
//     can run concurrently and give the same results whatever --jobs is. It returns
//     rows and the report of every simulation it ran. A bad flag or value returns
//     usage(err); a simulation error returns it with the rows gathered so far
//     (`run bench` prints them on stderr); cancellation of ctx returns the engine's
//     actors.ErrInterrupted error.
//   - Rows use the docs/design.md section 8 field names where they apply (size_bytes,
//     latency_us, bandwidth_MBps, msg_per_s, op, conn, mode, layer). The fields named
//     in ids identify a row (default defaultIDs); every other field is a metric. The
//     results files hold one line per (point, row, metric); the plots are drawn for
//     rows with size_bytes and latency_us or bandwidth_MBps, one line per
//     combination of swept values and identifying fields other than size_bytes.
//   - Wall-clock figures do not belong in rows (they would make results differ from
//     run to run): they belong in the reports, which go to run.json, or in params.
type benchmark struct {
	name    string   // `run bench NAME`, `run sweep --bench NAME`
	short   string   // one line for the command list
	long    string   // the help text
	example string   // example command lines, indented by two spaces
	ids     []string // row fields that identify a row rather than measure it; nil: defaultIDs
	preset  string   // machine preset it runs on unless machine is set (file, --set, --vary); "": redstorm

	flags func(fs *pflag.FlagSet) (state any)
	check func(cfg *Config, state any) error
	run   func(ctx context.Context, cfg *Config, opts actors.Options, state any) (*benchOutput, error)
}

// benchOutput is what a benchmark's run returns.
type benchOutput struct {
	rows    []results.Row     // the results, one row per measurement (size, mode, load, ...)
	reports []*actors.Report  // the report of every simulation, in the order run
	params  map[string]string // extra entries of the printed params (the mode, the load list, ...)
	// summary is the report `run bench` prints as the run's; nil combines reports
	// (events and times summed, digests combined).
	summary *actors.Report
	// notes go into run.json's notes: what a reader of the results directory must know
	// of the outcome (tests failed, data lost), beside the rows that show it.
	notes []string
}

// defaultIDs are the identifying row fields of docs/design.md section 8.
var defaultIDs = []string{"op", "conn", "mode", "layer", "size_bytes"}

// benchmarks holds the registered benchmarks by name.
var benchmarks = map[string]*benchmark{}

// registerBenchmark adds b to `run bench` and `run sweep`; call it from an init
// function. It panics on a duplicate or incomplete definition, which every test run
// catches.
func registerBenchmark(b *benchmark) {
	switch {
	case b.name == "" || b.short == "" || b.flags == nil || b.run == nil:
		panic(fmt.Sprintf("registerBenchmark %q: name, short, flags and run are required", b.name))
	case benchmarks[b.name] != nil:
		panic(fmt.Sprintf("registerBenchmark: %q registered twice", b.name))
	}
	benchmarks[b.name] = b
}

// benchNames returns the names of the registered benchmarks, sorted.
func benchNames() []string {
	names := make([]string, 0, len(benchmarks))
	for n := range benchmarks {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// identifies reports whether row field k identifies a row of b.
func (b *benchmark) identifies(k string) bool {
	if b.ids == nil {
		return slices.Contains(defaultIDs, k)
	}
	return slices.Contains(b.ids, k)
}

func newBenchCmd(c *common) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench NAME",
		Short: "Run a benchmark (docs/design.md section 5): see the list of commands below",
		Long: `bench runs one benchmark, prints its rows on stdout (--format table, csv or json) and
writes a results directory (--out DIR, default results/bench-NAME-UTCTIME, --out none for
none): config.yaml, run.json, results.csv, results.json and, for benchmarks with sizes,
latency and bandwidth plots. run sweep runs the same benchmarks over parameter values.`,
		Args: cobra.NoArgs,
	}
	for _, name := range benchNames() {
		cmd.AddCommand(newBenchRunCmd(c, benchmarks[name]))
	}
	return cmd
}

// newBenchRunCmd is `run bench NAME` for a registered benchmark.
func newBenchRunCmd(c *common, b *benchmark) *cobra.Command {
	var state any
	cmd := &cobra.Command{
		Use:     b.name,
		Short:   b.short,
		Long:    b.long,
		Example: b.example,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.runBench(cmd, b, state)
		},
	}
	state = b.flags(cmd.Flags())
	return cmd
}

// runBench runs b once: the command `run bench NAME`.
func (c *common) runBench(cmd *cobra.Command, b *benchmark, state any) error {
	opts, err := c.options()
	if err != nil {
		return err
	}
	c.preset = b.preset
	cfg, tree, err := c.load(cmd)
	if err != nil {
		return err
	}
	if b.check != nil {
		if err := b.check(cfg, state); err != nil {
			return usage(err)
		}
	}
	c.reserveHugePages(1)
	endCluster, err := c.joinCluster(cmd, tree, &opts)
	if err != nil {
		return failed(err)
	}
	defer endCluster()
	out, err := c.newOutput("bench-"+b.name, false)
	if err != nil {
		return err
	}
	tr, err := c.startTracing(cfg, "bench "+b.name)
	if err != nil {
		return err
	}
	opts.Tracer = tr.hook()
	opts.Work = &actors.Work{}
	if !c.quiet {
		var done func()
		opts.Progress, done = progressPrinter(cmd.ErrOrStderr(), b.name)
		defer done()
	}
	stopProfile, err := c.profile()
	if err != nil {
		return err
	}
	var gc runGC
	opts.OnLayout = gc.hook(opts.Workers, opts.Cluster)
	start := time.Now()
	res, err := b.run(cmd.Context(), cfg, opts, state)
	gc.end()
	stopProfile()
	trace, terr := tr.finish(cmd.ErrOrStderr())
	if err == nil {
		err = terr
	}
	command := "bench " + b.name
	if errors.Is(err, actors.ErrInterrupted) && res != nil {
		// Keep what was measured: the rows finished, a run.json marked interrupted.
		if len(res.rows) > 0 {
			fmt.Fprintln(cmd.ErrOrStderr(), "rows finished before the interruption:")
			_ = writeRows(cmd.ErrOrStderr(), res.rows)
		}
		if werr := out.writeSingle(c, command, b, tree, localFlags(cmd), res, start, statusInterrupted); werr != nil {
			return failed(errors.Join(err, werr))
		}
		if out.dir != "" {
			fmt.Fprintf(cmd.ErrOrStderr(), "run: interrupted: %d rows and run.json (status interrupted) in %s\n", len(res.rows), out.dir)
		}
		return err
	}
	if err != nil {
		if res != nil && len(res.rows) > 0 {
			fmt.Fprintln(cmd.ErrOrStderr(), "statistics up to the failure:")
			_ = writeRows(cmd.ErrOrStderr(), res.rows)
		}
		return failed(err)
	}
	if err := out.writeSingle(c, command, b, tree, localFlags(cmd), res, start, "complete"); err != nil {
		return failed(err)
	}
	r := newResult(command, c, res.summaryReport())
	r.Rows, r.Out, r.Trace = res.rows, out.dir, trace
	if r.Tidy, err = singleResultSet(command, b, res.rows); err != nil {
		return failed(err)
	}
	for k, v := range res.params { //lint:ordered distinct keys into a map
		if _, ok := r.Params[k]; !ok {
			r.Params[k] = v
		}
	}
	return failed(writeResult(cmd.OutOrStdout(), c.format, r))
}

// runPlans runs sim once per plan, in order, and gathers the rows and the report of
// each (sim returns nil for what it does not have). The first error ends the run with
// what was gathered, the failed simulation's own partial rows and report included.
// work (Options.Work, may be nil) numbers the simulations for progress reports.
func runPlans[P any](work *actors.Work, plans []P, sim func(P) ([]results.Row, *actors.Report, error)) (*benchOutput, error) {
	out := &benchOutput{}
	next := stages(work, len(plans))
	for _, p := range plans {
		next()
		rows, rep, err := sim(p)
		out.rows = append(out.rows, rows...)
		if rep != nil {
			out.reports = append(out.reports, rep)
		}
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// stages numbers the n simulations of a benchmark for progress reports
// (Options.Work): call next before each.
func stages(w *actors.Work, n int) (next func()) {
	i := 0
	return func() {
		w.Stage(i, n)
		i++
	}
}

// parseSizeList parses the --sizes flag s into the sizes of a benchmark
// configuration; its errors are usage errors.
func parseSizeList(s string) ([]int64, error) {
	sizes, err := params.ParseSizes(s)
	if err != nil {
		return nil, usage(fmt.Errorf("--sizes: %w", err))
	}
	out := make([]int64, len(sizes))
	for i, sz := range sizes {
		out[i] = int64(sz)
		if err := checkSize("--sizes", out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// summaryReport is the report `run bench` prints.
func (o *benchOutput) summaryReport() *actors.Report {
	if o.summary != nil {
		return o.summary
	}
	return combineReports(o.reports)
}

// combineReports sums the reports of several runs into one: events and times add up,
// the digest covers every run's digest in order (a single run keeps its own), and the
// per-partition statistics are dropped; the events by block add up by kind.
func combineReports(reps []*actors.Report) *actors.Report {
	if len(reps) == 0 {
		return &actors.Report{Lookahead: actors.Duration(actors.MaxTime)}
	}
	all := *reps[0]
	all.Parts = nil
	if len(reps) == 1 {
		return &all
	}
	digests := make([]string, len(reps))
	blocks := make([][]actors.BlockEvents, len(reps))
	all.Events, all.Wall, all.SimTime, all.Windows, all.Allocs, all.StartAllocs, all.Packets = 0, 0, 0, 0, 0, 0, 0
	if n := len(all.ProcessBusy); n > 0 { // runs across processes, every one with the same processes
		all.ProcessBusy = make([]time.Duration, n)
	}
	for i, rep := range reps {
		digests[i] = rep.Digest
		all.Events += rep.Events
		all.Wall += rep.Wall
		all.SimTime += rep.SimTime
		all.Windows += rep.Windows
		all.PeakRSS = max(all.PeakRSS, rep.PeakRSS)
		for k, b := range rep.ProcessBusy {
			all.ProcessBusy[k] += b
		}
		all.Allocs += rep.Allocs
		all.StartAllocs += rep.StartAllocs
		all.Packets += rep.Packets
		blocks[i] = rep.Blocks
	}
	all.Digest = combineDigests(digests)
	all.Blocks = actors.MergeBlocks(blocks...)
	all.EventsPerSec, all.SimPerWall = 0, 0
	if s := all.Wall.Seconds(); s > 0 {
		all.EventsPerSec = float64(all.Events) / s
		all.SimPerWall = all.SimTime.Seconds() / s
	}
	return &all
}

// suggestBench is the error for an unknown benchmark name.
func suggestBench(name string) error {
	return fmt.Errorf("--bench: unknown benchmark %q (available: %s)", name, strings.Join(benchNames(), ", "))
}
