package cci

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/machine"
	"github.com/seastar-sim/seastar/ppc"
	"github.com/seastar-sim/seastar/router"
)

// Build adds a machine running CCI on every node to g: the CCI firmware on each PPC
// and the CCI stack (kernel driver and library) on each host.
func Build(g *actors.Graph, mp machine.Params, p Params) (*machine.Machine, []*Stack, error) {
	if err := p.Validate(); err != nil {
		return nil, nil, fmt.Errorf("cci.%w", err)
	}
	switch {
	case p.HeaderBytes > mp.TXDMA.PIOBufferBytes:
		return nil, nil, fmt.Errorf("cci: header_bytes (%s) must fit the PIO buffer (%s): the NIC sends its acks with PIO",
			p.HeaderBytes, mp.TXDMA.PIOBufferBytes)
	case p.RMAFragment > mp.CAM.CommandMax:
		return nil, nil, fmt.Errorf("cci: rma_fragment (%s) must fit one RX command (cam.command_max %s)", p.RMAFragment, mp.CAM.CommandMax)
	case p.HeaderBytes+p.MSS+mp.TXDMA.CRCBytes > mp.CAM.CommandMax:
		return nil, nil, fmt.Errorf("cci: a full-size message must fit one RX command (cam.command_max %s)", mp.CAM.CommandMax)
	}
	m, err := machine.Build(g, mp, func(id router.NodeID) ppc.Firmware {
		return NewFirmware(id, p, mp.CAM, mp.TXDMA, int64(mp.TXDMA.PacketPayload))
	})
	if err != nil {
		return nil, nil, err
	}
	stacks := make([]*Stack, len(m.Nodes))
	for i, n := range m.Nodes {
		stacks[i] = NewStack(p, n.ID, n.Host)
	}
	return m, stacks, nil
}

// BenchConfig is a CCI benchmark between two nodes one hop apart (Dillow & Atchley
// 2011 s.V: two compute nodes adjacent on a module).
type BenchConfig struct {
	Machine machine.Params // block parameters; the benchmark picks the topology
	CCI     Params
	Attr    Attr
	Size    int64 // message bytes
	Iters   int   // timed round trips (ping-pong) or messages (stream)
	Warmup  int   // untimed round trips or messages before them
	Window  int   // stream: messages in flight
	RMA     bool  // stream: RMA writes of Size bytes instead of messages (reliable connections)
}

// DefaultBenchConfig returns the benchmarks on the xt5 preset.
func DefaultBenchConfig() BenchConfig {
	mp, _ := machine.Preset("xt5")
	return BenchConfig{Machine: mp, CCI: DefaultParams(), Attr: UU, Iters: 100, Warmup: 10, Window: 16}
}

// Validate checks the settings.
func (c BenchConfig) Validate() error {
	switch {
	case c.RMA && (c.Size < 1 || !c.Attr.Reliable()):
		return fmt.Errorf("cci: RMA needs a reliable connection (ru, ro) and a size >= 1B (got %s, %dB)", c.Attr, c.Size)
	case !c.RMA && (c.Size < 0 || c.Size > int64(c.CCI.MSS)):
		return fmt.Errorf("cci: size %dB outside 0..mss (%s); larger transfers use RMA", c.Size, c.CCI.MSS)
	case c.Attr > RO:
		return fmt.Errorf("cci: unknown connection type %d", c.Attr)
	case c.Iters < 1:
		return fmt.Errorf("cci: iters must be >= 1 (got %d)", c.Iters)
	case c.Warmup < 0:
		return fmt.Errorf("cci: warmup must be >= 0 (got %d)", c.Warmup)
	case c.Window < 1:
		return fmt.Errorf("cci: window must be >= 1 (got %d)", c.Window)
	}
	return c.CCI.Validate()
}

// BenchResult is the outcome of one benchmark run.
type BenchResult struct {
	Latency   actors.Duration // ping-pong: one way, elapsed / iterations / 2
	Bandwidth float64         // stream: payload bytes per second at the receiver
	MsgRate   float64         // stream: messages per second at the receiver
	Window    int             // stream: messages in flight
	Report    *actors.Report
	SenderPPC ppc.Stats // the client's node
	RecvPPC   ppc.Stats // the server's node
	Sender    FirmwareStats
	Receiver  FirmwareStats
	Client    EndpointStats
	Server    EndpointStats
}

// pair is a benchmark's two processes: a client on node 0 connects to endpoint 0 of a
// server on node 1.
type pair struct {
	cfg     BenchConfig
	g       *actors.Graph
	m       *machine.Machine
	stacks  []*Stack
	cl, srv *Endpoint
	// the endpoints' statistics as exported from the process that ran their node
	clStats, srvStats epExport
}

