package router

// A port's queues are bounded FIFO rings: the input buffers, one ring of
// InputBufferPackets slots per virtual channel (Port.in), and the output queues, one
// ring of OutputQueuePackets packets per virtual channel and crossbar input (Port.out),
// those of one virtual channel side by side (xIndex), so that arbitration among a
// channel's queues reads one or two lines. Each ring's state (qstate) lives in the
// port's struct, beside what the same events read. A queue that empties starts again
// at its ring's first slot: the queues mostly hold one packet at a time, so a port's
// events keep to the first line of each ring, which the port names for the engine to
// prefetch with its struct (Port.Start). halo3d 16x16x16 on one worker ran 13.6-14.7 s
// against 16.7-17.1 s in alternation (BENCHMARKS.md, twenty-fourth session).

// qstate is a queue's state: its head's index in its ring and its length.
type qstate struct{ head, n uint16 }

// add counts in a slot after the queue's last, in a ring of c slots (the queue must
// not be full), and returns its index.
func (s *qstate) add(c int) int {
	i := int(s.head) + int(s.n)
	if i >= c {
		i -= c
	}
	s.n++
	return i
}

// take counts out the queue's head, in a ring of c slots (the queue must not be
// empty), and returns its index. A queue it empties starts again at the ring's first
// slot.
func (s *qstate) take(c int) int {
	i := int(s.head)
	s.n--
	if s.head++; s.n == 0 || int(s.head) == c {
		s.head = 0
	}
	return i
}

// inSlot is an input buffer's entry: a packet and its route, computed when it
// arrived, when the packet's line is in the cache (once it has waited in a blocked
// buffer, often not). The head's route is also kept in the port's struct (vcState),
// so that a crossbar credit that does not unblock a buffer reads neither its ring nor
// its packet.
type inSlot struct {
	pk  *Packet
	hop Hop
}

// xIndex is the index of crossbar direction j of virtual channel v in a port's
// (VC, direction) tables (Port.x): a channel's directions side by side, so that the
// tables of the channels a network has come first.
func xIndex(v int, j Dir) int { return v*int(numDirs) + int(j) }

// inRing is the ring of input virtual channel v.
func (p *Port) inRing(v int) []inSlot {
	c := p.cfg.p.InputBufferPackets
	return p.in[v*c : (v+1)*c : (v+1)*c]
}

// outRing is the ring of the output queue at index k (xIndex) of the port's tables.
func (p *Port) outRing(k int) []*Packet {
	c := p.cfg.p.OutputQueuePackets
	return p.out[k*c : (k+1)*c : (k+1)*c]
}

// held is the number of packets the port holds: in its input buffers and output
// queues, and one awaiting a retry.
func (p *Port) held() int {
	t := 0
	if p.retry != nil {
		t++
	}
	for v := range p.cfg.vcs {
		t += int(p.vc[v].in.n)
		for j := range numDirs {
			t += int(p.x[xIndex(v, j)].out.n)
		}
	}
	return t
}
