package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/internal/results"
	"github.com/seastar-sim/seastar/protocols/portals3"
	"github.com/spf13/pflag"
)

func init() {
	registerBenchmark(&benchmark{
		name:  "portalperf",
		short: "PortalPerf over Portals 3.3: put ping-pong, get and bidirectional put latency and bandwidth",
		long: `portalperf is the Portals 3.3 benchmark of Brightwell et al. 2005 s.5.1, between two
nodes one router hop apart. Memory descriptors are persistent and created before the
timed iterations of each size.

  put    ping-pong of puts: rank 1 waits for PUT_END and puts back; one-way latency =
         round trip / 2; bandwidth = size / one-way latency
  get    rank 0 gets from rank 1 and waits for REPLY_END; latency = one get
  bidir  both ranks put at once and wait for their SEND_END and PUT_END; bandwidth
         counts both directions

--op takes a list (put,get,bidir): one simulation per op. --bridge chooses how the
processes reach the Portals library in the kernel: qkbridge (Catamount, physically
contiguous memory, one DMA command per message), ukbridge (Linux user process: system
call, pinned 4 KB pages, one DMA command per page) or kbridge (Linux kernel client).

--set portals.mode=accelerated runs both ranks as accelerated processes: commands go
straight to their firmware mailboxes, the firmware matches and no interrupt is raised
(Catamount only: qkbridge). --match-list N puts N match entries that do not match
ahead of the benchmark's entry on the target portal, so every message walks them: on
the host in generic mode, in the PPC firmware in accelerated mode.

A simulation is deterministic, so after the warm-up every iteration of a size repeats
the same timing: --budget caps the timed iterations of large sizes to budget/size (at
least 2) without changing the result. --budget 0 runs --iters for every size.`,
		example: `  run bench portalperf                                 # put, 0 B .. 2 MB, 1000 iterations
  run bench portalperf --op put,get,bidir --sizes 0,8,1K,100K,2M
  run bench portalperf --sizes 0:64:+4                 # the step where payloads leave the header
  run bench portalperf --bridge ukbridge --set machine=xt5
  run bench portalperf --set portals.mode=accelerated --op put,get,bidir
  run bench portalperf --sizes 0 --match-list 0,16,64,128,256 --set portals.mode=accelerated
  run bench portalperf --set ppc.icache=false --set ppc.dcache=false --sizes 0,1K
  run sweep --bench portalperf --vary ppc.clock=400MHz,500MHz --vary portals.kern_put=100ns,200ns`,
		ids:   []string{"op", "mode", "bridge", "match_list", "size_bytes"},
		flags: portalperfFlags,
		check: func(cfg *Config, state any) error {
			_, err := state.(*portalperfState).plan(cfg)
			return err
		},
		run: runPortalPerf,
	})
}

// portalperfState is what the flags of `run bench portalperf` set.
type portalperfState struct {
	ops, sizes, bridge string
	matchList          string
	iters, warmup, min int
	budget             actors.Bytes
}

func portalperfFlags(f *pflag.FlagSet) any {
	d := portals3.DefaultPerfConfig()
	s := &portalperfState{ops: "put", sizes: "0:2M:x2", bridge: string(d.Bridge), iters: d.Iters, warmup: d.Warmup,
		min: d.Min, budget: d.Budget}
	f.StringVar(&s.ops, "op", s.ops, "PortalPerf tests: put, get, bidir or a list such as put,get")
	f.StringVar(&s.sizes, "sizes", s.sizes, "message sizes: list 0,8,1K or ranges 0:2M:x2, 0:4K:+512")
	f.IntVar(&s.iters, "iters", s.iters, "timed iterations per size (the paper: 1000)")
	f.IntVar(&s.warmup, "warmup", s.warmup, "untimed iterations before the timed ones, per size")
	f.Var(newTextValue(&s.budget, "bytes"), "budget", "cap the timed iterations of a size to budget/size (at least --min-iters); 0: no cap")
	f.IntVar(&s.min, "min-iters", s.min, "the least timed iterations of a size under --budget")
	f.StringVar(&s.bridge, "bridge", s.bridge, "qkbridge (Catamount), ukbridge (Linux user) or kbridge (Linux kernel)")
	f.StringVar(&s.matchList, "match-list", "0", "match entries that do not match ahead of the benchmark's on the target portal: a list such as 0,16,64,256 (one simulation each)")
	return s
}

// plan checks the flags against cfg and returns one PortalPerf configuration per op;
// its errors are usage errors.
func (s *portalperfState) plan(cfg *Config) ([]portals3.PerfConfig, error) {
	sizes, err := parseSizeList(s.sizes)
	if err != nil {
		return nil, err
	}
	bridge, err := portals3.ParseBridge(s.bridge)
	if err != nil {
		return nil, usage(fmt.Errorf("--bridge: %w", err))
	}
	lens, err := parseCounts(s.matchList)
	if err != nil {
		return nil, usage(fmt.Errorf("--match-list: %w", err))
	}
	var plans []portals3.PerfConfig
	for item := range strings.SplitSeq(s.ops, ",") {
		op, err := portals3.ParsePerfOp(strings.TrimSpace(item))
		if err != nil {
			return nil, usage(fmt.Errorf("--op: %w", err))
		}
		pc := portals3.PerfConfig{Machine: cfg.Params, Portals: cfg.Portals, Op: op, Iters: s.iters,
			Warmup: s.warmup, Budget: s.budget, Min: s.min, Bridge: bridge, Sizes: sizes}
		for _, n := range lens {
			pc.MatchList = n
			if err := pc.Validate(); err != nil {
				return nil, usage(fmt.Errorf("%w (flags --iters, --warmup, --min-iters, --budget)", err))
			}
			plans = append(plans, pc)
		}
	}
	return plans, nil
}

// parseCounts parses a comma-separated list of counts >= 0.
func parseCounts(s string) ([]int, error) {
	var out []int
	for item := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(item))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%q is not a count >= 0", item)
		}
		out = append(out, n)
	}
	return out, nil
}

// runPortalPerf runs one simulation per op and match list length; each size gives a row.
func runPortalPerf(ctx context.Context, cfg *Config, opts actors.Options, state any) (*benchOutput, error) {
	plans, err := state.(*portalperfState).plan(cfg)
	if err != nil {
		return nil, err
	}
	return runPlans(opts.Work, plans, func(pc portals3.PerfConfig) ([]results.Row, *actors.Report, error) {
		res, err := portals3.PortalPerf(ctx, pc, opts)
		if res == nil {
			return nil, nil, err
		}
		var rows []results.Row
		for _, pr := range res.Rows {
			if pr.Iters == 0 {
				continue // not reached before a failure
			}
			var r results.Row
			r.Set("op", string(pr.Op))
			r.Set("mode", cfg.Portals.Mode)
			r.Set("bridge", string(pc.Bridge))
			r.Set("match_list", pc.MatchList)
			r.Set("size_bytes", pr.Size)
			r.Set("latency_us", pr.Latency.Microseconds())
			r.Set("bandwidth_MBps", pr.Bandwidth/1e6)
			r.Set("iters", pr.Iters)
			rows = append(rows, r)
		}
		return rows, res.Report, err
	})
}
