package motifs

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/protocols/mpi"
)

// env is what the ranks of a run share, read-only once the run starts, and the logs
// each rank writes into its own slot.
type env struct {
	cfg   Config
	nodes []int  // rank -> node
	grid  [3]int // halo3d
	// random, hotspot: destinations of the messages rank r sends in iteration i are
	// dests[(i*R+r)*M : +M]; recvs[i*R+r] is how many it receives.
	dests []int32
	recvs []int32
	logs  []rankLog
	work  *actors.Work // iterations of every rank, for progress reports (Options.Work)
}

// rankLog is what one rank records.
type rankLog struct {
	starts, ends []actors.Time // timed iterations
	sends, recvd []msgRec      // point-to-point messages, in order
	calls        []actors.Duration
	bytes, msgs  int64
	// Verify: payloads checked intact, not intact, received twice; the identities seen.
	verified, corrupt, dupes int64
	seen                     map[uint64]bool
	payloads                 int64  // Verify, collectives: payloads sent (point-to-point: len(sends))
	want                     []byte // Verify: the expected payload, rebuilt for each check
}

// msgRec is a message as one side saw it: the other rank, when it was sent (at the
// sender) or completed (at the receiver), and whether it was sent in a timed
// iteration.
type msgRec struct {
	peer  int32
	timed bool
	at    actors.Time
}

func newEnv(cfg Config, nodes int) (*env, error) {
	r := cfg.ranks()
	e := &env{cfg: cfg, nodes: place(cfg.Placement, nodes, r, cfg.Seed), logs: make([]rankLog, r)}
	if cfg.Motif == Halo3D {
		e.grid = cfg.Grid
		if e.grid == [3]int{} {
			e.grid = factor3(r)
			if r == nodes {
				topo, _ := cfg.Machine.Topology()
				e.grid = [3]int{topo.X, topo.Y, topo.Z}
			}
		}
	}
	if cfg.Motif == Random || cfg.Motif == Hotspot {
		if r < 2 && cfg.Messages > 0 {
			return nil, fmt.Errorf("%s traffic needs at least 2 ranks", cfg.Motif)
		}
		e.draw(r)
	}
	return e, nil
}

// place returns the nodes of ranks 0..r-1.
func place(p Placement, nodes, r int, seed uint64) []int {
	perm := make([]int, nodes)
	for i := range perm {
		perm[i] = i
	}
	if p == RandomPlaced {
		rng := actors.NewRand(seed, "motifs.placement")
		for i := nodes - 1; i > 0; i-- {
			j := rng.IntN(i + 1)
			perm[i], perm[j] = perm[j], perm[i]
		}
	}
	return perm[:r]
}

// factor3 splits n into three factors as near equal as possible, largest first (as
// MPI_Dims_create).
func factor3(n int) [3]int {
	best, score := [3]int{n, 1, 1}, n+2
	for a := 1; a*a*a <= n; a++ {
		if n%a != 0 {
			continue
		}
		for b := a; a*b*b <= n; b++ {
			if (n/a)%b != 0 {
				continue
			}
			if c := n / a / b; a+b+c < score {
				best, score = [3]int{c, b, a}, a+b+c
			}
		}
	}
	return best
}

// draw picks the destinations of random and hotspot traffic for every iteration.
func (e *env) draw(r int) {
	cfg := e.cfg
	iters, m := cfg.Warmup+cfg.Iters, cfg.Messages
	e.dests = make([]int32, iters*r*m)
	e.recvs = make([]int32, iters*r)
	rng := actors.NewRand(cfg.Seed, "motifs.traffic")
	for i := range iters {
		for src := range r {
			for k := range m {
				var d int
				if cfg.Motif == Hotspot && src != cfg.HotRank && cfg.HotFraction.Sample(rng.Uint64()) {
					d = cfg.HotRank
				} else if d = rng.IntN(r - 1); d >= src {
					d++ // uniform over the other ranks
				}
				e.dests[(i*r+src)*m+k] = int32(d)
				e.recvs[i*r+d]++
			}
		}
	}
}

