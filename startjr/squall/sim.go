package squall

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/startjr/arctic"
	"github.com/seastar-sim/seastar/startjr/ieee1394"
	"github.com/seastar-sim/seastar/startjr/pci"
	"github.com/seastar-sim/seastar/startjr/wire"
)

// Ports of a SIM.
const (
	PortCard actors.Port = iota
	PortACD
	PortNet0 // IEEE 1394: the low-priority (payload) bus; Arctic: the fabric
	PortNet1 // IEEE 1394: the high-priority (acknowledgement) bus; Arctic: unused
)

// Params configures the module. Start from DefaultParams; Validate before use.
type Params struct {
	FIFOBytes  actors.Bytes    `param:"fifo_bytes" help:"capacity of each of the four FIFOs" source:"TI 723631: 512 words of 36 bits, 2 KiB of data (Hoe & Ehrlich 1996 s.2.2.1)"`
	GSMCBytes  actors.Bytes    `param:"gsmc_bytes" help:"dual-ported SRAM of the Global Shared Memory Cache; half holds data" source:"Hoe & Ehrlich 1996 s.2.2.1: 16 KB, half data, a quarter tags, a quarter scratch"`
	GSMCWays   int             `param:"gsmc_ways" help:"associativity of the GSMC" source:"Hoe & Ehrlich 1996 s.2.2.1: two-way set-associative"`
	LineBytes  actors.Bytes    `param:"line_bytes" help:"bytes of a GSMC line" source:"assumed: 32, a Pentium cache line"`
	ACDLatency actors.Duration `param:"acd_latency" help:"ACD time to check the two tag words and read the GSMC data for a captured load" source:"calibrated: the ~2 us shared-memory read (Hoe & Ehrlich 1996 s.1; protocols/funi/calibration.go)"`
	Link       actors.Duration `param:"link_latency" help:"latency between the module and the i960 local bus or the PCI bridge (the links between partitions)" source:"assumed: 30 ns"`
}

// DefaultParams returns the defaults.
func DefaultParams() Params {
	return Params{FIFOBytes: 2 * actors.KiB, GSMCBytes: 16 * actors.KiB, GSMCWays: 2, LineBytes: 32, ACDLatency: 1330 * actors.Nanosecond,
		Link: 30 * actors.Nanosecond}
}

// Validate reports the first invalid field, naming its key.
func (p Params) Validate() error {
	switch {
	case p.FIFOBytes < 128:
		return fmt.Errorf("fifo_bytes must be >= 128 (got %s): a FIFO must hold a whole packet", p.FIFOBytes)
	case p.GSMCWays < 1:
		return fmt.Errorf("gsmc_ways must be >= 1 (got %d)", p.GSMCWays)
	case p.LineBytes < 4 || p.GSMCBytes/2 < p.LineBytes*actors.Bytes(p.GSMCWays):
		return fmt.Errorf("line_bytes must be >= 4 and half of gsmc_bytes must hold a set of gsmc_ways lines")
	case p.ACDLatency < 0:
		return fmt.Errorf("acd_latency must be >= 0")
	case p.Link <= 0:
		return fmt.Errorf("link_latency must be > 0 (got %s)", p.Link)
	}
	return nil
}

// Sets is the number of GSMC sets.
func (p Params) Sets() int { return int(p.GSMCBytes / 2 / (p.LineBytes * actors.Bytes(p.GSMCWays))) }

// Transmit is a packet the firmware wrote into the transmit FIFO of its priority.
// NewTransmit makes one the SIM recycles once it has taken the packet.
type Transmit struct {
	Packet *wire.Packet
	actors.PoolMark
}

func (t *Transmit) String() string { return fmt.Sprintf("squall.Transmit(%s)", t.Packet) }

// TxFree tells the firmware a packet left its transmit FIFO. The SIM sends one it
// recycles, which the card releases once the firmware's handler is over (Release).
type TxFree struct {
	Prio  int
	Bytes int64
	actors.PoolMark
}

func (t *TxFree) String() string { return fmt.Sprintf("squall.TxFree(prio %d %dB)", t.Prio, t.Bytes) }

// Release recycles t if the SIM sent it; the caller must be its last holder.
func (t *TxFree) Release() { txFrees.Release(t) }

// Arrived tells the firmware a packet is in a receive FIFO. The SIM sends one it
// recycles, which the card releases once the firmware's handler is over (Release).
type Arrived struct {
	Packet *wire.Packet
	actors.PoolMark
}

// The module's messages recycled by their last holder: transmits and pops by the SIM
// once handled, its notices by the card after the firmware's handler.
var (
	arrivals  actors.Pool[Arrived, *Arrived]
	txFrees   actors.Pool[TxFree, *TxFree]
	transmits actors.Pool[Transmit, *Transmit]
	pops      actors.Pool[Pop, *Pop]
)

