package router

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/actors/actorstest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// portRig is one port actor driven by hand through a recording context.
type portRig struct {
	topo Topology
	port *Port
	ctx  *actorstest.Context
	seq  int32
	due  []actorstest.Sent // timers and loopback packets the port sent itself, by time
}

// deliver hands m to the port and remembers what it sent itself.
func (r *portRig) deliver(at actors.Time, port actors.Port, m actors.Msg) []actorstest.Sent {
	sent := r.ctx.Deliver(r.port, at, port, m)
	for _, s := range sent {
		if s.Kind == actorstest.ViaSelf {
			i := len(r.due)
			for i > 0 && r.due[i-1].At > s.At {
				i--
			}
			r.due = slices.Insert(r.due, i, s)
		}
	}
	return sent
}

func newPortRig(t testing.TB, topo Topology, p Params, node [3]int, d Dir, ejectCredits int, seed uint64) *portRig {
	t.Helper()
	require.NoError(t, p.Validate())
	id := topo.ID(node[0], node[1], node[2])
	_, connected := topo.Neighbor(id, d)
	port := newPort(newConfig(topo, p, ejectCredits, true), id, d, connected || d == NIC)
	ctx := actorstest.New(topo.NodeName(id)+".router."+d.String(), seed)
	ctx.PortNames = port.Ports()
	return &portRig{topo: topo, port: port, ctx: ctx}
}

// format renders sends with port names: "xp +0s pkt ...", "self +25.6ns router.wake".
func (r *portRig) format(sent []actorstest.Sent) string {
	var sb strings.Builder
	for _, s := range sent {
		where := "self"
		if s.Kind == actorstest.ViaPort {
			where = r.ctx.PortNames[s.Port]
		}
		fmt.Fprintf(&sb, "%s +%s %s\n", where, s.Delay, s.Msg)
	}
	if sb.Len() == 0 {
		return "(nothing sent)\n"
	}
	return sb.String()
}

func (r *portRig) portIndex(t testing.TB, name string) actors.Port {
	for i, n := range r.ctx.PortNames {
		if n == name {
			return actors.Port(i)
		}
	}
	t.Fatalf("port %s has no port %q (%v)", r.ctx.ActorName, name, r.ctx.PortNames)
	return 0
}

// state renders the port's queues and credits.
func (r *portRig) state() string {
	p := r.port
	var sb strings.Builder
	for v := range p.cfg.vcs {
		fmt.Fprintf(&sb, "in vc%d: %d", v, p.vc[v].in.n)
		fmt.Fprintf(&sb, "  out vc%d: %d waiting, %d credits\n", v, p.vc[v].waiting, p.vc[v].credits)
	}
	var xc []string
	for j := range numDirs {
		if j == p.dir {
			continue
		}
		for v := range p.cfg.vcs {
			if c := p.x[xIndex(v, j)].xcred; c != int16(p.cfg.p.OutputQueuePackets) {
				xc = append(xc, fmt.Sprintf("%s/vc%d=%d", j, v, c))
			}
		}
	}
	if len(xc) > 0 {
		fmt.Fprintf(&sb, "crossbar credits below full: %s\n", strings.Join(xc, " "))
	}
	fmt.Fprintf(&sb, "busy until %s, retry %v\n", p.busyUntil, p.retry != nil)
	s := p.counters
	fmt.Fprintf(&sb, "stats: received %d, sent %d (%dB), busy %s, retries %d, credit stall %s\n",
		s.Received, s.Packets, s.Bytes, s.Busy, s.Retries, s.CreditStall)
	return sb.String()
}

func scanCoord(t testing.TB, d *datadriven.TestData, key string) [3]int {
	var s string
	d.ScanArgs(t, key, &s)
	var c [3]int
	_, err := fmt.Sscanf(s, "%d,%d,%d", &c[0], &c[1], &c[2])
	require.NoError(t, err, "%s: %s=%q", d.Pos, key, s)
	return c
}

func scanTime(t testing.TB, d *datadriven.TestData) actors.Time {
	var s string
	d.ScanArgs(t, "at", &s)
	at, err := actors.ParseTime(s)
	require.NoError(t, err)
	return at
}

