// Package osu is the OSU micro-benchmarks as the SeaStar papers ran them (Pedretti &
// Hudson 2005 s.5 measure MPI with the OSU benchmarks, version 2.0; docs/design.md section 5),
// between two nearest-neighbour nodes, over one of two layers:
//
//   - mpi: through the MPI-style library of protocols/mpi (osu_latency, osu_bw and
//     osu_mbw_mr with one pair, as written);
//   - portals: raw Portals 3.3 puts with persistent memory descriptors, the same
//     patterns without MPI (what an OSU test written for Portals would do).
//
// The benchmarks:
//
//   - latency: ping-pong; rank 0 sends, rank 1 receives and sends back; after Warmup
//     untimed round trips, latency = elapsed / (2 * Iters).
//   - bw: rank 0 sends a window of Window (64) messages back to back and waits for
//     them, rank 1 receives them and answers with a small ack (4 bytes); after Warmup
//     untimed windows, bandwidth = size * Window * Iters / elapsed.
//   - mr: the same pattern, reported as messages per second (osu_mbw_mr with one pair).
//
// The Portals mode (generic or accelerated) is the configuration's (portals.mode):
// this package only builds the machine and spawns the processes.
package osu

import (
	"context"
	"errors"
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/machine"
	"github.com/seastar-sim/seastar/protocols/mpi"
	"github.com/seastar-sim/seastar/protocols/portals3"
	"github.com/seastar-sim/seastar/protocols/portals3/ptl"
)

// Bench is an OSU test.
type Bench string

// Tests.
const (
	Latency Bench = "latency" // osu_latency
	BW      Bench = "bw"      // osu_bw
	MR      Bench = "mr"      // osu_mbw_mr, one pair
)

// Layer is what the benchmark runs over.
type Layer string

// Layers.
const (
	LayerPortals Layer = "portals"
	LayerMPI     Layer = "mpi"
)

// ParseLayer parses portals or mpi.
func ParseLayer(s string) (Layer, error) {
	switch Layer(s) {
	case LayerPortals, LayerMPI:
		return Layer(s), nil
	}
	return "", fmt.Errorf("unknown layer %q (want portals or mpi)", s)
}

// Config is an OSU run.
type Config struct {
	Machine machine.Params
	Portals portals3.Params
	MPI     mpi.Params
	Bench   Bench
	Layer   Layer
	Sizes   []int64
	Iters   int          // timed round trips (latency) or windows (bw, mr) per size
	Warmup  int          // untimed ones before them (OSU's skip)
	Window  int          // messages per window (bw, mr); OSU: 64
	Ack     int64        // bytes of the ack that closes a window; OSU: 4
	Budget  actors.Bytes // per size, iterations are capped to max(Min, Budget/bytes per iteration); 0: no cap
	Min     int          // the least timed iterations per size under the budget
	Bridge  portals3.Bridge
}

// DefaultConfig returns test b over layer as the OSU suite runs it, on two redstorm
// nodes one hop apart, with a window of 64 and a 4-byte ack: latency from 0 B to 4
// MiB, bandwidth and message rate from 1 B to 1 MiB (OSU goes to 4 MB; a window of
// 4 MB messages is 256 MB to simulate), by powers of two. The iteration counts are
// lower than OSU's (1000 and 100, with 100 and 10 skipped) because a deterministic
// simulation repeats every iteration after the first few exactly; for the same
// reason a byte budget (8 MiB per size) caps the iterations of large sizes.
func DefaultConfig(b Bench, layer Layer) Config {
	sizes := []int64{0}
	top := int64(4 << 20)
	if b != Latency {
		sizes, top = nil, 1<<20
	}
	for s := int64(1); s <= top; s *= 2 {
		sizes = append(sizes, s)
	}
	c := Config{Machine: machine.Default(), Portals: portals3.DefaultParams(), MPI: mpi.DefaultParams(), Bench: b, Layer: layer,
		Sizes: sizes, Iters: 100, Warmup: 10, Window: 64, Ack: 4, Budget: 8 * actors.MiB, Min: 2, Bridge: portals3.QKBridge}
	if b != Latency {
		c.Iters, c.Warmup, c.Min = 10, 2, 1
	}
	return c
}

