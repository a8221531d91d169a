package portals4

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/machine"
)

// suiteDirs are where the visible conformance suite is looked for: beside the
// repository, else the copy in testdata.
var suiteDirs = []string{"../../../shared/conformance/portals4/tests", "testdata/conformance"}

func suiteFiles(t *testing.T) []string {
	for _, dir := range suiteDirs {
		var files []string
		for _, d := range []string{"n1", "n2", "extra"} {
			m, err := filepath.Glob(filepath.Join(dir, d, "*.xml"))
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, m...)
		}
		if len(files) > 0 {
			sort.Strings(files)
			t.Logf("conformance suite: %d files in %s", len(files), dir)
			return files
		}
	}
	t.Fatalf("no conformance tests in %v", suiteDirs)
	return nil
}

// TestConformanceSuite runs every visible Portals 4 conformance test on the simulated
// SeaStar machine, for every NIC implementation, and fails on any failure.
func TestConformanceSuite(t *testing.T) {
	files := suiteFiles(t)
	if f := os.Getenv("P4_ONLY"); f != "" {
		files = []string{f}
	}
	for _, nic := range []string{"offload", "onload", "matchunit", "ib"} {
		t.Run(nic, func(t *testing.T) {
			p := DefaultParams()
			p.NIC = nic
			outs := make([]Outcome, len(files))
			var wg sync.WaitGroup
			sem := make(chan struct{}, runtime.GOMAXPROCS(0))
			for i, f := range files {
				wg.Add(1)
				go func() {
					defer wg.Done()
					sem <- struct{}{}
					defer func() { <-sem }()
					data, err := os.ReadFile(f)
					if err != nil {
						outs[i] = Outcome{File: f, Result: "fail", Reason: err.Error()}
						return
					}
					outs[i] = RunTest(context.Background(), machine.Default(), p, f, data, RanksFor(f),
						actors.Options{End: actors.Time(0).Add(600 * actors.Second)})
				}()
			}
			wg.Wait()
			n := map[string]int{}
			for _, o := range outs {
				n[o.Result]++
				switch o.Result {
				case "fail":
					t.Errorf("%s: %s", filepath.Base(o.File), o.Reason)
				case "skip":
					t.Logf("%s: skipped: %s", filepath.Base(o.File), o.Reason)
				}
			}
			t.Logf("%s: %d passed, %d failed, %d skipped", nic, n["pass"], n["fail"], n["skip"])
		})
	}
}
