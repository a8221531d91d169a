package actors

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// Distributed runs: the parallel engine over several processes (see cluster.go).
//
// Every process builds the same model and the same partitioning (with the workers of
// all processes as the balancing hint) and runs the partitions of its contiguous share;
// the partitions of other processes exist only as mailboxes. Synchronization is
// window mode with skip-ahead, as in one process, with every process deciding the
// next window from the same reports:
//
//   - window 0 (the actors' Start): the coordinator sends each worker start once every
//     worker is ready with the same model (fingerprint).
//   - at the end of its share of window w, a process encodes the events its partitions
//     sent to partitions of other processes (they sit in those partitions' inboxes) and
//     sends every other process a report (done): its leaders (the two earliest pending
//     events, by partition, counting those it sent), its failure and the events for
//     that process.
//   - once it has every report of window w, each process merges them and starts window
//     w+1 where the leaders say (a window of one lookahead from the earliest event, or a
//     solo window): the same decision everywhere, one message latency per window rather
//     than the round trip a coordinator's start would cost. A report of window w+1 that
//     arrives before a process has all of w waits until w+1 begins there.
//   - while the reports travel, the partitions with no link to another process run one
//     lookahead past the window (exchange.runAhead), which is all the work they could do
//     in the next window if it starts at the end of this one; the report says so, and
//     the next window is then not a solo window. On halo3d 16x16x16, 9 of each
//     process's 13 partitions.
//   - when the reports end the run (a failure, an error, the end time), the workers
//     wait and the coordinator ends it (finish); every worker then sends the final
//     state of its actors (clock, digest, event count), its partition statistics and
//     the exports (Graph.Export) it owns, and the coordinator sends the merged state
//     back, so that every process returns the same report, the same error and the same
//     results. An error only the coordinator sees (an interruption, a batch it cannot
//     decode) ends the run with an abort instead, which reaches workers in any window.
//
// Events keep their keys across processes and decoded messages keep what their
// Fingerprint reads, so the digest is the single-process digest.

// distRun is one run of a session in this process.
type distRun struct {
	cl     *Cluster
	r      *prun
	k      uint64 // run index in the session
	procs  int
	self   int
	procOf []int32 // process of every partition
	local  []int32 // this process's partitions
	fp     uint64  // fingerprint of model, seed and partitioning
	ctl    *actor.PID

	bridge *partition // owner of the batches decoded from other processes
	// interior: the partition has no link to or from another process's partitions (and
	// the model no direct sends), so it may run ahead while the reports travel
	interior []bool
	spare    *batch
	open     []*batch // decoded batches by destination partition, while absorbing
	out      []Encoder
	sent     leaders     // of the events sent to other processes in the window
	done     atomic.Bool // r.finished was sent

	windows  uint64
	widthSum float64
	peakRSS  int64
	pending  bool

	aheadRuns     uint64 // windows this process's partitions ran ahead
	remoteAhead   uint64 // those of the other processes
	allocs0       uint64 // heap allocations of this process when the run started
	remotePackets uint64 // network packets the other processes' NICs injected
	remoteAllocs  uint64 // heap allocations the other processes made during the run
	remoteStart   uint64 // of those, the allocations before their first event
}

func newDistRun(cl *Cluster, r *prun, opts *Options) *distRun {
	d := &distRun{cl: cl, r: r, procs: cl.Processes(), self: cl.Index(), bridge: &partition{}, allocs0: mallocs()}
	n := len(r.parts)
	d.procOf = make([]int32, n)
	for i := range n {
		d.procOf[i] = int32(i * d.procs / n)
		if int(d.procOf[i]) == d.self {
			d.local = append(d.local, int32(i))
		}
	}
	d.open = make([]*batch, n)
	d.out = make([]Encoder, d.procs)
	d.fp = fingerprint(r, opts)
	d.interior = interiorParts(r, d.procOf)
	for i, p := range r.parts {
		if int(d.procOf[i]) != d.self {
			p.progNow.Store(int64(MaxTime)) // only local partitions report progress
		}
	}
	return d
}

// fingerprint hashes what every process must agree on: the model's structure, the
// seed, the end, the partitioning and the codecs.
func fingerprint(r *prun, opts *Options) uint64 {
	m := r.m
	h := mix64(uint64(len(m.names)) ^ registry().hash)
	for i, name := range m.names {
		h = mix64(h ^ hashString(name) ^ uint64(m.portBase[i+1]))
	}
	for _, l := range m.links {
		h = mix64(h ^ uint64(l.From)<<32 ^ uint64(l.To))
		h = mix64(h ^ uint64(uint32(l.FromPort))<<32 ^ uint64(uint32(l.ToPort)) ^ uint64(l.Latency)<<7)
	}
	h = mix64(h ^ uint64(m.direct) ^ uint64(len(m.exports))<<40)
	for _, x := range m.exports {
		h = mix64(h ^ uint64(x.owner))
	}
	h = mix64(h ^ opts.Seed)
	h = mix64(h ^ uint64(r.end) ^ hashString(opts.Partitioner.Name()) ^ uint64(opts.Workers)<<48)
	for _, o := range r.owner {
		h = mix64(h ^ uint64(o))
	}
	return h
}

