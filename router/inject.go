package router

import "github.com/seastar-sim/seastar/actors"

// Injector is the NIC side of the injection link into a router's NIC port: the
// credits the NIC holds for the router's NIC input buffer (input_buffer_packets per
// virtual channel to start with) and the link's serialization (one packet per
// PacketTime at link_bandwidth). The traffic generator and the TX DMA engine embed
// one and call Return for every Credit the router sends back on the inject link.
// The zero value has no credits; use NewInjector.
type Injector struct {
	credits    [MaxVCs]int16
	capacity   int16
	vcs        uint8
	packetTime actors.Duration
	freeAt     actors.Time
}

// NewInjector returns an Injector holding every credit of a router built with p.
func NewInjector(p Params) Injector {
	j := Injector{capacity: int16(p.InputBufferPackets), vcs: uint8(p.VCs), packetTime: p.PacketTime()}
	for v := range p.VCs {
		j.credits[v] = j.capacity
	}
	return j
}

// VC is the virtual channel a packet of the given class enters the network on: the
// class's first (pre-dateline) channel, 2*class.
func (j *Injector) VC(class uint8) uint8 { return 2 * class }

// Credits is the number of packets of virtual channel vc the router can take now.
func (j *Injector) Credits(vc uint8) int { return int(j.credits[vc]) }

// FreeAt is when the injection link finishes its current packet.
func (j *Injector) FreeAt() actors.Time { return j.freeAt }

// Ready reports whether a packet of the class can be injected at now: the link is
// idle and the router has room on the class's injection VC.
func (j *Injector) Ready(now actors.Time, class uint8) bool {
	return now >= j.freeAt && j.credits[j.VC(class)] > 0
}

// Inject sends pk to the router on port (the NIC's port linked to Inject): it sets
// pk.VC and pk.Injected, takes a credit, and occupies the link for one packet time,
// the packet's extra delay. The caller checks Ready first; Inject fails the run
// otherwise.
func (j *Injector) Inject(ctx actors.Context, port actors.Port, pk *Packet) {
	now := ctx.Now()
	if int(pk.Class) >= int(j.vcs)/2 {
		ctx.Fatalf("router: cannot inject %v: class %d, but the network has %d classes", pk, pk.Class, j.vcs/2)
	}
	if !j.Ready(now, pk.Class) {
		ctx.Fatalf("router: injecting %v without a credit or while the link is busy until %s", pk, j.freeAt)
	}
	pk.VC = j.VC(pk.Class)
	pk.Injected = now
	j.credits[pk.VC]--
	j.freeAt = now.Add(j.packetTime)
	ctx.Send(port, pk, j.packetTime)
}

// Return takes back the credit c the router sent. It fails the run if the router
// returned more credits than it has buffer slots.
func (j *Injector) Return(ctx actors.Context, c Credit) {
	if int(c) >= int(j.vcs) || j.credits[c] >= j.capacity {
		ctx.Fatalf("router: unexpected %v on the injection link", c)
	}
	j.credits[c]++
}
