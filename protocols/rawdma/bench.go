package rawdma

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/host"
	"github.com/seastar-sim/seastar/machine"
	"github.com/seastar-sim/seastar/ppc"
	"github.com/seastar-sim/seastar/router"
)

// Config is a raw DMA benchmark.
type Config struct {
	Machine machine.Params // block parameters; the topology is chosen by the benchmark
	Costs   Costs
	Size    int64 // message payload bytes
	Hops    int   // distance between the two nodes of pingpong and stream
	Iters   int   // timed round trips (pingpong) or messages per sender (stream, fanin)
	Warmup  int   // untimed round trips before pingpong's timed ones
	Window  int   // messages in flight per sender
	Senders int   // fanin: nodes sending to node 0 at once
}

// DefaultConfig returns a two-node, one-hop configuration on the redstorm preset.
func DefaultConfig() Config {
	return Config{Machine: machine.Default(), Costs: DefaultCosts(), Hops: 1, Iters: 100, Warmup: 10, Window: 8, Senders: 2}
}

// Validate checks the benchmark settings.
func (c Config) Validate() error {
	switch {
	case c.Size < 0:
		return fmt.Errorf("size must be >= 0 (got %d)", c.Size)
	case c.Hops < 1:
		return fmt.Errorf("hops must be >= 1 (got %d)", c.Hops)
	case c.Iters < 1:
		return fmt.Errorf("iters must be >= 1 (got %d)", c.Iters)
	case c.Warmup < 0:
		return fmt.Errorf("warmup must be >= 0 (got %d)", c.Warmup)
	case c.Window < 1 || c.Window*CommandsPerMessage > c.Machine.TXDMA.CommandsMax:
		return fmt.Errorf("window must be in 1..%d so that its commands fit the TX FIFO (got %d)",
			c.Machine.TXDMA.CommandsMax/CommandsPerMessage, c.Window)
	case c.Senders < 1:
		return fmt.Errorf("senders must be >= 1 (got %d)", c.Senders)
	}
	return c.Costs.Validate()
}

// Result is the outcome of one benchmark run.
type Result struct {
	Latency   actors.Duration // pingpong: one-way, round trip / 2
	Bandwidth float64         // bytes per second: stream per pair, fanin aggregate
	Shares    []float64       // fanin: each sender's fraction of the delivered bytes during the contended phase
	Fairness  float64         // fanin: Jain's index of Shares (1 = perfectly fair)
	Receiver  ReceiverStats
	Report    *actors.Report
}

// ReceiverStats are the receiving node's RX statistics.
type ReceiverStats struct {
	CAMPeak      int             // most CAM entries in use
	CAMStalls    int64           // RX pipeline stalls on the CAM
	CAMStallTime actors.Duration // time the RX pipeline waited on the CAM
	WaitingPeak  int             // most sources waiting for a CAM entry
	Messages     int64
}

// build checks cfg and makes a machine with topology dims and wrap and the raw
// firmware on every node.
func build(cfg Config, dims, wrap string) (*actors.Graph, *machine.Machine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	p := cfg.Machine
	p.Torus, p.Wrap = dims, wrap
	g := actors.NewGraph()
	m, err := machine.Build(g, p, func(id router.NodeID) ppc.Firmware {
		return NewFirmware(id, cfg.Costs, p.CAM, p.TXDMA.CRCBytes)
	})
	return g, m, err
}

// buildLine builds the line of Hops+1 nodes of PingPong and Stream, between node 0
// and node Hops.
func buildLine(cfg Config) (*actors.Graph, *machine.Machine, error) {
	return build(cfg, fmt.Sprintf("%dx1x1", cfg.Hops+1), "mesh")
}

func spawn(n *machine.Node, name string, prog host.Program) error {
	_, err := n.Host.Spawn(name, 0, prog)
	return err
}

func run(ctx context.Context, g *actors.Graph, m *machine.Machine, opts actors.Options, rx router.NodeID) (*Result, error) {
	n := m.Nodes[rx]
	fw := n.PPC.Firmware().(*Firmware)
	g.Export(n.CAMName(), actors.Vars{&n.CAM.Stats})
	g.Export(n.PPCName(), actors.Vars{&fw.Stats})
	model, err := g.Build()
	if err != nil {
		return nil, err
	}
	rep, err := actors.Run(ctx, model, opts)
	var se *actors.SimError
	if err != nil && !errors.As(err, &se) {
		return nil, err
	}
	// After a simulation error the receiver's statistics still say what happened.
	return &Result{Report: rep, Receiver: ReceiverStats{CAMPeak: n.CAM.Stats.PeakInUse, CAMStalls: n.CAM.Stats.Stalls,
		CAMStallTime: n.CAM.Stats.StallTime, WaitingPeak: fw.Stats.PeakWaiting, Messages: fw.Stats.Messages}}, err
}

// Each benchmark returns its result with a simulation error too (a node panicked), so
// that the statistics of what happened before are not lost.

