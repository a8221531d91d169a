package portals3

import (
	"context"
	"errors"
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/machine"
	"github.com/seastar-sim/seastar/protocols/portals3/ptl"
)

// NetPIPE over Portals (Brightwell et al. 2005 s.5.2; Snell et al. 1996): a ping-pong
// and a streaming test over a perturbed geometric schedule of sizes. The receive MD is
// created once per size (per round) and not timed.

// NetPIPEMode is a NetPIPE test.
type NetPIPEMode string

// NetPIPE tests.
const (
	NetPIPEPingPong NetPIPEMode = "pingpong" // one-way latency = round trip / 2
	NetPIPEStream   NetPIPEMode = "stream"   // back-to-back puts, Window in flight, one reply at the end
	// NetPIPEBidir is NetPIPE's bidirectional test (-2): both ranks put at once and each
	// waits for its own send to end and the other's put to arrive; latency = time per
	// exchange, bandwidth = the bytes of both directions over it (NetPIPE counts the
	// total data transferred: Brightwell et al. 2005 s.5.2, the 24-byte cross-over).
	NetPIPEBidir NetPIPEMode = "bidir"
)

// ParseNetPIPEMode parses pingpong, stream or bidir.
func ParseNetPIPEMode(s string) (NetPIPEMode, error) {
	switch NetPIPEMode(s) {
	case NetPIPEPingPong, NetPIPEStream, NetPIPEBidir:
		return NetPIPEMode(s), nil
	}
	return "", fmt.Errorf("unknown NetPIPE mode %q (want pingpong, stream or bidir)", s)
}

// NetPIPESizes is NetPIPE's schedule from start to end: the increment doubles every
// other step (1, 2, 3, 4, 6, 8, 12, 16, 24, ...), and once it exceeds the
// perturbation plus one, each size is also tested perturbation bytes below and above
// (NetPIPE 3.x, the -p option; 3 by default).
func NetPIPESizes(start, end, perturbation int64) []int64 {
	if start < 1 || end < start || perturbation < 0 {
		return nil
	}
	inc, nq := int64(1), 0
	if start > 1 {
		inc, nq = start/2, 1
	}
	var out []int64
	for n := start; n <= end; n, nq = n+inc, nq+1 {
		if nq > 2 && nq%2 != 0 {
			inc += inc
		}
		step, p := perturbation+1, int64(0)
		if perturbation > 0 && inc > perturbation+1 {
			step, p = perturbation, -perturbation
		}
		for ; p <= perturbation; p += step {
			out = append(out, n+p)
		}
	}
	return out
}

// NetPIPEConfig is a NetPIPE run between two nodes one hop apart.
type NetPIPEConfig struct {
	Machine machine.Params
	Portals Params
	Bridge  Bridge
	Mode    NetPIPEMode
	Sizes   []int64      // the schedule (NetPIPESizes)
	Iters   int          // repetitions per size at most
	Min     int          // repetitions per size at least
	Budget  actors.Bytes // repetitions of a size are capped to Budget/size (at least Min)
	Warmup  int          // untimed round trips per size (ping-pong)
	Window  int          // stream: puts in flight
	Ack     bool         // puts ask for an ack; a streaming sender counts a put done at its ACK
}

// DefaultNetPIPEConfig returns NetPIPE's defaults: ping-pong, 1 B to 1 MB perturbed by
// 3 bytes, on two Catamount nodes.
func DefaultNetPIPEConfig() NetPIPEConfig {
	return NetPIPEConfig{Machine: machine.Default(), Portals: DefaultParams(), Bridge: QKBridge, Mode: NetPIPEPingPong,
		Sizes: NetPIPESizes(1, 1<<20, 3), Iters: 100, Min: 4, Budget: actors.MiB, Warmup: 1, Window: 64}
}

// Validate checks the settings.
func (c NetPIPEConfig) Validate() error {
	if err := validateSizes("netpipe", c.Sizes); err != nil {
		return err
	}
	switch {
	case c.Iters < 1 || c.Min < 1 || c.Min > c.Iters:
		return fmt.Errorf("netpipe: need 1 <= min repetitions (%d) <= repetitions (%d)", c.Min, c.Iters)
	case c.Warmup < 0:
		return fmt.Errorf("netpipe: warmup must be >= 0 (got %d)", c.Warmup)
	case c.Window < 1:
		return fmt.Errorf("netpipe: window must be >= 1 (got %d)", c.Window)
	case c.Budget < 0:
		return fmt.Errorf("netpipe: budget must be >= 0 (got %s)", c.Budget)
	}
	if _, err := ParseNetPIPEMode(string(c.Mode)); err != nil {
		return err
	}
	_, err := ParseBridge(string(c.Bridge))
	return err
}

