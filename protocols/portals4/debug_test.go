package portals4

import (
	"context"
	"os"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/machine"
)

func TestDebugOne(t *testing.T) {
	f := os.Getenv("P4_FILE")
	if f == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(f)
	o := RunTest(context.Background(), machine.Default(), DefaultParams(), f, data, RanksFor(f), actors.Options{End: actors.Time(0).Add(600 * actors.Second)})
	t.Logf("%+v", o)
}