// PingPong measures the one-way latency between node 0 and the node Hops away on a
// line of Hops+1 nodes: round trips of Size-byte messages, half the mean round trip.
func PingPong(ctx context.Context, cfg Config, opts actors.Options) (*Result, error) {
	g, m, err := buildLine(cfg)
	if err != nil {
		return nil, err
	}
	a, b := router.NodeID(0), router.NodeID(cfg.Hops)
	var start, end actors.Time
	err = spawn(m.Nodes[a], "ping", func(p *host.Proc) {
		e := NewEndpoint(p, a, cfg.Window)
		for i := range cfg.Warmup + cfg.Iters {
			if i == cfg.Warmup {
				start = p.Now()
			}
			e.Send(b, cfg.Size)
			if got := e.Recv(); got.Src != b {
				p.Fatalf("pong from node %d, want %d", got.Src, b)
			}
		}
		end = p.Now()
		e.Drain()
	})
	if err == nil {
		err = spawn(m.Nodes[b], "pong", func(p *host.Proc) {
			e := NewEndpoint(p, b, cfg.Window)
			for range cfg.Warmup + cfg.Iters {
				e.Recv()
				e.Send(a, cfg.Size)
			}
			e.Drain()
		})
	}
	if err != nil {
		return nil, err
	}
	m.ExportHost(g, a, &start, &end)
	res, err := run(ctx, g, m, opts, b)
	if err != nil {
		return res, err
	}
	res.Latency = end.Sub(start) / actors.Duration(2*cfg.Iters)
	return res, nil
}

// Stream measures the bandwidth from node 0 to the node Hops away: Iters messages of
// Size bytes sent back to back (Window in flight), from the first send to the last
// arrival.
func Stream(ctx context.Context, cfg Config, opts actors.Options) (*Result, error) {
	g, m, err := buildLine(cfg)
	if err != nil {
		return nil, err
	}
	a, b := router.NodeID(0), router.NodeID(cfg.Hops)
	var start, end actors.Time
	err = spawn(m.Nodes[a], "source", func(p *host.Proc) {
		e := NewEndpoint(p, a, cfg.Window)
		start = p.Now()
		for range cfg.Iters {
			e.Send(b, cfg.Size)
		}
		e.Drain()
	})
	if err == nil {
		err = spawn(m.Nodes[b], "sink", func(p *host.Proc) {
			e := NewEndpoint(p, b, cfg.Window)
			for range cfg.Iters {
				e.Recv()
			}
			end = p.Now()
		})
	}
	if err != nil {
		return nil, err
	}
	m.ExportHost(g, a, &start)
	m.ExportHost(g, b, &end)
	res, err := run(ctx, g, m, opts, b)
	if err != nil {
		return res, err
	}
	res.Bandwidth = float64(cfg.Iters) * float64(cfg.Size) / end.Sub(start).Seconds()
	return res, nil
}

// FanIn has Senders nodes each send Iters messages of Size bytes to node 0 at once, on
// the smallest cubic torus that holds them. It reports the aggregate bandwidth and each
// sender's share of the bytes delivered while every sender was still sending; with
// more senders than CAM entries, sources wait for entries and the RX pipeline stalls.
func FanIn(ctx context.Context, cfg Config, opts actors.Options) (*Result, error) {
	k := int(math.Ceil(math.Cbrt(float64(cfg.Senders + 1))))
	for k*k*k < cfg.Senders+1 {
		k++
	}
	g, m, err := build(cfg, fmt.Sprintf("%dx%dx%d", k, k, k), "torus")
	if err != nil {
		return nil, err
	}
	var start, firstDone, end actors.Time
	got := make([]int64, cfg.Senders+1)  // bytes received per source, until the first sender completed
	done := make([]int64, cfg.Senders+1) // messages received per source
	err = spawn(m.Nodes[0], "sink", func(p *host.Proc) {
		e := NewEndpoint(p, 0, cfg.Window)
		for range cfg.Senders * cfg.Iters {
			msg := e.Recv()
			if firstDone == 0 {
				got[msg.Src] += max(msg.Len, 1) // count zero-byte messages too
			}
			done[msg.Src]++
			if done[msg.Src] == int64(cfg.Iters) && firstDone == 0 {
				firstDone = p.Now()
			}
		}
		end = p.Now()
	})
	for s := 1; s <= cfg.Senders && err == nil; s++ {
		src := router.NodeID(s)
		err = spawn(m.Nodes[src], "source", func(p *host.Proc) {
			e := NewEndpoint(p, src, cfg.Window)
			for range cfg.Iters {
				e.Send(0, cfg.Size)
			}
			e.Drain()
		})
	}
	if err != nil {
		return nil, err
	}
	m.ExportHost(g, 0, &start, &firstDone, &end, &got, &done)
	res, err := run(ctx, g, m, opts, 0)
	if err != nil {
		return res, err
	}
	res.Bandwidth = float64(cfg.Senders*cfg.Iters) * float64(cfg.Size) / end.Sub(start).Seconds()
	var total float64
	for _, b := range got[1:] {
		total += float64(b)
	}
	var sum, sq float64
	for _, b := range got[1:] {
		share := float64(b) / total
		res.Shares = append(res.Shares, share)
		sum += share
		sq += share * share
	}
	res.Fairness = sum * sum / (float64(len(res.Shares)) * sq)
	return res, nil
}