// NewTransmit returns pk's transmit, which the SIM recycles once it has taken pk.
func NewTransmit(pk *wire.Packet) *Transmit { return transmits.New(Transmit{Packet: pk}) }

// NewPop returns a pop of bytes from receive FIFO prio, which the SIM recycles once it
// has freed the room.
func NewPop(prio int, bytes int64) *Pop { return pops.New(Pop{Prio: prio, Bytes: bytes}) }

// Release recycles a if the SIM sent it; the caller must be its last holder.
func (a *Arrived) Release() { arrivals.Release(a) }

func (a *Arrived) String() string { return fmt.Sprintf("squall.Arrived(%s)", a.Packet) }

// Pop is the firmware reading a packet out of a receive FIFO.
type Pop struct {
	Prio  int
	Bytes int64
	actors.PoolMark
}

func (p *Pop) String() string { return fmt.Sprintf("squall.Pop(prio %d %dB)", p.Prio, p.Bytes) }

// Overflow tells the firmware that the PLM discarded an arriving packet: its receive
// FIFO was full.
type Overflow struct{ Prio int }

func (o Overflow) String() string { return fmt.Sprintf("squall.Overflow(prio %d)", o.Prio) }

// ACDMiss interrupts the firmware: a captured load at Addr missed the GSMC.
type ACDMiss struct{ Addr uint64 }

func (m ACDMiss) String() string { return fmt.Sprintf("squall.ACDMiss(%#x)", m.Addr) }

// Fill installs the GSMC line holding Addr; loads retried on it complete.
type Fill struct{ Addr uint64 }

func (f *Fill) String() string { return fmt.Sprintf("squall.Fill(%#x)", f.Addr) }

// SIM is the Squall Interface Module with its PLM.
type SIM struct {
	p      Params
	node   int
	arctic *arctic.Params // nil on IEEE 1394

	txUsed   [2]int64
	rxUsed   [2]int64
	backlog  [2]actors.FIFO[*wire.Packet] // Arctic: packets waiting in the fabric for receive room
	link     actors.Time                  // Arctic: the link is free from then on
	txq      [2]actors.FIFO[*wire.Packet] // Arctic: packets waiting for the link, per priority
	linkOn   bool
	inflight [2]actors.FIFO[int64] // IEEE 1394: sizes of the packets handed to each bus, in order

	tags    [][]uint64 // per set, ways in LRU order (most recent first); line number + 1, 0 empty
	retried map[uint64][]uint64

	Stats Stats
}

// Stats counts the module's work.
type Stats struct {
	Sent, Received, Discarded, Held int64
	PeakRx                          [2]int64
	ACDHits, ACDMisses              int64
}

// linkFree is the SIM's timer on Arctic: its link can take the next packet.
type linkFree struct{}

func (linkFree) String() string { return "squall.linkFree" }

// New returns the module of node; ap is the Arctic fabric, or nil on IEEE 1394. p must
// be valid.
func New(p Params, node int, ap *arctic.Params) *SIM {
	s := &SIM{p: p, node: node, arctic: ap, tags: make([][]uint64, p.Sets()), retried: map[uint64][]uint64{}}
	for i := range s.tags {
		s.tags[i] = make([]uint64, p.GSMCWays)
	}
	return s
}

// Ports implements actors.Ported.
func (s *SIM) Ports() []string { return []string{"card", "acd", "net0", "net1"} }

// Receive implements actors.Actor.
func (s *SIM) Receive(ctx actors.Context, m actors.Msg) {
	switch m := m.(type) {
	case *Transmit:
		pk := m.Packet
		transmits.Release(m)
		s.transmit(ctx, pk)
	case ieee1394.Sent:
		s.sent(ctx, m.Prio, 0)
	case linkFree:
		s.linkOn = false
		s.drainLink(ctx)
	case *wire.Packet:
		s.arrive(ctx, m)
	case *Pop:
		prio := m.Prio
		s.rxUsed[prio] -= m.Bytes
		pops.Release(m)
		if s.rxUsed[prio] < 0 {
			ctx.Fatalf("squall: node %d popped more than its receive FIFO %d holds", s.node, prio)
		}
		for s.backlog[prio].Len() > 0 && s.fits(prio, (*s.backlog[prio].Front()).Bytes) {
			s.accept(ctx, s.backlog[prio].Pop())
		}
	case *pci.TargetRead:
		s.capture(ctx, m)
		m.Release()
	case *Fill:
		s.fill(ctx, m.Addr)
	default:
		ctx.Fatalf("squall: unexpected %T (%s)", m, m)
	}
}

