package main

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/internal/results"
	"github.com/seastar-sim/seastar/internal/sweep"
	"github.com/seastar-sim/seastar/params"
)

// A results directory: see package internal/results and docs/results.md.

// resultsRoot is where default results directories go; tests point it elsewhere.
var resultsRoot = "results"

// File names in a results directory.
const (
	configFile   = "config.yaml"
	runFile      = "run.json"
	pointsDir    = "points"
	pointRows    = "rows.json"
	pointReport  = "report.json"
	pointDone    = "done"
	timeLayout   = "20060102T150405Z"
	outNone      = "none"
	dirPerm      = 0o755
	filePerm     = 0o644
	maxDirSuffix = 100
)

// output is the results directory of a command; dir "" (--out none) writes nothing.
type output struct {
	dir      string
	explicit bool // given with --out, else a default name that create may change
	created  bool
}

// newOutput decides the results directory of a command named name (bench-rawdma,
// phold, sweep-rawdma): --out DIR, none, or results/NAME-UTCTIME. Without resume an
// existing --out DIR must be empty, so that no results are overwritten.
func (c *common) newOutput(name string, resume bool) (*output, error) {
	switch c.out {
	case outNone:
		if resume {
			return nil, usage(errors.New("--resume needs --out DIR, the directory of the sweep to resume (not none)"))
		}
		return &output{}, nil
	case "":
		if resume {
			return nil, usage(errors.New("--resume needs --out DIR, the directory of the sweep to resume"))
		}
		return &output{dir: filepath.Join(resultsRoot, name+"-"+time.Now().UTC().Format(timeLayout))}, nil
	}
	if !resume {
		entries, err := os.ReadDir(c.out)
		switch {
		case err == nil && len(entries) > 0:
			return nil, usage(fmt.Errorf("--out %s: the directory exists and is not empty; choose another "+
				"(or, for run sweep, add --resume to continue it)", c.out))
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return nil, usage(fmt.Errorf("--out: %w", err))
		}
	}
	return &output{dir: c.out, explicit: true}, nil
}

// create makes the directory. A default name that exists already (two runs in the
// same second) gets a suffix -2, -3, ...
func (o *output) create() error {
	if o.dir == "" || o.created {
		return nil
	}
	if o.explicit {
		if err := os.MkdirAll(o.dir, dirPerm); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		o.created = true
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(o.dir), dirPerm); err != nil {
		return fmt.Errorf("results directory: %w", err)
	}
	base := o.dir
	for i := 2; ; i++ {
		err := os.Mkdir(o.dir, dirPerm)
		if err == nil {
			o.created = true
			return nil
		}
		if !errors.Is(err, fs.ErrExist) || i > maxDirSuffix {
			return fmt.Errorf("results directory: %w", err)
		}
		o.dir = fmt.Sprintf("%s-%d", base, i)
	}
}

func (o *output) path(elem ...string) string {
	return filepath.Join(append([]string{o.dir}, elem...)...)
}

// configYAML is the resolved configuration of t, loadable with --config.
func configYAML(t *params.Tree) ([]byte, error) {
	b, err := t.MarshalYAML()
	if err != nil {
		return nil, err
	}
	return append([]byte("# resolved configuration: run --config this-file reproduces it\n"), b...), nil
}

// runRecord is run.json.
type runRecord struct {
	Command string   `json:"command"` // "sweep", "bench rawdma", "phold"
	Args    []string `json:"args"`    // the command line, without the program name
	provenance
	Seed      uint64   `json:"seed"`
	Digest    string   `json:"digest"` // combines the finished points' digests, in point order
	Bench     string   `json:"bench,omitempty"`
	BenchArgs []string `json:"bench_args,omitempty"`
	// BenchFlags are the values of every flag of the command itself (a benchmark's
	// --sizes, --iters, ...), defaults included.
	BenchFlags map[string]string `json:"bench_flags,omitempty"`
	Vary       []sweep.List      `json:"vary,omitempty"`
	Zip        bool              `json:"zip,omitempty"`
	Jobs       int               `json:"jobs,omitempty"`
	Status     string            `json:"status"` // complete, interrupted or failed
	Started    string            `json:"started"`
	WallS      float64           `json:"wall_s"`
	Finished   int               `json:"points_finished"`
	Ran        int               `json:"points_ran"`    // finished by this run
	Reused     int               `json:"points_reused"` // finished before, kept by --resume
	Points     []pointRecord     `json:"points"`
	Plots      []string          `json:"plots,omitempty"`
	Notes      []string          `json:"notes,omitempty"`
}

// Point statuses.
const (
	statusRan         = "ran"
	statusReused      = "reused"
	statusFailed      = "failed"
	statusInterrupted = "interrupted"
	statusPending     = "not run"
)

// pointRecord is a point's entry in run.json, and its points/N/report.json.
type pointRecord struct {
	Point   int               `json:"point"`
	Values  map[string]string `json:"values,omitempty"`
	Seed    uint64            `json:"seed"`
	Status  string            `json:"status"`
	Error   string            `json:"error,omitempty"`
	Digest  string            `json:"digest,omitempty"`
	WallS   float64           `json:"wall_s,omitempty"`
	Reports []reportJSON      `json:"reports,omitempty"`
}

