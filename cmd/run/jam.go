package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/internal/results"
	"github.com/seastar-sim/seastar/machine"
	"github.com/seastar-sim/seastar/protocols/funi"
	"github.com/spf13/pflag"
)

// The StarT-JR benchmark (protocols/funi): Table 2 of Hoe & Ehrlich 1996.

func init() {
	registerBenchmark(&benchmark{
		name:  "jam",
		short: "StarT-JR JAM primitives as Table 2 of Hoe & Ehrlich 1996: overheads, throughput, latency; --op shm-read",
		long: `jam measures the JAM active-message primitives on a StarT-JR cluster (machine startjr, two
IEEE 1394 buses, or startjr-arctic) between nodes 0 and 1, as Table 2 of Hoe & Ehrlich
1996 does: send_overhead_us and recv_overhead_us are the mean host time of the send call
and of taking a message that has already landed (isolated messages); send_us and recv_us
are the time per message in a stream of --stream messages (second half), at the sender
and at the receiver, with send_MBps and recv_MBps the payload rates (16 bytes for JAM_4
and xfer_4, 4n for the others); latency_us is one-way user to user, half a ping-pong
round trip. --op shm-read measures a single-word read of a shared-memory location cached
in the GSMC (latency_us) and of one that misses (miss_latency_us). The free costs are
calibrated in protocols/funi/calibration.go; run params funi startjr lists them.`,
		example: `  run bench jam
  run bench jam --set machine=startjr-arctic
  run bench jam --primitives JAM_4,JAM_n=20 --op table,shm-read
  run sweep --bench jam --vary startjr.pci.host_read_latency_clocks=10,18,26 -- --primitives JAM_n=20`,
		ids:    []string{"op", "primitive"},
		preset: "startjr",
		flags:  jamFlags,
		check:  func(cfg *Config, state any) error { _, err := state.(*jamState).plan(cfg); return err },
		run:    runJAM,
	})
}

type jamState struct {
	ops, prims        string
	stream, overheads int
	pingpongs, reads  int
}

func jamFlags(f *pflag.FlagSet) any {
	c := funi.DefaultTableConfig()
	s := &jamState{ops: "table,shm-read", prims: "all", stream: c.Stream, overheads: c.Overheads, pingpongs: c.PingPongs, reads: 8}
	f.StringVar(&s.ops, "op", s.ops, "measurements: table (Table 2 rows), shm-read (shared-memory read)")
	f.StringVar(&s.prims, "primitives", s.prims, "Table 2 primitives, comma separated (all: the twelve)")
	f.IntVar(&s.stream, "stream", s.stream, "messages of the throughput stream (the second half is timed)")
	f.IntVar(&s.overheads, "overheads", s.overheads, "isolated messages timed for the overheads")
	f.IntVar(&s.pingpongs, "pingpongs", s.pingpongs, "round trips timed for the latency")
	f.IntVar(&s.reads, "reads", s.reads, "shared-memory reads (each a miss, then a hit)")
	return s
}

type jamPlan struct {
	ops   []string
	prims []funi.Primitive
}

func (s *jamState) plan(cfg *Config) (*jamPlan, error) {
	if !cfg.Params.IsStarTJR() {
		return nil, usage(fmt.Errorf("run bench jam needs a StarT-JR machine (--set machine=startjr or machine=startjr-arctic), not machine=%s", cfg.Params.Machine))
	}
	p := &jamPlan{}
	var err error
	if p.ops, err = listOf("op", s.ops, "table", "shm-read"); err != nil {
		return nil, err
	}
	if s.prims == "all" {
		p.prims = funi.Table2
	} else {
		for name := range strings.SplitSeq(s.prims, ",") {
			pr, ok := funi.PrimitiveByName(strings.TrimSpace(name))
			if !ok {
				var names []string
				for _, t := range funi.Table2 {
					names = append(names, t.Name)
				}
				return nil, usage(fmt.Errorf("--primitives: unknown primitive %q (want all or %s)", name, strings.Join(names, ", ")))
			}
			p.prims = append(p.prims, pr)
		}
	}
	if s.stream < 4 || s.overheads < 1 || s.pingpongs < 1 || s.reads < 1 {
		return nil, usage(fmt.Errorf("--stream must be >= 4, --overheads, --pingpongs and --reads >= 1"))
	}
	return p, nil
}

