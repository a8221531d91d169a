package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/internal/results"
	"github.com/seastar-sim/seastar/protocols/portals3"
	"github.com/spf13/pflag"
)

func init() {
	registerBenchmark(&benchmark{
		name:  "netpipe",
		short: "NetPIPE over Portals 3.3: ping-pong and streaming over a perturbed geometric size schedule",
		long: `netpipe is NetPIPE's Portals module (Brightwell et al. 2005 s.5.2) between two nodes
one router hop apart. Sizes follow NetPIPE's schedule from --start to --end: the
increment doubles every other step, and each size is also tested --perturbation bytes
below and above (1, 2, 3, 4, 6, 8, 12, 13, 16, 19, ...); --sizes replaces the schedule.
The receive memory descriptor is created once per size, before the timed part.

  pingpong  rank 0 puts, rank 1 puts back on PUT_END; latency = round trip / 2
  stream    rank 0 puts back to back with --window puts in flight (a put is done at
            its SEND_END, or at its ACK with --ack); rank 1 answers the last one with a
            zero-byte put; latency = time per message, msg_per_s its inverse
  bidir     NetPIPE's bidirectional test: both ranks put at once and each waits for its
            send to end and the other's put to arrive; latency = time per exchange;
            bandwidth_MBps and msg_per_s count both directions, and total_bytes is the
            data of one exchange (2 x size_bytes: NetPIPE's x axis in this mode)

--op takes a list (pingpong,stream): one simulation each. The repetitions of a size
are --iters, capped to --budget/size (at least --min-iters): the simulation is
deterministic, so repetitions only matter for streaming, where the window's start-up
is amortized over them. Portals runs in the mode of portals.mode (generic or
accelerated).`,
		example: `  run bench netpipe
  run bench netpipe --op pingpong,stream --end 4M
  run bench netpipe --op pingpong,bidir --end 1M         # Brightwell et al. 2005 Figures 6 and 7
  run bench netpipe --op stream --sizes 8,1K,64K --iters 500 --ack
  run bench netpipe --op stream --set portals.mode=accelerated
  run sweep --bench netpipe --vary portals.mode=generic,accelerated -- --op stream --end 64K`,
		ids:   []string{"op", "mode", "ack", "size_bytes"},
		flags: netpipeFlags,
		check: func(cfg *Config, state any) error {
			_, err := state.(*netpipeState).plan(cfg)
			return err
		},
		run: runNetPIPE,
	})
}

type netpipeState struct {
	ops, sizes, bridge string
	start, end         actors.Bytes
	perturbation       int64
	nc                 portals3.NetPIPEConfig
}

func netpipeFlags(f *pflag.FlagSet) any {
	d := portals3.DefaultNetPIPEConfig()
	s := &netpipeState{ops: "pingpong", start: 1, end: actors.MiB, perturbation: 3, bridge: string(d.Bridge), nc: d}
	f.StringVar(&s.ops, "op", s.ops, "NetPIPE tests: pingpong, stream, bidir or a list such as pingpong,bidir")
	f.Var(newTextValue(&s.start, "bytes"), "start", "first size of the schedule")
	f.Var(newTextValue(&s.end, "bytes"), "end", "last size of the schedule")
	f.Int64Var(&s.perturbation, "perturbation", s.perturbation, "bytes below and above each size also tested (NetPIPE -p)")
	f.StringVar(&s.sizes, "sizes", "", "explicit sizes instead of the schedule: list 0,8,1K or ranges 0:1M:x2, 0:4K:+512")
	f.IntVar(&s.nc.Iters, "iters", s.nc.Iters, "repetitions per size at most")
	f.IntVar(&s.nc.Min, "min-iters", s.nc.Min, "repetitions per size at least")
	f.Var(newTextValue(&s.nc.Budget, "bytes"), "budget", "cap the repetitions of a size to budget/size; 0: no cap")
	f.IntVar(&s.nc.Warmup, "warmup", s.nc.Warmup, "untimed round trips per size")
	f.IntVar(&s.nc.Window, "window", s.nc.Window, "stream: puts in flight")
	f.BoolVar(&s.nc.Ack, "ack", false, "puts ask for an ack (stream: a put is done at its ACK)")
	f.StringVar(&s.bridge, "bridge", s.bridge, "qkbridge (Catamount), ukbridge (Linux user) or kbridge (Linux kernel)")
	return s
}

func (s *netpipeState) plan(cfg *Config) ([]portals3.NetPIPEConfig, error) {
	nc := s.nc
	nc.Machine, nc.Portals = cfg.Params, cfg.Portals
	var err error
	if nc.Bridge, err = portals3.ParseBridge(s.bridge); err != nil {
		return nil, usage(fmt.Errorf("--bridge: %w", err))
	}
	if s.sizes != "" {
		if nc.Sizes, err = parseSizeList(s.sizes); err != nil {
			return nil, err
		}
	} else if nc.Sizes = portals3.NetPIPESizes(int64(s.start), int64(s.end), s.perturbation); nc.Sizes == nil {
		return nil, usage(fmt.Errorf("--start %s, --end %s, --perturbation %d: need 1 <= start <= end and perturbation >= 0",
			s.start, s.end, s.perturbation))
	}
	var plans []portals3.NetPIPEConfig
	for item := range strings.SplitSeq(s.ops, ",") {
		if nc.Mode, err = portals3.ParseNetPIPEMode(strings.TrimSpace(item)); err != nil {
			return nil, usage(fmt.Errorf("--op: %w", err))
		}
		if err := nc.Validate(); err != nil {
			return nil, usage(err)
		}
		plans = append(plans, nc)
	}
	return plans, nil
}

func runNetPIPE(ctx context.Context, cfg *Config, opts actors.Options, state any) (*benchOutput, error) {
	plans, err := state.(*netpipeState).plan(cfg)
	if err != nil {
		return nil, err
	}
	return runPlans(opts.Work, plans, func(nc portals3.NetPIPEConfig) ([]results.Row, *actors.Report, error) {
		res, err := portals3.NetPIPE(ctx, nc, opts)
		if res == nil {
			return nil, nil, err
		}
		var rows []results.Row
		for _, nr := range res.Rows {
			if nr.Iters == 0 {
				continue // not reached before a failure
			}
			var r results.Row
			r.Set("op", string(nc.Mode))
			r.Set("mode", cfg.Portals.Mode)
			r.Set("ack", nc.Ack)
			r.Set("size_bytes", nr.Size)
			if nc.Mode == portals3.NetPIPEBidir {
				r.Set("total_bytes", 2*nr.Size)
			}
			r.Set("latency_us", nr.Latency.Microseconds())
			r.Set("bandwidth_MBps", nr.Bandwidth/1e6)
			r.Set("msg_per_s", nr.MsgRate)
			r.Set("iters", nr.Iters)
			rows = append(rows, r)
		}
		return rows, res.Report, err
	})
}
