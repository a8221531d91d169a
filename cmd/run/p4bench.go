package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/internal/results"
	"github.com/seastar-sim/seastar/params"
	"github.com/seastar-sim/seastar/protocols/portals4"
	"github.com/spf13/pflag"
)

// The Portals 4 benchmarks (protocols/portals4): latency, message rate and a
// triggered-operation barrier, on the offloaded Portals 4 firmware.

func init() {
	registerBenchmark(&benchmark{
		name:  "p4-latency",
		short: "Portals 4 put ping-pong and get latency over sizes, matching and non-matching NI",
		long: `p4-latency measures Portals 4 on the SeaStar with the matching, list management and
events in the PPC firmware. put: a ping-pong of puts between nodes 0 and 1, one-way
latency = round trip / 2, each side waiting for the PUT event of the other's put. get:
node 0 gets from node 1 and waits for the REPLY event. Each library call is a mailbox
command to the firmware and a wait for its result (portals4.* costs, run params portals4).`,
		example: `  run bench p4-latency
  run bench p4-latency --ops put --ni matching --sizes 0:64K:x4
  run sweep --bench p4-latency --vary portals4.fw_match_instr=120,480 -- --ops put --sizes 8`,
		ids:   []string{"op", "ni", "size_bytes"},
		flags: p4LatencyFlags,
		check: func(cfg *Config, state any) error { _, err := state.(*p4LatencyState).plan(); return p4Check(cfg, err) },
		run:   runP4Latency,
	})
	registerBenchmark(&benchmark{
		name:  "p4-msgrate",
		short: "Portals 4 message rate from one initiator: sizes, messages in flight, priority and unexpected list lengths",
		long: `p4-msgrate sends --messages puts from node 0 to node 1 on a matching NI, MPI style: node 1
keeps --window use-once receives posted behind priority-1 entries that never match, and
reposts them after each window, each append searching unexpected-1 unexpected headers
that never match; node 0 sends a window and waits for node 1's go-ahead. The rate is
messages per second at node 0 (msg_per_s). --receives persistent keeps one persistent
receive instead, never reposted: the rate the NIC sustains without the target's host.`,
		example: `  run bench p4-msgrate
  run bench p4-msgrate --sizes 8 --priority 1,16,64,256
  run bench p4-msgrate --sizes 8 --unexpected 1,64,256 --window 32`,
		ids:   []string{"receives", "size_bytes", "window", "priority", "unexpected"},
		flags: p4MsgRateFlags,
		check: func(cfg *Config, state any) error { _, err := state.(*p4MsgRateState).plan(); return p4Check(cfg, err) },
		run:   runP4MsgRate,
	})
	registerBenchmark(&benchmark{
		name:  "p4-trig",
		short: "Portals 4 tree barrier on triggered puts and counting events vs the same barrier driven by the host",
		long: `p4-trig runs --iters binary-tree barriers over --nodes nodes (a line). Arrivals go up the
tree as zero-byte puts counted by each node's arrival counter, releases come down counted
by its release counter. triggered: every put is a triggered operation registered before
the timed loop; the host only increments its arrival counter and waits on its release
counter, the firmware does the rest. host: the host waits for its children and sends each
put itself. latency_us is the mean barrier time at node 0.`,
		example: `  run bench p4-trig
  run bench p4-trig --nodes 2,4,8,16,32 --iters 20`,
		ids:   []string{"variant", "nodes"},
		flags: p4TrigFlags,
		check: func(cfg *Config, state any) error { _, err := state.(*p4TrigState).plan(); return p4Check(cfg, err) },
		run:   runP4Trig,
	})
}

// p4Check adds to a plan's error the checks of the portals4 parameters against the
// machine.
func p4Check(cfg *Config, err error) error {
	if err != nil {
		return err
	}
	if err := cfg.Portals4.Fits(cfg.Params); err != nil {
		return usage(err)
	}
	return nil
}

type p4LatencyState struct {
	ops, nis, sizes string
	iters, warmup   int
}

func p4LatencyFlags(f *pflag.FlagSet) any {
	s := &p4LatencyState{ops: "put,get", nis: "matching,non-matching", sizes: "0:64K:x4", iters: 20, warmup: 2}
	f.StringVar(&s.ops, "ops", s.ops, "operations: put (ping-pong), get")
	f.StringVar(&s.nis, "ni", s.nis, "interfaces: matching, non-matching")
	f.StringVar(&s.sizes, "sizes", s.sizes, "message sizes: list 0,8,1K or ranges 0:1M:x2")
	f.IntVar(&s.iters, "iters", s.iters, "timed iterations per size")
	f.IntVar(&s.warmup, "warmup", s.warmup, "untimed iterations before them")
	return s
}

