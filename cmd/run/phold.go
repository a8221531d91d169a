package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/actors/phold"
	"github.com/seastar-sim/seastar/internal/results"
	"github.com/seastar-sim/seastar/internal/sweep"
	"github.com/spf13/cobra"
)

func newPholdCmd(c *common) *cobra.Command {
	p := phold.DefaultParams() // flag values; the flags set keys phold.* of the configuration
	cmd := &cobra.Command{
		Use:   "phold",
		Short: "PHOLD, the standard parallel discrete-event benchmark (ROSS-compatible parameters)",
		Long: `PHOLD measures the simulation kernel alone. Each LP starts with --start-events events;
every event schedules one new event at now + lookahead + Exp(mean), to a uniformly random
LP with probability --remote, else to its own LP. Time values take units (ps, ns, us, ms, s).

The digest identifies the delivered-event stream: it is the same for every engine,
worker count and partitioning.`,
		Example: `  run phold
  run phold --lps 1024 --remote 0.25 --mean 1ns --lookahead 1ns --end 10us --workers 2
  run phold --engine serial --format json
  run phold --partition block --workers 2 --quiet`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts, err := c.options()
			if err != nil {
				return err
			}
			if err := c.refuseTracing("phold has no messages to trace"); err != nil {
				return err
			}
			cfg, tree, err := c.load(cmd)
			if err != nil {
				return err
			}
			endCluster, err := c.joinCluster(cmd, tree, &opts)
			if err != nil {
				return failed(err)
			}
			defer endCluster()
			out, err := c.newOutput("phold", false)
			if err != nil {
				return err
			}
			p := cfg.PHOLD
			m, err := phold.Build(p)
			if err != nil {
				return usage(err)
			}
			opts.End = p.End
			if !c.quiet {
				var done func()
				opts.Progress, done = progressPrinter(cmd.ErrOrStderr(), "phold")
				defer done()
			}
			stopProfile, err := c.profile()
			if err != nil {
				return err
			}
			start := time.Now()
			rep, err := actors.Run(cmd.Context(), m, opts)
			stopProfile()
			if errors.Is(err, actors.ErrConfig) && p.Lookahead == 0 {
				err = fmt.Errorf("--lookahead %s: %w", p.Lookahead, err)
			}
			if err != nil {
				return failed(err)
			}
			// The results files hold what is deterministic; the wall-clock figures
			// of the kernel benchmark are in run.json.
			var rw results.Row
			rw.Set("events", rep.Events)
			rw.Set("sim_time_s", rep.SimTime.Seconds())
			res := &benchOutput{rows: []results.Row{rw}, reports: []*actors.Report{rep}}
			if err := out.writeSingle(c, "phold", nil, tree, localFlags(cmd), res, start, "complete"); err != nil {
				return failed(err)
			}
			r := pholdResult(c, p, rep)
			r.Out = out.dir
			if r.Tidy, err = singleResultSet("phold", nil, res.rows); err != nil {
				return failed(err)
			}
			return failed(writeResult(cmd.OutOrStdout(), c.format, r))
		},
	}
	f := cmd.Flags()
	f.IntVar(&p.LPs, "lps", p.LPs, "number of logical processes")
	f.Var(newTextValue(&p.Remote, "prob"), "remote", "probability that an event goes to a random LP")
	f.Var(newTextValue(&p.Mean, "duration"), "mean", "mean of the exponential delay added to the lookahead")
	f.Var(newTextValue(&p.Lookahead, "duration"), "lookahead", "minimum event delay; the lookahead between partitions")
	f.Var(newTextValue(&p.End, "time"), "end", "simulated end time")
	f.IntVar(&p.StartEvents, "start-events", p.StartEvents, "events per LP at time zero")
	f.Var(newTextValue(&p.FailAt, "time"), "fail-at", "fault injection for testing error handling: lp[0] calls Fatalf at its first event at or after this time (0 = off)")
	for flag, key := range map[string]string{"lps": "lps", "remote": "remote", "mean": "mean", "lookahead": "lookahead",
		"end": "end", "start-events": "start_events", "fail-at": "fail_at"} { //lint:ordered independent annotations
		bindKey(f, flag, "phold."+key)
	}
	return cmd
}

func pholdResult(c *common, p phold.Params, rep *actors.Report) *result {
	r := newResult("phold", c, rep)
	r.Params["lps"] = fmt.Sprint(p.LPs)
	r.Params["remote"] = p.Remote.String()
	r.Params["mean"] = p.Mean.String()
	r.Params["lookahead"] = p.Lookahead.String()
	r.Params["end"] = p.End.String()
	r.Params["start_events"] = fmt.Sprint(p.StartEvents)
	return r
}

// progressPrinter reports progress on w: a self-overwriting line on a terminal, plain
// lines otherwise. Call done when the run ends, to clear a terminal line.
func progressPrinter(w io.Writer, what string) (progress func(actors.Progress), done func()) {
	return progressPrinterAt(w, what, time.Now)
}

// progressPrinterAt is progressPrinter with the wall clock now.
func progressPrinterAt(w io.Writer, what string, now func() time.Time) (progress func(actors.Progress), done func()) {
	tty := sweep.IsTerminal(w)
	printed := false
	// since: the command's start, across its simulations, or the last report with
	// nothing done yet: the ETA extrapolates from the work done since (a motif's
	// MPI_Init and first barrier count no work: a third of Red Storm's run).
	since := now()
	done = func() {
		if tty && printed {
			fmt.Fprint(w, "\r\033[K")
		}
	}
	return func(p actors.Progress) {
		printed = true
		line := fmt.Sprintf("%s: t=%s", what, p.Now)
		frac := p.Fraction
		if p.End != actors.MaxTime && p.End > 0 {
			line += " of " + p.End.String()
			frac = float64(p.Now) / float64(p.End)
		}
		t := now()
		if frac <= 0 {
			since = t
		}
		if frac >= 0 {
			line += fmt.Sprintf(" (%.0f%%", 100*frac)
			if elapsed := t.Sub(since); frac > 0.001 {
				line += ", ETA " + sweep.RoundDuration(time.Duration(float64(elapsed)*(1-frac)/frac)).String()
			}
			line += ")"
		}
		line += fmt.Sprintf(", %d events, %.3g events/s", p.Events, float64(p.Events)/p.Wall.Seconds())
		if tty {
			fmt.Fprintf(w, "\r\033[K%s", line)
		} else {
			fmt.Fprintln(w, line)
		}
	}, done
}
