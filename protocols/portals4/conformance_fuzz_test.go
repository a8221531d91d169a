package portals4

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/machine"
)

// A conformance test file from anywhere (malformed XML, unknown elements, absurd
// values) gives a verdict (pass, fail with a reason, or skip), never a panic or a
// hang: the simulated time is bounded and the interpreter checks its input.
func FuzzConformanceFile(f *testing.F) {
	for _, name := range []string{"n1/test_advanced_le-001.xml", "n1/test_advanced_me-001.xml"} {
		if b, err := os.ReadFile(filepath.Join("testdata", "conformance", name)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`<test><desc>x</desc><ptl><ptl_ni><ptl_pt><ptl_le><ptl_put length="8" target_offset="18446744073709551615"/></ptl_le></ptl_pt></ptl_ni></ptl></test>`))
	f.Add([]byte(`<test><ptl><ptl_ni ni_opt="NO_MATCH PHYSICAL"><ptl_eq_alloc count="0"/></ptl_ni></ptl></test>`))
	f.Add([]byte(`<test><repeat count="1000000000"><msleep count="1"/></repeat></test>`))
	f.Add([]byte(`<test`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<14 {
			return
		}
		out := RunTest(context.Background(), machine.Default(), DefaultParams(), "fuzz.xml", b, 1,
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
