package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/seastar-sim/seastar/params"
	"github.com/spf13/cobra"
)

// paramRoots returns the configuration tree `run params` lists and `--set` edits: the
// redstorm defaults of every key.
var paramRoots = func() any {
	cfg, err := defaultConfig("redstorm")
	if err != nil {
		panic(err) // the built-in preset always exists
	}
	return cfg
}

func newParamsCmd(c *common) *cobra.Command {
	return &cobra.Command{
		Use:   "params [PREFIX]",
		Short: "List every parameter: key, unit, default, source and help",
		Long: `params lists the parameters that --set KEY=VALUE and --config FILE (YAML) change,
with their defaults, units and the source each default comes from. PREFIX keeps the
keys that start with it: a group ("phold"), part of a key ("phold.l") or one key.

Values carry units: durations and times 75ns, 1.5us; frequencies 500MHz; sizes 64B,
384KiB (binary multiples); bandwidths 2.5GB/s (decimal multiples); probabilities 0.25
or 25%. The table ends with the units each kind accepts.`,
		Example: `  run params
  run params phold
  run params phold.l --format csv
  run params --format json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := params.New(paramRoots())
			if err != nil {
				return failed(err)
			}
			prefix := ""
			if len(args) == 1 {
				prefix = args[0]
			}
			var ps []params.Param
			for _, p := range t.Params() {
				if strings.HasPrefix(p.Key, prefix) {
					ps = append(ps, p)
				}
			}
			if len(ps) == 0 {
				msg := fmt.Sprintf("no parameter key starts with %q", prefix)
				if s := t.Suggest(prefix); len(s) > 0 {
					msg += " (did you mean " + strings.Join(s, ", ") + "?)"
				}
				return usage(errors.New(msg))
			}
			return writeParams(cmd.OutOrStdout(), c.format, ps)
		},
	}
}

// writeParams prints ps in format: an aligned table, CSV or a JSON array.
func writeParams(w io.Writer, format string, ps []params.Param) error {
	switch format {
	case "table":
		return failed(writeParamsTable(w, ps))
	case "csv":
		cw := csv.NewWriter(w)
		_ = cw.Write([]string{"key", "kind", "unit", "default", "source", "help"})
		for _, p := range ps {
			_ = cw.Write([]string{p.Key, p.Kind, unitOrEnum(p), p.Default, p.Source, p.Help})
		}
		cw.Flush()
		return failed(cw.Error())
	case "json":
		type jsonParam struct {
			Key     string   `json:"key"`
			Kind    string   `json:"kind"`
			Unit    string   `json:"unit"`
			Default string   `json:"default"`
			Source  string   `json:"source"`
			Help    string   `json:"help"`
			Enum    []string `json:"enum,omitempty"`
		}
		out := make([]jsonParam, len(ps))
		for i, p := range ps {
			out[i] = jsonParam{p.Key, p.Kind, p.Unit, p.Default, p.Source, p.Help, p.Enum}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return failed(enc.Encode(out))
	}
	return usage(fmt.Errorf("--format: unknown format %q (want table, csv or json)", format))
}

// writeParamsTable prints the columns key, default, unit, source and help, where
// unit is a short name (duration, size, ...; an enum's values; the kind of values
// without units), then the accepted units of each unit named.
func writeParamsTable(w io.Writer, ps []params.Param) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "key\tdefault\tunit\tsource\thelp")
	var units []string
	for _, p := range ps {
		unit := unitOrEnum(p)
		if p.Unit != "" {
			unit, _, _ = strings.Cut(p.Unit, ":")
			if !slices.Contains(units, p.Unit) {
				units = append(units, p.Unit)
			}
		} else if unit == "" {
			unit = p.Kind
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.Key, p.Default, unit, orDash(p.Source), p.Help)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(units) > 0 {
		slices.Sort(units)
		fmt.Fprintf(w, "\nunits:\n  %s\n", strings.Join(units, "\n  "))
	}
	return nil
}

// unitOrEnum is p's unit help, or for an enum its values as a|b|c.
func unitOrEnum(p params.Param) string {
	if p.Unit == "" && len(p.Enum) > 0 {
		return strings.Join(p.Enum, "|")
	}
	return p.Unit
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
