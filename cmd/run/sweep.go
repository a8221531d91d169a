package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/internal/results"
	"github.com/seastar-sim/seastar/internal/sweep"
	"github.com/seastar-sim/seastar/params"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// sweepFlags are the flags of `run sweep`.
type sweepFlags struct {
	bench  string
	vary   []string
	zip    bool
	jobs   int
	resume bool
	seeds  int
}

// afterPoint, if set (by tests), is called by a sweep worker when a point is
// finished and its directory complete.
var afterPoint func(index int)

func newSweepCmd(c *common) *cobra.Command {
	var s sweepFlags
	cmd := &cobra.Command{
		Use:   "sweep --bench NAME --vary KEY=LIST [--vary ...] [--zip] [--jobs N] [--resume] [--out DIR] [-- BENCH FLAGS]",
		Short: "Run a benchmark over parameter values: one independent simulation per point, in parallel",
		Long: `sweep runs the benchmark --bench over the points made of the --vary lists: their
cartesian product (the first --vary varies slowest), or with --zip the first values of
every list, then the second values, and so on. KEY is a parameter key (see run
params) or seed; LIST is comma-separated values with units (250MHz,500MHz) or ranges:
a:b:+d (arithmetic, 30:90:+30) and a:b:xk (geometric, 1us:1ms:x10, 0:1M:x4 for sizes).

Each point is the configuration of --config, --set and the benchmark's flags (given
after --) with the point's values on top, simulated on its own; --jobs points run at
once. Without --workers each point gets GOMAXPROCS/jobs engine workers (at least 1):
independent points use the cores better than one parallel simulation does. Results do
not depend on --jobs, --workers, --engine or --partition.

The results directory (--out DIR, default results/sweep-NAME-UTCTIME) holds
config.yaml (the base configuration), run.json, results.csv and results.json (tidy:
point, row, the swept keys, the row's identifying fields, metric, value), latency and
bandwidth plots against message size (PNG and SVG, one line per swept combination),
and points/N/ for every point, finished when points/N/done exists. Ctrl-C stops
launching points, keeps the finished ones, writes the results of those and exits with
status 130; --resume with the same command line and --out runs the missing points.`,
		Example: `  run sweep --bench rawdma --vary ppc.clock=250MHz,500MHz --vary rawdma.som_instr=30,60 \
      -- --mode pingpong --sizes 0:64K:x4
  run sweep --bench rawdma --vary ppc.clock=250MHz:1GHz:x2 --out results/clock -- --mode stream --sizes 1K:1M:x4
  run sweep --bench rawdma --vary ppc.clock=250MHz:1GHz:x2 --out results/clock --resume -- --mode stream --sizes 1K:1M:x4
  run sweep --bench rawdma --zip --vary ppc.clock=250MHz,500MHz --vary rawdma.som_instr=60,30 --jobs 2
  run sweep --bench traffic --vary router.vcs=2,4 --vary seed=1:3:+1 -- --load 0.1:1:+0.3
  run sweep --bench traffic --vary router.output_queue_packets=2,8 --seeds 5 -- --load 0.2,0.5,0.8`,
		RunE: func(cmd *cobra.Command, args []string) error { return c.runSweep(cmd, &s, args) },
	}
	f := cmd.Flags()
	f.StringVar(&s.bench, "bench", "", "the benchmark: "+strings.Join(benchNames(), ", "))
	f.StringArrayVar(&s.vary, "vary", nil, "KEY=LIST: the values of a parameter, e.g. ppc.clock=250MHz,500MHz or rawdma.som_instr=30:90:+30 (repeatable)")
	f.BoolVar(&s.zip, "zip", false, "pair the lists element by element (all of one length) instead of taking their product")
	f.IntVar(&s.jobs, "jobs", runtime.GOMAXPROCS(0), "points simulated at once")
	f.BoolVar(&s.resume, "resume", false, "continue the sweep in --out DIR: keep its finished points, run the others")
	f.IntVar(&s.seeds, "seeds", 0, "replicates: run every point with the seeds --seed .. --seed+N-1 (as a last --vary seed) and write aggregate.csv: mean, standard deviation and 95% confidence interval per point and metric")
	return cmd
}