// Validate checks the settings.
func (c Config) Validate() error {
	switch {
	case c.Bench != Latency && c.Bench != BW && c.Bench != MR:
		return fmt.Errorf("osu: unknown benchmark %q (want latency, bw or mr)", c.Bench)
	case len(c.Sizes) == 0:
		return fmt.Errorf("osu: no sizes")
	case c.Iters < 1:
		return fmt.Errorf("osu: iters must be >= 1 (got %d)", c.Iters)
	case c.Warmup < 0:
		return fmt.Errorf("osu: warmup must be >= 0 (got %d)", c.Warmup)
	case c.Window < 1:
		return fmt.Errorf("osu: window must be >= 1 (got %d)", c.Window)
	case c.Ack < 0:
		return fmt.Errorf("osu: ack must be >= 0 bytes (got %d)", c.Ack)
	case c.Min < 1:
		return fmt.Errorf("osu: min iterations must be >= 1 (got %d)", c.Min)
	case c.Budget < 0:
		return fmt.Errorf("osu: budget must be >= 0 (got %s)", c.Budget)
	}
	for _, s := range c.Sizes {
		if s < 0 {
			return fmt.Errorf("osu: negative size %d", s)
		}
	}
	if _, err := ParseLayer(string(c.Layer)); err != nil {
		return err
	}
	if err := c.MPI.Validate(); err != nil {
		return fmt.Errorf("mpi.%w", err)
	}
	_, err := portals3.ParseBridge(string(c.Bridge))
	return err
}

// iters is the timed and the warm-up iterations for a size: the budget caps both.
// reps is the iterations of size, timed and warm-up, for progress reports.
func (c Config) reps(size int64) int {
	n, w := c.iters(size)
	return n + w
}

func (c Config) iters(size int64) (timed, warmup int) {
	per := size
	if c.Bench != Latency {
		per *= int64(c.Window)
	}
	if c.Budget == 0 || per == 0 {
		return c.Iters, c.Warmup
	}
	timed = min(c.Iters, max(c.Min, int(int64(c.Budget)/per)))
	return timed, min(c.Warmup, timed)
}

// Row is the result for one size.
type Row struct {
	Bench     Bench
	Layer     Layer
	Size      int64
	Iters     int
	Latency   actors.Duration // latency: one way; bw, mr: time per message
	Bandwidth float64         // bytes per second (bw, mr; latency: size / latency)
	MsgRate   float64         // messages per second (bw, mr)
}

// Result is an OSU run.
type Result struct {
	Rows   []Row
	Report *actors.Report
	Job    *mpi.Job // the MPI job (layer mpi)
}

// Host memory of the benchmark buffers (names, not real memory).
const (
	sendBuf = 0x1000_0000
	recvBuf = 0x4000_0000
	ackBuf  = 0x7000_0000
	osuPt   = 0
	osuJID  = 1
	osuUID  = 1000
)

// Run runs the benchmark between nodes 0 and 1 of a two-node line.
func Run(ctx context.Context, cfg Config, opts actors.Options) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	mp := cfg.Machine
	mp.Torus, mp.Wrap = "2x1x1", "mesh"
	g := actors.NewGraph()
	m, stacks, err := portals3.Build(g, mp, cfg.Portals)
	if err != nil {
		return nil, err
	}
	rows := make([]Row, len(cfg.Sizes))
	res := &Result{Rows: rows}
	// For runs split across processes: what the results read. Rank 0 (node 0) fills
	// the rows in.
	vars := make(actors.Vars, len(rows))
	for i := range rows {
		vars[i] = &rows[i]
	}
	m.ExportHost(g, 0, vars...)
	if cfg.Layer == LayerMPI {
		jc := mpi.DefaultJobConfig()
		jc.Params, jc.Bridge, jc.JID, jc.UID = cfg.MPI, cfg.Bridge, osuJID, osuUID
		res.Job, err = mpi.Launch(stacks, []int{0, 1}, jc, func(c *mpi.Comm) error {
			return mpiRank(c, cfg, rows, portals3.SizeProgress(opts.Work, c.Rank(), cfg.Sizes, cfg.reps))
		})
		if err == nil {
			res.Job.Export(g, m.HostName)
		}
	} else {
		for rank := range 2 {
			peer := ptl.ProcessID{NID: ptl.NID(1 - rank), PID: 0}
			err = errors.Join(err, stacks[rank].Spawn(fmt.Sprintf("osu[%d]", rank), 0, 0, osuJID, osuUID, cfg.Bridge, func(pr *portals3.Process) {
				if err := portalsRank(pr, cfg, rank, peer, rows, portals3.SizeProgress(opts.Work, rank, cfg.Sizes, cfg.reps)); err != nil {
					pr.Proc().Fatalf("osu: %v", err)
				}
			}))
		}
	}
	if err != nil {
		return nil, err
	}
	model, err := g.Build()
	if err != nil {
		return nil, err
	}
	res.Report, err = actors.Run(ctx, model, opts)
	if err != nil {
		return res, err
	}
	if res.Job != nil {
		err = res.Job.Check()
	}
	for i, r := range rows {
		if r.Iters == 0 {
			err = errors.Join(err, fmt.Errorf("osu: size %d did not complete", cfg.Sizes[i]))
		}
	}
	return res, err
}

