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
the same columns as a table for other tools; plain integers have the unit "count".`,
		Example: `  run params
  run params phold
  run params phold.l --format csv
  run params --format json
  run params portals4 --format markdown`,
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
	case "markdown":
		return failed(writeParamsMarkdown(w, ps))
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
			unit := p.Unit
			if unit == "" && len(p.Enum) == 0 {
				unit = unitOrEnum(p)
			}
			out[i] = jsonParam{p.Key, p.Kind, unit, p.Default, p.Source, p.Help, p.Enum}
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
func writeParamsTable(w io.Writer, ps []params.Param) error {
	var units []string
	var lines [][3]string
	for _, p := range ps {
		if p.Unit != "" && !slices.Contains(units, p.Unit) {
			units = append(units, p.Unit)
		}
		lines = append(lines, [3]string{p.Key, p.Default, shortUnit(p)})
	}
	kw, dw := len("key"), len("default")
	for _, l := range lines {
		kw, dw = max(kw, len(l[0])), max(dw, len(l[1]))
	}
	line := func(k, d, u string) {
		fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("%-*s  %-*s  %s", kw, k, dw, d, u), " "))
	}
	line("key", "default", "unit")
	for i, p := range ps {
		line(lines[i][0], lines[i][1], lines[i][2])
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
func writeParamsMarkdown(w io.Writer, ps []params.Param) error {
	cell := func(s string) string { return strings.ReplaceAll(orDash(s), "|", "\\|") }
	fmt.Fprintln(w, "| key | default | unit | source | help |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, p := range ps {
		fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s |\n", p.Key, cell(p.Default), cell(shortUnit(p)), cell(p.Source), cell(p.Help))
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
