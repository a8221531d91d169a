package main

import (
	"cmp"
	"fmt"
	"os"
	"slices"

	"github.com/seastar-sim/seastar/traces"
	"github.com/spf13/cobra"
)

// newTraceCmd is `run trace`, the commands that read trace files.
func newTraceCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trace",
		Short: "Read trace files: run trace show FILE",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newTraceShowCmd())
	return cmd
}

func newTraceShowCmd() *cobra.Command {
	var message string
	var slowest, width int
	cmd := &cobra.Command{
		Use:   "show FILE",
		Short: "Print a message's life from a JSON-lines trace file as a waterfall",
		Long: `show reads a trace file written with --trace-file and prints one message as a
waterfall, for users without a browser: its root span (the message, with its attributes)
and one line per stage, with the block it ran on, its start from the message's first
stage and its duration in nanoseconds, and a bar placing it in the message's life.
--message ID picks the message by its id (the message.id attribute), --slowest N the N
longest-lived messages; with neither, the first message of the file.`,
		Example: `  run bench portalperf --sizes 8 --iters 2 --trace-file trace.jsonl
  run trace show trace.jsonl --slowest 3
  run trace show trace.jsonl --message 1099511627777`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if slowest < 0 || width < 10 {
				return usage(fmt.Errorf("--slowest must be >= 0 and --width >= 10"))
			}
			if message != "" && slowest > 0 {
				return usage(fmt.Errorf("--message and --slowest pick messages two ways: give one"))
			}
			f, err := os.Open(args[0])
			if err != nil {
				return usage(fmt.Errorf("trace show: %w", err))
			}
			defer f.Close()
			msgs, err := traces.ReadFile(f)
			if err != nil {
				return usage(fmt.Errorf("trace show: %s: %w", args[0], err))
			}
			if len(msgs) == 0 {
				return usage(fmt.Errorf("trace show: %s has no traced message", args[0]))
			}
			var pick []*traces.Message
			switch {
			case message != "":
				for _, m := range msgs {
					if m.ID() == message {
						pick = append(pick, m)
					}
				}
				if len(pick) == 0 {
					return usage(fmt.Errorf("trace show: no message %s in %s (%d messages)", message, args[0], len(msgs)))
				}
			case slowest > 0:
				pick = slices.Clone(msgs)
				slices.SortStableFunc(pick, func(a, b *traces.Message) int { return cmp.Compare(b.Duration(), a.Duration()) })
				pick = pick[:min(slowest, len(pick))]
			default:
				pick = msgs[:1]
			}
			for i, m := range pick {
				if i > 0 {
					fmt.Fprintln(cmd.OutOrStdout())
				}
				if err := traces.Waterfall(cmd.OutOrStdout(), m, width); err != nil {
					return failed(err)
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&message, "message", "", "the message to show, by id")
	f.IntVar(&slowest, "slowest", 0, "show the N longest-lived messages")
	f.IntVar(&width, "width", 40, "width of the bars, in characters")
	return cmd
}
