package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/internal/hugepages"
	"github.com/seastar-sim/seastar/internal/results"
)

// result is what a simulation command prints: docs/design.md section 8's JSON object, also
// rendered as a table or as tidy CSV.
type result struct {
	Command    string            `json:"command"`
	Seed       uint64            `json:"seed"`
	Params     map[string]string `json:"params"`
	Digest     string            `json:"digest"`
	Events     uint64            `json:"events"`
	SimTimeS   float64           `json:"sim_time_s"`
	WallS      float64           `json:"wall_s"`
	EventsPerS float64           `json:"events_per_s"`
	Run        runInfo           `json:"run"`
	Rows       []results.Row     `json:"rows"`
	Out        string            `json:"out,omitempty"` // the results directory written, if any
	Trace      *traceReport      `json:"trace,omitempty"`
	// Tidy, if set, is what --format csv prints: the results.csv table.
	Tidy *results.Set `json:"-"`
}

// runInfo is the engine part of the run report.
type runInfo struct {
	Engine       string  `json:"engine"`
	Workers      int     `json:"workers"`
	Partitioning string  `json:"partitioning"`
	Partitions   int     `json:"partitions"`
	Sync         string  `json:"sync,omitempty"`
	Windows      uint64  `json:"windows"`
	Epochs       uint64  `json:"horizon_epochs,omitempty"` // of the windows, those that were horizon epochs (--sync horizon)
	LookaheadS   float64 `json:"lookahead_s,omitempty"`    // omitted without a lookahead (one partition)
	MeanWindowS  float64 `json:"mean_window_s,omitempty"`  // likewise
	CutLinks     int     `json:"cut_links"`
	AheadRuns    uint64  `json:"ahead_runs,omitempty"` // across processes: partition windows run ahead while the reports travelled
	// ProcessBusyS is, across processes, each process's partitions' busy time (wall
	// time, like the rows' busy_s): against workers times wall_s, how much of the run a
	// process spent running windows rather than waiting for the others' reports.
	ProcessBusyS []float64 `json:"process_busy_s,omitempty"`
	SimPerWall   float64   `json:"sim_s_per_wall_s"`
	PeakRSSBytes int64     `json:"peak_rss_bytes"`
	HugePages    int64     `json:"huge_pages_bytes,omitempty"` // heap this process asked the kernel to back with huge pages (--huge-pages)
	Allocs       uint64    `json:"allocs"`                     // heap allocations during the run (whole processes, summed over a run's processes)
	StartAllocs  uint64    `json:"start_allocs"`               // of those, the allocations before the first event (setup and the actors' Start)
	Packets      uint64    `json:"packets,omitempty"`          // network packets the NICs injected (every process's)
	// Blocks is the run's events by kind of actor (its Go type: a hardware block's
	// model, a protocol's), the most first.
	Blocks []blockInfo `json:"events_by_block,omitempty"`
}

// blockInfo is one entry of runInfo.Blocks (actors.BlockEvents).
type blockInfo struct {
	Block  string `json:"block"`
	Actors int    `json:"actors"`
	Events uint64 `json:"events"`
}

func newResult(command string, c *common, rep *actors.Report) *result {
	r := &result{Command: command, Seed: c.seed, Params: map[string]string{
		"engine": string(rep.Engine), "workers": strconv.Itoa(rep.Workers), "partition": rep.Partitioning,
		"sync": string(rep.Sync)},
		Digest: rep.Digest, Events: rep.Events, SimTimeS: rep.SimTime.Seconds(), WallS: rep.Wall.Seconds(),
		EventsPerS: rep.EventsPerSec,
		Run: runInfo{Engine: string(rep.Engine), Workers: rep.Workers, Partitioning: rep.Partitioning,
			Partitions: rep.Partitions, Sync: string(rep.Sync), Windows: rep.Windows, Epochs: rep.Epochs,
			CutLinks: rep.CutLinks, AheadRuns: rep.AheadRuns, SimPerWall: rep.SimPerWall, PeakRSSBytes: rep.PeakRSS, HugePages: hugepages.Advised(), Allocs: rep.Allocs,
			StartAllocs: rep.StartAllocs, Packets: rep.Packets}}
	for _, b := range rep.ProcessBusy {
		r.Run.ProcessBusyS = append(r.Run.ProcessBusyS, b.Seconds())
	}
	for _, b := range rep.Blocks {
		r.Run.Blocks = append(r.Run.Blocks, blockInfo(b))
	}
	if rep.Lookahead != actors.Duration(actors.MaxTime) {
		r.Run.LookaheadS = rep.Lookahead.Seconds()
		r.Run.MeanWindowS = rep.MeanWindow.Seconds()
	}
	for _, p := range rep.Parts {
		var pr results.Row
		pr.Set("partition", p.Name)
		pr.Set("actors", p.Actors)
		pr.Set("events", p.Events)
		pr.Set("windows", p.Activations)
		pr.Set("busy_s", p.Busy.Seconds())
		pr.Set("wait_s", p.Wait.Seconds())
		r.Rows = append(r.Rows, pr)
	}
	return r
}