// row computes the result of a size from rank 0's elapsed time.
func (c Config) row(size int64, n int, elapsed actors.Duration) Row {
	r := Row{Bench: c.Bench, Layer: c.Layer, Size: size, Iters: n}
	if c.Bench == Latency {
		r.Latency = elapsed / actors.Duration(2*n)
		if r.Latency > 0 {
			r.Bandwidth = float64(size) / r.Latency.Seconds()
		}
		return r
	}
	msgs := float64(n) * float64(c.Window)
	r.Latency = elapsed / actors.Duration(n*c.Window)
	if s := elapsed.Seconds(); s > 0 {
		r.MsgRate = msgs / s
		r.Bandwidth = msgs * float64(size) / s
	}
	return r
}

// mpiRank is the program of a rank over MPI: osu_latency, osu_bw, osu_mbw_mr.
func mpiRank(c *mpi.Comm, cfg Config, rows []Row, sizeDone func(int64)) error {
	rank, peer := c.Rank(), 1-c.Rank()
	maxSize := int64(0)
	for _, s := range cfg.Sizes {
		maxSize = max(maxSize, s)
	}
	sbuf, rbuf, ack := c.Alloc(maxSize), c.Alloc(maxSize), c.Alloc(cfg.Ack)
	reqs := make([]*mpi.Request, cfg.Window)
	for i, size := range cfg.Sizes {
		s, r := sbuf.Slice(0, size), rbuf.Slice(0, size)
		n, warm := cfg.iters(size)
		if err := c.Barrier(); err != nil {
			return err
		}
		var start actors.Time
		for it := range warm + n {
			if it == warm {
				start = c.Wtime()
			}
			var err error
			switch {
			case cfg.Bench == Latency && rank == 0:
				if err = c.Send(s, peer, 1); err == nil {
					_, err = c.Recv(r, peer, 1)
				}
			case cfg.Bench == Latency:
				if _, err = c.Recv(r, peer, 1); err == nil {
					err = c.Send(s, peer, 1)
				}
			case rank == 0: // bw, mr: the sender
				for w := range reqs {
					if reqs[w], err = c.Isend(s, peer, 100); err != nil {
						return err
					}
				}
				if err = c.Waitall(reqs, nil); err == nil {
					_, err = c.Recv(ack, peer, 101)
				}
			default:
				for w := range reqs {
					if reqs[w], err = c.Irecv(r, peer, 100); err != nil {
						return err
					}
				}
				if err = c.Waitall(reqs, nil); err == nil {
					err = c.Send(ack, peer, 101)
				}
			}
			if err != nil {
				return fmt.Errorf("size %d iteration %d: %w", size, it, err)
			}
		}
		if rank == 0 {
			rows[i] = cfg.row(size, n, c.Wtime().Sub(start))
		}
		sizeDone(size)
	}
	return nil
}

