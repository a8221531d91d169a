package traffic

import (
	"context"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/router"
)

// Result is the outcome of one traffic run. Loads are fractions of link_bandwidth
// per node; rates are per node in GB/s (10^9 B/s); everything is measured over the
// window [Warmup, Warmup+Measure).
type Result struct {
	Config Config
	Nodes  int

	Offered      float64 // requested load: Config.Load
	Generated    float64 // load the sources generated in the window, refused messages included
	Accepted     float64 // payload delivered in the window
	OfferedGBps  float64 // Offered in GB/s per node
	AcceptedGBps float64 // Accepted in GB/s per node

	// Latency of the packets created in the window, from creation (source queueing
	// included) to ejection; P50 and P99 are within 0.8% (see Histogram).
	Latency        Histogram
	LatencyMean    actors.Duration
	LatencyP50     actors.Duration
	LatencyP99     actors.Duration
	NetLatencyMean actors.Duration // from injection to ejection (no source queueing)

	Created     uint64 // packets created in the window
	Refused     uint64 // packets refused by full source queues in the window
	Measured    uint64 // packets created in the window and delivered before the end
	Undelivered uint64 // packets created in the window still in flight or queued at the end

	LinkUtilMean float64 // mean utilization of the router-to-router links
	LinkUtilMax  float64 // utilization of the busiest link

	Network router.Stats
	Events  uint64
	Digest  string
	Report  *actors.Report
}

// Run builds the network of cfg with a traffic Node per node, runs it until
// Warmup+Measure+Drain with opts (its End is overwritten) and summarizes the
// measurement window.
func Run(ctx context.Context, cfg Config, opts actors.Options) (*Result, error) {
	m, err := Build(cfg)
	if err != nil {
		return nil, err
	}
	opts.End = cfg.end()
	rep, err := actors.Run(ctx, m, opts)
	if err != nil {
		return nil, err
	}
	return summarize(cfg, m, rep), nil
}

// Build validates cfg and returns the model Run runs: the routers of cfg.Topo and a
// Node named "node[x,y,z].traffic" per node, with router statistics limited to the
// measurement window.
func Build(cfg Config) (*actors.Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	g := actors.NewGraph()
	net, err := router.BuildNetwork(g, cfg.Topo, cfg.Router, cfg.EjectCredits)
	if err != nil {
		return nil, err
	}
	net.SetStatsWindow(cfg.windowStart(), cfg.windowEnd())
	slot := cfg.Router.PacketTime()
	sh := &shared{cfg: cfg, slot: slot, slots: (int64(cfg.end()) + int64(slot) - 1) / int64(slot),
		from: cfg.windowStart(), to: cfg.windowEnd(), payload: int32(cfg.Router.PacketPayload)}
	for id := range router.NodeID(cfg.Topo.Nodes()) {
		n := &Node{sh: sh, id: id, inj: net.Injector(), queue: ring{limit: cfg.SourceQueuePackets}}
		ref := g.Add(cfg.Topo.NodeName(id)+".traffic", n)
		g.Export(ref.Name(), n) // statistics, for runs split across processes
		net.LinkNIC(g, id, ref.Port("tx"), ref.Port("rx"))
	}
	return g.Build()
}

// summarize walks the finished model's Nodes and routers in id order.
func summarize(cfg Config, m *actors.Model, rep *actors.Report) *Result {
	r := &Result{Config: cfg, Nodes: cfg.Topo.Nodes(), Offered: cfg.Load.Float64(), Events: rep.Events,
		Digest: rep.Digest, Report: rep}
	var ejected uint64
	var net actors.Duration
	for id := range actors.ActorID(m.NumActors()) {
		n, ok := m.Actor(id).(*Node)
		if !ok {
			continue
		}
		s := &n.stats
		r.Created += s.Created
		r.Refused += s.Refused
		r.Measured += s.Measured
		ejected += s.EjectedB
		net += s.NetLatency
		r.Latency.Merge(&n.lat)
	}
	r.Undelivered = r.Created - r.Measured
	r.Network = router.CollectStats(m)
	r.LinkUtilMean, r.LinkUtilMax = r.Network.UtilMean, r.Network.UtilMax
	r.LatencyMean, r.LatencyP50, r.LatencyP99 = r.Latency.Mean(), r.Latency.Quantile(0.5), r.Latency.Quantile(0.99)
	if r.Measured > 0 {
		r.NetLatencyMean = net / actors.Duration(r.Measured)
	}
	capacity := float64(cfg.Router.LinkBandwidth) * cfg.Measure.Seconds() * float64(r.Nodes) // bytes
	payload := float64(cfg.Router.PacketPayload)
	r.Generated = float64(r.Created+r.Refused) * payload / capacity
	r.Accepted = float64(ejected) / capacity
	gbps := float64(cfg.Router.LinkBandwidth) / 1e9
	r.OfferedGBps, r.AcceptedGBps = r.Offered*gbps, r.Accepted*gbps
	return r
}