type p4LatencyPlan struct {
	ops, nis []string
	sizes    []actors.Bytes
}

func listOf(flag, s string, allowed ...string) ([]string, error) {
	var out []string
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		ok := false
		for _, a := range allowed {
			ok = ok || a == item
		}
		if !ok {
			return nil, usage(fmt.Errorf("--%s: unknown value %q (want %s)", flag, item, strings.Join(allowed, ", ")))
		}
		out = append(out, item)
	}
	return out, nil
}

func (s *p4LatencyState) plan() (*p4LatencyPlan, error) {
	p := &p4LatencyPlan{}
	var err error
	if p.ops, err = listOf("ops", s.ops, "put", "get"); err != nil {
		return nil, err
	}
	if p.nis, err = listOf("ni", s.nis, "matching", "non-matching"); err != nil {
		return nil, err
	}
	if p.sizes, err = params.ParseSizes(s.sizes); err != nil {
		return nil, usage(fmt.Errorf("--sizes: %w", err))
	}
	if s.iters < 1 || s.warmup < 0 {
		return nil, usage(fmt.Errorf("--iters must be >= 1 and --warmup >= 0"))
	}
	return p, nil
}

func runP4Latency(ctx context.Context, cfg *Config, opts actors.Options, state any) (*benchOutput, error) {
	s := state.(*p4LatencyState)
	p, err := s.plan()
	if err != nil {
		return nil, err
	}
	out := &benchOutput{}
	next := stages(opts.Work, len(p.ops)*len(p.nis)*len(p.sizes))
	for _, op := range p.ops {
		for _, ni := range p.nis {
			for _, size := range p.sizes {
				next()
				c := portals4.LatencyConfig{Op: op, Matching: ni == "matching", Size: int64(size), Iters: s.iters, Warmup: s.warmup}
				lat, rep, err := portals4.Latency(ctx, cfg.Params, cfg.Portals4, c, opts)
				var r results.Row
				r.Set("op", op)
				r.Set("ni", ni)
				r.Set("size_bytes", int64(size))
				if err != nil {
					return out, failed(err)
				}
				r.Set("latency_us", lat.Microseconds())
				out.rows = append(out.rows, r)
				out.reports = append(out.reports, rep)
			}
		}
	}
	return out, nil
}

type p4MsgRateState struct {
	sizes, windows, prio, unexp, recv string
	messages                          int
}

func p4MsgRateFlags(f *pflag.FlagSet) any {
	s := &p4MsgRateState{sizes: "0:4K:x4", windows: "16", prio: "1", unexp: "1", recv: "use-once", messages: 256}
	f.StringVar(&s.recv, "receives", s.recv, "use-once (reposted after each window, each append searching the unexpected list) or persistent (one receive, never reposted)")
	f.StringVar(&s.sizes, "sizes", s.sizes, "message sizes: list 0,8,1K or ranges 0:1M:x2")
	f.StringVar(&s.windows, "window", s.windows, "messages in flight (receives kept posted): a list such as 1,16,64")
	f.StringVar(&s.prio, "priority", s.prio, "priority list lengths each message walks (the receive is last): a list")
	f.StringVar(&s.unexp, "unexpected", s.unexp, "unexpected list lengths + 1 each reposted receive searches: a list (1: empty)")
	f.IntVar(&s.messages, "messages", s.messages, "timed messages per point")
	return s
}

type p4MsgRatePlan struct {
	sizes                []actors.Bytes
	windows, prio, unexp []int
	recv                 []string
}

func (s *p4MsgRateState) plan() (*p4MsgRatePlan, error) {
	p := &p4MsgRatePlan{}
	var err error
	if p.sizes, err = params.ParseSizes(s.sizes); err != nil {
		return nil, usage(fmt.Errorf("--sizes: %w", err))
	}
	for _, x := range []struct {
		flag, val string
		dst       *[]int
	}{{"window", s.windows, &p.windows}, {"priority", s.prio, &p.prio}, {"unexpected", s.unexp, &p.unexp}} {
		if *x.dst, err = parseInts(x.val); err != nil {
			return nil, usage(fmt.Errorf("--%s: %w", x.flag, err))
		}
	}
	if s.messages < 1 {
		return nil, usage(fmt.Errorf("--messages must be >= 1 (got %d)", s.messages))
	}
	if p.recv, err = listOf("receives", s.recv, "use-once", "persistent"); err != nil {
		return nil, err
	}
	return p, nil
}

