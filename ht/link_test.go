package ht

import (
	"fmt"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/actors/actorstest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// label is a payload for scripted writes.
type label string

func (l label) String() string { return string(l) }

func unitArg(t *testing.T, d *datadriven.TestData, key string) Unit {
	var s string
	d.ScanArgs(t, key, &s)
	for u := Unit(0); u < numUnits; u++ {
		if u.String() == s {
			return u
		}
	}
	t.Fatalf("%s: unknown unit %q", d.Pos, s)
	return 0
}

// TestLinkScripts runs testdata/*.txt. Commands: new [param=value...], write, read,
// irq, run [until=T], stats. Regenerate with: go test ./ht -rewrite
func TestLinkScripts(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var h *actorstest.Harness
		var link *Link
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "new":
				p := DefaultParams()
				for _, a := range d.CmdArgs {
					var err error
					switch a.Key {
					case "latency":
						p.Latency, err = actors.ParseDuration(a.Vals[0])
					case "memory_latency":
						p.MemoryLatency, err = actors.ParseDuration(a.Vals[0])
					default:
						t.Fatalf("unknown param %s", a.Key)
					}
					require.NoError(t, err)
				}
				require.NoError(t, p.Validate())
				link = New(&p)
				h, _ = actorstest.NewHarness("node[0,0,0].ht", link, 1)
				return fmt.Sprintf("payload bandwidth %s\n", p.PayloadBandwidth())
			case "write":
				w := &Write{To: unitArg(t, d, "to"), Bytes: actors.Bytes(actorstest.IntArg(t, d, "bytes", 0)),
					Ack: d.HasArg("ack"), Tag: uint64(actorstest.IntArg(t, d, "tag", 0))}
				if d.HasArg("payload") {
					w.Payload = label(actorstest.StrArg(t, d, "payload"))
				}
				h.Inject(actorstest.TimeArg(t, d, "at"), actors.Port(unitArg(t, d, "from")), w)
			case "read":
				h.Inject(actorstest.TimeArg(t, d, "at"), actors.Port(unitArg(t, d, "from")),
					Read{Bytes: actors.Bytes(actorstest.IntArg(t, d, "bytes", 0)), Tag: uint64(actorstest.IntArg(t, d, "tag", 0))})
			case "irq":
				h.Inject(actorstest.TimeArg(t, d, "at"), actors.Port(PPC), Interrupt{Vector: int(actorstest.IntArg(t, d, "vector", 0))})
			case "run":
				return actorstest.RunScript(t, d, h, link.Ports())
			case "stats":
				s := link.Stats
				return fmt.Sprintf("down: %d B, busy %s, %d writes, %d reads\nup: %d B, busy %s, %d writes, %d reads\nirqs: %d\n",
					s.Bytes[down], s.Busy[down], s.Writes[down], s.Reads[down], s.Bytes[up], s.Busy[up], s.Writes[up], s.Reads[up], s.Irqs)
			default:
				t.Fatalf("unknown command %s", d.Cmd)
			}
			return ""
		})
	})
}

// Full 64-byte packets move at about 2.8 GB/s of payload (Brightwell et al. 2005 s.2).
func TestPayloadBandwidthIsAboutTwoPointEight(t *testing.T) {
	p := DefaultParams()
	assert.Equal(t, actors.Bandwidth(2844444444), p.PayloadBandwidth())
	// 1 MiB in 64-byte packets takes 1 MiB * 72/64 at 3.2 GB/s.
	assert.Equal(t, actors.Duration(368640000), p.WireTime(actors.MiB))
}

func TestLinkRejectsMisroutedMessages(t *testing.T) {
	h, _ := actorstest.NewHarness("ht", New(new(DefaultParams())), 1)
	h.Inject(0, actors.Port(PPC), &Write{To: RXDMA, Bytes: 8})
	assert.Contains(t, actorstest.Catch(func() { h.Run(actors.MaxTime) }), "write from ppc to rxdma does not cross the link")
	h.Inject(0, actors.Port(Host), Interrupt{})
	assert.Contains(t, actorstest.Catch(func() { h.Run(actors.MaxTime) }), "the host cannot interrupt itself")
}

func TestParamsValidate(t *testing.T) {
	p := DefaultParams()
	require.NoError(t, p.Validate())
	p.RawBandwidth = 0
	assert.ErrorContains(t, p.Validate(), "raw_bandwidth")
}

// A *Read is answered in place: the answer is the *ReadDone inside the request, at the
// same time and with the same content as the answer to the same Read sent by value.
func TestReadByPointerAnsweredInPlace(t *testing.T) {
	answer := func(m actors.Msg) actorstest.Sent {
		h, _ := actorstest.NewHarness("ht", New(new(DefaultParams())), 1)
		h.Inject(0, actors.Port(TXDMA), m)
		out := h.Run(actors.MaxTime)
		require.Len(t, out, 1)
		return out[0]
	}
	byValue := answer(Read{Bytes: 64, Tag: 9})
	r := &Read{Bytes: 64, Tag: 9}
	byPointer := answer(r)
	assert.Equal(t, ReadDone{Bytes: 64, Tag: 9}, byValue.Msg)
	assert.Equal(t, &ReadDone{Bytes: 64, Tag: 9}, byPointer.Msg)
	assert.Equal(t, ReadDone{Bytes: 64, Tag: 9}, r.Done, "filled in the request")
	assert.Equal(t, byValue.At, byPointer.At)
	assert.Equal(t, byValue.Port, byPointer.Port)
}
