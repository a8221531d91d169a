package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seastar-sim/seastar/params"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var rewriteGolden = flag.Bool("rewrite", false, "rewrite the golden files in testdata/ from the current output")

// runParams executes `params ARGS...` with the given output format and returns its
// stdout and error.
func runParams(t *testing.T, format string, args ...string) (string, error) {
	t.Helper()
	cmd := newParamsCmd(&common{format: format})
	var out, errb bytes.Buffer
	cmd.SetArgs(append([]string{}, args...)) // never nil: cobra would read os.Args
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.Execute()
	return out.String(), err
}

// The table of the current registry. After adding parameters, regenerate with
//
//	go test ./cmd/run -run TestParamsGolden -rewrite
func TestParamsGolden(t *testing.T) {
	out, err := runParams(t, "table")
	require.NoError(t, err)
	path := filepath.Join("testdata", "params.golden")
	if *rewriteGolden {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(out), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run with -rewrite to create it")
	assert.Equal(t, string(want), out, "run with -rewrite if the change is intended")
}

// Every registered parameter builds, is documented and has a valid default.
func TestParamRoots(t *testing.T) {
	tr, err := params.New(paramRoots())
	require.NoError(t, err)
	require.NoError(t, tr.Validate())
	for _, p := range tr.Params() {
		assert.NotEmpty(t, p.Help, "%s has no help tag", p.Key)
		assert.Equal(t, p.Default, p.Value, p.Key)
	}
}

func TestParamsFormats(t *testing.T) {
	tr, err := params.New(paramRoots())
	require.NoError(t, err)
	all := tr.Params()

	out, err := runParams(t, "csv")
	require.NoError(t, err)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	assert.Equal(t, []string{"key", "kind", "unit", "default", "source", "help"}, recs[0])
	require.Len(t, recs, len(all)+1)
	for i, p := range all {
		assert.Equal(t, []string{p.Key, p.Kind, unitOrEnum(p), p.Default, p.Source, p.Help}, recs[i+1])
	}

	out, err = runParams(t, "json")
	require.NoError(t, err)
	var rows []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &rows), out)
	require.Len(t, rows, len(all))
	for i, p := range all {
		assert.Equal(t, p.Key, rows[i]["key"])
		assert.Equal(t, p.Kind, rows[i]["kind"])
		if p.Unit != "" {
			assert.Equal(t, p.Unit, rows[i]["unit"])
		} else if len(p.Enum) == 0 {
			assert.Equal(t, unitOrEnum(p), rows[i]["unit"], "%s: a unit or count", p.Key)
			if p.Kind == "int" {
				assert.Equal(t, "count", rows[i]["unit"], p.Key)
			}
		}
		assert.Equal(t, p.Default, rows[i]["default"])
		assert.Equal(t, p.Help, rows[i]["help"])
		assert.Contains(t, rows[i], "source")
	}
}

func TestParamsPrefix(t *testing.T) {
	keys := func(args ...string) []string {
		out, err := runParams(t, "csv", args...)
		require.NoError(t, err)
		recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		require.NoError(t, err)
		var ks []string
		for _, r := range recs[1:] {
			ks = append(ks, r[0])
		}
		return ks
	}
	assert.Equal(t, []string{"phold.lookahead", "phold.lps"}, keys("phold.l"))
	assert.Equal(t, []string{"phold.lps"}, keys("phold.lps"))
	for _, k := range keys("phold") {
		assert.True(t, strings.HasPrefix(k, "phold."), k)
	}
	assert.Len(t, keys("phold"), 7)
	assert.Greater(t, len(keys()), 7)
}