func runJAM(ctx context.Context, cfg *Config, opts actors.Options, state any) (*benchOutput, error) {
	s := state.(*jamState)
	p, err := s.plan(cfg)
	if err != nil {
		return nil, err
	}
	out := &benchOutput{params: map[string]string{"network": cfg.Params.StarTJR.Network}}
	n := 0
	for _, op := range p.ops {
		if op == "table" {
			n += len(p.prims)
		} else {
			n++
		}
	}
	next := stages(opts.Work, n)
	tc := funi.TableConfig{Overheads: s.overheads, Stream: s.stream, PingPongs: s.pingpongs}
	for _, op := range p.ops {
		if op == "shm-read" {
			next()
			hit, miss, rep, err := funi.ShmRead(ctx, cfg.Params, cfg.FUNI, s.reads, opts)
			if err != nil {
				return out, failed(err)
			}
			var r results.Row
			r.Set("op", op)
			r.Set("primitive", "shm_read")
			r.Set("latency_us", hit.Microseconds())
			r.Set("miss_latency_us", miss.Microseconds())
			out.rows = append(out.rows, r)
			out.reports = append(out.reports, rep)
			continue
		}
		for _, pr := range p.prims {
			next()
			row, reps, err := funi.Table(ctx, cfg.Params, cfg.FUNI, pr, tc, opts)
			out.reports = append(out.reports, reps...)
			if err != nil {
				return out, failed(fmt.Errorf("%s: %w", pr.Name, err))
			}
			var r results.Row
			r.Set("op", op)
			r.Set("primitive", pr.Name)
			r.Set("send_overhead_us", row.SendOverhead.Microseconds())
			r.Set("recv_overhead_us", row.RecvOverhead.Microseconds())
			r.Set("send_MBps", row.SendMBps)
			r.Set("send_us", row.SendPer.Microseconds())
			r.Set("recv_MBps", row.RecvMBps)
			r.Set("recv_us", row.RecvPer.Microseconds())
			r.Set("latency_us", row.Latency.Microseconds())
			r.Set("fw_send_busy_us", row.SendBusy.Microseconds())
			r.Set("fw_recv_busy_us", row.RecvBusy.Microseconds())
			out.rows = append(out.rows, r)
		}
	}
	return out, nil
}

func init() {
	registerBenchmark(&benchmark{
		name:  "funi",
		short: "StarT-JR multi-node workloads: pingpong, hotspot, alltoall, two GIDs time-shared; protocol counters",
		long: `funi runs JAM_n=20 workloads on every node of StarT-JR clusters of --nodes nodes (the
paper's system has 8), on each --network (default: the machine's; 1394,arctic compares
them) and checks that every message arrived exactly once at the right application:
pingpong (pairs), hotspot (every node streams to node 0), alltoall (round robin), gids
(two applications time-share the nodes, funi.gid_quantum, each running alltoall). Each
receiving handler computes --work. Rows give the time, the messages sent, received and
lost, and the FUNI counters: NACKs (queue full, wrong GID), retries, restarts and rounds
(IEEE 1394 loss recovery), packets the PLMs discarded. A run that loses a message exits 1.`,
		example: `  run bench funi
  run bench funi --pattern hotspot --work 100us
  run bench funi --pattern alltoall --nodes 2,4,8 --network 1394,arctic
  run bench funi --set startjr.squall.fifo_bytes=256 --set startjr.i960.clock=10MHz   # exhaustion: rounds`,
		ids:    []string{"pattern", "nodes", "network"},
		preset: "startjr",
		flags: func(f *pflag.FlagSet) any {
			s := &funiState{patterns: strings.Join(funi.Patterns, ","), messages: 20, nodes: "8"}
			f.StringVar(&s.patterns, "pattern", s.patterns, "workloads: "+strings.Join(funi.Patterns, ", "))
			f.IntVar(&s.messages, "messages", s.messages, "messages per sender and destination (round trips for pingpong)")
			f.StringVar(&s.work, "work", "0", "host time each receiving handler computes, e.g. 100us")
			f.StringVar(&s.nodes, "nodes", s.nodes, "cluster sizes, e.g. 2,4,8 (each sets startjr.nodes)")
			f.StringVar(&s.networks, "network", "", "networks: 1394, arctic (default: the machine's startjr.network)")
			return s
		},
		check: func(cfg *Config, state any) error { _, err := state.(*funiState).plan(cfg); return err },
		run:   runFUNI,
	})
}