// sweepPoint is one simulation of a sweep.
type sweepPoint struct {
	index  int
	values []params.KV // the swept values, seed included, in --vary order
	over   []params.KV // the parameter values (values without seed)
	seed   uint64
	cfg    *Config
	yaml   []byte // the resolved configuration, config.yaml
	rec    pointRecord
	rows   []results.Row // normalized, once finished
}

// finished reports whether p has results.
func (p *sweepPoint) finished() bool {
	return p.rec.Status == statusRan || p.rec.Status == statusReused
}

// label is the point's values as k=v, k2=v2.
func (p *sweepPoint) label() string {
	parts := make([]string, len(p.values))
	for i, kv := range p.values {
		parts[i] = kv.Key + "=" + kv.Value
	}
	return strings.Join(parts, ", ")
}

// sweep is a resolved `run sweep` command line.
type sweepRun struct {
	c         *common
	b         *benchmark
	benchArgs []string
	lists     []sweep.List
	zip       bool
	points    []*sweepPoint
	base      *params.Tree
	opts      actors.Options
	out       *output
}

func (c *common) runSweep(cmd *cobra.Command, s *sweepFlags, args []string) error {
	start := time.Now()
	sw, err := c.planSweep(cmd, s, args)
	if err != nil {
		return err
	}
	if sw.out, err = c.newOutput("sweep-"+sw.b.name, s.resume); err != nil {
		return err
	}
	if err := sw.prepareDir(s.resume); err != nil {
		return err
	}
	jobs := min(s.jobs, max(1, len(sw.pending())))
	if !cmd.Flags().Changed("workers") {
		sw.opts.Workers = max(1, runtime.GOMAXPROCS(0)/jobs)
	}
	stopProfile, err := c.profile()
	if err != nil {
		return err
	}
	fatal := sw.run(cmd.Context(), cmd.ErrOrStderr(), jobs)
	stopProfile()

	rec := sw.record(start, jobs)
	interrupted := cmd.Context().Err() != nil && rec.Finished < len(sw.points)
	switch {
	case fatal != nil:
		rec.Status = statusFailed
	case interrupted:
		rec.Status = statusInterrupted
	case rec.Finished < len(sw.points):
		rec.Status = statusFailed
	}
	if err := sw.writeResults(rec); err != nil {
		return failed(err)
	}
	switch {
	case fatal != nil:
		return fatal
	case interrupted:
		return sw.interrupted(rec)
	case rec.Finished < len(sw.points):
		return sw.failures(rec)
	}
	r := sw.result(rec, start)
	if c.format == "table" {
		return failed(sw.writeTable(cmd.OutOrStdout(), r))
	}
	return failed(writeResult(cmd.OutOrStdout(), c.format, r))
}

