package router

// A port's queues are bounded FIFO rings of packets, all in one backing array of the
// port (buf): first the input buffers, one ring of InputBufferPackets per virtual
// channel, then the output queues, one ring of OutputQueuePackets per virtual channel
// and crossbar input, those of one virtual channel side by side (xIndex), so that
// arbitration among a channel's queues reads one or two lines. Each ring's state
// (qstate) lives in the port's struct, beside what the same events read.

// qstate is a queue's state: its head's index in its ring and its length.
type qstate struct{ head, n uint16 }

// push appends p to the queue whose ring is r, which must not be full.
func (s *qstate) push(r []*Packet, p *Packet) {
	i := int(s.head) + int(s.n)
	if i >= len(r) {
		i -= len(r)
	}
	r[i] = p
	s.n++
}

// peek returns the head of the queue whose ring is r, nil if it is empty.
func (s *qstate) peek(r []*Packet) *Packet {
	if s.n == 0 {
		return nil
	}
	return r[s.head]
}

// pop removes and returns the head of the queue whose ring is r, which must not be
// empty.
func (s *qstate) pop(r []*Packet) *Packet {
	p := r[s.head]
	r[s.head] = nil
	s.head++
	if int(s.head) == len(r) {
		s.head = 0
	}
	s.n--
	return p
}

// xIndex is the index of crossbar direction j of virtual channel v in a port's
// (VC, direction) tables (Port.x): a channel's directions side by side, so that the
// tables of the channels a network has come first.
func xIndex(v int, j Dir) int { return v*int(numDirs) + int(j) }

// inRing is the ring of input virtual channel v.
func (p *Port) inRing(v int) []*Packet {
	c := p.cfg.inCap
	return p.buf[v*c : (v+1)*c : (v+1)*c]
}

// outRing is the ring of the output queue at index k (xIndex) of the port's tables.
func (p *Port) outRing(k int) []*Packet {
	c := p.cfg.outCap
	i := p.cfg.outBase + k*c
	return p.buf[i : i+c : i+c]
}

// queued is the number of packets in the port's input buffers and output queues.
func (p *Port) queued() int {
	t := 0
	for v := range p.cfg.vcs {
		t += int(p.vc[v].in.n)
		for j := range numDirs {
			t += int(p.x[xIndex(v, j)].out.n)
		}
	}
	return t
}
