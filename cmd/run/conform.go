package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/internal/results"
	"github.com/seastar-sim/seastar/protocols/portals4"
	"github.com/spf13/cobra"
)

// errConformFailed marks a conformance run with failures (exit status 1; the report
// is already printed).
var errConformFailed = errors.New("conformance tests failed")

func newConformCmd(c *common) *cobra.Command {
	var ranks int
	var limit string
	cmd := &cobra.Command{
		Use:   "conform portals4 PATH...",
		Short: "Run Portals 4 conformance tests (the upstream XML ptl_test format) on the simulated machine",
		Long: `conform runs each test file on a simulated machine of its own: one node for the
upstream test_n1 set, two for files in a directory named n2 (ranks are nodes, one process
each; threads elements run on host threads; msleep and barrier pass simulated time, the
barrier through the NICs). PATH is a file or a directory, searched for *.xml.

It prints one line per file, pass, fail with the first mismatch, or skip with the reason,
then "N passed, N failed, N skipped", and exits 1 if any test failed. Like the other
commands it writes a results directory (one row per test: result, reason, simulated
time; --out DIR, --out none) and --format csv prints its table. --format json
prints {"passed","failed","skipped","tests":[{"file","result","reason"}]}. --set and
--config change the machine and the portals4.* costs, so the same files run against
any configuration of the NIC. A test that blocks forever, or still runs at --time-limit
of simulated time, fails.`,
		Example: `  run conform portals4 ../shared/conformance/portals4/tests
  run conform portals4 ../shared/conformance/portals4/tests/n2/test_flow-001.xml --format json
  run conform portals4 tests/n1 --set portals4.fw_match_instr=400`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] != "portals4" {
				return usage(fmt.Errorf("conform: unknown API %q (want portals4)", args[0]))
			}
			opts, err := c.options()
			if err != nil {
				return err
			}
			end, err := actors.ParseDuration(limit)
			if err != nil || end <= 0 {
				return usage(fmt.Errorf("--time-limit %q: want a positive simulated time such as 600s", limit))
			}
			if ranks < 0 {
				return usage(fmt.Errorf("--ranks must be >= 0 (got %d)", ranks))
			}
			files, err := conformFiles(args[1:])
			if err != nil {
				return usage(err)
			}
			cfg, tree, err := c.load(cmd)
			if err != nil {
				return err
			}
			out, err := c.newOutput("conform-portals4", false)
			if err != nil {
				return err
			}
			start := time.Now()
			if err := cfg.Portals4.Validate(); err != nil {
				return usage(err)
			}
			if err := cfg.Portals4.Fits(cfg.Params); err != nil {
				return usage(err)
			}
			// One partition per node: a node's host and firmware share the process's
			// memory, the nodes only talk through the network.
			opts.Partitioner = actors.Node{}
			opts.End = actors.Time(0).Add(end)
			outs := make([]portals4.Outcome, len(files))
			var wg sync.WaitGroup
			sem := make(chan struct{}, max(1, c.workers))
			for i, f := range files {
				wg.Add(1)
				go func() {
					defer wg.Done()
					sem <- struct{}{}
					defer func() { <-sem }()
					data, err := os.ReadFile(f)
					if err != nil {
						outs[i] = portals4.Outcome{File: f, Result: "fail", Reason: err.Error()}
						return
					}
					n := ranks
					if n == 0 {
						n = portals4.RanksFor(f)
					}
					o := opts
					o.Workers = 1
					outs[i] = portals4.RunTest(cmd.Context(), cfg.Params, cfg.Portals4, f, data, n, o)
				}()
			}
			wg.Wait()
			if err := cmd.Context().Err(); err != nil {
				return actors.ErrInterrupted
			}
			// The results directory and --format csv: one row per test (its file
			// identifies it; result, reason and simulated time are its metrics).
			res := &benchOutput{}
			for _, o := range outs {
				var r results.Row
				r.Set("test", o.File)
				r.Set("result", o.Result)
				if o.Reason != "" {
					r.Set("reason", o.Reason)
				}
				r.Set("sim_time_s", o.SimTime.Seconds())
				res.rows = append(res.rows, r)
			}
			if failedN := countFailed(outs); failedN > 0 {
				res.notes = append(res.notes, fmt.Sprintf("%d of %d tests failed (the rows with result fail): the command exited 1", failedN, len(outs)))
			}
			id := &benchmark{name: "conform-portals4", ids: []string{"test"}}
			if err := out.writeSingle(c, "conform portals4", id, tree, localFlags(cmd), res, start, "complete"); err != nil {
				return failed(err)
			}
			if c.format == "csv" {
				rs, err := singleResultSet("conform portals4", id, res.rows)
				if err != nil {
					return failed(err)
				}
				cols, recs := rs.Tidy()
				if err := results.WriteTidyCSV(cmd.OutOrStdout(), cols, recs); err != nil {
					return failed(err)
				}
				return conformStatus(outs)
			}
			return printConform(cmd, c.format, outs)
		},
	}
	cmd.Flags().IntVar(&ranks, "ranks", 0, "ranks (nodes) per test; 0: 2 for files in a directory named n2, else 1")
	cmd.Flags().StringVar(&limit, "time-limit", "600s", "simulated time after which a test still running fails")
	return cmd
}

// conformFiles expands the paths: files as given, directories searched for *.xml, in
// lexical order.
func conformFiles(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("conform: %w", err)
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(d.Name(), ".xml") {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("conform: %w", err)
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("conform: no *.xml test files under %s", p)
		}
		sort.Strings(found)
		files = append(files, found...)
	}
	return files, nil
}

// countFailed is the number of tests that failed.
func countFailed(outs []portals4.Outcome) int {
	n := 0
	for _, o := range outs {
		if o.Result == "fail" {
			n++
		}
	}
	return n
}

func printConform(cmd *cobra.Command, format string, outs []portals4.Outcome) error {
	n := map[string]int{}
	for _, o := range outs {
		n[o.Result]++
	}
	w := cmd.OutOrStdout()
	switch format {
	case "json":
		rep := struct {
			Passed  int                `json:"passed"`
			Failed  int                `json:"failed"`
			Skipped int                `json:"skipped"`
			Tests   []portals4.Outcome `json:"tests"`
		}{n["pass"], n["fail"], n["skip"], outs}
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return failed(err)
		}
		fmt.Fprintln(w, string(b))
	default:
		for _, o := range outs {
			switch o.Result {
			case "pass":
				fmt.Fprintf(w, "pass  %s\n", o.File)
			default:
				fmt.Fprintf(w, "%s  %s: %s\n", o.Result, o.File, o.Reason)
			}
		}
		fmt.Fprintf(w, "%d passed, %d failed, %d skipped\n", n["pass"], n["fail"], n["skip"])
	}
	return conformStatus(outs)
}

// conformStatus is the command's error: errConformFailed if a test failed.
func conformStatus(outs []portals4.Outcome) error {
	if countFailed(outs) > 0 {
		return failed(errConformFailed)
	}
	return nil
}