// planSweep checks the command line and resolves every point's configuration, so
// that every usage error is reported before anything runs.
func (c *common) planSweep(cmd *cobra.Command, s *sweepFlags, args []string) (*sweepRun, error) {
	opts, err := c.options()
	if err != nil {
		return nil, err
	}
	if err := c.refuseTracing("trace one point of a sweep with run bench and its --set values"); err != nil {
		return nil, err
	}
	if len(c.cluster.peers) > 0 {
		return nil, usage(fmt.Errorf("--peers: a sweep is not split across processes; run one point with run bench and its --set values"))
	}
	opts.Progress = nil
	b := benchmarks[s.bench]
	switch {
	case s.bench == "":
		return nil, usage(fmt.Errorf("--bench NAME is required (available: %s)", strings.Join(benchNames(), ", ")))
	case b == nil:
		return nil, usage(suggestBench(s.bench))
	case s.seeds < 0:
		return nil, usage(fmt.Errorf("--seeds must be >= 1 (got %d)", s.seeds))
	case s.seeds > 0 && s.zip:
		return nil, usage(errors.New("--seeds takes the product with the --vary lists; with --zip give the seeds as --vary seed=LIST"))
	case s.seeds > 0 && slices.ContainsFunc(s.vary, func(v string) bool { return strings.HasPrefix(strings.TrimSpace(v), results.SeedKey+"=") }):
		return nil, usage(errors.New("--seeds and --vary seed=...: give the seeds one way"))
	case len(s.vary) == 0 && s.seeds == 0:
		return nil, usage(errors.New("--vary KEY=LIST (or --seeds N) is required (run params lists the keys)"))
	case s.jobs < 1:
		return nil, usage(fmt.Errorf("--jobs must be >= 1 (got %d)", s.jobs))
	}
	c.preset = b.preset
	sw := &sweepRun{c: c, b: b, zip: s.zip, opts: opts}
	if sw.benchArgs, err = benchArgs(cmd, args); err != nil {
		return nil, err
	}
	file, err := c.configFile()
	if err != nil {
		return nil, err
	}
	fs, _, err := sw.benchFlags()
	if err != nil {
		return nil, err
	}
	if _, sw.base, err = c.resolve(file, []*pflag.FlagSet{fs}, nil); err != nil {
		return nil, err
	}
	vary := s.vary
	if s.seeds > 0 {
		vary = append(slices.Clone(vary), fmt.Sprintf("%s=%d:%d:+1", results.SeedKey, c.seed, c.seed+uint64(s.seeds)-1))
	}
	if sw.lists, err = sweep.ParseVary(sw.base, vary); err != nil {
		return nil, usage(err)
	}
	values, err := sweep.Combine(sw.lists, s.zip)
	if err != nil {
		return nil, usage(err)
	}
	for i, vals := range values {
		p := &sweepPoint{index: i, values: vals, seed: c.seed}
		for _, kv := range vals {
			if kv.Key == results.SeedKey {
				p.seed, _ = strconv.ParseUint(kv.Value, 10, 64)
			} else {
				p.over = append(p.over, kv)
			}
		}
		if err := sw.resolvePoint(file, p); err != nil {
			return nil, err
		}
		sw.points = append(sw.points, p)
	}
	return sw, nil
}

// resolvePoint resolves p's configuration and checks the benchmark's flags on it.
func (sw *sweepRun) resolvePoint(file []byte, p *sweepPoint) error {
	wrap := func(err error) error { return usage(fmt.Errorf("point %d (%s): %w", p.index, p.label(), err)) }
	fs, state, err := sw.benchFlags()
	if err != nil {
		return err
	}
	cfg, tree, err := sw.c.resolve(file, []*pflag.FlagSet{fs}, p.over)
	if err != nil {
		return wrap(err)
	}
	if sw.b.check != nil {
		if err := sw.b.check(cfg, state); err != nil {
			return wrap(err)
		}
	}
	p.cfg = cfg
	if p.yaml, err = configYAML(tree); err != nil {
		return err
	}
	p.rec = pointRecord{Point: p.index, Values: map[string]string{}, Seed: p.seed, Status: statusPending}
	for _, kv := range p.values {
		p.rec.Values[kv.Key] = kv.Value
	}
	return nil
}

// benchArgs returns the benchmark's flags: the arguments after --.
func benchArgs(cmd *cobra.Command, args []string) ([]string, error) {
	dash := cmd.ArgsLenAtDash()
	if dash < 0 {
		dash = len(args)
	}
	if dash > 0 {
		return nil, usage(fmt.Errorf("unexpected argument %q: the benchmark's flags go after --, as in "+
			"run sweep --bench NAME --vary KEY=LIST -- --sizes 0:1K:x2", args[0]))
	}
	return slices.Clone(args[dash:]), nil
}