// The enum column of the table and CSV, on a registry with an enum.
func TestParamsEnum(t *testing.T) {
	saved := paramRoots
	t.Cleanup(func() { paramRoots = saved })
	paramRoots = func() any {
		return &struct {
			Mode string `param:"mode" enum:"generic|accelerated" help:"Portals processing" source:"docs/design.md s.8"`
		}{Mode: "generic"}
	}
	out, err := runParams(t, "table")
	require.NoError(t, err)
	assert.Equal(t, "key   default  unit\n"+
		"mode  generic  generic|accelerated\n    Portals processing\n    source: docs/design.md s.8\n", out)
	out, err = runParams(t, "markdown")
	require.NoError(t, err)
	assert.Equal(t, "| key | default | unit | source | help |\n|---|---|---|---|---|\n"+
		"| `mode` | generic | generic\\|accelerated | docs/design.md s.8 | Portals processing |\n", out)
	out, err = runParams(t, "csv")
	require.NoError(t, err)
	assert.Contains(t, out, "mode,enum,generic|accelerated,generic,docs/design.md s.8,Portals processing\n")
	out, err = runParams(t, "json")
	require.NoError(t, err)
	assert.Contains(t, out, `"enum": [`)
}

func TestParamsErrors(t *testing.T) {
	cases := map[string]struct {
		format string
		args   []string
		want   string
	}{
		"typo":           {"table", []string{"phodl"}, `no parameter key starts with "phodl" (did you mean phold?)`},
		"typo in key":    {"table", []string{"phold.lsp"}, `no parameter key starts with "phold.lsp" (did you mean phold.lps?)`},
		"unknown":        {"table", []string{"furlongs"}, `no parameter key starts with "furlongs"`},
		"bad format":     {"xml", nil, `--format: unknown format "xml" (want table, csv, json or markdown)`},
		"too many args":  {"table", []string{"phold", "router"}, "accepts at most 1 arg(s), received 2"},
		"key then dot":   {"table", []string{"phold.lps."}, `no parameter key starts with "phold.lps." (did you mean phold.lps?)`},
		"case sensitive": {"table", []string{"PHOLD"}, `no parameter key starts with "PHOLD" (did you mean phold?)`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := runParams(t, c.format, c.args...)
			require.Error(t, err)
			assert.Equal(t, c.want, err.Error())
			assert.Equal(t, exitUsage, exitCode(err))
			assert.Empty(t, out)
		})
	}
}

// The error a broken registry gives is a run-time error, not a usage error.
func TestParamsBrokenRegistry(t *testing.T) {
	saved := paramRoots
	t.Cleanup(func() { paramRoots = saved })
	paramRoots = func() any {
		return &struct {
			X []int `param:"x"`
		}{}
	}
	_, err := runParams(t, "table")
	require.Error(t, err)
	var re runtimeError
	assert.True(t, errors.As(err, &re))
	assert.Equal(t, exitSimulation, exitCode(err))
}

// With --set (here a machine preset and one key) the listing shows the value a run
// would use beside the redstorm default; a bad --set is the run's error, not ignored.
func TestParamsShowValuesOfSets(t *testing.T) {
	run := func(sets ...string) ([][]string, error) {
		cmd := newParamsCmd(&common{format: "csv", sets: sets})
		var out bytes.Buffer
		cmd.SetArgs([]string{"host.c"})
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		cmd.SilenceErrors, cmd.SilenceUsage = true, true
		if err := cmd.Execute(); err != nil {
			return nil, err
		}
		return csv.NewReader(strings.NewReader(out.String())).ReadAll()
	}
	recs, err := run("machine=xt5", "host.cache_miss=80ns")
	require.NoError(t, err)
	require.Equal(t, "value", recs[0][len(recs[0])-1])
	got := map[string][2]string{}
	for _, r := range recs[1:] {
		got[r[0]] = [2]string{r[3], r[len(r)-1]}
	}
	assert.Equal(t, [2]string{"2GHz", "2.6GHz"}, got["host.clock"], "the xt5 preset's clock beside the default")
	assert.Equal(t, [2]string{"100ns", "80ns"}, got["host.cache_miss"])
	assert.Equal(t, [2]string{"1", "12"}, got["host.cores"])

	_, err = run("host.clokc=1GHz")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "host.clokc")
}