// program is every rank's program: a barrier, then the iterations.
func (e *env) program(c *mpi.Comm) error {
	cfg := e.cfg
	lg := &e.logs[c.Rank()]
	lg.starts = make([]actors.Time, 0, cfg.Iters)
	lg.ends = make([]actors.Time, 0, cfg.Iters)
	body, err := e.body(c, lg)
	if err != nil {
		return err
	}
	if err := c.Barrier(); err != nil {
		return err
	}
	if body == nil { // a rank without a part in the motif records no iterations
		return nil
	}
	var bytes0, msgs0 int64
	e.work.Expect(int64(cfg.Warmup+cfg.Iters) * iterWork)
	pg := iterProgress{work: e.work}
	pg.begin(e.requests(c, 0))
	if e.work != nil {
		c.OnComplete(pg.complete)
		defer c.OnComplete(nil)
	}
	for it := range cfg.Warmup + cfg.Iters {
		timed := it >= cfg.Warmup
		started := c.Stats.Sends + c.Stats.Recvs
		if it == cfg.Warmup {
			bytes0, msgs0 = c.Stats.BytesSent, c.Stats.Sends
		}
		start := c.Wtime()
		if err := body(it, timed); err != nil {
			return fmt.Errorf("%s iteration %d: %w", cfg.Motif, it, err)
		}
		if timed {
			lg.starts = append(lg.starts, start)
			lg.ends = append(lg.ends, c.Wtime())
		}
		if checkIterRequests != nil {
			checkIterRequests(cfg.Motif, c.Rank(), it, pg.want, c.Stats.Sends+c.Stats.Recvs-started)
		}
		pg.end(e.requests(c, it+1))
	}
	lg.bytes, lg.msgs = c.Stats.BytesSent-bytes0, c.Stats.Sends-msgs0
	return nil
}

// iterWork is the progress units (actors.Work) of one rank's iteration.
const iterWork = 1000

// iterProgress counts one rank's iterations as progress (actors.Work), each iterWork
// units: within an iteration, the share of the requests it starts (env.requests) that
// have completed, never the whole before the iteration ends. A run of one or two long
// iterations, Red Storm's, then shows its progress while it runs.
type iterProgress struct {
	work    *actors.Work
	want    int64 // the requests the iteration starts
	done    int64 // of those, completed
	counted int64 // units of this iteration reported
}

// begin starts an iteration that starts want requests.
func (p *iterProgress) begin(want int64) {
	p.want, p.done, p.counted = want, 0, 0
}

// complete counts a completed request (mpi.Comm.OnComplete).
func (p *iterProgress) complete() {
	p.done++
	if p.want <= 0 {
		return
	}
	if u := min(iterWork-1, iterWork*p.done/p.want); u > p.counted {
		p.work.Done(u - p.counted)
		p.counted = u
	}
}

// end ends an iteration and begins the next (begin).
func (p *iterProgress) end(want int64) {
	p.work.Done(iterWork - p.counted)
	p.begin(want)
}

// checkIterRequests, if set (tests), is given each iteration's requests as
// env.requests counts them (want) and as the rank started them (got).
var checkIterRequests func(m Name, rank, it int, want, got int64)

// requests is how many requests (mpi.Stats Sends and Recvs) rank c starts in iteration
// it of the motif, for progress reports.
func (e *env) requests(c *mpi.Comm, it int) int64 {
	switch e.cfg.Motif {
	case PingPong:
		return 2 // a send and a receive
	case Halo3D:
		n := int64(0)
		for _, g := range e.grid {
			if g >= 2 {
				n += 4 // two directions, a send and a receive each
			}
		}
		return n
	case Alltoall:
		return c.AlltoallRequests()
	case Allreduce:
		return c.AllreduceRequests()
	}
	r, p := c.Rank(), c.Size()
	if it >= e.cfg.Warmup+e.cfg.Iters {
		return 0
	}
	return int64(e.recvs[it*p+r]) + int64(e.cfg.Messages)
}