// benchFlags parses the benchmark's flags into a fresh state.
func (sw *sweepRun) benchFlags() (*pflag.FlagSet, any, error) {
	fs := pflag.NewFlagSet("bench "+sw.b.name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	state := sw.b.flags(fs)
	if err := fs.Parse(sw.benchArgs); err != nil {
		return nil, nil, usage(fmt.Errorf("bench %s flags (after --): %w", sw.b.name, err))
	}
	if fs.NArg() > 0 {
		return nil, nil, usage(fmt.Errorf("bench %s flags (after --): unexpected argument %q", sw.b.name, fs.Arg(0)))
	}
	return fs, state, nil
}

// pointFile is points/N/rows.json: the point's identity and rows. It holds nothing
// that depends on the run (no wall-clock time), so --resume can compare it.
type pointFile struct {
	Point     int               `json:"point"`
	Bench     string            `json:"bench"`
	BenchArgs []string          `json:"bench_args"`
	Seed      uint64            `json:"seed"`
	Values    map[string]string `json:"values"`
	Digest    string            `json:"digest"`
	Rows      []results.Row     `json:"rows"`
}

func (sw *sweepRun) pointDir(p *sweepPoint, elem ...string) string {
	return sw.out.path(append([]string{pointsDir, strconv.Itoa(p.index)}, elem...)...)
}

// prepareDir creates the results directory and, with resume, takes over the
// finished points of an earlier run of the same sweep.
func (sw *sweepRun) prepareDir(resume bool) error {
	if sw.out.dir == "" {
		return nil
	}
	if err := sw.out.create(); err != nil {
		return failed(err)
	}
	yml, err := configYAML(sw.base)
	if err != nil {
		return failed(err)
	}
	if err := results.WriteFileAtomic(sw.out.path(configFile), yml); err != nil {
		return failed(err)
	}
	if !resume {
		return nil
	}
	for _, p := range sw.points {
		if err := sw.reuse(p); err != nil {
			return err
		}
	}
	return nil
}

// reuse takes over point p from an earlier run if it finished (points/N/done
// exists) with the same identity and configuration; an unfinished point's directory
// is cleared.
func (sw *sweepRun) reuse(p *sweepPoint) error {
	if _, err := os.Stat(sw.pointDir(p, pointDone)); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return failed(err)
		}
		return failed(os.RemoveAll(sw.pointDir(p)))
	}
	mismatch := func(what string) error {
		return usage(fmt.Errorf("--resume: %s was made by another sweep (its %s differs from this point's: %s); "+
			"resume with the original command line, or choose a new --out", sw.pointDir(p), what, p.label()))
	}
	b, err := os.ReadFile(sw.pointDir(p, pointRows))
	if err != nil {
		return failed(err)
	}
	var pf pointFile
	if err := json.Unmarshal(b, &pf); err != nil {
		return failed(fmt.Errorf("%s: %w", sw.pointDir(p, pointRows), err))
	}
	switch {
	case pf.Bench != sw.b.name || !slices.Equal(pf.BenchArgs, sw.benchArgs):
		return mismatch("benchmark or its flags")
	case pf.Seed != p.seed:
		return mismatch("seed")
	case !maps.Equal(pf.Values, p.rec.Values):
		return mismatch("swept values")
	}
	if yml, err := os.ReadFile(sw.pointDir(p, configFile)); err != nil || !bytes.Equal(yml, p.yaml) {
		return mismatch("configuration")
	}
	var old pointRecord
	if b, err := os.ReadFile(sw.pointDir(p, pointReport)); err == nil {
		_ = json.Unmarshal(b, &old) // the reports are informative only
	}
	p.rows = pf.Rows
	p.rec.Status, p.rec.Digest, p.rec.Reports, p.rec.WallS = statusReused, pf.Digest, old.Reports, old.WallS
	return nil
}

// pending returns the points still to run, in order.
func (sw *sweepRun) pending() []*sweepPoint {
	var out []*sweepPoint
	for _, p := range sw.points {
		if !p.finished() {
			out = append(out, p)
		}
	}
	return out
}

