package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/internal/results"
	"github.com/seastar-sim/seastar/ppc"
	"github.com/seastar-sim/seastar/protocols/cci"
	"github.com/seastar-sim/seastar/protocols/funi"
	"github.com/seastar-sim/seastar/protocols/mpi"
	"github.com/seastar-sim/seastar/protocols/osu"
	"github.com/seastar-sim/seastar/protocols/portals3"
)

// run validate: the model against the papers in one table. Each item is a figure a
// paper reports, computed by running its benchmark at the paper's settings on the
// preset of the machine measured (redstorm for Red Storm in 2005, xt5 for the Cray XT5
// in 2010). The visible calibration targets (docs/design.md section 6) carry their
// value and the ratio; the others are withheld from the papers to judge the model,
// and the table gives the model's prediction only.

// validationIters is the timed iterations per size: the simulation is deterministic,
// so after the warm-up every iteration repeats the same timing; 20 smooth nothing and
// keep the table fast.
const validationIters = 20

// headerJump is the latency step from one size to the next that marks where the body
// leaves the header: the second interrupt and the receive command, microseconds, far
// above the nanoseconds a byte more costs.
const headerJump = actors.Microsecond / 2

// validationItem is one row of the table.
type validationItem struct {
	item, source, unit string
	target             float64 // 0: withheld (validation), no ratio
	value              float64
}

// validator computes items on the resolved configurations of both presets.
type validator struct {
	ctx         context.Context
	opts        actors.Options
	red, xt5    *Config
	sjr, arctic *Config // StarT-JR on IEEE 1394, on Arctic
	reports     []*actors.Report
	progress    func(string)
	simulation  int
}