// body returns the per-iteration code of the motif, with its buffers allocated; nil
// for a rank that takes no part.
func (e *env) body(c *mpi.Comm, lg *rankLog) (func(it int, timed bool) error, error) {
	cfg := e.cfg
	size, p := int64(cfg.Size), c.Size()
	switch cfg.Motif {
	case PingPong:
		return e.pingpong(c, lg, size), nil
	case Halo3D:
		return e.halo(c, lg, size), nil
	case Alltoall:
		send, recv := c.Alloc(size*int64(p)), c.Alloc(size*int64(p))
		return e.collective(c, lg, func(it int) error {
			r := c.Rank()
			if e.cfg.Verify { // block d carries its identity: from r, for d
				for d := range p {
					fillPayload(send.Slice(int64(d)*size, size).Data, payloadID(r, it, d))
				}
				lg.payloads += int64(p - 1)
			}
			if err := c.Alltoall(send, recv, size); err != nil {
				return err
			}
			if e.cfg.Verify {
				for s := range p {
					if b := recv.Slice(int64(s)*size, size).Data; s != r {
						lg.checkID(b, payloadID(s, it, r))
					}
				}
			}
			return nil
		}), nil
	case Allreduce:
		send, recv := c.Alloc(size), c.Alloc(size)
		return e.collective(c, lg, func(it int) error {
			if e.cfg.Verify {
				fillOperand(send.Data, c.Rank(), it)
				lg.payloads++ // this rank's result, to be checked
			}
			if err := c.Allreduce(send, recv, mpi.OpSum); err != nil {
				return err
			}
			if e.cfg.Verify {
				lg.checkSum(recv.Data, p, it)
			}
			return nil
		}), nil
	}
	return e.traffic(c, lg, size), nil
}

// collective times one call per iteration (call fills and checks the buffers of
// Verify's payloads around it; their host time is not simulated).
func (e *env) collective(c *mpi.Comm, lg *rankLog, call func(it int) error) func(int, bool) error {
	return func(it int, timed bool) error {
		c.Compute(e.cfg.Compute)
		t := c.Wtime()
		err := call(it)
		if timed {
			lg.calls = append(lg.calls, c.Wtime().Sub(t))
		}
		return err
	}
}

// pingpong: ranks r < P/2 send first; their partners r + P/2 answer.
func (e *env) pingpong(c *mpi.Comm, lg *rankLog, size int64) func(int, bool) error {
	half := c.Size() / 2
	rank := c.Rank()
	if rank >= 2*half { // odd job size: the last rank sits out
		return nil
	}
	partner, first := rank+half, true
	if rank >= half {
		partner, first = rank-half, false
	}
	sbuf, rbuf := c.Alloc(size), c.Alloc(size)
	it := 0 // the iteration, for Verify's payloads
	send := func(timed bool) error {
		if e.cfg.Verify {
			fillPayload(sbuf.Data, payloadID(rank, it, 0))
		}
		t := c.Wtime()
		if err := c.Send(sbuf, partner, 1); err != nil {
			return err
		}
		lg.sends = append(lg.sends, msgRec{peer: int32(partner), timed: timed, at: t})
		return nil
	}
	recv := func() error {
		st, err := c.Recv(rbuf, partner, 1)
		if err == nil {
			lg.recvd = append(lg.recvd, msgRec{peer: int32(st.Source), at: st.Done})
			if e.cfg.Verify {
				lg.check(rbuf.Data, st.Source)
			}
		}
		return err
	}
	return func(i int, timed bool) error {
		it = i
		c.Compute(e.cfg.Compute)
		if first {
			if err := send(timed); err != nil {
				return err
			}
			return recv()
		}
		if err := recv(); err != nil {
			return err
		}
		return send(timed)
	}
}

