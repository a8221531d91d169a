package main

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/seastar-sim/seastar/actors"
)

// Runs that cannot fit or finish, and inputs that set nothing, are refused up front
// with the reason (exit 2), before anything is built.
func TestLimits(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.yaml")
	comments := filepath.Join(dir, "comments.yaml")
	assert.NoError(t, os.WriteFile(empty, nil, 0o644))
	assert.NoError(t, os.WriteFile(comments, []byte("# nothing\n---\n"), 0o644))
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"huge torus, motif":   {[]string{"motif", "halo3d", "--torus", "256x256x256"}, "needs about"},
		"huge torus, traffic": {[]string{"bench", "traffic", "--torus", "256x256x256"}, "needs about"},
		"huge message":        {[]string{"motif", "pingpong", "--torus", "2x1x1", "--size", "1T"}, "--size: 1TiB is above the largest simulated message"},
		"huge sizes":          {[]string{"bench", "portalperf", "--sizes", "8,2G"}, "--sizes: 2GiB is above"},
		"ranks 0":             {[]string{"motif", "halo3d", "--torus", "2x2x2", "--ranks", "0"}, "--ranks must be >= 1"},
		"empty config":        {[]string{"phold", "--config", empty}, "the file sets no parameter"},
		"comments only":       {[]string{"phold", "--config", comments}, "the file sets no parameter"},
	} { //lint:ordered independent cases
		code, out, errs := invoke(t, append(c.args, "--out", "none", "--quiet")...)
		assert.Equal(t, exitUsage, code, name)
		assert.Contains(t, errs, c.want, name)
		assert.Empty(t, out, name)
	}
}

// The garbage collector's target follows the model's size: 50% for small models, less
// for large ones, never below 25%.
func TestGCPercentFor(t *testing.T) {
	assert.Equal(t, gcPercent, gcPercentFor(0))
	assert.Equal(t, gcPercent, gcPercentFor(512<<20), "12x12x12 halo3d: about 540 MiB estimated")
	assert.Equal(t, 40, gcPercentFor(1280<<20), "a model of 1.25 GiB estimated")
	assert.Equal(t, 33, gcPercentFor(10368*motifNodeBytes), "Red Storm halo3d: 1.5 GiB estimated")
	assert.Equal(t, gcPercentMin, gcPercentFor(4<<30), "4 GiB estimated")
}

// A run whose workers fill the cores gets the target of gcPercentForRun for its model's
// estimate, and the one before it back at its end; a run that leaves a core idle keeps
// the target.
func TestRunGCTargetRestores(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Skip("GOGC is set: runs keep it")
	}
	gogc := func() int {
		s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
		metrics.Read(s)
		return int(s[0].Value.Uint64())
	}
	runtime.GC() // a live heap to scale from
	before := gogc()
	restore := runGCTarget(runtime.GOMAXPROCS(0), 64<<30)
	assert.Greater(t, gogc(), before, "a 64 GiB estimate: the next collection much later")
	restore()
	assert.Equal(t, before, gogc())
	if runtime.GOMAXPROCS(0) > 1 {
		runGCTarget(runtime.GOMAXPROCS(0)-1, 64<<30)()
		assert.Equal(t, before, gogc(), "a core left idle: the target stays")
	}
	var g runGC // whatever its runs found, the target before them at the end
	hook := g.hook(runtime.GOMAXPROCS(0), nil)
	hook(actors.Layout{})
	hook(actors.Layout{})
	g.end()
	assert.Equal(t, before, gogc())
}

// A run's target puts the next collection where the heap reaches the model's estimate,
// unless the current target comes later or the estimate is already exceeded.
func TestGCPercentForRun(t *testing.T) {
	need := int64(10368 * motifNodeBytes) // Red Storm halo3d: 1.5 GiB estimated
	assert.Equal(t, 247, gcPercentForRun(need, 437<<20, 33), "the live heap of its last collection during the build")
	assert.Equal(t, 50, gcPercentForRun(600<<20, 420<<20, 50), "the next collection at 630 MiB already: kept")
	assert.Equal(t, 33, gcPercentForRun(need, need, 33), "an estimate reached")
	assert.Equal(t, 33, gcPercentForRun(need, 2*need, 33), "an estimate exceeded")
	assert.Equal(t, 50, gcPercentForRun(0, 100<<20, 50), "no estimate")
	assert.Equal(t, 50, gcPercentForRun(need, 0, 50), "no collection yet")
}

// A run in one process counts its own workers only.
func TestMachineWorkersOfOneProcess(t *testing.T) {
	assert.Equal(t, 3, machineWorkers(3, nil))
}