// epExport carries an endpoint's statistics from the process that ran its node to
// the others, where the endpoint was never opened.
type epExport struct {
	ep    **Endpoint
	stats EndpointStats
}

func (x *epExport) Snapshot(e *actors.Encoder) {
	if *x.ep != nil {
		x.stats = (*x.ep).Stats
	}
	actors.Vars{&x.stats}.Snapshot(e)
}

func (x *epExport) Restore(d *actors.Decoder) { actors.Vars{&x.stats}.Restore(d) }

// of returns the endpoint's statistics: its own where it ran, else the exported ones.
func (x *epExport) of() EndpointStats {
	if *x.ep != nil {
		return (*x.ep).Stats
	}
	return x.stats
}

func newPair(cfg BenchConfig) (*pair, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	mp := cfg.Machine
	mp.Torus, mp.Wrap = "2x1x1", "mesh"
	g := actors.NewGraph()
	m, stacks, err := Build(g, mp, cfg.CCI)
	if err != nil {
		return nil, err
	}
	return &pair{cfg: cfg, g: g, m: m, stacks: stacks}, nil
}

// connect opens the client's endpoint and connects it to the server's endpoint 0.
func (b *pair) connect(pr *Process) (*Endpoint, *Conn, error) {
	ep, err := pr.Open()
	if err != nil {
		return nil, nil, err
	}
	b.cl = ep
	c, err := Dial(ep, 1, 0, b.cfg.Attr, Size(0))
	return ep, c, err
}

// accept opens the server's endpoint and accepts one connection.
func (b *pair) accept(pr *Process) (*Endpoint, *Conn, error) {
	ep, err := pr.Open()
	if err != nil {
		return nil, nil, err
	}
	b.srv = ep
	c, err := AcceptOne(ep)
	return ep, c, err
}

// Dial connects ep to endpoint epID of node and waits for the outcome, retrying every
// 10 us while the peer's NIC refuses (its endpoint is not open yet), up to 100 times.
// Other events that arrive meanwhile are returned.
func Dial(ep *Endpoint, node router.NodeID, epID int, a Attr, data Payload) (*Conn, error) {
	for try := 0; ; try++ {
		if err := ep.Connect(node, epID, data, a, nil); err != nil {
			return nil, err
		}
		for {
			ev, err := ep.WaitEvent()
			if err != nil {
				return nil, err
			}
			t, st, c := ev.Type, ev.Status, ev.Conn
			ep.ReturnEvent(ev)
			if t != EvConnect {
				continue
			}
			switch {
			case st == OK:
				return c, nil
			case st != ErrRefused || try == 100:
				return nil, fmt.Errorf("cci: connect to node %d endpoint %d: %w", node, epID, st)
			}
			break
		}
		ep.p.Compute(10 * actors.Microsecond)
	}
}

// AcceptOne waits for a connection request on ep, accepts it and waits until the
// acceptance completes.
func AcceptOne(ep *Endpoint) (*Conn, error) {
	var c *Conn
	for {
		ev, err := ep.WaitEvent()
		if err != nil {
			return nil, err
		}
		switch ev.Type {
		case EvConnectRequest:
			if c, err = ep.Accept(ev, nil); err != nil {
				return nil, err
			}
		case EvAccept:
			if ev.Status != OK {
				return nil, fmt.Errorf("cci: accept: %w", ev.Status)
			}
			ep.ReturnEvent(ev)
			return c, nil
		}
		ep.ReturnEvent(ev)
	}
}

// recv waits for the next received message, returning the other events on the way.
func recv(ep *Endpoint) error {
	for {
		ev, err := ep.WaitEvent()
		if err != nil {
			return err
		}
		t, st := ev.Type, ev.Status
		ep.ReturnEvent(ev)
		switch {
		case t == EvRecv:
			return nil
		case st != OK:
			return fmt.Errorf("cci: %s event: %w", t, st)
		}
	}
}

// awaitOps returns events until ep has no operation outstanding (the completions of
// its last sends).
func awaitOps(ep *Endpoint) error {
	for len(ep.ops) > 0 {
		ev, err := ep.WaitEvent()
		if err != nil {
			return err
		}
		ep.ReturnEvent(ev)
	}
	return nil
}

// must ends a benchmark process on an error.
func must(pr *Process, err error) {
	if err != nil {
		pr.p.Fatalf("%v", err)
	}
}