func (s *SIM) transmit(ctx actors.Context, pk *wire.Packet) {
	if s.txUsed[pk.Prio]+pk.Bytes > int64(s.p.FIFOBytes) {
		ctx.Fatalf("squall: node %d wrote %d bytes into a full transmit FIFO %d (%d of %s used)", s.node, pk.Bytes, pk.Prio, s.txUsed[pk.Prio], s.p.FIFOBytes)
		return
	}
	s.txUsed[pk.Prio] += pk.Bytes
	s.Stats.Sent++
	if s.arctic == nil {
		port := PortNet0
		if pk.Prio == wire.High {
			port = PortNet1
		}
		s.inflight[pk.Prio].Push(pk.Bytes)
		ctx.Send(port, pk, 0)
		return
	}
	s.txq[pk.Prio].Push(pk)
	s.drainLink(ctx)
}

// drainLink starts the next packet on the Arctic link, high priority first.
func (s *SIM) drainLink(ctx actors.Context) {
	if s.linkOn {
		return
	}
	for _, prio := range []int{wire.High, wire.Low} {
		if s.txq[prio].Len() == 0 {
			continue
		}
		pk := s.txq[prio].Pop()
		pk.Span = s.arctic.Span(pk.Bytes)
		ctx.Send(PortNet0, pk, 0)
		s.linkOn = true
		ctx.SendSelf(linkFree{}, pk.Span)
		s.sent(ctx, prio, pk.Bytes)
		return
	}
}

// sent frees the transmit FIFO room of a packet that left. On IEEE 1394 the bus says
// which priority, not the size: the FIFO empties in order, so it is the oldest.
func (s *SIM) sent(ctx actors.Context, prio int, bytes int64) {
	if s.arctic == nil {
		bytes = s.oldest(prio)
	}
	s.txUsed[prio] -= bytes
	ctx.Send(PortCard, txFrees.New(TxFree{Prio: prio, Bytes: bytes}), 0)
}

// oldest returns the size of the oldest packet in flight on IEEE 1394: the module keeps
// the sizes in order.
func (s *SIM) oldest(prio int) int64 {
	return s.inflight[prio].Pop()
}

func (s *SIM) fits(prio int, n int64) bool { return s.rxUsed[prio]+n <= int64(s.p.FIFOBytes) }

func (s *SIM) arrive(ctx actors.Context, pk *wire.Packet) {
	if s.fits(pk.Prio, pk.Bytes) && s.backlog[pk.Prio].Len() == 0 {
		s.accept(ctx, pk)
		return
	}
	if s.arctic != nil {
		s.Stats.Held++
		s.backlog[pk.Prio].Push(pk)
		return
	}
	s.Stats.Discarded++
	ctx.Send(PortCard, Overflow{Prio: pk.Prio}, 0)
	if l, ok := pk.Body.(wire.Lost); ok {
		l.Lost() // the packet is gone: its content may be recycled
	}
}

func (s *SIM) accept(ctx actors.Context, pk *wire.Packet) {
	s.rxUsed[pk.Prio] += pk.Bytes
	s.Stats.PeakRx[pk.Prio] = max(s.Stats.PeakRx[pk.Prio], s.rxUsed[pk.Prio])
	s.Stats.Received++
	ctx.Send(PortCard, arrivals.New(Arrived{Packet: pk}), 0)
}

// line is the GSMC line number of addr.
func (s *SIM) line(addr uint64) uint64 { return addr / uint64(s.p.LineBytes) }

func (s *SIM) capture(ctx actors.Context, r *pci.TargetRead) {
	ln := s.line(r.Addr)
	set := s.tags[ln%uint64(len(s.tags))]
	for i, t := range set {
		if t == ln+1 {
			copy(set[1:i+1], set[:i]) // most recently used first
			set[0] = t
			s.Stats.ACDHits++
			ctx.Send(PortACD, pci.NewTargetData(r.Tag), s.p.ACDLatency)
			return
		}
	}
	s.Stats.ACDMisses++
	first := len(s.retried[ln]) == 0
	s.retried[ln] = append(s.retried[ln], r.Tag)
	if first {
		ctx.Send(PortCard, ACDMiss{Addr: r.Addr}, s.p.ACDLatency)
	}
}

func (s *SIM) fill(ctx actors.Context, addr uint64) {
	ln := s.line(addr)
	set := s.tags[ln%uint64(len(s.tags))]
	copy(set[1:], set[:len(set)-1]) // the least recently used way is replaced
	set[0] = ln + 1
	for _, tag := range s.retried[ln] {
		ctx.Send(PortACD, pci.NewTargetData(tag), s.p.ACDLatency)
	}
	delete(s.retried, ln)
}
