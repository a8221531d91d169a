package router

import (
	"context"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/stretchr/testify/require"
)

// burst is a run of packets a testNIC sends to one destination.
type burst struct {
	dst   NodeID
	n     int
	class uint8
}

// delivery is one packet as a testNIC received it.
type delivery struct {
	src, dst NodeID
	seq      int32
	class    uint8
	hops     int16
	at       actors.Time
	injected actors.Time
}

// testNIC injects its bursts as fast as credits and the link allow, and ejects every
// packet at once: the simplest NIC that respects the router's credit contract.
type testNIC struct {
	id      NodeID
	inj     Injector
	bursts  []burst
	sent    int // packets of bursts[0] sent
	seq     int32
	wakeSet bool
	got     []delivery
}

type nicWake struct{}

func (nicWake) String() string { return "nicWake" }

func (n *testNIC) Ports() []string { return []string{"tx", "rx"} }

func (n *testNIC) Start(ctx actors.Context) { n.send(ctx) }

func (n *testNIC) Receive(ctx actors.Context, m actors.Msg) {
	switch m := m.(type) {
	case Credit:
		n.inj.Return(ctx, m)
		n.send(ctx)
	case nicWake:
		n.wakeSet = false
		n.send(ctx)
	case *Packet:
		n.got = append(n.got, delivery{src: m.Src, dst: m.Dst, seq: m.Seq, class: m.Class, hops: m.Hops, at: ctx.Now(), injected: m.Injected})
		if m.Dst != n.id {
			ctx.Fatalf("packet %v delivered to node %d", m, n.id)
		}
		ctx.Send(1, Credit(m.VC), 0)
	default:
		ctx.Fatalf("testNIC: unexpected %T", m)
	}
}

func (n *testNIC) send(ctx actors.Context) {
	for len(n.bursts) > 0 {
		b := n.bursts[0]
		if !n.inj.Ready(ctx.Now(), b.class) {
			if ctx.Now() < n.inj.FreeAt() && !n.wakeSet {
				n.wakeSet = true
				ctx.SendSelf(nicWake{}, n.inj.FreeAt().Sub(ctx.Now()))
			}
			return
		}
		pk := &Packet{Src: n.id, Dst: b.dst, Class: b.class, Payload: 64, SOM: true, EOM: true, Seq: n.seq}
		n.seq++
		n.inj.Inject(ctx, 0, pk)
		if n.sent++; n.sent == b.n {
			n.bursts, n.sent = n.bursts[1:], 0
		}
	}
}

// testNet is a network with a testNIC per node.
type testNet struct {
	net  *Network
	m    *actors.Model
	nics []*testNIC
}

type netOpts struct {
	ejectCredits int
	noDateline   bool
}

// newTestNet builds topo with p and a testNIC per node sending traffic(src).
func newTestNet(t testing.TB, topo Topology, p Params, o netOpts, traffic func(src NodeID) []burst) *testNet {
	t.Helper()
	if o.ejectCredits == 0 {
		o.ejectCredits = 4
	}
	g := actors.NewGraph()
	net, err := buildNetwork(g, topo, p, o.ejectCredits, !o.noDateline)
	require.NoError(t, err)
	tn := &testNet{net: net}
	for id := range NodeID(topo.Nodes()) {
		nic := &testNIC{id: id, inj: net.Injector(), bursts: traffic(id)}
		ref := g.Add(topo.NodeName(id)+".nic", nic)
		net.LinkNIC(g, id, ref.Port("tx"), ref.Port("rx"))
		tn.nics = append(tn.nics, nic)
	}
	tn.m, err = g.Build()
	require.NoError(t, err)
	return tn
}

func (tn *testNet) run(t testing.TB, opts actors.Options) *actors.Report {
	t.Helper()
	rep, err := actors.Run(context.Background(), tn.m, opts)
	require.NoError(t, err)
	return rep
}

// deliveries returns every delivered packet, by destination then arrival.
func (tn *testNet) deliveries() []delivery {
	var all []delivery
	for _, n := range tn.nics {
		all = append(all, n.got...)
	}
	return all
}

var serial = actors.Options{Engine: actors.Serial}