// run runs the model; after a simulation error the statistics gathered so far are
// still returned.
func (b *pair) run(ctx context.Context, opts actors.Options) (*BenchResult, error) {
	for _, n := range b.m.Nodes {
		b.g.Export(n.PPCName(), actors.Vars{&n.PPC.Firmware().(*Firmware).Stats, &n.PPC.Stats})
	}
	b.clStats.ep, b.srvStats.ep = &b.cl, &b.srv
	b.g.Export(b.m.Nodes[0].HostName(), &b.clStats)
	b.g.Export(b.m.Nodes[1].HostName(), &b.srvStats)
	model, err := b.g.Build()
	if err != nil {
		return nil, err
	}
	rep, err := actors.Run(ctx, model, opts)
	var se *actors.SimError
	if err != nil && !errors.As(err, &se) {
		return nil, err
	}
	r := &BenchResult{Report: rep, Sender: b.m.Nodes[0].PPC.Firmware().(*Firmware).Stats,
		Receiver: b.m.Nodes[1].PPC.Firmware().(*Firmware).Stats, SenderPPC: b.m.Nodes[0].PPC.Stats,
		RecvPPC: b.m.Nodes[1].PPC.Stats, Client: b.clStats.of(), Server: b.srvStats.of()}
	return r, err
}

// PingPong measures latency (docs/design.md s.5; Dillow & Atchley 2011 s.V.A): the client sends a
// message of Size bytes, the server sends it back on receipt; one-way latency is the
// elapsed time of the timed round trips / iterations / 2.
func PingPong(ctx context.Context, cfg BenchConfig, opts actors.Options) (*BenchResult, error) {
	b, err := newPair(cfg)
	if err != nil {
		return nil, err
	}
	var start, end actors.Time
	b.m.ExportHost(b.g, 0, &start, &end)
	n := cfg.Warmup + cfg.Iters
	err = b.stacks[0].Spawn("cci-ping", 0, func(pr *Process) {
		ep, c, err := b.connect(pr)
		must(pr, err)
		for i := range n {
			if i == cfg.Warmup {
				start = pr.Now()
			}
			must(pr, ep.Send(c, Size(cfg.Size), nil))
			must(pr, recv(ep))
		}
		end = pr.Now()
	})
	if err == nil {
		err = b.stacks[1].Spawn("cci-pong", 0, func(pr *Process) {
			ep, c, err := b.accept(pr)
			must(pr, err)
			for range n {
				must(pr, recv(ep))
				must(pr, ep.Send(c, Size(cfg.Size), nil))
			}
			must(pr, awaitOps(ep))
		})
	}
	if err != nil {
		return nil, err
	}
	res, err := b.run(ctx, opts)
	if err != nil {
		return res, err
	}
	if end == 0 {
		return res, fmt.Errorf("cci: ping-pong did not complete")
	}
	res.Latency = end.Sub(start) / actors.Duration(2*cfg.Iters)
	return res, nil
}

// Stream measures bandwidth and message rate (docs/design.md s.5; Dillow & Atchley 2011 s.V.B):
// the client keeps Window messages in flight (a new send as each completes), the
// server counts arrivals; the rates are taken at the server between the arrival of the
// last warm-up message and of the last message. With RMA, see streamRMA.
func Stream(ctx context.Context, cfg BenchConfig, opts actors.Options) (*BenchResult, error) {
	if cfg.RMA {
		return streamRMA(ctx, cfg, opts)
	}
	b, err := newPair(cfg)
	if err != nil {
		return nil, err
	}
	n := cfg.Warmup + cfg.Iters
	var first, start, end actors.Time // first: the source's first send; the others at the sink
	got := 0
	b.m.ExportHost(b.g, 0, &first)
	b.m.ExportHost(b.g, 1, &start, &end, &got)
	err = b.stacks[0].Spawn("cci-source", 0, func(pr *Process) {
		ep, c, err := b.connect(pr)
		must(pr, err)
		first = pr.Now()
		inflight := 0
		for sent := 0; sent < n || inflight > 0; {
			if sent < n && inflight < cfg.Window {
				err := ep.Send(c, Size(cfg.Size), nil)
				if err == nil {
					sent++
					inflight++
					continue
				}
				if !errors.Is(err, ErrNoBuffers) {
					pr.p.Fatalf("%v", err)
				}
			}
			ev, err := ep.WaitEvent()
			must(pr, err)
			if ev.Type == EvSend {
				if ev.Status != OK {
					pr.p.Fatalf("send: %v", ev.Status)
				}
				inflight--
			}
			ep.ReturnEvent(ev)
		}
	})
	if err == nil {
		err = b.stacks[1].Spawn("cci-sink", 0, func(pr *Process) {
			ep, _, err := b.accept(pr)
			must(pr, err)
			for got < n {
				must(pr, recv(ep))
				got++
				if got == cfg.Warmup && cfg.Warmup > 0 {
					start = pr.Now()
				}
			}
			end = pr.Now()
		})
	}
	if err != nil {
		return nil, err
	}
	res, err := b.run(ctx, opts)
	if err != nil {
		return res, err
	}
	res.Window = cfg.Window
	if got < n {
		return res, fmt.Errorf("cci: stream: %d of %d messages arrived (%d unreliable messages dropped by the receiving NIC for lack of resources)",
			got, n, res.Receiver.DroppedUU)
	}
	res.setRates(cfg, first, start, end)
	return res, nil
}