// interiorParts tells the partitions that no event from another process can reach and
// that send none to another process: no link crosses between them and another
// process's partitions, and the model has no direct sends.
func interiorParts(r *prun, procOf []int32) []bool {
	in := make([]bool, len(r.parts))
	if r.m.direct >= 0 {
		return in
	}
	for i := range in {
		in[i] = true
	}
	for _, l := range r.m.links {
		a, b := r.owner[l.From], r.owner[l.To]
		if procOf[a] != procOf[b] {
			in[a], in[b] = false, false
		}
	}
	return in
}

func (d *distRun) isLocal(p int32) bool { return int(d.procOf[p]) == d.self }

// deliver hands a frame to the run's controller (under the session lock).
func (d *distRun) deliver(f *frame) { d.cl.ep.sys.Root.Send(d.ctl, f) }

// finish ends the run with err (nil: success), once.
func (d *distRun) finish(err error) {
	if d.done.CompareAndSwap(false, true) {
		d.r.finished <- err
	}
}

// aborted handles an abort frame from a peer, on the goroutine of the reader of its
// connection.
func (d *distRun) aborted(f *frame) {
	d.r.abort.Store(true)
	d.finish(decodeAbort(f.body, d.cl.peerName(f.from)))
}

// abortPeers tells the peers that this process abandons the run.
func (d *distRun) abortPeers(kind byte, msg string) {
	var e Encoder
	e.Byte(kind)
	e.String(msg)
	for _, i := range d.cl.watched() {
		d.cl.sendTo(i, fAbort, d.k, 0, e.Bytes())
	}
}

// Abort kinds.
const (
	abortConfig byte = iota + 1
	abortInterrupted
	abortOther
)

func decodeAbort(b []byte, from string) error {
	d := NewDecoder(b)
	kind, msg := d.Byte(), d.String()
	switch kind {
	case abortConfig:
		return configErrorf("%s", msg)
	case abortInterrupted:
		return fmt.Errorf("cluster: the %s stopped the run: %w", from, ErrInterrupted)
	}
	return fmt.Errorf("cluster: the %s abandoned the run: %s", from, msg)
}

// runDistributed runs this process's share of r.
func runDistributed(ctx context.Context, r *prun, opts *Options, info cutInfo) (*Report, error) {
	cl := opts.Cluster
	d := newDistRun(cl, r, opts)
	r.dist = d
	pool := newWorkerPool(opts.Workers, len(d.local)+8, false, opts.LowPriority)
	sys := cl.ep.sys
	var ctl actor.Actor
	if d.self == 0 {
		ctl = &distCoord{exchange: newExchange(d)}
	} else {
		ctl = &distWorker{exchange: newExchange(d)}
	}
	d.ctl = sys.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return ctl }, actor.WithDispatcher(pool.Dispatcher(0)), actor.WithMailbox(newEngineMailbox)))
	r.coord = d.ctl
	r.pids = make([]*actor.PID, len(r.parts))
	locals, homes := make([]*partition, len(d.local)), make([]int, len(d.local))
	for j, i := range d.local {
		pa := &partitionActor{p: r.parts[i]}
		locals[j], homes[j] = r.parts[i], j*opts.Workers/len(d.local)
		r.pids[i] = sys.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return pa }, actor.WithDispatcher(pool.Dispatcher(homes[j])), actor.WithMailbox(newEngineMailbox)))
	}
	stop := func() {
		if pool.low {
			pool.finish(r.m, locals, homes)
		}
		for _, pid := range append(r.pids, d.ctl) {
			if pid != nil {
				sys.Root.Stop(pid)
			}
		}
		pool.stop()
	}
	if err := cl.beginRun(d); err != nil {
		stop()
		return nil, err
	}
	wall := time.Now()
	sys.Root.Send(d.ctl, runBegin{})
	runErr := r.wait(ctx, opts, wall)
	elapsed := time.Since(wall)
	cl.endRun()
	if runErr != nil && !d.done.Load() {
		// This process gives up (interrupted, or a peer failed): tell the others.
		d.done.Store(true)
		r.abort.Store(true)
		if errors.Is(runErr, ErrInterrupted) {
			d.abortPeers(abortInterrupted, runErr.Error())
		} else {
			d.abortPeers(abortOther, runErr.Error())
		}
	}
	stop()
	if runErr != nil {
		return nil, runErr
	}
	rep := r.report(opts, info, d.windows, 0, d.widthSum, elapsed) // no horizon epochs across processes
	rep.Processes = d.procs
	rep.PeakRSS = max(rep.PeakRSS, d.peakRSS)
	rep.Packets, rep.Allocs, rep.StartAllocs = d.remotePackets, d.remoteAllocs, d.remoteStart // Run adds this process's
	rep.AheadRuns = d.aheadRuns + d.remoteAhead
	rep.ProcessBusy = make([]time.Duration, d.procs)
	for i, p := range rep.Parts {
		rep.ProcessBusy[d.procOf[i]] += p.Busy
	}
	return rep, nil
}

