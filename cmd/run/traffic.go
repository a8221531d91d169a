package main

import (
	"context"
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"time"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/internal/results"
	"github.com/seastar-sim/seastar/router"
	"github.com/seastar-sim/seastar/router/traffic"
	"github.com/spf13/pflag"
)

func init() {
	registerBenchmark(&benchmark{
		name:  "traffic",
		short: "Synthetic traffic through the router network: offered vs accepted load, latency, link utilization",
		long: `traffic replaces every node's NIC by an open-loop generator and sink attached to the
router's NIC port. Each node offers --load of the link bandwidth (a message of
--msg-packets 64-byte packets starts in a packet slot with probability load/msg-packets)
to destinations chosen by --pattern. After --warmup, the --measure window counts the
payload ejected (accepted load) and the latency of the packets created in it, from
creation to ejection; the run continues for --drain so that they can arrive.

--load takes a value, a list (0.1,0.5,1) or a range (0.1:1:+0.1, 0.01:1:x2); each load
is one run and one row. Time values take units (ps, ns, us, ms, s).

Router and link parameters come from --set router.KEY=VALUE, --set machine=xt5 and
--config (see run params router); the topology comes from --torus and --mesh.`,
		example: `  run bench traffic
  run bench traffic --torus 8x8x8 --pattern uniform --load 0.1:1:+0.1 --workers 2
  run bench traffic --torus 4x4x4 --mesh --pattern transpose --load 0.5 --format json
  run bench traffic --torus redstorm --load 0.2 --warmup 1us --measure 1us --quiet
  run bench traffic --set router.input_buffer_packets=2 --set router.crc_error_rate=1e-3`,
		ids:   []string{"pattern", "load_offered"},
		flags: trafficFlagSet,
		check: func(cfg *Config, state any) error {
			_, _, err := state.(*trafficState).plan(cfg)
			return err
		},
		run: runTraffic,
	})
}

// trafficFlags are the flags of `run bench traffic` that need checking before use.
type trafficFlags struct {
	torus   string
	mesh    bool
	pattern string
	loads   string
}

// trafficState is what the flags of `run bench traffic` set.
type trafficState struct {
	cfg traffic.Config
	fl  trafficFlags
}

func trafficFlagSet(f *pflag.FlagSet) any {
	s := &trafficState{cfg: traffic.DefaultConfig()}
	cfg := &s.cfg
	s.fl = trafficFlags{torus: "8x8x8", pattern: string(cfg.Pattern), loads: cfg.Load.String()}
	f.StringVar(&s.fl.torus, "torus", s.fl.torus, "network size XxYxZ, or redstorm (27x16x24)")
	f.BoolVar(&s.fl.mesh, "mesh", false, "no wrap links: a mesh instead of a torus")
	f.StringVar(&s.fl.pattern, "pattern", s.fl.pattern, "destinations: uniform, transpose or hotspot")
	f.StringVar(&s.fl.loads, "load", s.fl.loads, "offered load per node, fraction of link bandwidth: a value, list or range")
	f.Var(newTextValue(&cfg.Warmup, "duration"), "warmup", "simulated time before the measurement window")
	f.Var(newTextValue(&cfg.Measure, "duration"), "measure", "length of the measurement window")
	f.Var(newTextValue(&cfg.Drain, "duration"), "drain", "simulated time after the window for measured packets to arrive")
	f.IntVar(&cfg.MsgPackets, "msg-packets", cfg.MsgPackets, "message size in packets")
	f.Var(newTextValue(&cfg.HotspotFraction, "prob"), "hotspot-fraction", "hotspot pattern: share of messages sent to the hotspot node")
	f.Var(newNodeIDValue(&cfg.HotspotNode), "hotspot-node", "hotspot pattern: node id of the hotspot")
	f.IntVar(&cfg.SourceQueuePackets, "source-queue", cfg.SourceQueuePackets, "bound of each node's source queue, in packets")
	return s
}

