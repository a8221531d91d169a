package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

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
or 25%. The table (a line of key, default and unit per parameter, its help and source
below it) ends with the units each kind accepts. --format csv, json or markdown give
the same columns as a table for other tools; plain integers have the unit "count".

Defaults are the redstorm machine's. With --set or --config (a machine preset such as
--set machine=xt5 included) a "value" column shows what a run given the same --set and
--config would use, next to the default.`,
		Example: `  run params
  run params phold
  run params phold.l --format csv
  run params --format json
  run params portals4 --format markdown
  run params host --set machine=xt5`,
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
			values := len(c.sets) > 0 || c.config != ""
			if values {
				_, rt, err := c.load(cmd)
				if err != nil {
					return err
				}
				for i := range ps {
					if ps[i].Value, err = rt.Get(ps[i].Key); err != nil {
						return failed(err)
					}
				}
			}
			return writeParams(cmd.OutOrStdout(), c.format, ps, values)
		},
	}
}

// writeParams prints ps in format: an aligned table, CSV or a JSON array; with values,
// each parameter's Value too (the value in effect for the run's --set and --config).
func writeParams(w io.Writer, format string, ps []params.Param, values bool) error {
	switch format {
	case "table":
		return failed(writeParamsTable(w, ps, values))
	case "markdown":
		return failed(writeParamsMarkdown(w, ps, values))
	case "csv":
		cw := csv.NewWriter(w)
		head := []string{"key", "kind", "unit", "default", "source", "help"}
		if values {
			head = append(head, "value")
		}
		_ = cw.Write(head)
		for _, p := range ps {
			rec := []string{p.Key, p.Kind, unitOrEnum(p), p.Default, p.Source, p.Help}
			if values {
				rec = append(rec, p.Value)
			}
			_ = cw.Write(rec)
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
			Value   *string  `json:"value,omitempty"`
		}
		out := make([]jsonParam, len(ps))
		for i, p := range ps {
			unit := p.Unit
			if unit == "" && len(p.Enum) == 0 {
				unit = unitOrEnum(p)
			}
			out[i] = jsonParam{p.Key, p.Kind, unit, p.Default, p.Source, p.Help, p.Enum, nil}
			if values {
				out[i].Value = &ps[i].Value
			}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return failed(enc.Encode(out))
	}
	return usage(fmt.Errorf("--format: unknown format %q (want table, csv, json or markdown)", format))
}

// paramsWidth is the width the table's help and source lines wrap at.
const paramsWidth = 96

// writeParamsTable prints, per parameter, a line of key, default and unit (a short
// name: duration, size, ...; an enum's values; count for a plain integer), then its
// help and source wrapped and indented below it; then the accepted units of each
// unit named. No line is wider than paramsWidth unless a single word is.
func writeParamsTable(w io.Writer, ps []params.Param, values bool) error {
	var units []string
	var lines [][]string
	for _, p := range ps {
		if p.Unit != "" && !slices.Contains(units, p.Unit) {
			units = append(units, p.Unit)
		}
		l := []string{p.Key, p.Default}
		if values {
			l = append(l, p.Value)
		}
		lines = append(lines, append(l, shortUnit(p)))
	}
	head := []string{"key", "default", "unit"}
	if values {
		head = []string{"key", "default", "value", "unit"}
	}
	width := make([]int, len(head))
	for _, l := range append([][]string{head}, lines...) {
		for j, f := range l {
			width[j] = max(width[j], len(f))
		}
	}
	line := func(l []string) {
		var b strings.Builder
		for j, f := range l {
			if j < len(l)-1 {
				fmt.Fprintf(&b, "%-*s  ", width[j], f)
			} else {
				b.WriteString(f)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	line(head)
	for i, p := range ps {
		line(lines[i])
		for _, l := range wrapText(p.Help, paramsWidth-4) {
			fmt.Fprintln(w, "    "+l)
		}
		for _, l := range wrapText("source: "+orDash(p.Source), paramsWidth-4) {
			fmt.Fprintln(w, "    "+l)
		}
	}
	if len(units) > 0 {
		slices.Sort(units)
		fmt.Fprintln(w, "\nunits:")
		for _, u := range units {
			for i, l := range wrapText(u, paramsWidth-4) {
				fmt.Fprintln(w, strings.Repeat("  ", min(i, 1)+1)+l)
			}
		}
	}
	return nil
}

// writeParamsMarkdown prints ps as a Markdown table (for documentation).
func writeParamsMarkdown(w io.Writer, ps []params.Param, values bool) error {
	cell := func(s string) string { return strings.ReplaceAll(orDash(s), "|", "\\|") }
	if values {
		fmt.Fprintln(w, "| key | default | value | unit | source | help |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|")
	} else {
		fmt.Fprintln(w, "| key | default | unit | source | help |")
		fmt.Fprintln(w, "|---|---|---|---|---|")
	}
	for _, p := range ps {
		v := ""
		if values {
			v = " " + cell(p.Value) + " |"
		}
		fmt.Fprintf(w, "| `%s` | %s |%s %s | %s | %s |\n", p.Key, cell(p.Default), v, cell(shortUnit(p)), cell(p.Source), cell(p.Help))
	}
	return nil
}

// shortUnit names p's unit in a word: the unit's name (duration, size, ...), an
// enum's values as a|b|c, count for an integer without unit, else its kind.
func shortUnit(p params.Param) string {
	switch {
	case p.Unit != "":
		u, _, _ := strings.Cut(p.Unit, ":")
		return u
	case len(p.Enum) > 0:
		return strings.Join(p.Enum, "|")
	case p.Kind == "int" || p.Kind == "uint":
		return "count"
	}
	return p.Kind
}

// wrapText splits s into lines of at most width characters at spaces.
func wrapText(s string, width int) []string {
	var out []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case len(line)+1+len(word) > width:
			out = append(out, line)
			line = word
		default:
			line += " " + word
		}
	}
	if line != "" {
		out = append(out, line)
	}
	return out
}

// unitOrEnum is p's unit help, for an enum its values as a|b|c, count for an
// integer without unit.
func unitOrEnum(p params.Param) string {
	switch {
	case p.Unit == "" && len(p.Enum) > 0:
		return strings.Join(p.Enum, "|")
	case p.Unit == "" && (p.Kind == "int" || p.Kind == "uint"):
		return "count"
	}
	return p.Unit
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