// active lists the local partitions with an event (pending or in the inbox) before
// end, and those that ran ahead into the window (ahead); all of them for window 0; for
// a solo window, its partition if it is local. A partition running ahead may be
// draining its inbox meanwhile, so its inbox is not read here: it takes part in the
// window in any case.
func (d *distRun) active(next []Time, w uint64, end Time, solo int32, ahead []int32) []int32 {
	r := d.r
	r.active = r.active[:0]
	for _, i := range d.local {
		if len(ahead) > 0 && ahead[0] == i { // ahead lists local partitions in d.local's order
			ahead = ahead[1:]
			r.active = append(r.active, i)
			continue
		}
		next[i] = min(next[i], Time(r.parts[i].inMin.Load()))
		if w == 0 || solo < 0 && next[i] < end || i == solo {
			r.active = append(r.active, i)
		}
	}
	return r.active
}

// launch starts window w over [start, end) in the active local partitions and reports
// whether any runs. The controller holds one count of the barrier from the end of
// the window before (exchange.complete, which may have started partitions running
// ahead) until here.
func (d *distRun) launch(ac actor.Context, w uint64, start, end Time, solo int32) bool {
	r := d.r
	active := r.active
	if r.remaining.Add(int32(len(active))-1) == 0 {
		return false
	}
	for _, i := range active {
		s := &r.parts[i].startMsg
		s.w, s.start, s.end, s.solo = w, start, end, solo >= 0
		ac.Send(r.pids[i], s)
	}
	return len(active) > 0
}

// localDone folds the reports of the partitions that ran the window into next and
// returns the earliest failure among them.
func (d *distRun) localDone(next []Time) *SimError {
	r := d.r
	var failure *SimError
	for _, i := range r.active {
		dn := &r.parts[i].done
		next[i] = dn.next
		if dn.err != nil && (failure == nil || dn.err.key.less(failure.key)) {
			failure = dn.err
		}
	}
	return failure
}

// leaders returns the leaders (see leaders) of the local partitions' pending events and
// of the events they sent to other processes in the window.
func (d *distRun) leaders(next []Time) leaders {
	l := d.sent
	for _, i := range d.local {
		next[i] = min(next[i], Time(d.r.parts[i].inMin.Load()))
		l.add(next[i], i)
	}
	return l
}

// encodeLeaders and decodeLeaders carry a worker's leaders to the coordinator.
func encodeLeaders(e *Encoder, l leaders) {
	e.Time(l.t1)
	e.Int(int64(l.p1))
	e.Time(l.t2)
	e.Int(int64(l.p2))
}

// decodeLeaders reads leaders; a partition out of range makes the decoder fail.
func (d *distRun) decodeLeaders(dec *Decoder) leaders {
	l := leaders{t1: dec.Time(), p1: d.partitionID(dec), t2: dec.Time(), p2: d.partitionID(dec)}
	if dec.Err() != nil {
		return newLeaders()
	}
	return l
}

func (d *distRun) partitionID(dec *Decoder) int32 {
	p := dec.Int()
	if p < -1 || p >= int64(len(d.r.parts)) {
		dec.Fail(fmt.Errorf("partition %d of %d", p, len(d.r.parts)))
		return -1
	}
	return int32(p)
}

// collect encodes the events the local partitions sent to partitions of other
// processes during the window that started at base, into d.out by process.
func (d *distRun) collect(base Time) error {
	r := d.r
	for q := range d.procs {
		d.out[q].Reset()
		d.out[q].Time(base)
	}
	d.sent = newLeaders()
	var err error
	for q, p := range r.parts {
		if d.isLocal(int32(q)) || p.inbox.head.Load() == nil {
			continue
		}
		to := d.procOf[q]
		e := &d.out[to]
		p.inMin.Store(int64(MaxTime))
		for b := p.inbox.takeAll(); b != nil; {
			next := b.next
			for i := range b.ev {
				ev := &b.ev[i]
				e.Int(int64(ev.at - base))
				e.Uint(uint64(ev.dst()))
				e.Uint(uint64(ev.src()))
				e.Uint(ev.seq)
				e.Int(int64(ev.port))
				e.Value(ev.msg)
				if e.err != nil && err == nil {
					err = fmt.Errorf("cluster: message %v from %s to %s.%s crosses from process %d to process %d: %w",
						ev.msg, r.m.names[ev.src()], r.m.names[ev.dst()], r.m.PortName(ev.dst(), ev.port), d.self, to, e.err)
				}
				if c, ok := ev.msg.(Crosser); ok && e.err == nil {
					c.Crossed()
				}
				d.sent.add(ev.at, int32(q))
			}
			b.owner.free.push(b)
			b = next
		}
	}
	return err
}