func scanInt(t testing.TB, d *datadriven.TestData, key string, def int) int {
	if !d.HasArg(key) {
		return def
	}
	var s string
	d.ScanArgs(t, key, &s)
	v, err := strconv.Atoi(s)
	require.NoError(t, err, "%s: %s", d.Pos, key)
	return v
}

// scanNetwork reads the arguments that scripts share to build a network:
// "topo=XxYxZ [wrap=torus|mesh|...] [input=N] [output=N] [crc=P]", the rest default.
func scanNetwork(t testing.TB, d *datadriven.TestData) (Topology, Params) {
	var dims string
	d.ScanArgs(t, "topo", &dims)
	wrap := "torus"
	d.MaybeScanArgs(t, "wrap", &wrap)
	topo, err := ParseTopology(dims, wrap)
	require.NoError(t, err)
	p := DefaultParams()
	p.InputBufferPackets = scanInt(t, d, "input", p.InputBufferPackets)
	p.OutputQueuePackets = scanInt(t, d, "output", p.OutputQueuePackets)
	if d.HasArg("crc") {
		var s string
		d.ScanArgs(t, "crc", &s)
		p.CRCErrorRate, err = actors.ParseProb(s)
		require.NoError(t, err)
	}
	return topo, p
}

func parseDir(t testing.TB, s string) Dir {
	for d := range numDirs {
		if d.String() == s {
			return d
		}
	}
	t.Fatalf("unknown direction %q", s)
	return 0
}

// newRigFromScript handles "new topo=XxYxZ [wrap=torus|mesh|...] node=x,y,z dir=D
// [input=N] [output=N] [eject=N] [vcs=N] [crc=P] [seed=N]".
func newRigFromScript(t testing.TB, d *datadriven.TestData) *portRig {
	var dir string
	d.ScanArgs(t, "dir", &dir)
	topo, p := scanNetwork(t, d)
	p.VCs = scanInt(t, d, "vcs", p.VCs)
	return newPortRig(t, topo, p, scanCoord(t, d, "node"), parseDir(t, dir), scanInt(t, d, "eject", 2), uint64(scanInt(t, d, "seed", 1)))
}

// packetFromScript reads "dst=x,y,z [src=x,y,z] [vc=N] [class=N]".
func (r *portRig) packetFromScript(t testing.TB, d *datadriven.TestData) *Packet {
	dst := scanCoord(t, d, "dst")
	src := r.topo.Coord(r.port.node)
	if d.HasArg("src") {
		src = scanCoord(t, d, "src")
	}
	pk := &Packet{Src: r.topo.ID(src[0], src[1], src[2]), Dst: r.topo.ID(dst[0], dst[1], dst[2]),
		Class: uint8(scanInt(t, d, "class", 0)), Payload: 64, SOM: true, EOM: true, Seq: r.seq}
	pk.VC = uint8(scanInt(t, d, "vc", int(2*pk.Class)))
	r.seq++
	return pk
}

// TestPortScripts runs testdata/port*.txt: one port actor driven through a recording
// context. Commands:
//
//	new topo=.. node=x,y,z dir=D [...]   a fresh port (see newRigFromScript)
//	arrive at=T dst=x,y,z [...]          a packet on the external input (link/inject)
//	xbar at=T from=D dst=x,y,z [vc=N]    a packet from crossbar input D
//	credit at=T port=NAME vc=N           a credit on port NAME (link, eject or a direction)
//	wake at=T                            the port's own timer
//	next                                 the earliest timer (or loopback) the port set
//	state                                queues, credits and statistics
//
// Regenerate the expected output with: go test ./router -run TestPortScripts -rewrite
func TestPortScripts(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		if !strings.HasPrefix(path[strings.LastIndex(path, "/")+1:], "port") {
			return
		}
		var r *portRig
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd != "new" && r == nil {
				d.Fatalf(t, "no port: start with new")
			}
			deliver := func(port actors.Port, m actors.Msg) string {
				at := r.ctx.T
				if d.Cmd != "next" {
					at = scanTime(t, d)
				} else if len(r.due) > 0 {
					at, m = r.due[0].At, r.due[0].Msg
					r.due = r.due[1:]
				} else {
					return "(no timer)\n"
				}
				var out string
				msg := actorstest.Catch(func() { out = r.format(r.deliver(at, port, m)) })
				if d.Cmd == "next" {
					out = "t=" + at.String() + ": " + m.String() + "\n" + out
				}
				if msg != "" {
					return "fatal: " + msg + "\n"
				}
				return out
			}
			switch d.Cmd {
			case "new":
				r = newRigFromScript(t, d)
				return r.ctx.ActorName + " ports: " + strings.Join(r.ctx.PortNames, " ") + "\n"
			case "arrive":
				return deliver(actors.Port(r.port.dir), r.packetFromScript(t, d))
			case "xbar":
				var from string
				d.ScanArgs(t, "from", &from)
				return deliver(actors.Port(parseDir(t, from)), r.packetFromScript(t, d))
			case "credit":
				var port string
				d.ScanArgs(t, "port", &port)
				return deliver(r.portIndex(t, port), Credit(scanInt(t, d, "vc", 0)))
			case "wake":
				return deliver(actors.SelfPort, wake{})
			case "next":
				return deliver(actors.SelfPort, nil)
			case "state":
				return r.state()
			}
			d.Fatalf(t, "unknown command %q", d.Cmd)
			return ""
		})
	})
}