// portalsRank is the program of a rank over raw Portals: persistent memory descriptors
// created before the timed loop of each size; the target's match entry accepts every
// put at offset 0 (the OSU tests reuse one buffer).
func portalsRank(pr *portals3.Process, cfg Config, rank int, peer ptl.ProcessID, rows []Row, sizeDone func(int64)) error {
	maxSize := uint64(cfg.Ack)
	for _, s := range cfg.Sizes {
		maxSize = max(maxSize, uint64(s))
	}
	eq, err := pr.EQAlloc(4 * (cfg.Window + 16))
	if err != nil {
		return err
	}
	me, err := pr.MEAttach(osuPt, ptl.MatchAny(), 0, ^ptl.MatchBits(0), ptl.Retain, ptl.InsAfter)
	if err != nil {
		return err
	}
	if _, err := pr.MDAttach(me, ptl.MD{Start: recvBuf, Length: max(maxSize, 1), Threshold: ptl.ThreshInf,
		Options: ptl.MDOpPut | ptl.MDManageRemote | ptl.MDTruncate | ptl.MDEventStartDisable, EQ: eq}, ptl.Retain); err != nil {
		return err
	}
	ack, err := pr.MDBind(ptl.MD{Start: ackBuf, Length: uint64(cfg.Ack), Threshold: ptl.ThreshInf,
		Options: ptl.MDEventStartDisable, EQ: eq}, ptl.Retain)
	if err != nil {
		return err
	}
	w := &waiter{pr: pr, eq: eq}
	for i, size := range cfg.Sizes {
		md, err := pr.MDBind(ptl.MD{Start: sendBuf, Length: uint64(size), Threshold: ptl.ThreshInf,
			Options: ptl.MDEventStartDisable, EQ: eq}, ptl.Retain)
		if err != nil {
			return err
		}
		n, warm := cfg.iters(size)
		var start actors.Time
		for it := range warm + n {
			if it == warm {
				start = pr.Now()
			}
			if err := portalsIteration(pr, cfg, rank, md, ack, peer, w); err != nil {
				return fmt.Errorf("size %d iteration %d: %w", size, it, err)
			}
		}
		elapsed := pr.Now().Sub(start)
		if err := w.sent(0); err != nil { // the last sends' events, before the MD goes
			return err
		}
		if err := pr.MDUnlink(md); err != nil {
			return err
		}
		if rank == 0 {
			rows[i] = cfg.row(size, n, elapsed)
		}
		sizeDone(size)
	}
	return w.sent(0)
}

// waiter counts the events of a rank's queue: puts that arrived and sends that left.
type waiter struct {
	pr      *portals3.Process
	eq      ptl.EQHandle
	puts    int // PUT_END not yet consumed by a wait
	sending int // puts initiated whose SEND_END has not been seen
}

// put starts a put and counts it.
func (w *waiter) put(md ptl.MDHandle, peer ptl.ProcessID) error {
	w.sending++
	return w.pr.Put(md, ptl.NoAckReq, peer, osuPt, 0, 0, 0)
}

// next takes one event.
func (w *waiter) next() error {
	ev, err := w.pr.EQWait(w.eq)
	if err != nil {
		return err
	}
	switch ev.Type {
	case ptl.EventPutEnd:
		w.puts++
	case ptl.EventSendEnd:
		w.sending--
	}
	return nil
}

// arrived waits until n puts have arrived and consumes them.
func (w *waiter) arrived(n int) error {
	for w.puts < n {
		if err := w.next(); err != nil {
			return err
		}
	}
	w.puts -= n
	return nil
}

// sent waits until at most n sends are still leaving.
func (w *waiter) sent(n int) error {
	for w.sending > n {
		if err := w.next(); err != nil {
			return err
		}
	}
	return nil
}

// portalsIteration is one timed step of a rank over raw Portals.
func portalsIteration(pr *portals3.Process, cfg Config, rank int, md, ack ptl.MDHandle, peer ptl.ProcessID, w *waiter) error {
	switch {
	case cfg.Bench == Latency && rank == 0:
		if err := w.put(md, peer); err != nil {
			return err
		}
		return w.arrived(1)
	case cfg.Bench == Latency:
		if err := w.arrived(1); err != nil {
			return err
		}
		return w.put(md, peer)
	case rank == 0: // bw, mr: the sender puts a window back to back, waits for it to leave and for the ack
		for range cfg.Window {
			if err := w.put(md, peer); err != nil {
				return err
			}
		}
		if err := w.sent(0); err != nil {
			return err
		}
		return w.arrived(1)
	default:
		if err := w.arrived(cfg.Window); err != nil {
			return err
		}
		return w.put(ack, peer)
	}
}