// setRates sets the rates of a stream of cfg.Iters timed transfers of cfg.Size bytes
// that ended at end. They started at start, or without warm-up at first.
func (r *BenchResult) setRates(cfg BenchConfig, first, start, end actors.Time) {
	if cfg.Warmup == 0 {
		start = first
	}
	el := end.Sub(start).Seconds()
	r.MsgRate = float64(cfg.Iters) / el
	r.Bandwidth = float64(cfg.Iters) * float64(cfg.Size) / el
}

// streamRMA is Stream with RMA writes: the server registers a region of Size bytes and
// sends its handle in a message; the client keeps Window writes of Size bytes from its
// own region in flight. The target's host takes no part, so the rates are taken at the
// client, between the completion of the last warm-up write and of the last write.
func streamRMA(ctx context.Context, cfg BenchConfig, opts actors.Options) (*BenchResult, error) {
	b, err := newPair(cfg)
	if err != nil {
		return nil, err
	}
	n := cfg.Warmup + cfg.Iters
	var first, start, end actors.Time
	done := 0
	b.m.ExportHost(b.g, 0, &first, &start, &end, &done)
	err = b.stacks[0].Spawn("cci-rma-source", 0, func(pr *Process) {
		ep, c, err := b.connect(pr)
		must(pr, err)
		local, err := registerRetry(pr, ep, cfg.Size, AccessRead)
		must(pr, err)
		var remote Handle
		for remote.Key == 0 { // the server's handle, in its first message
			ev, err := ep.WaitEvent()
			must(pr, err)
			if ev.Type == EvRecv && len(ev.Data) == 8 {
				remote = Handle{Index: binary.LittleEndian.Uint32(ev.Data), Key: binary.LittleEndian.Uint32(ev.Data[4:])}
			}
			ep.ReturnEvent(ev)
		}
		first = pr.Now()
		inflight, issued := 0, 0
		for done < n {
			if issued < n && inflight < cfg.Window {
				must(pr, ep.RMA(c, nil, local, 0, remote, 0, cfg.Size, RMAWrite, nil))
				issued++
				inflight++
				continue
			}
			ev, err := ep.WaitEvent()
			must(pr, err)
			if ev.Type == EvSend {
				if ev.Status != OK {
					pr.p.Fatalf("rma: %v", ev.Status)
				}
				inflight--
				done++
				if done == cfg.Warmup {
					start = pr.Now()
				}
			}
			ep.ReturnEvent(ev)
		}
		end = pr.Now()
		must(pr, ep.Send(c, Size(0), nil)) // the server may stop
		must(pr, awaitOps(ep))
	})
	if err == nil {
		err = b.stacks[1].Spawn("cci-rma-sink", 0, func(pr *Process) {
			ep, c, err := b.accept(pr)
			must(pr, err)
			h, err := registerRetry(pr, ep, cfg.Size, AccessWrite)
			must(pr, err)
			msg := make([]byte, 8)
			binary.LittleEndian.PutUint32(msg, h.Index)
			binary.LittleEndian.PutUint32(msg[4:], h.Key)
			must(pr, ep.Send(c, Bytes(msg), nil))
			must(pr, recv(ep))
		})
	}
	if err != nil {
		return nil, err
	}
	res, err := b.run(ctx, opts)
	if err != nil {
		return res, err
	}
	res.Window = cfg.Window
	if done < n {
		return res, fmt.Errorf("cci: rma stream: %d of %d writes completed", done, n)
	}
	res.setRates(cfg, first, start, end)
	return res, nil
}

// The benchmark application's answer to a registration the kernel could not pin
// (host.pin_fail_rate): wait registerBackoff and try again, at most registerTries
// times. Both assumed: the paper's benchmarks register once and never fail.
const (
	registerTries   = 100
	registerBackoff = 10 * actors.Microsecond
)

// registerRetry registers n bytes, trying again after registerBackoff while the kernel
// cannot pin the pages, as an application would.
func registerRetry(pr *Process, ep *Endpoint, n int64, acc Access) (Handle, error) {
	var err error
	for range registerTries {
		var h Handle
		if h, err = ep.Register(n, nil, acc); !errors.Is(err, ErrNoMem) {
			return h, err
		}
		pr.p.Compute(registerBackoff)
	}
	return Handle{}, err
}
