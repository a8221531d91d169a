package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func newReplayCmd() *cobra.Command {
	var keep string
	cmd := &cobra.Command{
		Use:   "replay RESULTS_DIR",
		Short: "Re-run a recorded run from its results directory and check that it gives the same digest",
		Long: `replay reads RESULTS_DIR/run.json and RESULTS_DIR/config.yaml, runs the recorded command
again with the recorded configuration (config.yaml replaces --config; --set and the
benchmark's flags are kept; the output, profile, trace and peer flags are dropped, so
the replay runs in this process), and compares the digests: the run's and every
finished point's. A simulation is deterministic, so the digests are equal unless the
simulator changed: the recorded and current commits are printed side by side.

Exit status: 0 equal, 1 a digest differs (or the replay failed), 2 the directory is
not a results directory that can be replayed.`,
		Example: `  run replay results/bench-portalperf-20261125T101010Z
  run replay results/clock --keep results/clock-replay`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return replay(cmd, args[0], keep)
		},
	}
	cmd.Flags().StringVar(&keep, "keep", "", "write the replay's results directory here (default: a temporary directory, removed)")
	return cmd
}

// replayDropped are the global flags a replay leaves out: where results, profiles,
// traces go, the peers of a multi-process run, and how the output looks. The value
// after each flag that takes one is dropped with it.
var replayDropped = []string{"out", "config", "cpuprofile", "memprofile", "trace-file", "trace-otlp", "trace-ring", "trace-timeline",
	"trace-sample", "trace-epoch", "trace-time-scale", "peers", "peer-listen", "peer-timeout", "allow-non-loopback", "tls",
	"quiet", "format", "resume"}

// replayArgs turns a recorded command line into the replay's: without the flags of
// replayDropped (before a "--"), with the recorded configuration, results into out.
func replayArgs(recorded []string, config, out string, flags *pflag.FlagSet) []string {
	args := dropFlags(recorded, func(name string) bool { return slices.Contains(replayDropped, name) }, flags.Lookup)
	// Flags go before a "--": insert ours there.
	ours := []string{"--config", config, "--out", out, "--quiet", "--format", "json"}
	i := slices.Index(args, "--")
	if i < 0 {
		i = len(args)
	}
	return slices.Concat(args[:i], ours, args[i:])
}

// readRunRecord reads dir/run.json.
func readRunRecord(dir string) (*runRecord, error) {
	b, err := os.ReadFile(filepath.Join(dir, runFile))
	if err != nil {
		return nil, fmt.Errorf("%s is not a results directory: %w", dir, err)
	}
	var rec runRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, runFile), err)
	}
	if len(rec.Args) == 0 && rec.Command == "" {
		return nil, fmt.Errorf("%s records no command", filepath.Join(dir, runFile))
	}
	return &rec, nil
}

func replay(cmd *cobra.Command, dir, keep string) error {
	rec, err := readRunRecord(dir)
	if err != nil {
		return usage(err)
	}
	config := filepath.Join(dir, configFile)
	if _, err := os.Stat(config); err != nil {
		return usage(fmt.Errorf("%s: %w", dir, err))
	}
	var finished int
	for _, p := range rec.Points {
		if p.Digest != "" {
			finished++
		}
	}
	if finished == 0 {
		return usage(fmt.Errorf("%s: the recorded run finished no simulation: nothing to compare", dir))
	}
	out := keep
	if out == "" {
		tmp, err := os.MkdirTemp("", "run-replay-")
		if err != nil {
			return failed(err)
		}
		defer os.RemoveAll(tmp)
		out = filepath.Join(tmp, "results")
	}
	args := replayArgs(rec.Args, config, out, cmd.Root().PersistentFlags())
	w := cmd.OutOrStdout()
	now := buildProvenance()
	fmt.Fprintf(w, "replaying: run %s\n", strings.Join(args, " "))
	fmt.Fprintf(w, "recorded with %s, replaying with %s\n", describeBuild(rec.provenance), describeBuild(now))
	if code := execute(cmd.Context(), args, io.Discard, cmd.ErrOrStderr()); code != exitOK {
		if code == exitInterrupted {
			return failed(errors.New("replay interrupted"))
		}
		return failed(fmt.Errorf("the replay failed (exit status %d)", code))
	}
	got, err := readRunRecord(out)
	if err != nil {
		return failed(err)
	}
	differ := 0
	for _, p := range rec.Points {
		if p.Digest == "" {
			continue
		}
		var now pointRecord
		for _, q := range got.Points {
			if q.Point == p.Point {
				now = q
			}
		}
		same := now.Digest == p.Digest
		if !same {
			differ++
		}
		fmt.Fprintf(w, "point %d: recorded %s, replayed %s%s\n", p.Point, p.Digest, orDash(now.Digest), differentMark(same))
	}
	if rec.Status == "complete" {
		same := got.Digest == rec.Digest
		if !same {
			differ++
		}
		fmt.Fprintf(w, "run: recorded %s, replayed %s%s\n", rec.Digest, got.Digest, differentMark(same))
	}
	if differ > 0 {
		return failed(fmt.Errorf("%d digests differ from the record", differ))
	}
	fmt.Fprintf(w, "identical: %d of %d points replayed with the recorded digests\n", finished, len(rec.Points))
	return nil
}

// describeBuild names a build in a line: version, commit and whether modified.
func describeBuild(p provenance) string {
	s := p.Version
	if p.Revision != "" {
		s += " commit " + p.Revision
		if p.Modified {
			s += " (modified)"
		}
	}
	return s + " " + p.GoVersion
}

// differentMark flags a digest that differs from the record.
func differentMark(same bool) string {
	if same {
		return ""
	}
	return "  DIFFERENT"
}

// dropFlags returns args without the long flags drop names, and without the value
// that follows one given as "--flag value" (lookup tells whether a flag takes a value).
// Everything from a "--" on is kept as it is: the arguments of another command.
func dropFlags(args []string, drop func(name string) bool, lookup func(name string) *pflag.Flag) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		name, _, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if !strings.HasPrefix(a, "--") || !drop(name) {
			out = append(out, a)
			continue
		}
		if f := lookup(name); !hasValue && f != nil && f.NoOptDefVal == "" {
			i++ // the flag's value is the next argument
		}
	}
	return out
}
