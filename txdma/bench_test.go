package txdma

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/actors/actorstest"
	"github.com/seastar-sim/seastar/ht"
	"github.com/seastar-sim/seastar/router"
	"github.com/stretchr/testify/require"
)

// bench wraps an Engine for the single-actor harness and plays the engine's peers that
// a script would find tedious to drive by hand: host memory answering HT reads, and the
// router returning credits. Everything the engine sends is still recorded as output.
type bench struct {
	e *Engine

	// memory: a read is answered memLatency after it was issued, and the data of
	// successive reads returns at least memGap apart (the HT link serializes them).
	// memLatency 0: the script answers reads itself (read-done).
	memLatency actors.Duration
	memGap     actors.Duration
	memFree    actors.Time

	// creditLatency > 0: the router returns the credit of a packet this long after
	// the packet's last byte reached it. 0: the script returns credits (credit).
	creditLatency actors.Duration

	after func() // if set, called after every message the engine handles
}

func (b *bench) Ports() []string { return b.e.Ports() }

func (b *bench) Receive(ctx actors.Context, m actors.Msg) {
	actorstest.Relay(ctx, b.e, m, b.onSend)
	if b.after != nil {
		b.after()
	}
}

// onSend answers reads and returns credits when the bench plays memory or the router.
func (b *bench) onSend(c *actorstest.RelayCtx, _ actors.Port, m actors.Msg, extra actors.Duration) {
	now := c.Now()
	switch m := m.(type) {
	case *ht.Read:
		if b.memLatency > 0 {
			at := max(now.Add(extra+b.memLatency), b.memFree.Add(b.memGap))
			b.memFree = at
			m.Done = ht.ReadDone{Bytes: m.Bytes, Tag: m.Tag}
			c.Reply(PortHT, &m.Done, at.Sub(now))
		}
	case *router.Packet:
		if b.creditLatency > 0 {
			c.Reply(PortRouter, router.Credit(m.VC), extra+b.creditLatency)
		}
	}
}

// label is a message descriptor for Command.Data and PIO.Data.
type label string

func (l label) String() string { return string(l) }

// newBench parses "new" arguments: engine, router and bench parameters.
func newBench(t *testing.T, d *datadriven.TestData) (*bench, Params, router.Params) {
	p, rp, b := unitParams(), router.DefaultParams(), &bench{}
	for _, a := range d.CmdArgs {
		v := a.Vals[0]
		var err error
		dur := func(dst *actors.Duration) { *dst, err = actors.ParseDuration(v) }
		num := func(dst *int) { *dst, err = strconv.Atoi(v) }
		size := func(dst *actors.Bytes) { *dst, err = actors.ParseBytes(v) }
		rate := func(dst *actors.Bandwidth) { *dst, err = actors.ParseBandwidth(v) }
		switch a.Key {
		case "mem":
			dur(&b.memLatency)
		case "mem_gap":
			dur(&b.memGap)
		case "credit_latency":
			dur(&b.creditLatency)
		case "credits":
			num(&rp.InputBufferPackets)
		case "link_bandwidth":
			rate(&rp.LinkBandwidth)
		case "dma_bandwidth":
			rate(&p.DMABandwidth)
		case "packet_overhead":
			dur(&p.PacketOverhead)
		case "command_cost":
			dur(&p.CommandCost)
		case "outstanding_reads":
			num(&p.OutstandingReads)
		case "buffer_bytes":
			size(&p.BufferBytes)
		case "commands_max":
			num(&p.CommandsMax)
		case "pio_commands_max":
			num(&p.PIOCommandsMax)
		case "pio_buffer_bytes":
			size(&p.PIOBufferBytes)
		default:
			t.Fatalf("%s: unknown parameter %s", d.Pos, a.Key)
		}
		require.NoError(t, err, a.Key)
	}
	require.NoError(t, p.Validate())
	require.NoError(t, rp.Validate())
	b.e = New(&p, 0, router.NewInjector(rp))
	return b, p, rp
}

