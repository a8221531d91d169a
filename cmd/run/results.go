package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/params"
)

// A results directory holds everything needed to read, check and reproduce a run:
//
//	config.yaml            the resolved configuration (of a sweep: its base, without the
//	                       swept values); a valid --config input
//	run.json               how the run was made and went: command line, simulator
//	                       version, seed, digest, status, and per point its values,
//	                       status, digest and the engine report of every simulation
//	                       (wall-clock times are here and only here)
//	results.csv            tidy results: one line per point x row x metric (see tidy)
//	results.json           the same records as a JSON array of objects
//	units.csv              the unit of every numeric swept key (base SI: s, Hz, B, B/s)
//	                       and of every metric whose name carries one (latency_us: us)
//	latency_vs_size.png    plots, for benchmarks whose rows have size_bytes and
//	latency_vs_size.svg    latency_us or bandwidth_MBps: log2 size axis, one line per
//	bandwidth_vs_size.png  combination of swept values (and of identifying fields
//	bandwidth_vs_size.svg  other than size_bytes)
//	points/N/              run sweep only, one per point N: config.yaml, rows.json
//	                       (its rows and identity), report.json (its run.json entry),
//	                       and done, written last: a point with done is finished and
//	                       --resume keeps it
//
// results.csv and results.json hold only deterministic values: the same sweep gives
// the same files whatever --jobs, --workers, --engine or --partition are.

// resultsRoot is where default results directories go; tests point it elsewhere.
var resultsRoot = "results"