// run simulates the pending points, jobs at a time, and returns the first error that
// ends the sweep early: a usage error from the benchmark or a results file that
// cannot be written. Cancelling ctx stops launching points and interrupts those
// running; a simulation error fails its point only.
func (sw *sweepRun) run(ctx context.Context, stderr io.Writer, jobs int) error {
	pending := sw.pending()
	sw.c.reserveHugePages(min(jobs, len(pending))) // the largest point's model, jobs at once
	prog := sweep.NewProgress(stderr, sw.c.quiet, len(sw.points), len(sw.points)-len(pending), jobs)
	defer prog.Finish()
	return sweep.Run(ctx, len(pending), jobs, func(ctx context.Context, i int) error {
		p := pending[i]
		err := sw.runPoint(ctx, p, jobs == 1)
		if p.rec.Status != statusInterrupted && p.rec.Status != statusPending {
			prog.PointDone(p.finished())
		}
		return err
	})
}

// runPoint simulates p and writes its directory; alone tells that no other point runs
// meanwhile (the collector's target is then the point's, runGCTarget). It returns an
// error only for what ends the whole sweep; a simulation error is recorded in p.rec.
func (sw *sweepRun) runPoint(ctx context.Context, p *sweepPoint, alone bool) error {
	if ctx.Err() != nil {
		return nil // not started: stays pending
	}
	if sw.out.dir != "" {
		if err := os.MkdirAll(sw.pointDir(p), dirPerm); err != nil {
			return failed(err)
		}
		if err := results.WriteFileAtomic(sw.pointDir(p, configFile), p.yaml); err != nil {
			return failed(err)
		}
	}
	_, state, err := sw.benchFlags()
	if err != nil {
		return err
	}
	opts := sw.opts
	opts.Seed = p.seed
	var gc runGC
	if alone {
		opts.OnLayout = gc.hook(opts.Workers, opts.Cluster)
	}
	start := time.Now()
	res, err := sw.b.run(ctx, p.cfg, opts, state)
	gc.end()
	p.rec.WallS = time.Since(start).Seconds()
	if res != nil {
		p.rec.Reports = reportsJSON(res.reports, false)
	}
	if err != nil {
		var ue usageError
		switch {
		case errors.Is(err, actors.ErrInterrupted):
			p.rec.Status = statusInterrupted
			return nil
		case errors.As(err, &ue), errors.Is(err, actors.ErrConfig):
			p.rec.Status, p.rec.Error = statusFailed, err.Error()
			return usage(fmt.Errorf("point %d (%s): %w", p.index, p.label(), err))
		}
		p.rec.Status, p.rec.Error = statusFailed, err.Error()
		if sw.out.dir != "" {
			return failed(results.WriteJSONFile(sw.pointDir(p, pointReport), p.rec))
		}
		return nil
	}
	return sw.finishPoint(p, res)
}

// finishPoint records p's results and writes its directory, the done marker last.
func (sw *sweepRun) finishPoint(p *sweepPoint, res *benchOutput) error {
	rows, err := results.NormalizeRows(res.rows)
	if err != nil {
		return failed(err)
	}
	digests := make([]string, len(res.reports))
	for i, r := range res.reports {
		digests[i] = r.Digest
	}
	p.rows = rows
	p.rec.Status = statusRan
	if len(digests) > 0 {
		p.rec.Digest = combineDigests(digests)
	}
	if sw.out.dir == "" {
		return nil
	}
	pf := pointFile{Point: p.index, Bench: sw.b.name, BenchArgs: sw.benchArgs, Seed: p.seed, Values: p.rec.Values,
		Digest: p.rec.Digest, Rows: rows}
	if pf.BenchArgs == nil {
		pf.BenchArgs = []string{}
	}
	for _, w := range []struct {
		name string
		v    any
	}{{pointRows, pf}, {pointReport, p.rec}} {
		if err := results.WriteJSONFile(sw.pointDir(p, w.name), w.v); err != nil {
			return failed(err)
		}
	}
	if err := results.WriteFileAtomic(sw.pointDir(p, pointDone), []byte("finished\n")); err != nil {
		return failed(err)
	}
	if afterPoint != nil {
		afterPoint(p.index)
	}
	return nil
}