// TestEngineScripts runs testdata/*.txt against one engine on node 0. Commands:
//
//	new [mem=D mem_gap=D credit_latency=D credits=N link_bandwidth=R dma_bandwidth=R
//	     packet_overhead=D command_cost=D outstanding_reads=N buffer_bytes=B
//	     commands_max=N pio_commands_max=N pio_buffer_bytes=B]
//	load-dest dst=N [class=N] [data=S] [at=T]
//	transmit bytes=N [addr=N] [at=T]
//	end-packet [crc] [at=T]
//	end-message [crc] [notify tag=N] [at=T]
//	pio dst=N bytes=N [class=N] [data=S] [notify tag=N] [at=T]
//	read-done tag=N bytes=N at=T
//	credit [vc=N] at=T
//	run [until=T] [hide=port,...]
//	stats
//
// Outputs are stamped with their delivery time at zero link latency: a packet when its
// last byte has crossed the injection link, everything else when it is sent.
// Regenerate with: go test ./txdma -rewrite (and read the diff).
func TestEngineScripts(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var h *actorstest.Harness
		var b *bench
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			at := actorstest.TimeArg(t, d, "at")
			cmd := func(c *Command) { h.Inject(at, PortPPC, c) }
			switch d.Cmd {
			case "new":
				var p Params
				var rp router.Params
				b, p, rp = newBench(t, d)
				h, _ = actorstest.NewHarness("node[0,0,0].txdma", b, 1)
				return fmt.Sprintf("full packet: data path %s, injection link %s\n",
					p.packetTime(p.PacketPayload), rp.PacketTime())
			case "load-dest":
				cmd(&Command{Kind: LoadDest, Dst: router.NodeID(actorstest.IntArg(t, d, "dst", 0)),
					Class: uint8(actorstest.IntArg(t, d, "class", 0)), Data: label(actorstest.StrArg(t, d, "data"))})
			case "transmit":
				cmd(&Command{Kind: Transmit, Bytes: actorstest.IntArg(t, d, "bytes", 0), Addr: uint64(actorstest.IntArg(t, d, "addr", 0))})
			case "end-packet":
				cmd(&Command{Kind: EndPacket, CRC: d.HasArg("crc")})
			case "end-message":
				cmd(&Command{Kind: EndMessage, CRC: d.HasArg("crc"), Notify: d.HasArg("notify"), Tag: uint64(actorstest.IntArg(t, d, "tag", 0))})
			case "pio":
				h.Inject(at, PortPPC, &PIO{Dst: router.NodeID(actorstest.IntArg(t, d, "dst", 0)), Class: uint8(actorstest.IntArg(t, d, "class", 0)),
					Data: label(actorstest.StrArg(t, d, "data")), Bytes: actorstest.IntArg(t, d, "bytes", 0),
					Notify: d.HasArg("notify"), Tag: uint64(actorstest.IntArg(t, d, "tag", 0))})
			case "read-done":
				h.Inject(at, PortHT, &ht.ReadDone{Bytes: actors.Bytes(actorstest.IntArg(t, d, "bytes", 64)), Tag: uint64(actorstest.IntArg(t, d, "tag", 0))})
			case "credit":
				h.Inject(at, PortRouter, router.Credit(actorstest.IntArg(t, d, "vc", 0)))
			case "run":
				return actorstest.RunScript(t, d, h, b.Ports())
			case "stats":
				s := b.e.Stats
				return fmt.Sprintf("packets %d bytes %d messages %d pio %d reads %d commands %d\nbusy %s credit-stall %s\n",
					s.Packets, s.Bytes, s.Messages, s.PIOMessages, s.Reads, s.Commands, s.Busy, s.CreditStall)
			default:
				t.Fatalf("%s: unknown command %s", d.Pos, d.Cmd)
			}
			return ""
		})
	})
}