// reportJSON is an engine report in run.json.
type reportJSON struct {
	Digest     string  `json:"digest"`
	Events     uint64  `json:"events"`
	SimTimeS   float64 `json:"sim_time_s"`
	WallS      float64 `json:"wall_s"`
	EventsPerS float64 `json:"events_per_s"`
	runInfo
	Parts []results.Row `json:"partition_stats,omitempty"`
	// Model is what the simulation built (actors.Report.Model: torus, wrap, nodes).
	Model map[string]string `json:"model,omitempty"`
}

func newReportJSON(rep *actors.Report, parts bool) reportJSON {
	r := newResult("", &common{}, rep)
	j := reportJSON{Digest: rep.Digest, Events: rep.Events, SimTimeS: rep.SimTime.Seconds(), WallS: rep.Wall.Seconds(),
		EventsPerS: rep.EventsPerSec, runInfo: r.Run, Model: rep.Model}
	if parts {
		j.Parts = r.Rows
	}
	return j
}

func reportsJSON(reps []*actors.Report, parts bool) []reportJSON {
	out := make([]reportJSON, 0, len(reps))
	for _, rep := range reps {
		if rep != nil {
			out = append(out, newReportJSON(rep, parts))
		}
	}
	return out
}

// newRunRecord starts run.json for command.
func (c *common) newRunRecord(command string, start time.Time) *runRecord {
	return &runRecord{Command: command, Args: slices.Clone(c.args), provenance: buildProvenance(),
		Seed: c.seed, Started: start.UTC().Format(time.RFC3339)}
}

// combineDigests is the digest of several runs: a single run's own, else an FNV-1a
// hash of the digests in order.
func combineDigests(ds []string) string {
	if len(ds) == 1 {
		return ds[0]
	}
	h := fnv.New64a()
	for _, d := range ds {
		h.Write([]byte(d))
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

// finishSingle writes the results directory of a command that is not a registered
// benchmark (validate, faults) and prints its result: its rows identified by ids.
func (c *common) finishSingle(cmd *cobra.Command, out *output, command string, ids []string, t *params.Tree,
	flags map[string]string, res *benchOutput, start time.Time) error {
	id := &benchmark{name: command, ids: ids}
	if err := out.writeSingle(c, command, id, t, flags, res, start, "complete"); err != nil {
		return err
	}
	r := newResult(command, c, res.summaryReport())
	r.Rows, r.Out = res.rows, out.dir
	var err error
	if r.Tidy, err = singleResultSet(command, id, res.rows); err != nil {
		return err
	}
	return writeResult(cmd.OutOrStdout(), c.format, r)
}

// singleResultSet is the results of a single run (one point, nothing swept).
func singleResultSet(command string, b *benchmark, rows []results.Row) (*results.Set, error) {
	rows, err := results.NormalizeRows(rows)
	if err != nil {
		return nil, err
	}
	rs := &results.Set{Title: command, Points: []*results.Point{{Index: 0, Rows: rows}}}
	if b != nil {
		rs.IsID = b.identifies
	}
	return rs, nil
}

// writeSingle writes the results directory of a single run (run bench, run phold):
// config.yaml, results.csv, results.json, plots and run.json.
// status is "complete", or statusInterrupted for the rows finished before a SIGINT.
func (o *output) writeSingle(c *common, command string, b *benchmark, t *params.Tree, flags map[string]string,
	res *benchOutput, start time.Time, status string) error {
	if o.dir == "" {
		return nil
	}
	rs, err := singleResultSet(command, b, res.rows)
	if err != nil {
		return err
	}
	rec := c.newRunRecord(command, start)
	rec.BenchFlags = flags
	digests := make([]string, 0, len(res.reports))
	models := make([]map[string]string, 0, len(res.reports))
	for _, r := range res.reports {
		digests = append(digests, r.Digest)
		models = append(models, r.Model)
	}
	note, err := builtTopology(t, models)
	if err != nil {
		return err
	}
	if note != "" {
		rec.Notes = append(rec.Notes, note)
	}
	if len(digests) > 0 {
		rec.Digest = combineDigests(digests)
	}
	rec.Status, rec.Finished, rec.Ran = status, 1, 1
	rec.WallS = time.Since(start).Seconds()
	pst := statusRan
	if status != "complete" {
		rec.Finished, rec.Ran, pst = 0, 0, status
		rec.Digest = "" // a partial run's digest is not reproducible
	}
	rec.Points = []pointRecord{{Point: 0, Seed: c.seed, Status: pst, Digest: rec.Digest, WallS: rec.WallS,
		Reports: reportsJSON(res.reports, b == nil)}}
	if b != nil {
		rec.Bench = b.name
	}
	if err := o.create(); err != nil {
		return err
	}
	yml, err := configYAML(t)
	if err != nil {
		return err
	}
	if err := results.WriteFileAtomic(o.path(configFile), yml); err != nil {
		return err
	}
	plots, notes, err := results.WriteFiles(o.dir, rs)
	if err != nil {
		return err
	}
	rec.Plots, rec.Notes = plots, append(append(rec.Notes, res.notes...), notes...)
	return results.WriteJSONFile(o.path(runFile), rec)
}