// File names in a results directory.
const (
	configFile   = "config.yaml"
	runFile      = "run.json"
	resultsCSV   = "results.csv"
	resultsJSON  = "results.json"
	unitsCSV     = "units.csv"
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

// writeFileAtomic writes data to path through a temporary file and a rename, so that
// path is either absent or complete, even after a crash or Ctrl-C.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), filePerm); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// writeJSONFile writes v, indented, to path atomically.
func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(path, append(b, '\n'))
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
	Vary       []varyList        `json:"vary,omitempty"`
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

// varyList is one --vary: a key and its values in canonical text form.
type varyList struct {
	Key    string   `json:"key"`
	Values []string `json:"values"`
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
	Parts []row `json:"partition_stats,omitempty"`
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

// normalizeRows returns rows as they read back from JSON: numbers as json.Number, in
// the text encoding/json gives them, so that fresh and resumed points print alike.
// Non-finite floats, which JSON cannot hold, become the strings NaN, +Inf and -Inf.
func normalizeRows(rows []row) ([]row, error) {
	clean := make([]row, len(rows))
	for i, r := range rows {
		for _, k := range r.keys {
			v := r.vals[k]
			if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
				v = fmt.Sprintf("%+v", f)
				if math.IsNaN(f) {
					v = "NaN"
				}
			}
			clean[i].set(k, v)
		}
	}
	b, err := json.Marshal(clean)
	if err != nil {
		return nil, err
	}
	var out []row
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// resultSet is what the results files are made of.
type resultSet struct {
	title  string            // "bench rawdma", for plot titles
	keys   []string          // swept keys, in --vary order
	kinds  map[string]string // the parameter kind of each swept key (params.Kind*)
	isID   func(string) bool // identifying row fields (nil: none)
	points []*finishedPoint  // in point order
}

// finishedPoint is a point's results.
type finishedPoint struct {
	index  int
	values []params.KV // the swept values, in the order of resultSet.keys
	rows   []row       // normalized
}

// tidy returns the tidy table of rs. Columns: point (its index), row (the row's index
// within the point), every swept key (a number in base SI units when the key's kind
// has one, see params.SI; else its text) followed, for keys with units, by KEY_text
// (the value as given, for display), every identifying field found in the rows (in order of first
// appearance; empty where a row lacks it), metric (a non-identifying field) and value.
// One record per point x row x metric. docs/results.md describes it.
func (rs *resultSet) tidy() (cols []string, recs [][]any) {
	var ids []string
	for _, p := range rs.points {
		for _, r := range p.rows {
			for _, k := range r.keys {
				if rs.isID != nil && rs.isID(k) && !slices.Contains(ids, k) && !slices.Contains(rs.keys, k) {
					ids = append(ids, k)
				}
			}
		}
	}
	cols = []string{"point", "row"}
	numeric, text := make([]bool, len(rs.keys)), make([]bool, len(rs.keys))
	for i, k := range rs.keys {
		cols = append(cols, k)
		numeric[i] = rs.numericKind(k)
		switch rs.kinds[k] {
		case params.KindInt, params.KindUint, params.KindFloat:
		default:
			text[i] = numeric[i] // a value with units: keep the text as given
		}
		if text[i] {
			cols = append(cols, k+textSuffix)
		}
	}
	cols = append(append(cols, ids...), "metric", "value")
	for _, p := range rs.points {
		for ri, r := range p.rows {
			prefix := []any{json.Number(fmt.Sprint(p.index)), json.Number(fmt.Sprint(ri))}
			for i, kv := range p.values {
				if !numeric[i] {
					prefix = append(prefix, kv.Value)
					continue
				}
				v, _, ok := params.SI(rs.kinds[kv.Key], kv.Value)
				switch {
				case !ok:
					prefix = append(prefix, nil)
				default:
					prefix = append(prefix, json.Number(v))
				}
				if text[i] {
					prefix = append(prefix, kv.Value)
				}
			}
			for _, k := range ids {
				v, _ := r.get(k)
				prefix = append(prefix, v)
			}
			for _, k := range r.keys {
				if slices.Contains(ids, k) || (rs.isID != nil && rs.isID(k)) {
					continue
				}
				recs = append(recs, append(slices.Clone(prefix), k, r.vals[k]))
			}
		}
	}
	return cols, recs
}

// textSuffix names the column of a swept key's value as given ("250MHz") beside its
// numeric column in base units.
const textSuffix = "_text"

// numericKind reports whether swept key k has a numeric kind (params.SI has a unit
// for it).
func (rs *resultSet) numericKind(k string) bool {
	switch rs.kinds[k] {
	case params.KindDuration, params.KindTime, params.KindFreq, params.KindSize, params.KindBandwidth,
		params.KindProb, params.KindInt, params.KindUint, params.KindFloat:
		return true
	}
	return false
}

// units is the units table of rs (units.csv): every column of the tidy table with a
// unit, the swept keys' numeric columns and the metrics whose names carry one.
func (rs *resultSet) units(cols []string, recs [][]any) [][]string {
	out := [][]string{{"column", "unit", "kind"}}
	for _, k := range rs.keys {
		if rs.numericKind(k) {
			_, u, _ := params.SI(rs.kinds[k], zeroOf(rs.kinds[k]))
			out = append(out, []string{k, u, rs.kinds[k]})
		}
	}
	mi := slices.Index(cols, "metric")
	seen := map[string]bool{}
	for _, rec := range recs {
		m, _ := rec[mi].(string)
		if m == "" || seen[m] {
			continue
		}
		seen[m] = true
		if u := metricUnit(m); u != "" {
			out = append(out, []string{m, u, "metric"})
		}
	}
	return out
}

// zeroOf is a valid value text of kind, for looking up its unit.
func zeroOf(kind string) string {
	switch kind {
	case params.KindFloat, params.KindInt, params.KindUint, params.KindProb:
		return "0"
	case params.KindFreq:
		return "1Hz"
	case params.KindBandwidth:
		return "1B/s"
	}
	return "0s"
}

// metricUnit is the unit a metric's name ends with (docs/design.md section 8's suffixes):
// latency_us is in microseconds, bandwidth_MBps in MB/s (10^6 B/s), ...; "" if none.
func metricUnit(m string) string {
	for _, s := range [][2]string{{"_us", "us"}, {"_ns", "ns"}, {"_ms", "ms"}, {"_s", "s"}, {"_MBps", "MB/s"},
		{"_GBps", "GB/s"}, {"_bytes", "B"}, {"_per_s", "1/s"}, {"_pct", "%"}, {"_frac", "1"}} {
		if strings.HasSuffix(m, s[0]) {
			return s[1]
		}
	}
	return ""
}

// cellText is the CSV text of a tidy value.
func cellText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case json.Number:
		return v.String()
	}
	return fmt.Sprint(v)
}

