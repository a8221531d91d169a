package main

import (
	"fmt"
	"os"

	"github.com/seastar-sim/seastar/traces"
	"github.com/spf13/cobra"
)

func newTracedumpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "tracedump FILE",
		Short: "Print firmware trace rings in the format of the tracedump tool",
		Long: `tracedump prints the firmware trace rings that a run wrote with --trace-ring FILE (and
--set ppc.trace_enabled=true), one ring per PPC, oldest record first, in the format of
the tracedump tool of Pedretti & Hudson 2005 (section 3.3, figure 2):

  e4681e8b: 24: 18ff0c4c mainloop+0014 (178 ns)

the timestamp (the PPC time base, hex, one tick per PPC clock cycle), the trace point's
8-bit user value, the raw record word (the value and the low 24 bits of the program
counter), the function and offset of the trace point, and the time from this trace
point to the next one (the last record of a ring has none).`,
		Example: `  run bench portalperf --sizes 0 --iters 10 --set ppc.trace_enabled=true --trace-ring ring.bin
  run tracedump ring.bin`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := os.Open(args[0])
			if err != nil {
				return usage(fmt.Errorf("tracedump: %w", err))
			}
			defer f.Close()
			rf, err := traces.ReadRings(f)
			if err != nil {
				return usage(fmt.Errorf("tracedump: %s: %w", args[0], err))
			}
			return failed(rf.Dump(cmd.OutOrStdout()))
		},
	}
}
