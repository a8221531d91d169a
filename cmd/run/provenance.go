package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/seastar-sim/seastar/params"
)

// provenance is where a run was made: the simulator's version and commit, the Go
// toolchain and the machine. run.json embeds it.
type provenance struct {
	Version   string `json:"version"` // the module version, or devel
	Revision  string `json:"vcs_revision,omitempty"`
	Modified  bool   `json:"vcs_modified,omitempty"`
	VCSSource string `json:"vcs_source,omitempty"` // build (stamped by go build) or git (asked at run time: go run stamps nothing)
	GoVersion string `json:"go_version"`
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	CPUs      int    `json:"cpus"`
	CPUModel  string `json:"cpu_model,omitempty"`
}

var (
	provOnce sync.Once
	prov     provenance
)

// buildProvenance returns the run's provenance, computed once per process.
func buildProvenance() provenance {
	provOnce.Do(func() {
		prov = provenance{Version: "devel", GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH,
			CPUs: runtime.NumCPU(), CPUModel: cpuModel()}
		if bi, ok := debug.ReadBuildInfo(); ok {
			if v := bi.Main.Version; v != "" && v != "(devel)" {
				prov.Version = v
			}
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					prov.Revision, prov.VCSSource = s.Value, "build"
				case "vcs.modified":
					prov.Modified = s.Value == "true"
				}
			}
		}
		if prov.Revision == "" {
			prov.Revision, prov.Modified = gitRevision()
			if prov.Revision != "" {
				prov.VCSSource = "git"
			}
		}
	})
	return prov
}

// gitRevision asks git for the commit of the source tree the binary was compiled
// from (go run stamps no VCS information): the directory of this file as the compiler
// saw it, when it still exists. It returns "" when there is no such tree or no git.
func gitRevision() (rev string, modified bool) {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return "", false
	}
	dir := filepath.Dir(file)
	if _, err := os.Stat(dir); err != nil {
		return "", false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return "", false
	}
	rev = strings.TrimSpace(string(out))
	st, err := exec.CommandContext(ctx, "git", "-C", dir, "status", "--porcelain", "--untracked-files=no").Output()
	return rev, err == nil && len(strings.TrimSpace(string(st))) > 0
}

// cpuModel is the processor's name from /proc/cpuinfo (Linux), else "".
func cpuModel() string {
	v, _ := procField("/proc/cpuinfo", "model name")
	return v
}

// procField is the value of the first "key: value" line of a /proc file, trimmed;
// ok false when the file or the key is missing (not Linux).
func procField(path, key string) (value string, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, found := strings.Cut(sc.Text(), ":"); found && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

// versionString is what run --version prints after "run ".
func versionString() string {
	p := buildProvenance()
	s := p.Version
	if p.Revision != "" {
		s += " (commit " + p.Revision
		if p.Modified {
			s += ", modified"
		}
		s += ")"
	}
	return s + " " + p.GoVersion + " " + p.OS + "/" + p.Arch
}

// localFlags returns the values of the flags cmd defines itself (a benchmark's
// --sizes, --iters, ...; not the global ones), defaults included, so that run.json
// says exactly what the benchmark ran with.
func localFlags(cmd *cobra.Command) map[string]string {
	out := map[string]string{}
	cmd.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
		if f.Name != "help" && f.Name != "version" {
			out[f.Name] = f.Value.String()
		}
	})
	return out
}

// builtTopology writes into t the topology the simulations actually built (Report.Model)
// when they all built the same one, so that config.yaml describes the run (a
// benchmark between two nodes builds a 2x1x1 line whatever the preset's torus). It
// returns a note when the simulations built different ones (the file then keeps the
// configured values and run.json has each).
func builtTopology(t *params.Tree, models []map[string]string) (string, error) {
	var torus, wrap string
	for i, m := range models {
		if i == 0 {
			torus, wrap = m["torus"], m["wrap"]
			continue
		}
		if m["torus"] != torus || m["wrap"] != wrap {
			return "the simulations built different topologies (see each report's model in run.json); config.yaml keeps the configured torus", nil
		}
	}
	if torus == "" {
		return "", nil
	}
	if err := t.Set("torus", torus); err != nil {
		return "", err
	}
	return "", t.Set("wrap", wrap)
}
