package portals4

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/machine"
)

// A conformance test file from anywhere (malformed XML, unknown elements, absurd
// values) gives a verdict (pass, fail with a reason, or skip), never a panic or a
// hang: the simulated time is bounded and the interpreter checks its input. Each input
// also gets fuzzInputWall of wall time (an interrupted run is a failure with a reason):
// a mutation that repeats a put a billion times runs for 4 s before the simulated
// second ends, longer than scripts/test's -fuzztime, and the fuzzing engine then
// fails with "context deadline exceeded".
func FuzzConformanceFile(f *testing.F) {
	for _, name := range []string{"n1/test_advanced_le-001.xml", "n1/test_advanced_me-001.xml"} {
		if b, err := os.ReadFile(filepath.Join("testdata", "conformance", name)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`<test><desc>x</desc><ptl><ptl_ni><ptl_pt><ptl_le><ptl_put length="8" target_offset="18446744073709551615"/></ptl_le></ptl_pt></ptl_ni></ptl></test>`))
	f.Add([]byte(`<test><ptl><ptl_ni ni_opt="NO_MATCH PHYSICAL"><ptl_eq_alloc count="0"/></ptl_ni></ptl></test>`))
	f.Add([]byte(`<test><repeat count="1000000000"><msleep count="1"/></repeat></test>`))
	f.Add([]byte(`<test><ptl><ptl_ni ni_opt="NO_MATCH PHYSICAL"><ompi_rt><ptl_pt><ptl_le_append le_opt="OP_PUT" uid="ANY"><ptl_md>` +
		`<repeat count="1000000000"><ptl_put target_id="SELF"/></repeat></ptl_md></ptl_le_append></ptl_pt></ompi_rt></ptl_ni></ptl></test>`)) // stopped by fuzzInputWall
	f.Add([]byte(`<test`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<14 {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), fuzzInputWall)
		defer cancel()
		out := RunTest(ctx, machine.Default(), DefaultParams(), "fuzz.xml", b, 1,
			actors.Options{Workers: 1, End: actors.Time(0).Add(actors.Second)})
		switch out.Result {
		case "pass", "skip":
		case "fail":
			if out.Reason == "" {
				t.Fatal("a failure without a reason")
			}
		default:
			t.Fatalf("verdict %q", out.Result)
		}
	})
}

// fuzzInputWall bounds the wall time of one fuzzed input (FuzzConformanceFile).
const fuzzInputWall = 500 * time.Millisecond