func (c NetPIPEConfig) repeats(size int64) int { return budgetIters(c.Iters, c.Min, c.Budget, size) }

// NetPIPERow is the result for one size.
type NetPIPERow struct {
	Size      int64
	Iters     int
	Latency   actors.Duration // ping-pong: round trip / 2; stream: time per message
	Bandwidth float64         // bytes per second
	MsgRate   float64         // messages per second
}

// NetPIPEResult is a NetPIPE run.
type NetPIPEResult struct {
	Rows   []NetPIPERow
	Report *actors.Report
}

// NetPIPE runs the benchmark.
func NetPIPE(ctx context.Context, cfg NetPIPEConfig, opts actors.Options) (*NetPIPEResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rows := make([]NetPIPERow, len(cfg.Sizes))
	rep, _, _, err := runPair(ctx, cfg.Machine, cfg.Portals, cfg.Bridge, "netpipe", opts, actors.Vars{&rows},
		func(pr *Process, rank int, peer ptl.ProcessID) error {
			return netpipeRank(pr, cfg, rank, peer, rows, SizeProgress(opts.Work, rank, cfg.Sizes, cfg.repeats))
		})
	if err != nil {
		return &NetPIPEResult{Rows: rows}, err
	}
	for i, r := range rows {
		if r.Iters == 0 {
			err = errors.Join(err, fmt.Errorf("netpipe: size %d did not complete", cfg.Sizes[i]))
		}
	}
	return &NetPIPEResult{Rows: rows, Report: rep}, err
}

// Match bits of the benchmark's messages and of the ready messages.
const (
	netpipeBits = 1
	netpipeSync = 2
	syncPt      = perfPt + 1 // the ready messages' own portal: the data's match list stays one entry long
)

func netpipeRank(pr *Process, cfg NetPIPEConfig, rank int, peer ptl.ProcessID, rows []NetPIPERow, sizeDone func(int64)) error {
	// Room for every event of a round: a slow receiver may fall behind a stream by
	// more than the window, and a lost END event would stall the benchmark.
	eq, err := pr.EQAlloc(2*cfg.Iters + 4*cfg.Window + 64)
	if err != nil {
		return err
	}
	ack := ptl.NoAckReq
	if cfg.Ack {
		ack = ptl.AckReqd
	}
	// Before each round the ranks exchange zero-byte messages on a portal of their
	// own: rank 0, done with the previous round, asks; rank 1, its receive entry in
	// place, answers. Nothing of this overlaps a timed round.
	syncEQ, err := pr.EQAlloc(16)
	if err != nil {
		return err
	}
	sme, err := pr.MEAttach(syncPt, ptl.MatchAny(), netpipeSync, 0, ptl.Retain, ptl.InsAfter)
	if err != nil {
		return err
	}
	if _, err := pr.MDAttach(sme, ptl.MD{Threshold: ptl.ThreshInf, Options: ptl.MDOpPut, EQ: syncEQ}, ptl.Retain); err != nil {
		return err
	}
	syncMD, err := pr.MDBind(ptl.MD{Start: sendBuf, Threshold: ptl.ThreshInf, EQ: ptl.EQNone}, ptl.Retain)
	if err != nil {
		return err
	}
	syncSend := func() error { return pr.Put(syncMD, ptl.NoAckReq, peer, syncPt, netpipeSync, 0, 0) }
	syncWait := func() error { _, err := pr.WaitFor(syncEQ, ptl.EventPutEnd); return err }
	for i, size := range cfg.Sizes {
		me, err := pr.MEAttach(perfPt, ptl.MatchAny(), netpipeBits, 0, ptl.Retain, ptl.InsAfter)
		if err != nil {
			return err
		}
		if _, err := pr.MDAttach(me, ptl.MD{Start: recvBuf, Length: uint64(max(size, 1)), Threshold: ptl.ThreshInf,
			Options: ptl.MDOpPut | ptl.MDManageRemote, EQ: eq}, ptl.Retain); err != nil {
			return err
		}
		md, err := pr.MDBind(ptl.MD{Start: sendBuf, Length: uint64(size), Threshold: ptl.ThreshInf, EQ: eq}, ptl.Retain)
		if err != nil {
			return err
		}
		put := func() error { return pr.Put(md, ack, peer, perfPt, netpipeBits, 0, 0) }
		pingpong := func() error { return pingPong(pr, eq, rank, put) }
		if cfg.Mode == NetPIPEBidir {
			var early int
			pingpong = func() error { return exchange(pr, eq, put, cfg.Ack, &early) } // warm-up and timing alike
		}
		if rank == 0 {
			if err := syncSend(); err != nil {
				return err
			}
			if err := syncWait(); err != nil {
				return err
			}
		} else {
			if err := syncWait(); err != nil {
				return err
			}
			if err := syncSend(); err != nil {
				return err
			}
		}
		n := cfg.repeats(size)
		for range cfg.Warmup + 1 { // also lines the ranks up before the timed part
			if err := pingpong(); err != nil {
				return err
			}
		}
		start := pr.Now()
		switch {
		case cfg.Mode == NetPIPEPingPong || cfg.Mode == NetPIPEBidir:
			for range n {
				if err := pingpong(); err != nil {
					return err
				}
			}
		case rank == 0:
			if err := netpipeStream(pr, eq, n, cfg.Window, cfg.Ack, put); err != nil {
				return err
			}
		default:
			for range n {
				if _, err := pr.WaitFor(eq, ptl.EventPutEnd); err != nil {
					return err
				}
			}
			// The reply that ends the timing: a zero-byte put (NetPIPE's sync), so that
			// the bandwidth counts the stream alone.
			sync, err := pr.MDBind(ptl.MD{Start: sendBuf, Threshold: 1, EQ: ptl.EQNone}, ptl.Unlink)
			if err != nil {
				return err
			}
			if err := pr.Put(sync, ptl.NoAckReq, peer, perfPt, netpipeBits, 0, 0); err != nil {
				return err
			}
		}
		elapsed := pr.Now().Sub(start)
		if err := drain(pr, eq, md); err != nil {
			return err
		}
		if err := pr.MEUnlink(me); err != nil { // the round's receive entry and its MD
			return err
		}
		if rank == 0 {
			rows[i] = netpipeRow(cfg.Mode, size, n, elapsed)
		}
		sizeDone(size)
	}
	return nil
}

