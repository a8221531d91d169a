package rxdma

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/actors/actorstest"
	"github.com/seastar-sim/seastar/cam"
	"github.com/seastar-sim/seastar/ht"
	"github.com/seastar-sim/seastar/router"
	"github.com/stretchr/testify/require"
)

// bench wraps an Engine for the single-actor harness and, when ackLatency > 0, plays
// the HT link acknowledging each DMA write ackLatency after it was issued. The CAM and
// the PPC are played by the script. Everything the engine sends is recorded.
type bench struct {
	e          *Engine
	ackLatency actors.Duration
	after      func() // if set, called after every message the engine handles

	// cam, if not nil, plays the CAM: a lookup is granted the source's next command
	// 2ns later (the source must have one).
	cam map[router.NodeID][]cam.Command
}

func (b *bench) Ports() []string { return b.e.Ports() }

func (b *bench) Receive(ctx actors.Context, m actors.Msg) {
	actorstest.Relay(ctx, b.e, m, b.onSend)
	if b.after != nil {
		b.after()
	}
}

// onSend plays the HT link and the CAM, when the bench does.
func (b *bench) onSend(c *actorstest.RelayCtx, _ actors.Port, m actors.Msg, extra actors.Duration) {
	if w, ok := m.(*ht.Write); ok && w.Ack && b.ackLatency > 0 {
		c.Reply(PortHT, ht.WriteDone{Tag: w.Tag}, extra+b.ackLatency)
	}
	if l, ok := m.(cam.Lookup); ok && b.cam != nil {
		q := b.cam[l.Src]
		if len(q) == 0 {
			c.Fatalf("bench: no command for node %d", l.Src)
		}
		b.cam[l.Src] = q[1:]
		c.Reply(PortCAM, cam.Grant{Src: l.Src, Cmd: q[0]}, extra+2*actors.Nanosecond)
	}
}

// TestEngineScripts runs testdata/*.txt against one engine. Commands:
//
//	new [fifo_packets=N vcs=N outstanding_writes=N dma_bandwidth=R packet_overhead=D ack=D]
//	packet name=S src=N bytes=N [som] [eom] [seq=N] [vc=N] [at=T]
//	grant src=N bytes=N [discard] [notify tag=N] [addr=N] [at=T]
//	write-done [at=T]
//	discard name=S [at=T]
//	run [until=T] [hide=port,...]
//	stats
//
// Outputs are stamped with the time they leave the engine (zero link latency).
// Regenerate with: go test ./rxdma -rewrite (and read the diff).
func TestEngineScripts(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var h *actorstest.Harness
		var b *bench
		pkts := map[string]*router.Packet{}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			at := actorstest.TimeArg(t, d, "at")
			switch d.Cmd {
			case "new":
				var vcs int
				b, vcs = newBench(t, d)
				h, _ = actorstest.NewHarness("node[0,0,0].rxdma", b, 1)
				return fmt.Sprintf("fifo %d packets (%d credits on each of the %d ejection VCs); full packet %s\n",
					len(b.e.fifo), b.e.p.Credits(vcs), max(1, vcs/2), b.e.p.DMABandwidth.TransferTime(64)+b.e.p.PacketOverhead)
			case "packet":
				p := &router.Packet{Src: router.NodeID(actorstest.IntArg(t, d, "src", 0)), Dst: 0, Payload: int32(actorstest.IntArg(t, d, "bytes", 64)),
					SOM: d.HasArg("som"), EOM: d.HasArg("eom"), Seq: int32(actorstest.IntArg(t, d, "seq", 0)), VC: uint8(actorstest.IntArg(t, d, "vc", 0)),
					Class: uint8(actorstest.IntArg(t, d, "class", 0))}
				pkts[actorstest.StrArg(t, d, "name")] = p
				h.Inject(at, PortRouter, p)
			case "grant":
				c := cam.Command{Bytes: actorstest.IntArg(t, d, "bytes", 0), Discard: d.HasArg("discard"), Notify: d.HasArg("notify"), Cont: d.HasArg("cont"),
					Tag: uint64(actorstest.IntArg(t, d, "tag", 0)), Addr: uint64(actorstest.IntArg(t, d, "addr", 0))}
				h.Inject(at, PortCAM, cam.Grant{Src: router.NodeID(actorstest.IntArg(t, d, "src", 0)), Cmd: c})
			case "write-done":
				h.Inject(at, PortHT, ht.WriteDone{})
			case "discard":
				p := pkts[actorstest.StrArg(t, d, "name")]
				require.NotNil(t, p, "no packet named %s", actorstest.StrArg(t, d, "name"))
				h.Inject(at, PortPPC, Discard{Packet: p, Whole: d.HasArg("whole")})
			case "run":
				return actorstest.RunScript(t, d, h, b.Ports())
			case "stats":
				s := b.e.Stats
				return fmt.Sprintf("packets %d bytes %d discarded %d messages %d commands %d peak-fifo %d ppc-discards %d\n"+
					"busy %s cam-stall %s (%d lookups) write-stall %s; in fifo %d, writes out %d\n",
					s.Packets, s.Bytes, s.Discarded, s.Messages, s.Commands, s.PeakFIFO, s.PPCDiscards,
					s.Busy, s.CAMStall, s.Stalls, s.WriteStall, b.e.n, b.e.writes)
			default:
				t.Fatalf("%s: unknown command %s", d.Pos, d.Cmd)
			}
			return ""
		})
	})
}

func newBench(t *testing.T, d *datadriven.TestData) (*bench, int) {
	p, vcs, b := unitParams(), 4, &bench{}
	for _, a := range d.CmdArgs {
		v := a.Vals[0]
		var err error
		switch a.Key {
		case "fifo_packets":
			p.FIFOPackets, err = strconv.Atoi(v)
		case "vcs":
			vcs, err = strconv.Atoi(v)
		case "outstanding_writes":
			p.OutstandingWrites, err = strconv.Atoi(v)
		case "dma_bandwidth":
			p.DMABandwidth, err = actors.ParseBandwidth(v)
		case "packet_overhead":
			p.PacketOverhead, err = actors.ParseDuration(v)
		case "ack":
			b.ackLatency, err = actors.ParseDuration(v)
		default:
			t.Fatalf("%s: unknown parameter %s", d.Pos, a.Key)
		}
		require.NoError(t, err, a.Key)
	}
	require.NoError(t, p.Validate())
	b.e = New(&p, vcs)
	return b, vcs
}
