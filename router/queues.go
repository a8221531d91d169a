package router

// queues is a set of bounded FIFO queues of packets of equal capacity, in one backing
// array: the input buffers of a port (one per virtual channel) or its output queues
// (one per crossbar input and virtual channel).
type queues struct {
	buf []*Packet // queue q occupies buf[q*cap : (q+1)*cap], as a ring
	q   []qstate
	cap int
}

type qstate struct{ head, n uint16 }

// newQueues returns len(states) queues of capacity packets each, whose states are
// kept in states (a port passes an array of its own, so that a queue's state shares
// the port's cache lines instead of costing a miss of its own).
func newQueues(states []qstate, capacity int) queues {
	return queues{buf: make([]*Packet, len(states)*capacity), q: states, cap: capacity}
}

func (qs *queues) len(q int) int { return int(qs.q[q].n) }

func (qs *queues) full(q int) bool { return int(qs.q[q].n) == qs.cap }

// push appends p to queue q, which must not be full.
func (qs *queues) push(q int, p *Packet) {
	s := &qs.q[q]
	i := int(s.head) + int(s.n)
	if i >= qs.cap {
		i -= qs.cap
	}
	qs.buf[q*qs.cap+i] = p
	s.n++
}

// peek returns the head of queue q, nil if it is empty.
func (qs *queues) peek(q int) *Packet {
	s := qs.q[q]
	if s.n == 0 {
		return nil
	}
	return qs.buf[q*qs.cap+int(s.head)]
}

// pop removes and returns the head of queue q, which must not be empty.
func (qs *queues) pop(q int) *Packet {
	s := &qs.q[q]
	i := q*qs.cap + int(s.head)
	p := qs.buf[i]
	qs.buf[i] = nil
	s.head++
	if int(s.head) == qs.cap {
		s.head = 0
	}
	s.n--
	return p
}

// total is the number of packets in all queues.
func (qs *queues) total() int {
	t := 0
	for _, s := range qs.q {
		t += int(s.n)
	}
	return t
}