// halo: 6 Irecv, 6 Isend, Waitall, after Compute. The message sent in direction k
// (k = 2*dim for +, 2*dim+1 for -) has tag k; it is received from the neighbour on
// the opposite side.
func (e *env) halo(c *mpi.Comm, lg *rankLog, size int64) func(int, bool) error {
	g := e.grid
	r := c.Rank()
	pos := [3]int{r % g[0], r / g[0] % g[1], r / (g[0] * g[1])}
	nbr := make([]int, 0, 6) // neighbour in direction k, for the directions that exist
	dirs := make([]int, 0, 6)
	for d := range 3 {
		if g[d] < 2 {
			continue
		}
		for s, step := range []int{1, -1} {
			q := pos
			q[d] = (q[d] + step + g[d]) % g[d]
			nbr = append(nbr, q[0]+g[0]*(q[1]+g[1]*q[2]))
			dirs = append(dirs, 2*d+s)
		}
	}
	n := len(nbr)
	sbufs, rbufs := make([]mpi.Buf, n), make([]mpi.Buf, n)
	for k := range n {
		sbufs[k], rbufs[k] = c.Alloc(size), c.Alloc(size)
	}
	reqs := make([]*mpi.Request, 2*n)
	sts := make([]mpi.Status, 2*n)
	sent := make([]actors.Time, n)
	its := e.cfg.Warmup + e.cfg.Iters // every message's record, allocated once
	lg.sends, lg.recvd = slices.Grow(lg.sends, its*n), slices.Grow(lg.recvd, its*n)
	return func(it int, timed bool) error {
		c.Compute(e.cfg.Compute)
		if e.cfg.Verify {
			for k := range n {
				fillPayload(sbufs[k].Data, payloadID(r, it, k))
			}
		}
		for k := range n {
			// from the neighbour on the other side, which sent in direction dirs[k]
			var err error
			if reqs[k], err = c.Irecv(rbufs[k], nbr[k^1], dirs[k]); err != nil {
				return err
			}
		}
		for k := range n {
			sent[k] = c.Wtime()
			var err error
			if reqs[n+k], err = c.Isend(sbufs[k], nbr[k], dirs[k]); err != nil {
				return err
			}
		}
		if err := c.Waitall(reqs, sts); err != nil {
			return err
		}
		for k := range n {
			lg.sends = append(lg.sends, msgRec{peer: int32(nbr[k]), timed: timed, at: sent[k]})
			lg.recvd = append(lg.recvd, msgRec{peer: int32(sts[k].Source), at: sts[k].Done})
			if e.cfg.Verify {
				lg.check(rbufs[k].Data, sts[k].Source)
			}
		}
		return nil
	}
}