// plan completes the traffic configuration from the machine configuration and the
// flags; its errors are usage errors.
func (s *trafficState) plan(machine *Config) (traffic.Config, []actors.Prob, error) {
	cfg := s.cfg
	if machine.Params.Machine == "ib" {
		return cfg, nil, usage(fmt.Errorf("traffic drives the SeaStar torus routers; machine=ib is an InfiniBand cluster (only the Portals 4 benchmarks and run conform portals4 run on it)"))
	}
	cfg.Router = machine.Router
	loads, err := s.fl.resolve(&cfg)
	if err != nil {
		return cfg, nil, usage(err)
	}
	if err := checkMemory("traffic", cfg.Topo.Nodes(), trafficNodeBytes); err != nil {
		return cfg, nil, err
	}
	return cfg, loads, nil
}

// resolve checks the flags, naming the offending one, and completes cfg.
func (fl *trafficFlags) resolve(cfg *traffic.Config) ([]actors.Prob, error) {
	dims, wrap := fl.torus, "torus"
	if dims == "redstorm" {
		dims = "27x16x24"
	}
	if fl.mesh {
		wrap = "mesh"
	}
	topo, err := router.ParseTopology(dims, wrap)
	if err != nil {
		return nil, fmt.Errorf("--torus %q: %w", fl.torus, err)
	}
	cfg.Topo = topo
	if cfg.Pattern, err = traffic.ParsePattern(fl.pattern); err != nil {
		return nil, fmt.Errorf("--pattern: %w", err)
	}
	loads, err := parseLoads(fl.loads)
	if err != nil {
		return nil, fmt.Errorf("--load %q: %w", fl.loads, err)
	}
	for _, chk := range []struct {
		bad  bool
		flag string
		val  any
		want string
	}{
		{cfg.MsgPackets < 1, "--msg-packets", cfg.MsgPackets, ">= 1"},
		{cfg.Measure <= 0, "--measure", cfg.Measure, "> 0"},
		{cfg.Warmup < 0, "--warmup", cfg.Warmup, ">= 0"},
		{cfg.Drain < 0, "--drain", cfg.Drain, ">= 0"},
		{cfg.SourceQueuePackets < cfg.MsgPackets, "--source-queue", cfg.SourceQueuePackets, ">= --msg-packets"},
		{cfg.HotspotNode < 0 || int(cfg.HotspotNode) >= topo.Nodes(), "--hotspot-node", cfg.HotspotNode,
			fmt.Sprintf("a node id in 0..%d", topo.Nodes()-1)},
	} {
		if chk.bad {
			return nil, fmt.Errorf("%s %v: must be %s", chk.flag, chk.val, chk.want)
		}
	}
	cfg.Load = loads[0]
	return loads, cfg.Validate()
}

// maxLoads bounds a --load list.
const maxLoads = 1000

// parseLoads reads a load list: comma-separated values (0.5, 50%) and ranges
// START:END:+STEP (arithmetic) or START:END:xFACTOR (geometric), END included when
// reached. Arithmetic is exact decimal, so 0.1:1:+0.1 gives exactly 0.1, 0.2, ... 1.
func parseLoads(s string) ([]actors.Prob, error) {
	var out []actors.Prob
	for item := range strings.SplitSeq(s, ",") {
		vals, err := parseLoadItem(strings.TrimSpace(item))
		if err != nil {
			return nil, err
		}
		out = append(out, vals...)
		if len(out) > maxLoads {
			return nil, fmt.Errorf("more than %d loads", maxLoads)
		}
	}
	return out, nil
}