func runP4MsgRate(ctx context.Context, cfg *Config, opts actors.Options, state any) (*benchOutput, error) {
	s := state.(*p4MsgRateState)
	p, err := s.plan()
	if err != nil {
		return nil, err
	}
	out := &benchOutput{}
	next := stages(opts.Work, len(p.recv)*len(p.sizes)*len(p.windows)*len(p.prio)*len(p.unexp))
	for _, recv := range p.recv {
		for _, size := range p.sizes {
			for _, w := range p.windows {
				for _, pr := range p.prio {
					for _, u := range p.unexp {
						next()
						c := portals4.MsgRateConfig{Size: int64(size), Messages: s.messages, Window: w, Priority: pr,
							Unexpected: u - 1, Persistent: recv == "persistent"}
						rate, rep, err := portals4.MsgRate(ctx, cfg.Params, cfg.Portals4, c, opts)
						if err != nil {
							return out, failed(err)
						}
						var r results.Row
						r.Set("receives", recv)
						r.Set("size_bytes", int64(size))
						r.Set("window", w)
						r.Set("priority", pr)
						r.Set("unexpected", u)
						r.Set("msg_per_s", rate)
						out.rows = append(out.rows, r)
						out.reports = append(out.reports, rep)
					}
				}
			}
		}
	}
	return out, nil
}

type p4TrigState struct {
	nodes, variants string
	iters           int
}

func p4TrigFlags(f *pflag.FlagSet) any {
	s := &p4TrigState{nodes: "2,4,8,16", variants: "triggered,host", iters: 10}
	f.StringVar(&s.nodes, "nodes", s.nodes, "node counts: a list such as 2,4,8")
	f.StringVar(&s.variants, "variant", s.variants, "triggered (no host in the loop) and/or host (host-driven)")
	f.IntVar(&s.iters, "iters", s.iters, "timed barriers per point")
	return s
}

type p4TrigPlan struct {
	nodes    []int
	variants []string
}

func (s *p4TrigState) plan() (*p4TrigPlan, error) {
	p := &p4TrigPlan{}
	var err error
	if p.nodes, err = parseInts(s.nodes); err != nil {
		return nil, usage(fmt.Errorf("--nodes: %w", err))
	}
	for _, n := range p.nodes {
		if n < 2 {
			return nil, usage(fmt.Errorf("--nodes: a barrier needs at least 2 nodes (got %d)", n))
		}
	}
	if p.variants, err = listOf("variant", s.variants, "triggered", "host"); err != nil {
		return nil, err
	}
	if s.iters < 1 || s.iters > 200 {
		return nil, usage(fmt.Errorf("--iters must be in 1..200 (got %d): the triggered barrier registers every iteration's operations up front", s.iters))
	}
	return p, nil
}

func runP4Trig(ctx context.Context, cfg *Config, opts actors.Options, state any) (*benchOutput, error) {
	s := state.(*p4TrigState)
	p, err := s.plan()
	if err != nil {
		return nil, err
	}
	out := &benchOutput{}
	next := stages(opts.Work, len(p.nodes)*len(p.variants))
	for _, n := range p.nodes {
		var host, trig actors.Duration
		for _, v := range p.variants {
			next()
			lat, rep, err := portals4.TrigBarrier(ctx, cfg.Params, cfg.Portals4, portals4.TrigConfig{Nodes: n, Iters: s.iters, Triggered: v == "triggered"}, opts)
			if err != nil {
				return out, failed(err)
			}
			var r results.Row
			r.Set("variant", v)
			r.Set("nodes", n)
			r.Set("latency_us", lat.Microseconds())
			if v == "host" {
				host = lat
			} else {
				trig = lat
			}
			out.rows = append(out.rows, r)
			out.reports = append(out.reports, rep)
		}
		if host > 0 && trig > 0 { // both variants ran: the speedup on each of their rows
			for i := len(out.rows) - len(p.variants); i < len(out.rows); i++ {
				out.rows[i].Set("host_over_triggered", float64(host)/float64(trig))
			}
		}
	}
	return out, nil
}