// absorb decodes a batch from process from and hands its events to the inboxes of
// the local partitions they are for.
func (d *distRun) absorb(dec *Decoder, from int) error {
	r := d.r
	n := ActorID(len(r.m.names))
	base := dec.Time()
	var touched []int32
	for dec.Remaining() > 0 && dec.Err() == nil {
		at := base + Time(dec.Int())
		dst, src, seq, port := ActorID(dec.Uint()), ActorID(dec.Uint()), dec.Uint(), Port(dec.Int())
		v := dec.Value()
		if dec.Err() != nil {
			break
		}
		msg, ok := v.(Msg)
		if dst >= n || src >= n || !ok || !d.isLocal(r.owner[dst]) {
			return fmt.Errorf("cluster: process %d sent an invalid event (to actor %d, message %T)", from, dst, v)
		}
		dp := r.owner[dst]
		if d.interior[dp] { // it may be running ahead, past the event
			return fmt.Errorf("cluster: process %d sent an event to %s, which no link from another process reaches", from, r.m.names[dst])
		}
		b := d.open[dp]
		if b == nil {
			b = d.freshBatch()
			d.open[dp] = b
			touched = append(touched, dp)
		}
		b.ev = append(b.ev, event{eventKey: makeKey(at, dst, src, seq), port: port, msg: msg})
		b.minAt = min(b.minAt, at)
	}
	for _, dp := range touched {
		r.parts[dp].receive(d.open[dp])
		d.open[dp] = nil
	}
	if err := dec.Err(); err != nil {
		return fmt.Errorf("cluster: corrupt batch from process %d: %w", from, err)
	}
	return nil
}

func (d *distRun) freshBatch() *batch { return freshBatch(d.bridge, &d.spare) }

// Errors in frames.
const (
	errNone byte = iota
	errSim
	errConfig
	errOther
)

func encodeErr(e *Encoder, err error) {
	if err == nil {
		e.Byte(errNone)
		return
	}
	encodeFailure(e, err)
}

// encodeFailure encodes a run's error. Apart from encodeErr so that the SimError
// errors.As looks for (its address escapes) is not allocated for every window's
// report, which has none.
func encodeFailure(e *Encoder, err error) {
	var se *SimError
	switch {
	case errors.As(err, &se):
		e.Byte(errSim)
		e.String(se.Actor)
		e.Time(se.Time)
		e.String(se.Msg)
		e.String(se.Stack)
		e.Time(se.key.at)
		e.Uint(se.key.ds)
		e.Uint(se.key.seq)
	case errors.Is(err, ErrConfig):
		e.Byte(errConfig)
		e.String(err.Error())
	default:
		e.Byte(errOther)
		e.String(err.Error())
	}
}

func decodeErr(d *Decoder) error {
	switch d.Byte() {
	case errNone:
		return nil
	case errSim:
		se := &SimError{Actor: d.String(), Time: d.Time(), Msg: d.String(), Stack: d.String()}
		se.key = eventKey{at: d.Time(), ds: d.Uint(), seq: d.Uint()}
		return se
	case errConfig:
		return configErrorf("%s", d.String())
	default:
		return errors.New(d.String())
	}
}

// finalState encodes this process's share of the final state: peak memory, whether
// events remain, the statistics of its partitions, the state of its actors and the
// exports they own.
func (d *distRun) finalState() ([]byte, error) {
	r := d.r
	var e Encoder
	e.Int(peakRSS())
	var packets uint64
	for _, i := range d.local {
		for _, id := range r.parts[i].actors {
			if c, ok := r.m.actors[id].(PacketCounter); ok {
				packets += c.PacketsInjected()
			}
		}
	}
	e.Uint(packets)
	e.Uint(d.aheadRuns)
	e.Uint(mallocs() - d.allocs0)
	if r.startMallocs != 0 {
		e.Uint(r.startMallocs - d.allocs0)
	} else {
		e.Uint(0)
	}
	pending := false
	for _, i := range d.local {
		pending = pending || r.parts[i].queue.len() > 0
	}
	e.Bool(pending)
	e.Uint(uint64(len(d.local)))
	for _, i := range d.local {
		p := r.parts[i]
		e.Uint(uint64(i))
		e.Uint(p.events)
		e.Uint(p.activations)
		e.Int(int64(p.busy))
		e.Uint(uint64(len(p.actors)))
		for _, id := range p.actors {
			s := &r.st[id]
			e.Uint(uint64(id))
			e.Time(s.clock)
			e.Fixed64(s.digest)
			e.Uint(s.events)
		}
	}
	var x Encoder
	for i, ex := range r.m.exports {
		if !d.isLocal(r.owner[ex.owner]) {
			continue
		}
		x.Reset()
		ex.s.Snapshot(&x)
		if x.err != nil {
			return nil, fmt.Errorf("cluster: exporting the state of %s: %w", r.m.names[ex.owner], x.err)
		}
		e.Uint(uint64(i) + 1)
		e.Blob(x.Bytes())
	}
	e.Uint(0)
	return e.Bytes(), nil
}