// record makes run.json from the points' states.
func (sw *sweepRun) record(start time.Time, jobs int) *runRecord {
	rec := sw.c.newRunRecord("sweep", start)
	rec.Bench, rec.BenchArgs, rec.Vary, rec.Zip, rec.Jobs = sw.b.name, sw.benchArgs, sw.lists, sw.zip, jobs
	rec.Status = "complete"
	var digests []string
	for _, p := range sw.points {
		rec.Points = append(rec.Points, p.rec)
		switch p.rec.Status {
		case statusRan:
			rec.Ran++
		case statusReused:
			rec.Reused++
		}
		if p.finished() {
			digests = append(digests, p.rec.Digest)
		}
	}
	rec.Finished = rec.Ran + rec.Reused
	if len(digests) > 0 {
		rec.Digest = combineDigests(digests)
	}
	rec.WallS = time.Since(start).Seconds()
	return rec
}

// writeResults writes the aggregate files from the finished points, and run.json.
func (sw *sweepRun) writeResults(rec *runRecord) error {
	if sw.out.dir == "" {
		return nil
	}
	rs := sw.resultSet()
	var err error
	if rec.Plots, rec.Notes, err = results.WriteFiles(sw.out.dir, rs); err != nil {
		return err
	}
	return results.WriteJSONFile(sw.out.path(runFile), rec)
}

// resultSet is the finished points' results.
func (sw *sweepRun) resultSet() *results.Set {
	rs := &results.Set{Title: "bench " + sw.b.name, IsID: sw.b.identifies, Kinds: map[string]string{}}
	kinds := map[string]string{"seed": params.KindUint}
	for _, p := range sw.base.Params() {
		kinds[p.Key] = p.Kind
	}
	for _, l := range sw.lists {
		rs.Keys = append(rs.Keys, l.Key)
		rs.Kinds[l.Key] = kinds[l.Key]
	}
	for _, p := range sw.points {
		if p.finished() {
			rs.Points = append(rs.Points, &results.Point{Index: p.index, Values: p.values, Rows: p.rows})
		}
	}
	return rs
}

// sweepInterrupted is the error of an interrupted sweep: exit status 130.
type sweepInterrupted struct{ msg string }

func (e sweepInterrupted) Error() string { return e.msg }
func (e sweepInterrupted) Unwrap() error { return actors.ErrInterrupted }

// interrupted is the error of a sweep stopped by Ctrl-C: how far it got and how to
// finish it.
func (sw *sweepRun) interrupted(rec *runRecord) error {
	msg := fmt.Sprintf("sweep interrupted: %d of %d points finished", rec.Finished, len(sw.points))
	if sw.out.dir == "" {
		return sweepInterrupted{msg + " (--out none: nothing was kept)"}
	}
	if rec.Finished > 0 {
		msg += ", their results are in " + sw.out.dir
	}
	return sweepInterrupted{fmt.Sprintf("%s; to run the other %d, resume with:\n  %s",
		msg, len(sw.points)-rec.Finished, sw.resumeCommand())}
}

// failures is the error of a sweep whose points failed: exit status 1, with the
// first failure's error (which names the actor and the simulated time).
func (sw *sweepRun) failures(rec *runRecord) error {
	var first *sweepPoint
	n := 0
	for _, p := range sw.points {
		if p.rec.Status == statusFailed {
			n++
			if first == nil {
				first = p
			}
		}
	}
	where := ""
	if sw.out.dir != "" {
		where = fmt.Sprintf("; the results of the %d finished points are in %s", rec.Finished, sw.out.dir)
	}
	return runtimeError{fmt.Errorf("sweep: %d of %d points failed%s; point %d (%s): %s",
		n, len(sw.points), where, first.index, first.label(), first.rec.Error)}
}