func init() {
	registerBenchmark(&benchmark{
		name:  "p4-flowctl",
		short: "Portals 4 flow control driven by exhaustion: unexpected headers run out, the entry is disabled, drained, re-enabled, refused puts resent",
		long: `p4-flowctl streams --messages puts (at most --window unacknowledged) from node 0 to node 1,
where every message arrives unexpected on a portal with flow control and the NI holds at
most --unexpected unexpected headers; node 1's host takes each message with a use-once
receive after --work on the one before. When the headers run out the NIC disables the
entry (PTL_EVENT_PT_DISABLED) and refuses puts with PTL_NI_PT_DISABLED; node 1 drains its
queue, takes what arrived, re-enables the entry (PtlPTEnable) and sends a resume put;
node 0 resends the refused puts. Rows: the time, the disables, refusals and resends, the
messages received (each exactly once, else the run fails) and the rate.`,
		example: `  run bench p4-flowctl
  run bench p4-flowctl --unexpected 2,8,32 --work 5us
  run bench p4-flowctl --set portals4.nic=onload`,
		ids:   []string{"unexpected", "window", "size_bytes"},
		flags: p4FlowFlags,
		check: func(cfg *Config, state any) error { _, err := state.(*p4FlowState).plan(); return p4Check(cfg, err) },
		run:   runP4Flow,
	})
}

type p4FlowState struct {
	messages, window int
	unexpected, work string
	size             int64
}

func p4FlowFlags(f *pflag.FlagSet) any {
	s := &p4FlowState{messages: 200, window: 32, unexpected: "4", work: "2us", size: 64}
	f.IntVar(&s.messages, "messages", s.messages, "puts sent")
	f.IntVar(&s.window, "window", s.window, "puts in flight at most (unacknowledged)")
	f.StringVar(&s.unexpected, "unexpected", s.unexpected, "unexpected headers the target NI holds: a list, e.g. 2,8,32")
	f.StringVar(&s.work, "work", s.work, "host time the target spends per message it takes")
	f.Int64Var(&s.size, "size", s.size, "bytes per put")
	return s
}

type p4FlowPlan struct {
	unexpected []int
	work       actors.Duration
}

func (s *p4FlowState) plan() (*p4FlowPlan, error) {
	p := &p4FlowPlan{}
	for item := range strings.SplitSeq(s.unexpected, ",") {
		var n int
		if _, err := fmt.Sscanf(strings.TrimSpace(item), "%d", &n); err != nil || n < 1 {
			return nil, usage(fmt.Errorf("--unexpected: want counts >= 1 such as 2,8,32 (got %q)", item))
		}
		p.unexpected = append(p.unexpected, n)
	}
	var err error
	if p.work, err = actors.ParseDuration(s.work); err != nil || p.work < 0 {
		return nil, usage(fmt.Errorf("--work: want a duration >= 0 such as 2us (got %q)", s.work))
	}
	if s.messages < 1 || s.window < 1 || s.size < 0 {
		return nil, usage(fmt.Errorf("--messages and --window must be >= 1, --size >= 0"))
	}
	return p, nil
}

func runP4Flow(ctx context.Context, cfg *Config, opts actors.Options, state any) (*benchOutput, error) {
	s := state.(*p4FlowState)
	p, err := s.plan()
	if err != nil {
		return nil, err
	}
	out := &benchOutput{}
	next := stages(opts.Work, len(p.unexpected))
	for _, u := range p.unexpected {
		next()
		c := portals4.FlowCtlConfig{Messages: s.messages, Window: s.window, Unexpected: u, Size: s.size, Work: p.work}
		res, rep, err := portals4.FlowControl(ctx, cfg.Params, cfg.Portals4, c, opts)
		if rep != nil {
			out.reports = append(out.reports, rep)
		}
		if err != nil {
			return out, failed(err)
		}
		if res.Received != int64(s.messages) || res.Duplicates != 0 {
			return out, failed(fmt.Errorf("p4-flowctl: %d of %d messages received, %d twice", res.Received, s.messages, res.Duplicates))
		}
		var r results.Row
		r.Set("unexpected", int64(u))
		r.Set("window", int64(s.window))
		r.Set("size_bytes", s.size)
		r.Set("time_us", res.Time.Microseconds())
		r.Set("msg_per_s", float64(s.messages)/res.Time.Seconds())
		r.Set("disables", res.Disables)
		r.Set("refused", res.Refused)
		r.Set("resent", res.Resent)
		r.Set("received", res.Received)
		out.rows = append(out.rows, r)
	}
	return out, nil
}