// Credits are boxed without allocation, so flow control costs nothing per packet.
func TestCreditSendsWithoutAllocation(t *testing.T) {
	ctx := actorstest.New("x", 1)
	ctx.Sent = make([]actorstest.Sent, 0, 1)
	allocs := testing.AllocsPerRun(1000, func() {
		ctx.Send(0, Credit(3), 0)
		ctx.Sent = ctx.Sent[:0]
	})
	assert.Zero(t, allocs)
	allocs = testing.AllocsPerRun(1000, func() {
		ctx.SendSelf(wake{}, 5)
		ctx.Sent = ctx.Sent[:0]
	})
	assert.Zero(t, allocs)
}

// A packet through a port (arrival, crossbar, credits, transmission, wake) allocates
// nothing: the packet is the only allocation of its life.
func TestPortPathWithoutAllocation(t *testing.T) {
	r := newPortRig(t, Torus(4, 4, 4), DefaultParams(), [3]int{1, 1, 1}, XM, 2, 1)
	r.ctx.Sent = make([]actorstest.Sent, 0, 8)
	pk := &Packet{Dst: r.topo.ID(2, 1, 1), Payload: 64}
	var at actors.Time
	allocs := testing.AllocsPerRun(1000, func() {
		pk.VC, pk.Hops = 0, 0
		at = at.Add(actors.Microsecond)
		r.ctx.T, r.ctx.InPort = at, actors.Port(XM)
		r.port.Receive(r.ctx, pk) // to the XP output: credit back, packet over the crossbar
		r.ctx.InPort = actors.Port(XP)
		r.port.Receive(r.ctx, Credit(0)) // crossbar credit from XP
		r.ctx.Sent = r.ctx.Sent[:0]
	})
	assert.Zero(t, allocs)
}

// Round-robin fairness: three crossbar inputs keep the xp output's vc0 queue full;
// the link serves them in turn, one packet each.
func TestOutputRoundRobinFairness(t *testing.T) {
	p := DefaultParams()
	p.InputBufferPackets = 64 // plenty of downstream credits
	r := newPortRig(t, Torus(8, 8, 8), p, [3]int{1, 1, 1}, XP, 2, 1)
	inputs := []Dir{XM, YP, NIC}
	dst := r.topo.ID(5, 1, 1)
	var order []string
	for range p.OutputQueuePackets {
		for _, in := range inputs {
			for _, sent := range r.deliver(0, actors.Port(in), &Packet{Dst: dst, Payload: 64}) {
				if _, ok := sent.Msg.(Credit); ok {
					order = append(order, r.ctx.PortNames[sent.Port])
					r.deliver(0, sent.Port, &Packet{Dst: dst, Payload: 64})
				}
			}
		}
	}
	for len(r.due) > 0 {
		s := r.due[0]
		r.due = r.due[1:]
		for _, sent := range r.deliver(s.At, actors.SelfPort, s.Msg) {
			if c, ok := sent.Msg.(Credit); ok {
				order = append(order, r.ctx.PortNames[sent.Port])
				// The input refills its share at once: the queue never runs dry.
				r.deliver(s.At, sent.Port, &Packet{Dst: dst, Payload: 64, VC: uint8(c)})
			}
		}
		if len(order) >= 12 {
			break
		}
	}
	assert.Equal(t, strings.Repeat("xm yp nic ", 4), strings.Join(order, " ")+" ")
}