func writeResult(w io.Writer, format string, r *result) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case "csv":
		return writeCSV(w, r)
	}
	return writeTable(w, r)
}

// writeCSV prints the results as results.csv has them: one schema for every command
// (see results.Set.Tidy).
func writeCSV(w io.Writer, r *result) error {
	if r.Tidy == nil {
		return fmt.Errorf("run: %s has no results table for --format csv", r.Command)
	}
	cols, recs := r.Tidy.Tidy()
	return results.WriteTidyCSV(w, cols, recs)
}

func writeTable(w io.Writer, r *result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\n", r.Command)
	for _, k := range slices.Sorted(maps.Keys(r.Params)) {
		fmt.Fprintf(tw, "  %s\t%s\n", k, r.Params[k])
	}
	fmt.Fprintf(tw, "events\t%d\n", r.Events)
	fmt.Fprintf(tw, "simulated time\t%s\n", actors.Time(r.SimTimeS*float64(actors.Second)+0.5))
	fmt.Fprintf(tw, "wall time\t%s\n", time.Duration(r.WallS*float64(time.Second)).Round(time.Microsecond))
	fmt.Fprintf(tw, "events/s\t%.4g\n", r.EventsPerS)
	fmt.Fprintf(tw, "simulated s per wall s\t%.4g\n", r.Run.SimPerWall)
	fmt.Fprintf(tw, "partitions\t%d (%s) on %d workers, %d cut links\n", r.Run.Partitions, r.Run.Partitioning, r.Run.Workers, r.Run.CutLinks)
	if r.Run.LookaheadS > 0 {
		unit, n := "windows", strconv.FormatUint(r.Run.Windows, 10)
		if r.Run.Sync == string(actors.SyncHorizon) {
			unit, n = "barriers", fmt.Sprintf("%d (%d horizon epochs, %d windows)", r.Run.Windows, r.Run.Epochs, r.Run.Windows-r.Run.Epochs)
		}
		fmt.Fprintf(tw, "%s\t%s, lookahead %s, mean width %s\n", unit, n,
			actors.Duration(r.Run.LookaheadS*float64(actors.Second)+0.5), actors.Duration(r.Run.MeanWindowS*float64(actors.Second)+0.5))
	}
	if r.Run.AheadRuns > 0 {
		fmt.Fprintf(tw, "ran ahead\t%d partition windows, while the reports between processes travelled\n", r.Run.AheadRuns)
	}
	if len(r.Run.ProcessBusyS) > 1 && r.WallS > 0 {
		var each []string
		for k, b := range r.Run.ProcessBusyS {
			each = append(each, fmt.Sprintf("%d: %.0f%% (%.3g s)", k, 100*b/(float64(r.Run.Workers)*r.WallS), b))
		}
		fmt.Fprintf(tw, "process busy\t%s of its workers' wall time; the rest waiting for the others' reports or for work\n", strings.Join(each, ", "))
	}
	fmt.Fprintf(tw, "peak memory\t%.1f MiB", float64(r.Run.PeakRSSBytes)/(1<<20))
	if r.Run.HugePages > 0 {
		fmt.Fprintf(tw, " (%.0f MiB of heap asked for in transparent huge pages, --huge-pages)", float64(r.Run.HugePages)/(1<<20))
	}
	fmt.Fprintln(tw)
	if r.Events > 0 {
		fmt.Fprintf(tw, "heap allocations\t%d (%d before the first event, %d running: %.3g per event)\n", r.Run.Allocs,
			r.Run.StartAllocs, r.running(), float64(r.running())/float64(r.Events))
	}
	if p := float64(r.Run.Packets); p > 0 {
		fmt.Fprintf(tw, "network packets\t%d (%.3g events, %.3g heap allocations per packet while running)\n", r.Run.Packets,
			float64(r.Events)/p, float64(r.running())/p)
	}
	if line := r.blocksLine(); line != "" {
		fmt.Fprintf(tw, "events by block\t%s\n", line)
	}
	fmt.Fprintf(tw, "digest\t%s\n", r.Digest)
	if r.Out != "" {
		fmt.Fprintf(tw, "results\t%s\n", r.Out)
	}
	if r.Trace != nil {
		fmt.Fprintf(tw, "tracing\t%s\n", r.Trace)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return writeRows(w, r.Rows)
}

// blocksShown is how many kinds of actor the report's "events by block" line names;
// run.json has them all.
const blocksShown = 8

// blocksLine is the report's "events by block" line: the kinds of actor with the most
// events, each with its share and, when the run counted network packets, its events a
// packet; "" for a run without events.
func (r *result) blocksLine() string {
	if r.Events == 0 {
		return ""
	}
	var each []string
	for i, b := range r.Run.Blocks {
		if b.Events == 0 { // the rest have none either
			each = append(each, fmt.Sprintf("%d kinds without events", len(r.Run.Blocks)-i))
			break
		}
		if i == blocksShown {
			each = append(each, fmt.Sprintf("%d more kinds (events_by_block in run.json and --format json)", len(r.Run.Blocks)-i))
			break
		}
		e := fmt.Sprintf("%s %.1f%%", b.Block, 100*float64(b.Events)/float64(r.Events))
		if r.Run.Packets > 0 {
			e += fmt.Sprintf(" (%.3g a packet)", float64(b.Events)/float64(r.Run.Packets))
		}
		each = append(each, e)
	}
	return strings.Join(each, ", ")
}

// writeRows prints rows as an aligned table; long lists are cut with a note.
func writeRows(w io.Writer, rows []results.Row) error {
	if len(rows) == 0 {
		return nil
	}
	const maxRows = 64
	return writeRowsMax(w, rows, maxRows)
}

// writeRowsMax prints at most maxRows rows (all if maxRows < 0). The columns are
// the fields of every row, in order of first appearance; a row without a field
// shows "-".
func writeRowsMax(w io.Writer, rows []results.Row, maxRows int) error {
	var cols []string
	for _, r := range rows {
		for _, k := range r.Keys {
			if !slices.Contains(cols, k) {
				cols = append(cols, k)
			}
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw)
	for _, k := range cols {
		fmt.Fprintf(tw, "%s\t", k)
	}
	fmt.Fprintln(tw)
	for i, r := range rows {
		if i == maxRows { // outside the table, which would be as wide as the note
			if err := tw.Flush(); err != nil {
				return err
			}
			_, err := fmt.Fprintf(w, "  ... %d more rows (use --format csv or json)\n", len(rows)-maxRows)
			return err
		}
		for _, k := range cols {
			v, ok := r.Vals[k]
			switch v := v.(type) {
			case float64:
				fmt.Fprintf(tw, "%.4g\t", v)
			case json.Number:
				if f, err := v.Float64(); err == nil && strings.ContainsAny(string(v), ".eE") {
					fmt.Fprintf(tw, "%.4g\t", f)
				} else {
					fmt.Fprintf(tw, "%s\t", v)
				}
			default:
				if !ok {
					fmt.Fprint(tw, "-\t")
				} else {
					fmt.Fprintf(tw, "%v\t", v)
				}
			}
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// running is the heap allocations the run made after its first event: its allocations
// less those of the engine's setup and the actors' Start.
func (r *result) running() uint64 { return r.Run.Allocs - min(r.Run.StartAllocs, r.Run.Allocs) }