// safeArg matches command-line arguments that need no quoting in a shell.
var safeArg = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// resumeCommand is the command line that finishes the sweep: this one with
// --resume and --out DIR, before any --.
func (sw *sweepRun) resumeCommand() string {
	args := slices.Clone(sw.c.args)
	dash := slices.Index(args, "--")
	if dash < 0 {
		dash = len(args)
	}
	head, tail := slices.Clone(args[:dash]), args[dash:]
	if !slices.Contains(head, "--resume") {
		head = append(head, "--resume")
	}
	if !slices.ContainsFunc(head, func(a string) bool { return a == "--out" || strings.HasPrefix(a, "--out=") }) {
		head = append(head, "--out", sw.out.dir)
	}
	quoted := []string{"run"}
	for _, a := range append(head, tail...) {
		if !safeArg.MatchString(a) {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		quoted = append(quoted, a)
	}
	return strings.Join(quoted, " ")
}

// result is what a finished sweep prints: docs/design.md section 8's object, with one row per
// point and benchmark row (the point's index and values, then the row's fields).
func (sw *sweepRun) result(rec *runRecord, start time.Time) *result {
	r := &result{Command: "sweep", Seed: sw.c.seed, Digest: rec.Digest, Out: sw.out.dir, WallS: time.Since(start).Seconds(), Tidy: sw.resultSet(),
		Params: map[string]string{"bench": sw.b.name, "points": strconv.Itoa(len(sw.points)), "jobs": strconv.Itoa(rec.Jobs),
			"engine": string(sw.opts.Engine), "workers": strconv.Itoa(sw.opts.Workers), "partition": sw.c.partition,
			"sync": sw.c.sync, "zip": strconv.FormatBool(sw.zip), "bench_args": strings.Join(sw.benchArgs, " ")},
		Run: runInfo{Engine: string(sw.opts.Engine), Workers: sw.opts.Workers, Partitioning: sw.c.partition, Sync: sw.c.sync}}
	for _, l := range sw.lists {
		r.Params["vary."+l.Key] = strings.Join(l.Values, ",")
	}
	for _, p := range sw.points {
		for _, rep := range p.rec.Reports {
			r.Events += rep.Events
			r.SimTimeS += rep.SimTimeS
			r.Run.Windows += rep.Windows
			r.Run.PeakRSSBytes = max(r.Run.PeakRSSBytes, rep.PeakRSSBytes)
		}
		for _, pr := range p.rows {
			var w results.Row
			w.Set("point", p.index)
			for _, kv := range p.values {
				w.Set(kv.Key, kv.Value)
			}
			for _, k := range pr.Keys {
				w.Set(k, pr.Vals[k])
			}
			r.Rows = append(r.Rows, w)
		}
	}
	if r.WallS > 0 {
		r.EventsPerS = float64(r.Events) / r.WallS
		r.Run.SimPerWall = r.SimTimeS / r.WallS
	}
	return r
}

// writeTable prints a finished sweep as a table: a header, then every row.
func (sw *sweepRun) writeTable(w io.Writer, r *result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	workers := "1 engine worker"
	if sw.opts.Workers != 1 {
		workers = fmt.Sprintf("%d engine workers", sw.opts.Workers)
	}
	fmt.Fprintf(tw, "sweep bench %s: %s points, %s at a time, %s each\n", sw.b.name, r.Params["points"],
		r.Params["jobs"], workers)
	for _, l := range sw.lists {
		fmt.Fprintf(tw, "  %s\t%s\n", l.Key, strings.Join(l.Values, ", "))
	}
	if len(sw.benchArgs) > 0 {
		fmt.Fprintf(tw, "bench flags\t%s\n", strings.Join(sw.benchArgs, " "))
	}
	fmt.Fprintf(tw, "events\t%d\n", r.Events)
	fmt.Fprintf(tw, "simulated time\t%s\n", actors.Time(r.SimTimeS*float64(actors.Second)+0.5))
	fmt.Fprintf(tw, "wall time\t%s\n", time.Duration(r.WallS*float64(time.Second)).Round(time.Millisecond))
	fmt.Fprintf(tw, "digest\t%s\n", r.Digest)
	if r.Out != "" {
		fmt.Fprintf(tw, "results\t%s\n", r.Out)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return writeRowsMax(w, r.Rows, -1)
}