// traffic: random and hotspot. Receives from any source are posted first, then the
// sends, then everything is waited for. The tag is the iteration, so that a message
// is received in the iteration it was sent in.
func (e *env) traffic(c *mpi.Comm, lg *rankLog, size int64) func(int, bool) error {
	rank, p, m := c.Rank(), c.Size(), e.cfg.Messages
	sbuf, rbuf := c.Alloc(size), c.Alloc(size)
	var reqs []*mpi.Request
	var sts []mpi.Status
	var rbufs []mpi.Buf // Verify: a buffer per receive
	return func(it int, timed bool) error {
		c.Compute(e.cfg.Compute)
		nr := int(e.recvs[it*p+rank])
		reqs, sts = reqs[:0], slices.Grow(sts[:0], nr+m)[:nr+m]
		rbufs = rbufs[:0]
		for range nr {
			rbuf := rbuf
			if e.cfg.Verify {
				rbuf = c.Alloc(size)
				rbufs = append(rbufs, rbuf)
			}
			r, err := c.Irecv(rbuf, mpi.AnySource, it%(mpi.TagUB+1))
			if err != nil {
				return err
			}
			reqs = append(reqs, r)
		}
		dests := e.dests[(it*p+rank)*m : (it*p+rank+1)*m]
		for k, d := range dests {
			sbuf := sbuf
			if e.cfg.Verify {
				sbuf = c.Alloc(size)
				fillPayload(sbuf.Data, payloadID(rank, it, k))
			}
			t := c.Wtime()
			r, err := c.Isend(sbuf, int(d), it%(mpi.TagUB+1))
			if err != nil {
				return err
			}
			reqs = append(reqs, r)
			lg.sends = append(lg.sends, msgRec{peer: d, timed: timed, at: t})
		}
		if err := c.Waitall(reqs, sts); err != nil {
			return err
		}
		for j, st := range sts[:nr] {
			lg.recvd = append(lg.recvd, msgRec{peer: int32(st.Source), at: st.Done})
			if e.cfg.Verify {
				lg.check(rbufs[j].Data, st.Source)
			}
		}
		return nil
	}
}

// payloadID is the identity a Verify payload carries: sender, iteration, number.
func payloadID(rank, it, k int) uint64 { return uint64(rank)<<40 | uint64(it)<<20 | uint64(k) }

// fillPayload writes the payload of message id: its identity, then words of a
// splitmix64 stream seeded by it.
func fillPayload(b []byte, id uint64) {
	binary.LittleEndian.PutUint64(b, id)
	x := id
	var w [8]byte
	for i := 8; i < len(b); i += 8 {
		x += 0x9e3779b97f4a7c15
		z := (x ^ x>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		binary.LittleEndian.PutUint64(w[:], z^z>>31)
		copy(b[i:], w[:])
	}
}

// check verifies a received payload from rank src: intact (the pattern of the
// identity it carries, sent by src) or corrupt; an identity seen before is a duplicate.
func (lg *rankLog) check(b []byte, src int) {
	id := binary.LittleEndian.Uint64(b)
	if int(id>>40) != src {
		lg.corrupt++
		return
	}
	lg.checkID(b, id)
}

// checkID verifies a received payload that must be message id's.
func (lg *rankLog) checkID(b []byte, id uint64) {
	if cap(lg.want) < len(b) {
		lg.want = make([]byte, len(b))
	}
	want := lg.want[:len(b)]
	fillPayload(want, id)
	if !bytes.Equal(b, want) {
		lg.corrupt++
		return
	}
	if lg.seen == nil {
		lg.seen = map[uint64]bool{}
	}
	if lg.seen[id] {
		lg.dupes++
		return
	}
	lg.seen[id] = true
	lg.verified++
}

// operand is element j of rank r's Allreduce vector in iteration it: small integers,
// so that every partial sum is exact in float64 whatever the order of combination.
func operand(r, it, j int) float64 { return float64((r + 1) * (j%1024 + it%64 + 1)) }

// fillOperand writes rank r's Allreduce vector of iteration it.
func fillOperand(b []byte, r, it int) {
	for j := 0; j+8 <= len(b); j += 8 {
		binary.LittleEndian.PutUint64(b[j:], math.Float64bits(operand(r, it, j/8)))
	}
}

// checkSum verifies an Allreduce (MPI_SUM) result over p ranks in iteration it: every
// rank's vector counted once, and nothing else. One payload, intact or corrupt.
func (lg *rankLog) checkSum(b []byte, p, it int) {
	for j := 0; j+8 <= len(b); j += 8 {
		// operand(r, it, j) = (r+1) * operand(0, it, j): the sum over r is p(p+1)/2 times it
		want := operand(0, it, j/8) * float64(p*(p+1)/2)
		if math.Float64frombits(binary.LittleEndian.Uint64(b[j:])) != want {
			lg.corrupt++
			return
		}
	}
	lg.verified++
}
