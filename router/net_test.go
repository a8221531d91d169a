package router

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/seastar-sim/seastar/actors"
)

// TestNetScripts runs testdata/net*.txt: whole networks of routers with a testNIC per
// node. Commands:
//
//	net topo=XxYxZ [wrap=..] [input=N] [output=N] [eject=N] [crc=P] [dateline=off] [arbitration=age|round_robin]
//	send src=x,y,z dst=x,y,z [n=N] [class=C]   queue a burst (sent in script order)
//	run [seed=N] [show=N]                       run to the end; deliveries and statistics
//
// Regenerate with: go test ./router -run TestNetScripts -rewrite
func TestNetScripts(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		if !strings.HasPrefix(path[strings.LastIndex(path, "/")+1:], "net") {
			return
		}
		var s *netScript
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "net":
				s = newNetScript(t, d)
				return fmt.Sprintf("%s, %d nodes\n", s.topo, s.topo.Nodes())
			case "send":
				src, dst := scanCoord(t, d, "src"), scanCoord(t, d, "dst")
				id := s.topo.ID(src[0], src[1], src[2])
				s.bursts[id] = append(s.bursts[id], burst{dst: s.topo.ID(dst[0], dst[1], dst[2]),
					n: scanInt(t, d, "n", 1), class: uint8(scanInt(t, d, "class", 0))})
				return ""
			case "run":
				return s.run(t, d)
			}
			d.Fatalf(t, "unknown command %q", d.Cmd)
			return ""
		})
	})
}

type netScript struct {
	topo   Topology
	p      Params
	o      netOpts
	bursts map[NodeID][]burst
}

func newNetScript(t *testing.T, d *datadriven.TestData) *netScript {
	topo, p := scanNetwork(t, d)
	d.MaybeScanArgs(t, "arbitration", &p.Arbitration)
	o := netOpts{ejectCredits: scanInt(t, d, "eject", 4)}
	if d.HasArg("dateline") {
		var v string
		d.ScanArgs(t, "dateline", &v)
		o.noDateline = v == "off"
	}
	return &netScript{topo: topo, p: p, o: o, bursts: map[NodeID][]burst{}}
}

func (s *netScript) run(t *testing.T, d *datadriven.TestData) string {
	tn := newTestNet(t, s.topo, s.p, s.o, func(src NodeID) []burst { return s.bursts[src] })
	rep := tn.run(t, actors.Options{Engine: actors.Serial, Seed: uint64(scanInt(t, d, "seed", 1))})
	var sb strings.Builder
	got := tn.deliveries()
	show := scanInt(t, d, "show", 10)
	for i, dl := range got {
		if i == show {
			fmt.Fprintf(&sb, "... %d more\n", len(got)-show)
			break
		}
		fmt.Fprintf(&sb, "%s -> %s #%d c%d: injected %s, delivered %s, %d hops\n",
			s.topo.NodeName(dl.src), s.topo.NodeName(dl.dst), dl.seq, dl.class, dl.injected, dl.at, dl.hops)
	}
	st := CollectStats(tn.m)
	fmt.Fprintf(&sb, "delivered %d, injected %d, ejected %d, link packets %d, retries %d, busy %s, credit stall %s\n",
		len(got), st.Injected, st.Ejected, st.Packets, st.Retries, st.Busy, st.CreditStall)
	fmt.Fprintf(&sb, "ended at %s after %d events\n", rep.SimTime, rep.Events)
	if err := CheckDrained(tn.m); err != nil {
		fmt.Fprintf(&sb, "%v\n", err)
	}
	return sb.String()
}
