package router

import (
	"fmt"
	"strings"

	"github.com/seastar-sim/seastar/actors"
)

// PortStats are the statistics of one router port over the statistics window
// (Network.SetStatsWindow; the whole run by default). "Link" is the port's outgoing
// link: the cable for a torus port, the eject link for the NIC port.
type PortStats struct {
	Name      string // actor name, "node[x,y,z].router.DIR"
	Node      NodeID
	Dir       Dir
	Connected bool // the port has an external link (false on a mesh edge)
	PortCounters
	Buffered int // packets inside the port when the statistics were collected
}

// PortCounters are the counts of PortStats, which a port keeps as it runs.
type PortCounters struct {
	Received    uint64          // packets that arrived on the incoming link (or inject)
	Packets     uint64          // packets transmitted successfully on the outgoing link
	Bytes       uint64          // payload bytes of those packets
	Busy        actors.Duration // time the outgoing link spent transmitting, failed attempts included
	Retries     uint64          // transmissions that failed their CRC and were repeated
	CreditStall actors.Duration // time the link was idle with packets waiting, all for lack of downstream credits
}

// Stats summarizes a network after a run. Totals and utilizations are over the
// router-to-router links (torus ports with a cable); the NIC ports are counted apart.
type Stats struct {
	Ports    []PortStats     // every port, in actor name order
	Measured actors.Duration // the statistics window, or up to the end of the last transmission without one

	Links       int             // router-to-router link directions
	Packets     uint64          // packets transmitted on them
	Bytes       uint64          // payload bytes transmitted on them
	Busy        actors.Duration // total busy time
	Retries     uint64          // CRC retries
	CreditStall actors.Duration // total time blocked on credits
	UtilMean    float64         // mean link utilization, Busy / (Links * Measured)
	UtilMax     float64         // utilization of the busiest link

	Injected uint64 // packets the NICs injected
	Ejected  uint64 // packets delivered to the NICs
	Buffered int    // packets still inside routers
}

// CollectStats gathers the statistics of every router port of m, walking the actors
// in id (name) order.
func CollectStats(m *actors.Model) Stats {
	var s Stats
	var cfg *config
	var last actors.Time
	for id := range actors.ActorID(m.NumActors()) {
		p, ok := m.Actor(id).(*Port)
		if !ok {
			continue
		}
		cfg, last = p.cfg, max(last, p.busyUntil)
		ps := p.stats()
		ps.Name = m.Name(id)
		ps.Buffered = p.inside()
		if p.stallFrom >= 0 && cfg.to != actors.MaxTime {
			ps.CreditStall += cfg.clip(p.stallFrom, cfg.to)
		}
		s.add(ps)
	}
	if cfg == nil {
		return s
	}
	end := cfg.to
	if end == actors.MaxTime {
		end = max(last, cfg.from)
	}
	s.Measured = end.Sub(cfg.from)
	s.utilization()
	return s
}

// stats returns the port's statistics but its name and the packets it holds.
func (p *Port) stats() PortStats {
	return PortStats{Node: p.node, Dir: p.dir, Connected: p.connected, PortCounters: p.counters}
}

func (s *Stats) add(ps PortStats) {
	s.Ports = append(s.Ports, ps)
	s.Buffered += ps.Buffered
	if ps.Dir == NIC {
		s.Injected += ps.Received
		s.Ejected += ps.Packets
		return
	}
	if !ps.Connected {
		return
	}
	s.Links++
	s.Packets += ps.Packets
	s.Bytes += ps.Bytes
	s.Busy += ps.Busy
	s.Retries += ps.Retries
	s.CreditStall += ps.CreditStall
}

func (s *Stats) utilization() {
	if s.Measured <= 0 || s.Links == 0 {
		return
	}
	s.UtilMean = float64(s.Busy) / float64(s.Measured) / float64(s.Links)
	for _, ps := range s.Ports {
		if ps.Dir != NIC && ps.Connected {
			s.UtilMax = max(s.UtilMax, float64(ps.Busy)/float64(s.Measured))
		}
	}
}

// CheckDrained returns nil if no router of m holds a packet, and otherwise an error
// listing where packets are stuck. After a run that ended because events ran out,
// stuck packets mean a deadlock: every one of them waits for a credit that will never
// come.
func CheckDrained(m *actors.Model) error {
	var stuck []string
	total := 0
	for id := range actors.ActorID(m.NumActors()) {
		p, ok := m.Actor(id).(*Port)
		if !ok {
			continue
		}
		if d := p.describeBuffered(); d != "" {
			total += p.held()
			stuck = append(stuck, m.Name(id)+": "+d)
		}
	}
	if total == 0 {
		return nil
	}
	const show = 8
	more, ports := "", len(stuck)
	if len(stuck) > show {
		more = fmt.Sprintf("; ... and %d more ports", len(stuck)-show)
		stuck = stuck[:show]
	}
	return fmt.Errorf("router: deadlock: events ran out with %d packets still buffered in %d ports: %s%s",
		total, ports, strings.Join(stuck, "; "), more)
}

// describeBuffered lists the packets a port holds by queue, "" if none.
func (p *Port) describeBuffered() string {
	var parts []string
	for v := range p.cfg.vcs {
		if n := p.vc[v].in.n; n > 0 {
			parts = append(parts, fmt.Sprintf("in vc%d %d", v, n))
		}
	}
	for v := range p.cfg.vcs {
		if n := p.vc[v].waiting; n > 0 {
			parts = append(parts, fmt.Sprintf("out vc%d %d (credits %d)", v, n, p.vc[v].credits))
		}
	}
	if p.retry != nil {
		parts = append(parts, "retry 1")
	}
	return strings.Join(parts, ", ")
}