// writeTidyCSV writes the tidy table as CSV.
func writeTidyCSV(w io.Writer, cols []string, recs [][]any) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(cols)
	line := make([]string, len(cols))
	for _, rec := range recs {
		for i, v := range rec {
			line[i] = cellText(v)
		}
		_ = cw.Write(line)
	}
	cw.Flush()
	return cw.Error()
}

// writeTidyJSON writes the tidy table as a JSON array of objects, one per record,
// with the columns as keys in order; a missing identifying field is null.
func writeTidyJSON(w io.Writer, cols []string, recs [][]any) error {
	var buf bytes.Buffer
	buf.WriteString("[")
	for i, rec := range recs {
		var r row
		for j, c := range cols {
			r.set(c, rec[j])
		}
		b, err := r.MarshalJSON()
		if err != nil {
			return err
		}
		if i > 0 {
			buf.WriteString(",")
		}
		buf.WriteString("\n  ")
		buf.Write(b)
	}
	buf.WriteString("\n]\n")
	_, err := w.Write(buf.Bytes())
	return err
}

// writeResultFiles writes results.csv, results.json and the plots of rs into o, and
// returns the plot files written and notes about them.
func (o *output) writeResultFiles(rs *resultSet) (plots, notes []string, err error) {
	cols, recs := rs.tidy()
	var csvBuf, jsonBuf bytes.Buffer
	if err := writeTidyCSV(&csvBuf, cols, recs); err != nil {
		return nil, nil, err
	}
	if err := writeTidyJSON(&jsonBuf, cols, recs); err != nil {
		return nil, nil, err
	}
	if err := writeFileAtomic(o.path(resultsCSV), csvBuf.Bytes()); err != nil {
		return nil, nil, err
	}
	if err := writeFileAtomic(o.path(resultsJSON), jsonBuf.Bytes()); err != nil {
		return nil, nil, err
	}
	if acols, arecs, ok := rs.aggregate(); ok {
		var aCSV, aJSON bytes.Buffer
		if err := writeTidyCSV(&aCSV, acols, arecs); err != nil {
			return nil, nil, err
		}
		if err := writeTidyJSON(&aJSON, acols, arecs); err != nil {
			return nil, nil, err
		}
		if err := writeFileAtomic(o.path(aggregateCSV), aCSV.Bytes()); err != nil {
			return nil, nil, err
		}
		if err := writeFileAtomic(o.path(aggregateJSON), aJSON.Bytes()); err != nil {
			return nil, nil, err
		}
	}
	var unitsBuf bytes.Buffer
	cw := csv.NewWriter(&unitsBuf)
	_ = cw.WriteAll(rs.units(cols, recs))
	if err := writeFileAtomic(o.path(unitsCSV), unitsBuf.Bytes()); err != nil {
		return nil, nil, err
	}
	plots, notes, err = rs.writePlots(o.dir)
	if err != nil || len(rs.keys) == 0 {
		return plots, notes, err
	}
	more, moreNotes, err := rs.sweepPlots(o.dir)
	return append(plots, more...), append(notes, moreNotes...), err
}

// singleResultSet is the results of a single run (one point, nothing swept).
func singleResultSet(command string, b *benchmark, rows []row) (*resultSet, error) {
	rows, err := normalizeRows(rows)
	if err != nil {
		return nil, err
	}
	rs := &resultSet{title: command, points: []*finishedPoint{{index: 0, rows: rows}}}
	if b != nil {
		rs.isID = b.identifies
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
	if err := writeFileAtomic(o.path(configFile), yml); err != nil {
		return err
	}
	plots, notes, err := o.writeResultFiles(rs)
	if err != nil {
		return err
	}
	rec.Plots, rec.Notes = plots, append(rec.Notes, notes...)
	return writeJSONFile(o.path(runFile), rec)
}