// applyState merges the final state of another process.
func (d *distRun) applyState(b []byte, from int) error {
	r := d.r
	dec := NewDecoder(b)
	d.peakRSS = max(d.peakRSS, dec.Int())
	d.remotePackets += dec.Uint()
	d.remoteAhead += dec.Uint()
	d.remoteAllocs += dec.Uint()
	d.remoteStart += dec.Uint()
	pending := dec.Bool()
	d.pending = d.pending || pending
	nparts := dec.Count(4)
	for range nparts {
		i := dec.Uint()
		if i >= uint64(len(r.parts)) || d.isLocal(int32(i)) {
			dec.Fail(fmt.Errorf("partition %d is not another process's", i))
			break
		}
		p := r.parts[i]
		p.events, p.activations, p.busy = dec.Uint(), dec.Uint(), time.Duration(dec.Int())
		nact := dec.Count(11)
		for range nact {
			id := dec.Uint()
			if id >= uint64(len(r.st)) || r.owner[id] != int32(i) {
				dec.Fail(fmt.Errorf("actor %d is not in partition %d", id, i))
				break
			}
			s := &r.st[id]
			s.clock, s.digest, s.events = dec.Time(), dec.Fixed64(), dec.Uint()
		}
	}
	for dec.Err() == nil {
		i := dec.Uint()
		if i == 0 || dec.Err() != nil {
			break
		}
		if i > uint64(len(r.m.exports)) {
			dec.Fail(fmt.Errorf("export %d out of range", i))
			break
		}
		ex := r.m.exports[i-1]
		blob := dec.Blob()
		x := NewDecoder(blob)
		ex.s.Restore(x)
		if x.Err() == nil && x.Remaining() != 0 {
			x.Fail(errTruncated)
		}
		if x.Err() != nil {
			return fmt.Errorf("cluster: restoring the state of %s from process %d: %w", r.m.names[ex.owner], from, x.Err())
		}
	}
	if err := dec.Err(); err != nil {
		return fmt.Errorf("cluster: corrupt final state from process %d: %w", from, err)
	}
	if dec.Remaining() != 0 {
		return fmt.Errorf("cluster: corrupt final state from process %d: %w", from, errTruncated)
	}
	return nil
}

// exchange is a process's end of window w: its own report and those of the other
// processes (report frames, to every process), from which every process decides the
// next window alike.
type exchange struct {
	d    *distRun
	next []Time // earliest pending event of each local partition

	w       uint64
	start   Time
	end     Time
	solo    int32  // the partition running window w alone, or -1
	local   bool   // this process's share of window w is done and reported
	reports int    // other processes' reports of window w
	got     []bool // which processes reported window w
	lead    leaders
	failure *SimError
	err     error    // a configuration or protocol error a process reported
	soloEnd Time     // where the solo window ended (see runWindow)
	early   []*frame // reports of window w+1, held until w+1 begins here
	// ahead: the local partitions that run ahead into window w+1 (runAhead), in
	// d.local's order; anyAhead: some process's did, so window w+1 is not a solo window
	ahead    []int32
	anyAhead bool

	head Encoder // the report being sent (complete), reused: the frame copies it
	dec  Decoder // the report being read (report), reused

	events []uint64 // every process's events, for progress
}

func newExchange(d *distRun) exchange {
	x := exchange{d: d, next: make([]Time, len(d.r.parts)), events: make([]uint64, d.procs), got: make([]bool, d.procs)}
	x.reset(0, 0, -1)
	return x
}

func (x *exchange) reset(w uint64, start Time, solo int32) {
	x.w, x.start, x.solo = w, start, solo
	x.local, x.reports, x.lead, x.failure, x.err, x.soloEnd, x.anyAhead = false, 0, newLeaders(), nil, nil, 0, false
	clear(x.got)
}

// begin starts window w over [start, end) here and returns the reports of w that came
// early. Window 0 keeps the state newExchange set: another worker's report of it may
// come before the coordinator's start.
func (x *exchange) begin(ac actor.Context, w uint64, start, end Time, solo int32) (launched bool, early []*frame) {
	if w > 0 {
		x.reset(w, start, solo)
	} else {
		x.d.r.remaining.Store(1) // the controller's count (launch)
	}
	x.end = end
	early, x.early = x.early, nil
	x.d.active(x.next, w, end, solo, x.ahead)
	x.ahead = x.ahead[:0]
	return x.d.launch(ac, w, start, end, solo), early
}

// advance starts the window the reports of this one decided and takes the reports of it
// that came early; the error is this process's (a report it cannot use).
func (x *exchange) advance(ac actor.Context, lookahead Duration, last Time) (launched bool, err error) {
	end, solo := x.lead.window(lookahead, last)
	if x.anyAhead { // the partitions that ran ahead sent events no report counts
		end, solo = x.lead.shortWindow(lookahead, last), -1
	}
	x.d.r.showWindow(x.lead.t1, solo, x.lead.t2)
	launched, early := x.begin(ac, x.w+1, x.lead.t1, end, solo)
	for _, f := range early {
		if e := x.report(f); e != nil && err == nil {
			err = e
		}
	}
	return launched, err
}