func parseLoadItem(item string) ([]actors.Prob, error) {
	parts := strings.Split(item, ":")
	if len(parts) == 1 {
		p, err := actors.ParseProb(item)
		return []actors.Prob{p}, err
	}
	if len(parts) != 3 || len(parts[2]) < 2 || (parts[2][0] != '+' && parts[2][0] != 'x') {
		return nil, fmt.Errorf("range %q: want START:END:+STEP or START:END:xFACTOR", item)
	}
	var start, end, step big.Rat
	for i, dst := range []*big.Rat{&start, &end, &step} {
		txt := parts[i]
		if i == 2 {
			txt = txt[1:]
		}
		if _, ok := dst.SetString(txt); !ok {
			return nil, fmt.Errorf("range %q: %q is not a decimal number", item, txt)
		}
	}
	geometric := parts[2][0] == 'x'
	if step.Sign() <= 0 || (geometric && (start.Sign() <= 0 || step.Cmp(big.NewRat(1, 1)) <= 0)) {
		return nil, fmt.Errorf("range %q: the step must be > 0 (a factor > 1, from a start > 0)", item)
	}
	var out []actors.Prob
	for v := new(big.Rat).Set(&start); v.Cmp(&end) <= 0; {
		p, err := actors.ParseProb(strings.TrimRight(strings.TrimRight(v.FloatString(24), "0"), "."))
		if err != nil {
			return nil, fmt.Errorf("range %q: %w", item, err)
		}
		if out = append(out, p); len(out) > maxLoads {
			return nil, fmt.Errorf("range %q: more than %d loads", item, maxLoads)
		}
		if geometric {
			v.Mul(v, &step)
		} else {
			v.Add(v, &step)
		}
	}
	return out, nil
}

// runTraffic runs one simulation per load, one row each.
func runTraffic(ctx context.Context, machine *Config, opts actors.Options, state any) (*benchOutput, error) {
	cfg, loads, err := state.(*trafficState).plan(machine)
	if err != nil {
		return nil, err
	}
	out := &benchOutput{}
	var build time.Duration
	for _, load := range loads {
		cfg.Load = load
		start := time.Now()
		res, err := traffic.Run(ctx, cfg, opts)
		if err != nil {
			return out, err
		}
		build += time.Since(start) - res.Report.Wall
		out.reports = append(out.reports, res.Report)
		out.rows = append(out.rows, trafficRow(res))
	}
	list := make([]string, len(loads))
	for i, l := range loads {
		list[i] = l.String()
	}
	out.params = map[string]string{"load": strings.Join(list, ","), "nodes": fmt.Sprint(cfg.Topo.Nodes())}
	addParams(out.params, "", cfg)
	out.params["build_wall"] = build.Round(time.Millisecond).String()
	return out, nil
}

func trafficRow(res *traffic.Result) results.Row {
	var rw results.Row
	rw.Set("pattern", string(res.Config.Pattern))
	rw.Set("load_offered", res.Offered)
	rw.Set("load_accepted", res.Accepted)
	rw.Set("accepted_GBps_per_node", res.AcceptedGBps)
	rw.Set("latency_mean_us", res.LatencyMean.Microseconds())
	rw.Set("latency_p50_us", res.LatencyP50.Microseconds())
	rw.Set("latency_p99_us", res.LatencyP99.Microseconds())
	rw.Set("link_util_mean", res.LinkUtilMean)
	rw.Set("link_util_max", res.LinkUtilMax)
	rw.Set("retries", res.Network.Retries)
	rw.Set("events", res.Events)
	rw.Set("digest", res.Digest)
	return rw
}

// addParams lists the fields of a parameter struct that have a param tag by key,
// descending into nested parameter structs ("router.link_bandwidth"). Fields already
// in dst are kept.
func addParams(dst map[string]string, prefix string, params any) {
	v := reflect.ValueOf(params)
	for i := range v.NumField() {
		key := v.Type().Field(i).Tag.Get("param")
		f := v.Field(i)
		switch {
		case key == "":
		case f.Kind() == reflect.Struct && !f.Type().Implements(reflect.TypeFor[fmt.Stringer]()):
			addParams(dst, prefix+key+".", f.Interface())
		case dst[prefix+key] == "":
			dst[prefix+key] = fmt.Sprint(f.Interface())
		}
	}
}

// nodeIDValue is a --hotspot-node flag.
type nodeIDValue struct{ v *router.NodeID }

func newNodeIDValue(v *router.NodeID) *nodeIDValue { return &nodeIDValue{v} }

func (n *nodeIDValue) Set(s string) error {
	var id int32
	if _, err := fmt.Sscan(s, &id); err != nil {
		return fmt.Errorf("not a node id: %q", s)
	}
	*n.v = router.NodeID(id)
	return nil
}
func (n *nodeIDValue) String() string { return fmt.Sprint(int32(*n.v)) }
func (n *nodeIDValue) Type() string   { return "id" }
