package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/seastar-sim/seastar/internal/results"
)

func newPlotCmd() *cobra.Command {
	var pl results.XYPlot
	var series, out string
	cmd := &cobra.Command{
		Use:   "plot RESULTS_DIR --x COLUMN --y METRIC",
		Short: "Plot a metric of a results directory against any column: a swept key, load, size, ...",
		Long: `plot draws METRIC (a value of the metric column of results.csv) against COLUMN (a
swept key, in its base SI unit, or an identifying field such as size_bytes or
load_offered), one curve per combination of the --series columns (default: every
column that varies, but the seed). With replicates (run sweep --seeds N) the seeds of
a configuration make one curve of means with 95% confidence error bars. The figure
goes to RESULTS_DIR/METRIC_vs_COLUMN.png and .svg, or to --to BASE.png and .svg.`,
		Example: `  run plot results/clock --x ppc.clock --y latency_us --series size_bytes
  run plot results/traffic --x load_offered --y latency_mean_us --series router.vcs
  run plot results/halo --x mpi.eager_max --y iter_time_us --logx`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if pl.X == "" || pl.Metric == "" {
				return usage(errors.New("--x COLUMN and --y METRIC are required"))
			}
			t, err := results.ReadTable(args[0])
			if err != nil {
				return usage(err)
			}
			if series != "" {
				pl.Series = strings.Split(series, ",")
			}
			pl.Title = args[0]
			if rec, err := readRunRecord(args[0]); err == nil {
				pl.Title = rec.Command
				if rec.Bench != "" && !strings.HasSuffix(rec.Command, " "+rec.Bench) {
					pl.Title += " " + rec.Bench
				}
			}
			pl.XUnit = results.UnitOf(args[0], pl.X)
			cs, err := t.Curves(&pl)
			if err != nil {
				return usage(err)
			}
			p, note, err := results.DrawXY(&pl, cs)
			if err != nil {
				return usage(err)
			}
			dir, base := args[0], results.PlotFileName(pl.Metric, pl.X)
			if out != "" {
				dir, base = filepath.Dir(out), strings.TrimSuffix(filepath.Base(out), filepath.Ext(out))
			}
			files, err := results.WriteFigure(p, dir, base)
			if err != nil {
				return failed(err)
			}
			for _, f := range files {
				fmt.Fprintln(cmd.OutOrStdout(), filepath.Join(dir, f))
			}
			if note != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), "run: note: "+note)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&pl.X, "x", "", "the x column: a swept key (plotted in its base SI unit) or an identifying field")
	f.StringVar(&pl.Metric, "y", "", "the metric on the y axis (latency_us, bandwidth_MBps, msg_per_s, ...)")
	f.StringVar(&series, "series", "", "columns whose combinations are the curves, comma-separated (default: those that vary)")
	f.BoolVar(&pl.LogX, "logx", false, "logarithmic x axis")
	f.BoolVar(&pl.LogY, "logy", false, "logarithmic y axis")
	f.StringVar(&out, "to", "", "write BASE.png and BASE.svg instead of RESULTS_DIR/METRIC_vs_COLUMN")
	return cmd
}