// complete reports this process's share of the window to every other process: its
// leaders, the events its partitions sent to each, whether some run ahead, and its
// failure; then starts the partitions that run ahead (runAhead).
func (x *exchange) complete(ac actor.Context) {
	d, r := x.d, x.d.r
	r.windowDone(x.w)
	failure := d.localDone(x.next)
	var soloEnd Time // where the solo window ended, if it ran here (0: not here)
	if x.solo >= 0 && d.isLocal(x.solo) {
		soloEnd = r.parts[x.solo].done.end
	}
	r.active = r.active[:0]
	cerr := d.collect(x.start)
	lead := d.leaders(x.next)
	var events uint64
	for _, i := range d.local {
		events += r.parts[i].events
	}
	ahead, aheadEnd := x.runAhead(failure == nil && cerr == nil)
	d.aheadRuns += uint64(len(ahead))
	head := &x.head // the report, less the events for its receiver
	head.Reset()
	encodeLeaders(head, lead)
	head.Time(soloEnd)
	head.Uint(events)
	head.Bool(len(ahead) > 0)
	switch {
	case cerr != nil:
		encodeErr(head, cerr)
	case failure != nil:
		encodeErr(head, failure)
	default:
		encodeErr(head, nil)
	}
	for j := range d.procs {
		if j == d.self {
			continue
		}
		d.cl.sendTo(j, fDone, d.k, x.w, head.Bytes(), d.out[j].Bytes())
	}
	x.events[d.self] = events
	x.fold(lead, soloEnd, len(ahead) > 0, failure, cerr)
	x.local = true
	r.remaining.Store(int32(1 + len(ahead))) // the controller's count until the next launch
	for _, i := range ahead {
		s := &r.parts[i].aheadMsg
		s.w, s.start, s.end, s.solo = x.w+1, x.end, aheadEnd, false
		ac.Send(r.pids[i], s)
	}
}

// runAhead returns (and keeps in x.ahead) the local partitions that run ahead, after a
// window of one lookahead that ended at e, over [e, e+lookahead) while the reports
// travel, and e+lookahead: the interior partitions with an event there. Every event
// that can reach such a partition before e+lookahead is in its heap or inbox: every
// partition has delivered its events before e, anything sent from then on arrives at
// e+lookahead or later, and no other process sends to it. Whatever window comes next
// starts at e or later, so the partition then has nothing before e+lookahead left, and
// its events sent meanwhile arrive at that window's end or later. They are in no
// report, so the next window is not a solo window (anyAhead), and the partition takes
// part in it to be counted in its report (active).
func (x *exchange) runAhead(ok bool) (parts []int32, end Time) {
	d, r := x.d, x.d.r
	end = min(x.end.Add(r.lookahead), r.end)
	x.ahead = x.ahead[:0]
	if !ok || x.w == 0 || x.solo >= 0 || x.end >= r.end || r.abort.Load() {
		return nil, end
	}
	for _, i := range d.local {
		if d.interior[i] && x.next[i] < end {
			x.ahead = append(x.ahead, i)
		}
	}
	return x.ahead, end
}

// settled gives back the controller's count of the barrier when the run ends after
// window w and reports whether the partitions running ahead are done; if not, the last
// of them sends windowsDone.
func (x *exchange) settled() bool { return x.d.r.remaining.Add(-1) == 0 }

func (x *exchange) fold(lead leaders, soloEnd Time, ahead bool, failure *SimError, err error) {
	x.lead.merge(lead)
	x.soloEnd = max(x.soloEnd, soloEnd)
	x.anyAhead = x.anyAhead || ahead
	if failure != nil && (x.failure == nil || failure.key.less(x.failure.key)) {
		x.failure = failure
	}
	if x.err == nil {
		x.err = err
	}
}

// report takes another process's report of window w, or holds one of w+1; the error
// is this process's (a frame it cannot use).
func (x *exchange) report(f *frame) error {
	d := x.d
	switch {
	case f.w == x.w+1:
		x.early = append(x.early, f)
		return nil
	case f.w != x.w || x.got[f.from]:
		return fmt.Errorf("cluster: %s reported window %d again or during window %d", d.cl.peerName(f.from), f.w, x.w)
	}
	dec := &x.dec
	dec.Reset(f.body)
	lead, soloEnd, events, ahead := d.decodeLeaders(dec), dec.Time(), dec.Uint(), dec.Bool()
	err := decodeErr(dec)
	if dec.Err() != nil {
		return fmt.Errorf("cluster: corrupt report of window %d from %s: %w", f.w, d.cl.peerName(f.from), dec.Err())
	}
	x.events[f.from] = events
	x.got[f.from] = true
	x.reports++
	if err == nil {
		x.fold(lead, soloEnd, ahead, nil, nil)
	} else if !x.foldFailure(lead, soloEnd, ahead, err) {
		return nil
	}
	return d.absorb(dec, f.from)
}

