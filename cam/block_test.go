package cam

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/actors/actorstest"
	"github.com/seastar-sim/seastar/router"
	"github.com/stretchr/testify/require"
)

func atoi(t *testing.T, d *datadriven.TestData, key string) int {
	var s string
	d.ScanArgs(t, key, &s)
	v, err := strconv.Atoi(s)
	require.NoError(t, err)
	return v
}

// TestBlockScripts runs testdata/*.txt against one CAM actor. Commands: new entries=N
// depth=N, set, clear, push, lookup, run, stats. Regenerate with -rewrite.
func TestBlockScripts(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var h *actorstest.Harness
		var b *Block
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "new":
				p := DefaultParams()
				p.Entries, p.QueueDepth = atoi(t, d, "entries"), atoi(t, d, "depth")
				require.NoError(t, p.Validate())
				b = NewBlock(p)
				h, _ = actorstest.NewHarness("node[0,0,0].cam", b, 1)
			case "set":
				h.Inject(actorstest.TimeArg(t, d, "at"), PortPPC, SetEntry{Entry: atoi(t, d, "entry"), Src: router.NodeID(atoi(t, d, "src"))})
			case "clear":
				h.Inject(actorstest.TimeArg(t, d, "at"), PortPPC, ClearEntry{Entry: atoi(t, d, "entry")})
			case "push":
				c := Command{Bytes: int64(atoi(t, d, "bytes")), Discard: d.HasArg("discard"), Notify: d.HasArg("notify"), CRC: d.HasArg("crc")}
				if d.HasArg("tag") {
					c.Tag = uint64(atoi(t, d, "tag"))
				}
				h.Inject(actorstest.TimeArg(t, d, "at"), PortPPC, PushCommand{Entry: atoi(t, d, "entry"), Cmd: c})
			case "lookup":
				h.Inject(actorstest.TimeArg(t, d, "at"), PortRXDMA, Lookup{Src: router.NodeID(atoi(t, d, "src"))})
			case "run":
				var out string
				if msg := actorstest.Catch(func() { out = actorstest.Trace(h.Run(actors.MaxTime), b.Ports()) }); msg != "" {
					return out + "fatal: " + msg + "\n"
				}
				return out
			case "stats":
				s := b.Stats
				return fmt.Sprintf("lookups %d stalls %d misses %d stall-time %s peak %d free %d\n",
					s.Lookups, s.Stalls, s.Misses, s.StallTime, s.PeakInUse, b.Table().Free())
			default:
				t.Fatalf("unknown command %s", d.Cmd)
			}
			return ""
		})
	})
}