func newValidateCmd(c *common) *cobra.Command {
	return &cobra.Command{
		Use:   "validate",
		Short: "The model against the papers: every published figure it can compute, with the visible targets and ratios",
		Long: `validate runs the benchmarks of the published figures at the papers' settings and
prints one table: the figure (item), the paper and section, the model's value and
unit, and for the visible calibration targets (docs/design.md section 6) the target and
the ratio model/target. The other figures are withheld from the papers to judge the
model: the table gives the model's prediction. Red Storm figures run on the redstorm
preset, XT5 figures (Dillow & Atchley 2011) on xt5; --set and --config apply to both,
so that a changed mechanism or cost can be seen against every figure at once. The
results directory holds the table in the common schema (docs/results.md).`,
		Example: `  run validate
  run validate --set ppc.clock=400MHz
  run validate --format csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return c.runValidate(cmd) },
	}
}

func (c *common) runValidate(cmd *cobra.Command) error {
	opts, err := c.options()
	if err != nil {
		return err
	}
	if err := c.refuseTracing("trace one benchmark with run bench"); err != nil {
		return err
	}
	if len(c.cluster.peers) > 0 {
		return usage(errors.New("--peers: run validate runs in one process"))
	}
	file, err := c.configFile()
	if err != nil {
		return err
	}
	red, tree, err := c.apply("redstorm", file, c.sets, nil, nil)
	if err != nil {
		return err
	}
	xt5, _, err := c.apply("xt5", file, c.sets, nil, nil)
	if err != nil {
		return err
	}
	sjr, _, err := c.apply("startjr", file, c.sets, nil, nil)
	if err != nil {
		return err
	}
	arc, _, err := c.apply("startjr-arctic", file, c.sets, nil, nil)
	if err != nil {
		return err
	}
	out, err := c.newOutput("validate", false)
	if err != nil {
		return err
	}
	start := time.Now()
	v := &validator{ctx: cmd.Context(), opts: opts, red: red, xt5: xt5, sjr: sjr, arctic: arc}
	if !c.quiet {
		stderr := cmd.ErrOrStderr()
		v.progress = func(item string) {
			fmt.Fprintf(stderr, "validate: %d/%d %s\n", v.simulation, validationSimulations, item)
		}
	}
	items, err := v.run()
	if err != nil {
		return failed(err)
	}
	res := &benchOutput{reports: v.reports}
	for _, it := range items {
		var r results.Row
		r.Set("item", it.item)
		r.Set("source", it.source)
		r.Set("unit", it.unit)
		r.Set("model", round6(it.value))
		if it.target != 0 {
			r.Set("target", it.target)
			r.Set("ratio", round6(it.value/it.target))
		}
		res.rows = append(res.rows, r)
	}
	return failed(c.finishSingle(cmd, out, "validate", []string{"item", "source", "unit"}, tree, nil, res, start))
}

func round6(f float64) float64 {
	if f == 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return f
	}
	p := math.Pow(10, 5-math.Floor(math.Log10(math.Abs(f))))
	return math.Round(f*p) / p
}

// validationSimulations is the number of simulations run computes, for the progress
// lines ("validate: 3/23 ..."); run fails if it does not match what it ran.
const validationSimulations = 23

// perfConfig is PortalPerf op over sizes on cfg, iters timed iterations each.
func perfConfig(cfg *Config, op portals3.PerfOp, sizes []int64, iters int) portals3.PerfConfig {
	pc := portals3.DefaultPerfConfig()
	pc.Machine, pc.Portals, pc.Op, pc.Sizes, pc.Iters = cfg.Params, cfg.Portals, op, sizes, iters
	pc.Bridge = mpi.BridgeFor(cfg.Host.OS)
	return pc
}

// runPerf runs pc, keeping its report.
func (v *validator) runPerf(pc portals3.PerfConfig) (*portals3.PerfResult, error) {
	res, err := portals3.PortalPerf(v.ctx, pc, v.opts)
	if err != nil {
		return nil, err
	}
	v.reports = append(v.reports, res.Report)
	return res, nil
}

// perf runs PortalPerf op over sizes on cfg.
func (v *validator) perf(cfg *Config, op portals3.PerfOp, sizes []int64, tweak func(*portals3.PerfConfig)) ([]portals3.PerfRow, error) {
	pc := perfConfig(cfg, op, sizes, validationIters)
	if tweak != nil {
		tweak(&pc)
	}
	res, err := v.runPerf(pc)
	if err != nil {
		return nil, err
	}
	return res.Rows, nil
}

// perfWork is the PPC work of 2n messages of a PortalPerf put of size bytes on cfg,
// sender's and receiver's firmware together, in steady state: the difference between
// two runs of n and 2n round trips (n = validationIters).
func (v *validator) perfWork(cfg *Config, size int64) (ppc.Work, error) {
	run := func(iters int) (ppc.Work, error) {
		res, err := v.runPerf(perfConfig(cfg, portals3.PerfPut, []int64{size}, iters))
		if err != nil {
			return ppc.Work{}, err
		}
		var w ppc.Work
		for _, n := range res.Nodes.Nodes {
			w = w.Add(n.PPC.Work)
		}
		return w, nil
	}
	a, err := run(validationIters)
	if err != nil {
		return ppc.Work{}, err
	}
	b, err := run(2 * validationIters)
	if err != nil {
		return ppc.Work{}, err
	}
	return b.Sub(a), nil
}

// handlerTime runs a PortalPerf put of size bytes on cfg (mode: the Portals mode) with
// the firmware's trace points compiled in, as the C firmware's were when Pedretti &
// Hudson 2005 traced it (s.3.3, Figure 2), and returns the longest time of the handler
// name on node 0, from the main loop's dispatch point to the handler's own point (the
// delta tracedump prints on the main loop's line; trace points included).
func (v *validator) handlerTime(cfg *Config, mode string, size int64, name string) (actors.Duration, error) {
	pc := perfConfig(cfg, portals3.PerfPut, []int64{size}, validationIters)
	pc.Portals.Mode, pc.Machine.PPC.TraceEnabled = mode, true
	res, err := v.runPerf(pc)
	if err != nil {
		return 0, err
	}
	recs := res.Nodes.Nodes[0].PPC.Trace().Records()
	var longest actors.Duration
	for i := 1; i < len(recs); i++ {
		if recs[i-1].Func == "mainloop" && recs[i].Func == name {
			longest = max(longest, recs[i].At.Sub(recs[i-1].At))
		}
	}
	if longest == 0 {
		return 0, fmt.Errorf("validate: no %s handler in the firmware trace of a %s put of %d B", name, mode, size)
	}
	return longest, nil
}

// netpipe runs NetPIPE mode over sizes on cfg.
func (v *validator) netpipe(cfg *Config, mode portals3.NetPIPEMode, sizes []int64, ack bool) ([]portals3.NetPIPERow, error) {
	nc := portals3.DefaultNetPIPEConfig()
	nc.Machine, nc.Portals, nc.Mode, nc.Sizes, nc.Iters, nc.Ack = cfg.Params, cfg.Portals, mode, sizes, validationIters, ack
	nc.Bridge = mpi.BridgeFor(cfg.Host.OS)
	res, err := portals3.NetPIPE(v.ctx, nc, v.opts)
	if err != nil {
		return nil, err
	}
	v.reports = append(v.reports, res.Report)
	return res.Rows, nil
}

// osuLatency runs OSU's latency test over MPI (osu_latency) on cfg, tweaked: Pedretti &
// Hudson 2005 measured the firmware optimizations of their s.5 with "MPI-level
// micro-benchmarks available from the Network-Based Computing Lab at Ohio State
// University".
func (v *validator) osuLatency(cfg *Config, sizes []int64, tweak func(*osu.Config)) ([]osu.Row, error) {
	oc := osu.DefaultConfig(osu.Latency, osu.LayerMPI)
	// OSU's own iteration count (DefaultConfig's), not validationIters: the clock stops
	// after the last round trip, which the peer's barrier for the next size can delay by
	// a microsecond or two; over n round trips that adds about 2.4/(2n) us to the
	// one-way latency, so few iterations would inflate it.
	oc.Machine, oc.Portals, oc.MPI, oc.Sizes = cfg.Params, cfg.Portals, cfg.MPI, sizes
	oc.Bridge = mpi.BridgeFor(cfg.Host.OS)
	if tweak != nil {
		tweak(&oc)
	}
	res, err := osu.Run(v.ctx, oc, v.opts)
	if err != nil {
		return nil, err
	}
	v.reports = append(v.reports, res.Report)
	return res.Rows, nil
}

// cciLatency is CCI's ping-pong one-way latency on xt5.
func (v *validator) cciLatency(attr cci.Attr, size int64) (float64, error) {
	bc := cci.DefaultBenchConfig()
	bc.Machine, bc.CCI, bc.Attr, bc.Size = v.xt5.Params, v.xt5.CCI, attr, size
	res, err := cci.PingPong(v.ctx, bc, v.opts)
	if err != nil {
		return 0, err
	}
	v.reports = append(v.reports, res.Report)
	return res.Latency.Microseconds(), nil
}

// halfBandwidth is the smallest size whose bandwidth reaches half the largest one's.
func halfBandwidth(sizes []int64, bw []float64) float64 {
	peak := bw[len(bw)-1]
	for i, b := range bw {
		if b >= peak/2 {
			return float64(sizes[i])
		}
	}
	return math.NaN()
}

// jumpSize is the first size whose latency exceeds the previous size's by more than
// jump, or NaN.
func jumpSize(sizes []int64, lat []actors.Duration, jump actors.Duration) float64 {
	for i := 1; i < len(sizes); i++ {
		if lat[i]-lat[i-1] > jump {
			return float64(sizes[i])
		}
	}
	return math.NaN()
}

func (v *validator) step(name string) {
	v.simulation++
	if v.progress != nil {
		v.progress(name)
	}
}

// run computes every item, in the order of the papers.
func (v *validator) run() ([]validationItem, error) {
	const b05, p05, d11 = "Brightwell et al. 2005", "Pedretti & Hudson 2005", "Dillow & Atchley 2011"
	var items []validationItem
	add := func(item, source, unit string, target, value float64) {
		items = append(items, validationItem{item: item, source: source, unit: unit, target: target, value: value})
	}
	// PortalPerf put over sizes: the calibration targets, the half-bandwidth point, the
	// very small message step.
	var sizes []int64
	for s := int64(0); s <= 16; s++ {
		sizes = append(sizes, s)
	}
	for s := int64(32); s <= 2<<20; s *= 2 {
		sizes = append(sizes, s)
	}
	sizes = append(sizes, 100<<10)
	slices.Sort(sizes)
	sizes = slices.Compact(sizes)
	v.step("PortalPerf put, sizes")
	put, err := v.perf(v.red, portals3.PerfPut, sizes, nil)
	if err != nil {
		return nil, err
	}
	at := func(rows []portals3.PerfRow, size int64) portals3.PerfRow {
		for _, r := range rows {
			if r.Size == size {
				return r
			}
		}
		return portals3.PerfRow{}
	}
	add("PortalPerf put latency, 0 B, one way", b05+" s.6", "us", 4.89, at(put, 0).Latency.Microseconds())
	add("PortalPerf put bandwidth, 100 KB", b05+" s.6", "MB/s", 1051.43, at(put, 100<<10).Bandwidth/1e6)
	add("PortalPerf put bandwidth, 2 MB (asymptotic)", b05+" s.6", "MB/s", 1108, at(put, 2<<20).Bandwidth/1e6)
	var geo []int64
	var geoBW []float64
	for _, r := range put {
		if r.Size > 0 && r.Size&(r.Size-1) == 0 {
			geo, geoBW = append(geo, r.Size), append(geoBW, r.Bandwidth)
		}
	}
	add("PortalPerf put half-bandwidth message size", b05+" s.6", "B", 0, halfBandwidth(geo, geoBW))
	add("very small message step: PortalPerf latency 13 B - 12 B", p05+" s.5.2 (Figure 6)", "us", 0,
		(at(put, 13).Latency - at(put, 12).Latency).Microseconds())
	v.step("PortalPerf get")
	get, err := v.perf(v.red, portals3.PerfGet, []int64{0}, nil)
	if err != nil {
		return nil, err
	}
	add("PortalPerf get latency, 0 B", b05+" s.6", "us", 0, get[0].Latency.Microseconds())
	v.step("PortalPerf bidirectional put")
	bidir, err := v.perf(v.red, portals3.PerfBidir, []int64{0}, nil)
	if err != nil {
		return nil, err
	}
	add("PortalPerf bidirectional put latency, 0 B", b05+" s.6", "us", 0, bidir[0].Latency.Microseconds())
	// Pedretti & Hudson 2005 s.5: the firmware optimizations, measured as the paper did,
	// with OSU's MPI latency test: caches (s.5.1), the very small message path (s.5.2),
	// the write-through technique (s.5.3), each against the firmware with all of them.
	v.step("OSU MPI latency")
	mpiSizes := []int64{0, 8, 16}
	base, err := v.osuLatency(v.red, mpiSizes, nil)
	if err != nil {
		return nil, err
	}
	add("OSU MPI latency, 0 B (firmware with every optimization)", p05+" s.5 (Figures 5, 6)", "us", 0, base[0].Latency.Microseconds())
	for _, o := range []struct {
		item, section string
		size          int
		tweak         func(*osu.Config)
	}{
		{"PPC caches off: MPI latency increase, 0 B", p05 + " s.5.1 (Figure 5)", 0,
			func(oc *osu.Config) { oc.Machine.PPC.ICache, oc.Machine.PPC.DCache = false, false }},
		{"PPC caches off: MPI latency increase, 16 B (past the very small message path)", p05 + " s.5.1 (Figure 5)", 2,
			func(oc *osu.Config) { oc.Machine.PPC.ICache, oc.Machine.PPC.DCache = false, false }},
		{"PPC D-cache off (I-cache on): MPI latency increase, 0 B", p05 + " s.5.1 (Figure 5)", 0,
			func(oc *osu.Config) { oc.Machine.PPC.DCache = false }},
		{"write-through saving per message: MPI latency, 0 B", p05 + " s.5.3", 0,
			func(oc *osu.Config) { oc.Machine.PPC.WriteThrough = false }},
		{"very small message saving: MPI latency, 8 B", p05 + " s.5.2 (Figure 6)", 1,
			func(oc *osu.Config) { oc.Portals.InlineMax = 0 }},
	} {
		v.step("OSU MPI latency for " + o.item)
		rows, err := v.osuLatency(v.red, mpiSizes, o.tweak)
		if err != nil {
			return nil, err
		}
		add(o.item, o.section, "us", 0, (rows[o.size].Latency - base[o.size].Latency).Microseconds())
	}
	// What the firmware does per message (both NICs): the work the caches speed up.
	v.step("PortalPerf put 0 B, firmware work")
	work, err := v.perfWork(v.red, 0)
	if err != nil {
		return nil, err
	}
	per := func(n int64) float64 { return float64(n) / float64(2*validationIters) }
	add("PPC work per 0 B put, both NICs: instructions", p05+" s.5.1", "count", 0, per(work.Instr))
	add("PPC work per 0 B put, both NICs: cacheable SRAM loads + stores", p05+" s.5.1", "count", 0, per(work.Loads+work.Stores))
	add("PPC work per 0 B put, both NICs: uncached SRAM loads + stores", p05+" s.5.3", "count", 0,
		per(work.UncachedLoads+work.UncachedStores))
	add("PPC work per 0 B put, both NICs: 8-byte stores into host memory", p05+" s.4.3", "count", 0, per(work.HostStores))
	// The firmware's handler times beside the excerpt of the C firmware's trace ring
	// (Pedretti & Hudson 2005 Figure 2; docs/fidelity.md, "PPC caches off").
	for _, h := range []struct {
		mode string
		size int64
		name string
		item string
	}{
		{"accelerated", 0, "accel_tx", "firmware handler time: transmit command, accelerated, 0 B put (Figure 2: goaccel_tx_command 396 ns + up to 290)"},
		{"generic", 0, "tx_command", "firmware handler time: transmit command, generic, 0 B put"},
		{"generic", 0, "rx_header", "firmware handler time: new message, generic, 0 B put"},
		{"generic", 13, "rx_done", "firmware handler time: RX completion, generic, 13 B put (Figure 2: rx_complete 286-660 ns)"},
	} {
		v.step(fmt.Sprintf("PortalPerf %s put %d B, firmware trace", h.mode, h.size))
		d, err := v.handlerTime(v.red, h.mode, h.size, h.name)
		if err != nil {
			return nil, err
		}
		add(h.item, p05+" s.3.3 (Figure 2)", "ns", 0, float64(d)/float64(actors.Nanosecond))
	}
	// NetPIPE bidirectional: bandwidth and half-bandwidth point (sizes are per direction;
	// NetPIPE plots the total).
	v.step("NetPIPE bidirectional, sizes")
	var npSizes []int64
	for s := int64(1); s <= 1<<20; s *= 2 {
		npSizes = append(npSizes, s)
	}
	np, err := v.netpipe(v.red, portals3.NetPIPEBidir, npSizes, false)
	if err != nil {
		return nil, err
	}
	var npBW []float64
	var npTotal []int64
	for _, r := range np {
		npBW, npTotal = append(npBW, r.Bandwidth), append(npTotal, 2*r.Size)
	}
	add("NetPIPE bidirectional bandwidth, 2 x 1 MB", b05+" s.6 (Figure 7)", "MB/s", 0, npBW[len(npBW)-1]/1e6)
	add("NetPIPE bidirectional half-bandwidth point (total bytes)", b05+" s.6 (Figure 7)", "B", 0, halfBandwidth(npTotal, npBW))
	// CCI on the XT5.
	for _, c := range []struct {
		attr cci.Attr
		size int64
	}{{cci.UU, 0}, {cci.RO, 0}, {cci.UU, 4096}} {
		v.step(fmt.Sprintf("CCI ping-pong %s %d B", c.attr, c.size))
		lat, err := v.cciLatency(c.attr, c.size)
		if err != nil {
			return nil, err
		}
		add(fmt.Sprintf("CCI ping-pong latency, %s, %d B", c.attr, c.size), d11+" s.V.A", "us", 0, lat)
	}
	// Portals on the XT5 under Linux: the jump where the body leaves the header, and
	// the cost of an ack.
	v.step("xt5 Portals ping-pong, sizes")
	var xs []int64
	for s := int64(0); s <= 32; s++ {
		xs = append(xs, s)
	}
	xs = append(xs, 48, 64)
	xp, err := v.netpipe(v.xt5, portals3.NetPIPEPingPong, xs, false)
	if err != nil {
		return nil, err
	}
	var xl []actors.Duration
	for _, r := range xp {
		xl = append(xl, r.Latency)
	}
	add("xt5 Portals: size where the body leaves the header (latency jump)", d11+" s.V", "B", 0, jumpSize(xs, xl, headerJump))
	v.step("xt5 Portals ping-pong with acks")
	xa, err := v.netpipe(v.xt5, portals3.NetPIPEPingPong, []int64{0}, true)
	if err != nil {
		return nil, err
	}
	add("xt5 Portals: latency added by requesting an ack, 0 B", d11+" s.V", "us", 0, (xa[0].Latency - xl[0]).Microseconds())
	// StarT-JR: Table 2's rows (the calibration rows with their targets), the
	// shared-memory read, and the JAM_4 figures on Arctic (Table 3).
	const h96 = "Hoe & Ehrlich 1996"
	targets := map[string][4]float64{"JAM_4": {2.2, 1.1, 29, 29}, "JAM_n=1": {2.0, 1.3, 27, 26}, "JAM_n=20": {5.4, 3.5, 42, 42}}
	v.step("StarT-JR JAM Table 2 (IEEE 1394)")
	for _, pr := range funi.Table2 {
		row, reps, err := funi.Table(v.ctx, v.sjr.Params, v.sjr.FUNI, pr, funi.DefaultTableConfig(), v.opts)
		if err != nil {
			return nil, err
		}
		v.reports = append(v.reports, reps...)
		t := targets[pr.Name]
		add("StarT-JR "+pr.Name+" send overhead", h96+" Table 2", "us", t[0], row.SendOverhead.Microseconds())
		add("StarT-JR "+pr.Name+" receive overhead", h96+" Table 2", "us", t[1], row.RecvOverhead.Microseconds())
		add("StarT-JR "+pr.Name+" send, per message", h96+" Table 2", "us", t[2], row.SendPer.Microseconds())
		add("StarT-JR "+pr.Name+" receive, per message", h96+" Table 2", "us", t[3], row.RecvPer.Microseconds())
		add("StarT-JR "+pr.Name+" latency, one way", h96+" Table 2", "us", 0, row.Latency.Microseconds())
	}
	v.step("StarT-JR shared-memory read")
	hit, _, rep, err := funi.ShmRead(v.ctx, v.sjr.Params, v.sjr.FUNI, 4, v.opts)
	if err != nil {
		return nil, err
	}
	v.reports = append(v.reports, rep)
	add("StarT-JR shared-memory read, cached in FUNI", h96+" s.1", "us", 2.0, hit.Microseconds())
	v.step("StarT-JR JAM on Arctic")
	pr, _ := funi.PrimitiveByName("JAM_4")
	row, reps, err := funi.Table(v.ctx, v.arctic.Params, v.arctic.FUNI, pr, funi.DefaultTableConfig(), v.opts)
	if err != nil {
		return nil, err
	}
	v.reports = append(v.reports, reps...)
	add("StarT-JR on Arctic: JAM_4 overhead (send + receive)", h96+" Table 3", "us", 0, (row.SendOverhead + row.RecvOverhead).Microseconds())
	add("StarT-JR on Arctic: JAM_4 latency, one way", h96+" Table 3", "us", 0, row.Latency.Microseconds())
	add("StarT-JR on Arctic: JAM_4 bandwidth", h96+" Table 3", "MB/s", 0, row.SendMBps)
	if v.simulation != validationSimulations {
		return nil, fmt.Errorf("validate ran %d simulations, validationSimulations says %d", v.simulation, validationSimulations)
	}
	return items, nil
}