// foldFailure folds a report that carries an error, and says whether its batch is to
// be absorbed: a simulation error's is, the reporter's own error's is not (a message
// it could not encode, with no codec, left a hole there, which absorbing would report
// less clearly). Apart from report so that the SimError errors.As looks for (its
// address escapes) is not allocated for every report.
func (x *exchange) foldFailure(lead leaders, soloEnd Time, ahead bool, err error) bool {
	var se *SimError
	if errors.As(err, &se) {
		x.fold(lead, soloEnd, ahead, se, nil)
		return true
	}
	x.fold(lead, soloEnd, ahead, nil, err)
	return false
}

// ready reports whether every process's report of window w is in.
func (x *exchange) ready() bool { return x.local && x.reports == x.d.procs-1 }

// distCoord is the coordinator of a distributed run (process 0).
type distCoord struct {
	exchange

	begun  bool
	joined int // workers ready for the run (fReady)

	finishing bool
	finishErr error
	finals    [][]byte // final state of every process
	nfinals   int
	acks      int
}

// sessionLost tells a run's controller that the session failed; it arrives after the
// frames received before the failure, so a run that those frames complete completes.
type sessionLost struct{}

// lostErr is the error a run ends with when its session fails.
func (d *distRun) lostErr() error {
	return fmt.Errorf("parallel engine at t=%s: %w", d.r.progressNow(), d.cl.Err())
}

func (c *distCoord) Receive(ac actor.Context) {
	switch m := ac.Message().(type) {
	case sessionLost:
		if c.finishing && c.finals[0] != nil && c.nfinals == c.d.procs-1 {
			c.d.finish(c.finishErr) // every state is in: the run is complete here
		}
		c.d.finish(c.d.lostErr())
	case runBegin:
		c.begun = true
		c.maybeStart(ac)
	case windowsDone:
		if c.finishing { // the partitions that ran ahead are done (finish)
			c.finalOwn()
			return
		}
		c.complete(ac)
		c.maybeComplete(ac)
	case *frame:
		c.onFrame(ac, m)
	}
}

func (c *distCoord) onFrame(ac actor.Context, f *frame) {
	d := c.d
	dec := NewDecoder(f.body)
	switch f.kind {
	case fReady:
		if fp := dec.Fixed64(); fp != d.fp {
			err := configErrorf("cluster: the %s built another model for run %d (fingerprint %016x, here %016x): "+
				"the processes resolved different configurations, or building the model is not deterministic",
				d.cl.peerName(f.from), d.k, fp, d.fp)
			d.abortPeers(abortConfig, err.Error())
			d.finish(err)
			return
		}
		c.joined++
		c.maybeStart(ac)
	case fDone:
		if c.finishing {
			return
		}
		if err := c.report(f); err != nil && c.err == nil {
			c.err = err
		}
		var sum uint64
		for i, n := range c.events {
			if i != d.self {
				sum += n
			}
		}
		d.r.remoteEvents.Store(sum)
		c.maybeComplete(ac)
	case fFinal:
		if !c.finishing || c.finals[f.from] != nil {
			c.protocol(fmt.Errorf("cluster: unexpected final state from %s", d.cl.peerName(f.from)))
			return
		}
		c.finals[f.from] = f.body
		c.nfinals++
		c.maybeFinal()
	case fFinalAck:
		// The run ends here only once every worker has its result, so that a
		// session closed right after it cannot overtake the last run's end.
		if c.acks++; c.acks == d.procs-1 {
			d.finish(c.finishErr)
		}
	}
}

// protocol ends the run on a protocol violation.
func (c *distCoord) protocol(err error) {
	c.d.abortPeers(abortOther, err.Error())
	c.d.finish(err)
}

func (c *distCoord) maybeStart(ac actor.Context) {
	d := c.d
	if !c.begun || c.joined < d.procs-1 {
		return
	}
	for i := 1; i < d.procs; i++ {
		d.cl.sendTo(i, fStart, d.k, 0, nil)
	}
	if launched, _ := c.begin(ac, 0, 0, 0, -1); !launched {
		c.complete(ac)
		c.maybeComplete(ac)
	}
}

// maybeComplete decides, once every report of window w is in, as every worker does:
// the next window, or the end of the run (finish), which only the coordinator
// announces. The coordinator alone also ends the run on an error of its own or an
// interruption, with an abort that reaches workers already in the next window.
func (c *distCoord) maybeComplete(ac actor.Context) {
	d, r := c.d, c.d.r
	for c.ready() && !c.finishing && !d.done.Load() {
		end := c.end
		if c.solo >= 0 {
			end = c.soloEnd // as far as it went (runWindow)
		}
		d.widthSum += end.Sub(c.start).Seconds()
		t := c.lead.t1
		switch {
		case c.err != nil:
			kind := abortOther
			if errors.Is(c.err, ErrConfig) {
				kind = abortConfig
			}
			d.abortPeers(kind, c.err.Error())
			d.finish(c.err)
		case c.failure != nil:
			c.finish(c.failure)
		case t >= r.end:
			c.finish(nil)
		case r.abort.Load():
			d.abortPeers(abortInterrupted, "interrupted")
			d.finish(fmt.Errorf("aborted"))
		default:
			launched, err := c.exchange.advance(ac, r.lookahead, r.end)
			d.windows++
			if err != nil && c.err == nil {
				c.err = err
			}
			if !launched {
				c.complete(ac)
				continue
			}
		}
		return
	}
}

