package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/internal/results"
	"github.com/seastar-sim/seastar/protocols/osu"
	"github.com/seastar-sim/seastar/protocols/portals3"
	"github.com/spf13/pflag"
)

func init() {
	for _, b := range []struct {
		bench  osu.Bench
		short  string
		long   string
		metric string
	}{
		{osu.Latency, "OSU latency: ping-pong one-way latency over raw Portals or the MPI library",
			`osu-latency is osu_latency (docs/design.md section 5): rank 0 sends, rank 1 receives and sends
back; after --warmup untimed round trips, latency = elapsed / (2 * --iters). With
--layer mpi the messages go through the MPI-style library (protocols/mpi: eager up to
mpi.eager_max, then the long protocol); --layer portals uses raw Portals puts with
persistent memory descriptors. At 0 B, --layer mpi is the MPI zero-byte latency.`, "latency_us"},
		{osu.BW, "OSU bandwidth: windows of 64 back-to-back messages closed by a small ack",
			`osu-bw is osu_bw (docs/design.md section 5): rank 0 sends --window messages back to back and
waits for them, rank 1 receives them all and answers with an ack of --ack bytes; after
--warmup untimed windows, bandwidth = size * window * --iters / elapsed.`, "bandwidth_MBps"},
		{osu.MR, "OSU message rate: the osu-bw pattern, reported as messages per second",
			`osu-mr is osu_mbw_mr with one pair (docs/design.md section 5): the osu-bw pattern (--window
messages back to back, then a small ack), reported as messages per second.`, "msg_per_s"},
	} {
		name := "osu-" + string(b.bench)
		registerBenchmark(&benchmark{
			name:  name,
			short: b.short,
			long: b.long + `

Both ranks run on two Red Storm nodes one router hop apart. --layer takes a list
(portals,mpi): one simulation per layer. The Portals mode is portals.mode; MPI
parameters are the mpi group (run params mpi). A simulation is deterministic, so
--budget caps the iterations of large sizes (bytes per size) without changing the
result; --budget 0 runs --iters for every size.`,
			example: fmt.Sprintf(`  run bench %[1]s --layer portals,mpi
  run bench %[1]s --layer mpi --sizes 0,8,1K,128000,131072
  run bench %[1]s --layer mpi --set mpi.eager_max=16K
  run sweep --bench %[1]s --vary mpi.call_cost=0ns,100ns,200ns --sizes 0,1K`, name),
			ids:   []string{"layer", "mode", "size_bytes"},
			flags: func(f *pflag.FlagSet) any { return osuFlags(f, b.bench) },
			check: func(cfg *Config, state any) error {
				_, err := state.(*osuState).plan(cfg)
				return err
			},
			run: runOSU,
		})
	}
}

// osuState is what the flags of `run bench osu-*` set.
type osuState struct {
	bench                      osu.Bench
	layers, sizes, bridge      string
	iters, warmup, min, window int
	ack                        actors.Bytes
	budget                     actors.Bytes
}

func osuFlags(f *pflag.FlagSet, b osu.Bench) any {
	d := osu.DefaultConfig(b, osu.LayerMPI)
	sizes := "0:4M:x2"
	if b != osu.Latency {
		sizes = "1:1M:x2"
	}
	s := &osuState{bench: b, layers: "mpi", sizes: sizes, bridge: "", iters: d.Iters, warmup: d.Warmup, min: d.Min,
		window: d.Window, ack: actors.Bytes(d.Ack), budget: d.Budget}
	f.StringVar(&s.layers, "layer", s.layers, "portals (raw Portals puts), mpi (the MPI library) or a list portals,mpi")
	f.StringVar(&s.sizes, "sizes", s.sizes, "message sizes: list 0,8,1K or ranges 0:4M:x2, 0:4K:+512")
	f.IntVar(&s.iters, "iters", s.iters, "timed iterations per size: round trips (latency) or windows (bw, mr)")
	f.IntVar(&s.warmup, "warmup", s.warmup, "untimed iterations before the timed ones (OSU's skip)")
	if b != osu.Latency {
		f.IntVar(&s.window, "window", s.window, "messages sent back to back per window")
		f.Var(newTextValue(&s.ack, "bytes"), "ack", "size of the ack that closes a window")
	}
	f.Var(newTextValue(&s.budget, "bytes"), "budget", "cap the iterations of a size to budget/(bytes per iteration) (at least --min-iters); 0: no cap")
	f.IntVar(&s.min, "min-iters", s.min, "the least timed iterations of a size under --budget")
	f.StringVar(&s.bridge, "bridge", s.bridge, "qkbridge (Catamount) or ukbridge (Linux user); default from host.os")
	return s
}

// plan checks the flags against cfg and returns one configuration per layer; its
// errors are usage errors.
func (s *osuState) plan(cfg *Config) ([]osu.Config, error) {
	sizes, err := parseSizeList(s.sizes)
	if err != nil {
		return nil, err
	}
	bridge := portals3.QKBridge
	if cfg.Host.OS == "linux" {
		bridge = portals3.UKBridge
	}
	if s.bridge != "" {
		if bridge, err = portals3.ParseBridge(s.bridge); err != nil {
			return nil, usage(fmt.Errorf("--bridge: %w", err))
		}
	}
	var plans []osu.Config
	for item := range strings.SplitSeq(s.layers, ",") {
		layer, err := osu.ParseLayer(strings.TrimSpace(item))
		if err != nil {
			return nil, usage(fmt.Errorf("--layer: %w", err))
		}
		oc := osu.Config{Machine: cfg.Params, Portals: cfg.Portals, MPI: cfg.MPI, Bench: s.bench, Layer: layer,
			Iters: s.iters, Warmup: s.warmup, Window: s.window, Ack: int64(s.ack), Budget: s.budget, Min: s.min, Bridge: bridge,
			Sizes: sizes}
		if err := oc.Validate(); err != nil {
			return nil, usage(fmt.Errorf("%w (flags --iters, --warmup, --window, --ack, --min-iters, --budget)", err))
		}
		plans = append(plans, oc)
	}
	return plans, nil
}

// runOSU runs one simulation per layer; each size gives a row.
func runOSU(ctx context.Context, cfg *Config, opts actors.Options, state any) (*benchOutput, error) {
	plans, err := state.(*osuState).plan(cfg)
	if err != nil {
		return nil, err
	}
	out, err := runPlans(opts.Work, plans, func(oc osu.Config) ([]results.Row, *actors.Report, error) {
		res, err := osu.Run(ctx, oc, opts)
		if res == nil {
			return nil, nil, err
		}
		var rows []results.Row
		for _, or := range res.Rows {
			if or.Iters == 0 {
				continue // not reached before a failure
			}
			var r results.Row
			r.Set("layer", string(or.Layer))
			r.Set("mode", cfg.Portals.Mode)
			r.Set("size_bytes", or.Size)
			if oc.Bench == osu.Latency {
				r.Set("latency_us", or.Latency.Microseconds())
			}
			r.Set("bandwidth_MBps", or.Bandwidth/1e6)
			if oc.Bench != osu.Latency {
				r.Set("msg_per_s", or.MsgRate)
			}
			r.Set("iters", or.Iters)
			rows = append(rows, r)
		}
		return rows, res.Report, err
	})
	out.params = map[string]string{"bridge": string(plans[0].Bridge)}
	return out, err
}