// netpipeStream sends n puts with at most window in flight, then waits for the reply.
// A put is done at its SEND_END, or at its ACK when acks are asked for.
func netpipeStream(pr *Process, eq ptl.EQHandle, n, window int, ack bool, put func() error) error {
	done := ptl.EventSendEnd
	if ack {
		done = ptl.EventAck
	}
	inflight, replied := 0, false
	for sent := 0; sent < n || !replied; {
		if sent < n && inflight < window {
			if err := put(); err != nil {
				return err
			}
			sent++
			inflight++
			continue
		}
		ev, err := pr.EQWait(eq)
		if err != nil && ptl.Code(err) != ptl.ErrEQDropped {
			return err
		}
		switch ev.Type {
		case done:
			inflight--
		case ptl.EventPutEnd:
			replied = true
		}
	}
	return nil
}

// drain waits until md has no operation in flight and unlinks it.
func drain(pr *Process, eq ptl.EQHandle, md ptl.MDHandle) error {
	for {
		err := pr.MDUnlink(md)
		if ptl.Code(err) != ptl.ErrMDInUse {
			return err
		}
		if _, err := pr.EQWait(eq); err != nil && ptl.Code(err) != ptl.ErrEQDropped {
			return err
		}
	}
}

func netpipeRow(mode NetPIPEMode, size int64, n int, elapsed actors.Duration) NetPIPERow {
	per := elapsed / actors.Duration(n)
	bytes, msgs := float64(size), 1.0
	switch mode {
	case NetPIPEPingPong:
		per /= 2
	case NetPIPEBidir:
		bytes, msgs = 2*bytes, 2 // both directions
	}
	r := NetPIPERow{Size: size, Iters: n, Latency: per}
	if s := per.Seconds(); s > 0 {
		r.Bandwidth, r.MsgRate = bytes/s, msgs/s
	}
	return r
}

// exchange is one step of a bidirectional test: put, then wait for the put's own end
// (SEND_END, or its ACK with acks) and for the peer's put to arrive (PUT_END), in
// whichever order they come. The peer's next put may arrive before this put's end
// (when the end waits for an acknowledgement, recovery=gbn): *early counts such
// PUT_ENDs, for the next steps.
func exchange(pr *Process, eq ptl.EQHandle, put func() error, ack bool, early *int) error {
	if err := put(); err != nil {
		return err
	}
	done := ptl.EventSendEnd
	if ack {
		done = ptl.EventAck
	}
	sent, got := false, *early > 0
	if got {
		*early--
	}
	for !sent || !got {
		ev, err := pr.EQWait(eq)
		if err != nil {
			return err
		}
		sent = sent || ev.Type == done
		if ev.Type == ptl.EventPutEnd {
			if got {
				*early++
			}
			got = true
		}
	}
	return nil
}