// finish ends the run: the workers send their final state.
func (c *distCoord) finish(err error) {
	d := c.d
	c.finishing, c.finishErr = true, err
	var e Encoder
	encodeErr(&e, err)
	for i := 1; i < d.procs; i++ {
		d.cl.sendTo(i, fFinish, d.k, c.w, e.Bytes())
	}
	c.finals = make([][]byte, d.procs)
	if c.settled() { // else once the partitions running ahead are done (windowsDone)
		c.finalOwn()
	}
}

// finalOwn adds the coordinator's own final state.
func (c *distCoord) finalOwn() {
	d := c.d
	own, ferr := d.finalState()
	if ferr != nil {
		d.abortPeers(abortOther, ferr.Error())
		d.finish(ferr)
		return
	}
	c.finals[0] = own
	c.maybeFinal()
}

// maybeFinal merges the final states once all are in and sends them to every worker.
func (c *distCoord) maybeFinal() {
	d := c.d
	if c.finals[0] == nil || c.nfinals < d.procs-1 {
		return
	}
	var e Encoder
	encodeErr(&e, c.finishErr)
	e.Uint(d.windows)
	e.Float(d.widthSum)
	for _, b := range c.finals {
		e.Blob(b)
	}
	for i := 1; i < d.procs; i++ {
		d.cl.sendTo(i, fFinalAll, d.k, c.w, e.Bytes())
	}
	for i := 1; i < d.procs; i++ {
		if err := d.applyState(c.finals[i], i); err != nil {
			d.abortPeers(abortOther, err.Error())
			d.finish(err)
			return
		}
	}
}

// distWorker runs a worker's share of a distributed run.
type distWorker struct {
	exchange
	finalErr  error
	finishing bool   // the coordinator ended the run (fFinish) in window finalW
	finalW    uint64 // (its final state follows once the partitions running ahead are done)
}

func (c *distWorker) Receive(ac actor.Context) {
	switch m := ac.Message().(type) {
	case sessionLost:
		c.d.finish(c.d.lostErr())
	case runBegin:
		var e Encoder
		e.Fixed64(c.d.fp)
		c.d.cl.sendTo(0, fReady, c.d.k, 0, e.Bytes())
	case windowsDone:
		if c.finishing {
			c.sendFinal()
			return
		}
		c.complete(ac)
		c.advance(ac)
	case *frame:
		c.onFrame(ac, m)
	}
}

// sendFinal sends the coordinator this process's final state.
func (c *distWorker) sendFinal() {
	own, err := c.d.finalState()
	if err != nil {
		c.protocol(err)
		return
	}
	c.d.cl.sendTo(0, fFinal, c.d.k, c.finalW, own)
}

func (c *distWorker) onFrame(ac actor.Context, f *frame) {
	d := c.d
	dec := NewDecoder(f.body)
	switch f.kind {
	case fStart:
		if f.w != 0 || c.w != 0 || c.local {
			c.protocol(fmt.Errorf("cluster: unexpected start of window %d from the coordinator (at window %d)", f.w, c.w))
			return
		}
		if launched, _ := c.begin(ac, 0, 0, 0, -1); !launched {
			c.complete(ac)
			c.advance(ac)
		}
	case fDone:
		if err := c.report(f); err != nil {
			c.protocol(err)
			return
		}
		c.advance(ac)
	case fFinish:
		c.finalErr = decodeErr(dec)
		c.finishing, c.finalW = true, f.w
		if c.settled() { // else once the partitions running ahead are done (windowsDone)
			c.sendFinal()
		}
	case fFinalAll:
		err := decodeErr(dec)
		d.windows, d.widthSum = dec.Uint(), dec.Float()
		for i := range d.procs {
			b := dec.Blob()
			if i == d.self || dec.Err() != nil {
				continue
			}
			if aerr := d.applyState(b, i); aerr != nil {
				c.protocol(aerr)
				return
			}
		}
		if dec.Err() != nil {
			c.protocol(fmt.Errorf("cluster: corrupt final state from the coordinator: %w", dec.Err()))
			return
		}
		d.finish(err)
		d.cl.sendTo(0, fFinalAck, d.k, f.w, nil)
	}
}

func (c *distWorker) protocol(err error) {
	c.d.abortPeers(abortOther, err.Error())
	c.d.finish(err)
}

// advance starts the next window once every report of this one is in, deciding as
// the coordinator does; when the run ends, it waits for the coordinator's finish (or
// abort).
func (c *distWorker) advance(ac actor.Context) {
	r := c.d.r
	for c.ready() && !c.d.done.Load() {
		if c.err != nil || c.failure != nil || c.lead.t1 >= r.end {
			return
		}
		launched, err := c.exchange.advance(ac, r.lookahead, r.end)
		if err != nil {
			c.protocol(err)
			return
		}
		if launched {
			return
		}
		c.complete(ac)
	}
}