type funiState struct {
	patterns, work  string
	messages        int
	nodes, networks string
}

type funiPlan struct {
	patterns, networks []string
	nodes              []int
	work               actors.Duration
}

func (s *funiState) plan(cfg *Config) (*funiPlan, error) {
	if !cfg.Params.IsStarTJR() {
		return nil, usage(fmt.Errorf("run bench funi needs a StarT-JR machine (--set machine=startjr or machine=startjr-arctic), not machine=%s", cfg.Params.Machine))
	}
	p := &funiPlan{}
	var err error
	if p.patterns, err = listOf("pattern", s.patterns, funi.Patterns...); err != nil {
		return nil, err
	}
	if p.work, err = actors.ParseDuration(s.work); err != nil || p.work < 0 {
		return nil, usage(fmt.Errorf("--work: want a duration >= 0 such as 100us (got %q)", s.work))
	}
	if s.messages < 1 {
		return nil, usage(fmt.Errorf("--messages must be >= 1"))
	}
	for item := range strings.SplitSeq(s.nodes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(item))
		if err != nil || n < 2 {
			return nil, usage(fmt.Errorf("--nodes: want node counts >= 2 such as 2,4,8 (got %q)", item))
		}
		p.nodes = append(p.nodes, n)
	}
	p.networks = []string{cfg.Params.StarTJR.Network}
	if s.networks != "" {
		if p.networks, err = listOf("network", s.networks, "1394", "arctic"); err != nil {
			return nil, err
		}
	}
	for _, net := range p.networks {
		for _, n := range p.nodes {
			mp := cfg.Params
			mp.StarTJR.Network, mp.StarTJR.Nodes = net, n
			if err := mp.StarTJR.Validate(); err != nil {
				return nil, usage(fmt.Errorf("startjr.%w", err))
			}
		}
	}
	return p, nil
}

func runFUNI(ctx context.Context, cfg *Config, opts actors.Options, state any) (*benchOutput, error) {
	s := state.(*funiState)
	p, err := s.plan(cfg)
	if err != nil {
		return nil, err
	}
	out := &benchOutput{}
	next := stages(opts.Work, len(p.patterns)*len(p.networks)*len(p.nodes))
	var lost int64
	for _, pat := range p.patterns {
		for _, net := range p.networks {
			for _, n := range p.nodes {
				next()
				mp := cfg.Params
				mp.StarTJR.Network, mp.StarTJR.Nodes = net, n
				row, r, err := funiRow(ctx, mp, cfg, pat, s.messages, p.work, opts, out)
				if err != nil {
					return out, err
				}
				out.rows = append(out.rows, row)
				lost += r.Lost() + r.Misdel
			}
		}
	}
	if lost > 0 {
		return out, failed(fmt.Errorf("%d messages lost or misdelivered", lost))
	}
	return out, nil
}

// funiRow runs one workload and returns its row.
func funiRow(ctx context.Context, mp machine.Params, cfg *Config, pat string, msgs int, work actors.Duration, opts actors.Options, out *benchOutput) (results.Row, funi.LoadResult, error) {
	var row results.Row
	r, rep, err := funi.Load(ctx, mp, cfg.FUNI, pat, msgs, work, opts)
	if rep != nil {
		out.reports = append(out.reports, rep)
	}
	if err != nil {
		return row, r, failed(fmt.Errorf("%s on %d nodes (%s): %w", pat, mp.StarTJR.Nodes, mp.StarTJR.Network, err))
	}
	row.Set("pattern", pat)
	row.Set("nodes", int64(mp.StarTJR.Nodes))
	row.Set("network", mp.StarTJR.Network)
	row.Set("time_us", r.Time.Microseconds())
	row.Set("sent", r.Sent)
	row.Set("received", r.Received)
	row.Set("lost", r.Lost())
	row.Set("misdelivered", r.Misdel)
	row.Set("bandwidth_MBps", float64(r.Bytes)/r.Time.Microseconds())
	row.Set("nacks", r.FW.Nacks)
	row.Set("nacks_full", r.FW.QueueFull)
	row.Set("nacks_gid", r.FW.GIDRejected)
	row.Set("retries", r.FW.Retries)
	row.Set("restarts", r.FW.Restarts)
	row.Set("rounds", r.FW.Rounds)
	row.Set("stale", r.FW.Stale)
	row.Set("discarded", r.Discarded)
	row.Set("overflows", r.FW.Overflows)
	return row, r, nil
}