// A sender that ignores credits breaks the protocol: the run fails, naming the buffer.
func TestCreditViolationsFail(t *testing.T) {
	p := DefaultParams()
	p.InputBufferPackets = 1
	r := newPortRig(t, Torus(4, 4, 4), p, [3]int{0, 0, 0}, XM, 2, 1)
	r.port.x[xIndex(0, XP)].xcred = 0 // the xp output is full: the packet stays in the buffer
	r.deliver(0, actors.Port(XM), &Packet{Dst: r.topo.ID(1, 0, 0), Payload: 64})
	msg := actorstest.Catch(func() { r.deliver(1, actors.Port(XM), &Packet{Dst: r.topo.ID(1, 0, 0), Payload: 64}) })
	assert.Contains(t, msg, "overflows the input buffer of vc0 (1 packets): the sender ignored credits")
	msg = actorstest.Catch(func() { r.deliver(2, actors.Port(XM), Credit(0)) })
	assert.Contains(t, msg, "exceeds the downstream buffer")
	msg = actorstest.Catch(func() { r.deliver(3, actors.Port(XM), &Packet{Dst: 1, VC: 7}) })
	assert.Contains(t, msg, "does not have (vcs 4)")
	msg = actorstest.Catch(func() { r.deliver(4, actors.NoPort, wake{}) })
	assert.Empty(t, msg, "a stray wake is harmless")
	var inj Injector = NewInjector(p)
	ctx := actorstest.New("nic", 1)
	inj.Inject(ctx, 0, &Packet{Dst: 1})
	assert.Equal(t, 0, inj.Credits(0))
	assert.Contains(t, actorstest.Catch(func() { inj.Inject(ctx, 0, &Packet{Dst: 1}) }), "without a credit")
	inj.Return(ctx, Credit(0))
	assert.Contains(t, actorstest.Catch(func() { inj.Return(ctx, Credit(0)) }), "unexpected credit vc0")
}

// The (virtual channel, direction) table is the port's last field and holds the
// channels in order, so that the lines a port's events read end with the channels the
// network has (PrefetchBytes): all of the struct at MaxVCs, less at fewer.
func TestPortLayout(t *testing.T) {
	ty := reflect.TypeOf(Port{})
	last := ty.Field(ty.NumField() - 1)
	require.Equal(t, "x", last.Name)
	assert.Equal(t, ty.Size(), last.Offset+last.Type.Size(), "nothing after the table")
	for _, vcs := range []int{2, 4, 6, MaxVCs} {
		p := DefaultParams()
		p.VCs = vcs
		r := newPortRig(t, Torus(4, 4, 4), p, [3]int{0, 0, 0}, XP, 2, 1)
		assert.Equal(t, last.Offset+uintptr(vcs*int(numDirs))*reflect.TypeOf(xState{}).Size(), r.port.PrefetchBytes(), "vcs %d", vcs)
		assert.Equal(t, vcs*int(numDirs), xIndex(vcs, 0), "the entries of vcs channels come first")
	}
	assert.Equal(t, ty.Size(), newPortRig(t, Torus(4, 4, 4), func() Params { p := DefaultParams(); p.VCs = MaxVCs; return p }(),
		[3]int{0, 0, 0}, XP, 2, 1).port.PrefetchBytes())
}

// A ring queue hands out its slots in FIFO order, wrapping around the ring, and starts
// again at the first slot whenever it empties: a port's queues, which mostly hold one
// packet at a time, then reuse the line Port.Start names for prefetching.
func TestQueueRestartsAtFirstSlotWhenEmpty(t *testing.T) {
	const c = 4
	var s qstate
	var got []int
	for _, op := range "aatataaattttaat" {
		if op == 'a' {
			got = append(got, s.add(c))
		} else {
			got = append(got, -s.take(c)-1)
		}
	}
	// adds as slots, takes as -slot-1: the queue empties after the twelfth operation
	assert.Equal(t, []int{0, 1, -1, 2, -2, 3, 0, 1, -3, -4, -1, -2, 0, 1, -1}, got)
	assert.Equal(t, qstate{head: 1, n: 1}, s)
}
