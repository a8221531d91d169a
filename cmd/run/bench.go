package main

import (
	"github.com/spf13/cobra"
)

// benchCommands are the constructors of the `run bench NAME` subcommands. Each
// benchmark lives in its own file and registers itself from an init function, so that
// adding a benchmark touches no shared code.
var benchCommands []func(c *common) *cobra.Command

func newBenchCmd(c *common) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench NAME",
		Short: "Run a benchmark (SPEC section 5): see the list of commands below",
		Args:  cobra.NoArgs,
	}
	for _, f := range benchCommands {
		cmd.AddCommand(f(c))
	}
	return cmd
}
