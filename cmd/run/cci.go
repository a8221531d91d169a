package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/internal/results"
	"github.com/seastar-sim/seastar/params"
	"github.com/seastar-sim/seastar/protocols/cci"
	"github.com/spf13/pflag"
)

func init() {
	registerBenchmark(&benchmark{
		name:  "cci-pingpong",
		short: "CCI ping-pong latency over UU, RU and RO connections (Dillow & Atchley 2011 s.V.A)",
		long: `cci-pingpong is the latency test of Dillow & Atchley 2011 s.V.A over native CCI on the
SeaStar, between two nodes one router hop apart, on the xt5 preset unless machine is
set. The client sends a message of each size on a connection of each type (--conn),
the server sends it back on receipt; latency_us is the round trip / 2, averaged over
--iters round trips after --warmup untimed ones. Sizes go up to the MSS (cci.mss,
4 KB by default). The CCI parameters are the cci.* keys (run params).`,
		example: `  run bench cci-pingpong
  run bench cci-pingpong --conn uu --sizes 0:4K:+256
  run bench cci-pingpong --set cci.mss=8K --sizes 0,4K,8K
  run sweep --bench cci-pingpong --vary cci.lib_send_cycles=150,300,600 -- --conn ru --sizes 0`,
		ids:    []string{"op", "conn", "size_bytes"},
		preset: "xt5",
		flags:  func(f *pflag.FlagSet) any { return cciFlags(f, false) },
		check: func(cfg *Config, state any) error {
			_, err := state.(*cciState).plan(cfg)
			return err
		},
		run: runCCI,
	})
	registerBenchmark(&benchmark{
		name:  "cci-stream",
		short: "CCI streaming message rate and bandwidth, tuned messages in flight (Dillow & Atchley 2011 s.V.B)",
		long: `cci-stream is the streaming test of Dillow & Atchley 2011 s.V.B over native CCI on the
SeaStar, between two nodes one router hop apart, on the xt5 preset unless machine is
set. The client keeps a window of messages in flight (a new send as each completes);
the server counts arrivals, and the rates are taken at the server over --iters
messages after --warmup. As in the paper the number of messages in flight is tuned:
every window of --window is run and the best message rate is reported, with its
window. latency_us is the time per message (the inverse of msg_per_s).

--op rma streams RMA writes (beyond the paper's prototype) of --rma-sizes on the
reliable connections: the rates are then taken at the initiator, from the writes'
completions, as the target's host takes no part. Windows that would keep more than
4 MB in flight are not tried, and at least 4 x window writes are timed.`,
		example: `  run bench cci-stream
  run bench cci-stream --conn uu,ro --sizes 0,512,4K --window 32
  run bench cci-stream --op msg,rma --rma-sizes 64K,1M
  run sweep --bench cci-stream --vary cci.credit_batch=8,32,128 -- --conn ru --sizes 0`,
		ids:    []string{"op", "conn", "size_bytes"},
		preset: "xt5",
		flags:  func(f *pflag.FlagSet) any { return cciFlags(f, true) },
		check: func(cfg *Config, state any) error {
			_, err := state.(*cciState).plan(cfg)
			return err
		},
		run: runCCI,
	})
}

// rmaInFlight bounds the bytes an RMA stream keeps in flight: larger windows of the
// --window list are not tried (beyond it the link is long saturated).
const rmaInFlight = 4 * actors.MiB

// cciState holds the flags of cci-pingpong and cci-stream.
type cciState struct {
	stream                bool
	conns, ops, sizes     string
	rmaSizes, windows     string
	iters, warmup, rmaIts int
}

func cciFlags(f *pflag.FlagSet, stream bool) any {
	s := &cciState{stream: stream, conns: "uu,ru,ro", ops: "msg", sizes: "0,8,64,512,1K,2K,4K", iters: 1000, warmup: 10,
		windows: "1,2,4,8,16,32,64", rmaSizes: "4K,64K,1M", rmaIts: 64}
	f.StringVar(&s.conns, "conn", s.conns, "connection types: uu, ru, ro or a list")
	f.StringVar(&s.sizes, "sizes", s.sizes, "message sizes up to cci.mss: list 0,8,1K or ranges 0:4K:x2, 0:4K:+512")
	if stream {
		s.iters, s.warmup = 2000, 100
		f.StringVar(&s.ops, "op", s.ops, "msg (messages), rma (RMA writes, reliable connections) or msg,rma")
		f.StringVar(&s.windows, "window", s.windows, "messages in flight: one, or a list of which the best message rate is reported")
		f.StringVar(&s.rmaSizes, "rma-sizes", s.rmaSizes, "--op rma: write sizes, list or ranges")
		f.IntVar(&s.rmaIts, "rma-iters", s.rmaIts, "--op rma: timed writes per size, at least 4 x window (after --warmup/10 untimed ones)")
	}
	f.IntVar(&s.iters, "iters", s.iters, "timed round trips (pingpong) or messages (stream) per size")
	f.IntVar(&s.warmup, "warmup", s.warmup, "untimed round trips or messages before them")
	return s
}

// cciRun is one measurement: a configuration and the windows to try.
type cciRun struct {
	op      string
	cfg     cci.BenchConfig
	windows []int
}

func (s *cciState) plan(cfg *Config) ([]cciRun, error) {
	var attrs []cci.Attr
	for item := range strings.SplitSeq(s.conns, ",") {
		a, err := cci.ParseAttr(strings.TrimSpace(item))
		if err != nil {
			return nil, usage(fmt.Errorf("--conn: %w", err))
		}
		attrs = append(attrs, a)
	}
	sizes, err := params.ParseSizes(s.sizes)
	if err != nil {
		return nil, usage(fmt.Errorf("--sizes: %w", err))
	}
	ops := []string{"pingpong"}
	windows := []int{1}
	var rmaSizes []actors.Bytes
	if s.stream {
		ops = nil
		for item := range strings.SplitSeq(s.ops, ",") {
			switch op := strings.TrimSpace(item); op {
			case "msg", "rma":
				ops = append(ops, op)
			default:
				return nil, usage(fmt.Errorf("--op: unknown %q (want msg, rma or msg,rma)", op))
			}
		}
		windows = nil
		for item := range strings.SplitSeq(s.windows, ",") {
			w, err := strconv.Atoi(strings.TrimSpace(item))
			if err != nil || w < 1 {
				return nil, usage(fmt.Errorf("--window: %q is not a number of messages >= 1", item))
			}
			windows = append(windows, w)
		}
		if rmaSizes, err = params.ParseSizes(s.rmaSizes); err != nil {
			return nil, usage(fmt.Errorf("--rma-sizes: %w", err))
		}
	}
	base := cci.BenchConfig{Machine: cfg.Params, CCI: cfg.CCI, Iters: s.iters, Warmup: s.warmup, Window: 1}
	var runs []cciRun
	for _, op := range ops {
		for _, a := range attrs {
			szs := sizes
			c := base
			c.Attr = a
			if op == "rma" {
				if !a.Reliable() {
					continue
				}
				szs, c.RMA, c.Iters, c.Warmup = rmaSizes, true, s.rmaIts, max(1, s.warmup/10)
			}
			for _, sz := range szs {
				c.Size = int64(sz)
				c.Window = windows[0]
				if err := c.Validate(); err != nil {
					return nil, usage(err)
				}
				name := op
				if op == "msg" {
					name = "stream"
				}
				runs = append(runs, cciRun{op: name, cfg: c, windows: windows})
			}
		}
	}
	if len(runs) == 0 {
		return nil, usage(fmt.Errorf("--op rma needs a reliable connection in --conn (got %s)", s.conns))
	}
	return runs, nil
}

func runCCI(ctx context.Context, cfg *Config, opts actors.Options, state any) (*benchOutput, error) {
	s := state.(*cciState)
	runs, err := s.plan(cfg)
	if err != nil {
		return nil, err
	}
	out := &benchOutput{params: map[string]string{"machine": cfg.Machine}}
	next := stages(opts.Work, len(runs))
	for _, run := range runs {
		next()
		var r results.Row
		r.Set("op", run.op)
		r.Set("conn", run.cfg.Attr.String())
		r.Set("size_bytes", run.cfg.Size)
		if run.op == "pingpong" {
			res, err := cci.PingPong(ctx, run.cfg, opts)
			if res != nil && res.Report != nil {
				out.reports = append(out.reports, res.Report)
			}
			if err != nil {
				return out, err
			}
			r.Set("latency_us", res.Latency.Microseconds())
			r.Set("iters", run.cfg.Iters)
			out.rows = append(out.rows, r)
			continue
		}
		var best *cci.BenchResult
		iters := 0
		for i, w := range run.windows {
			c := run.cfg
			c.Window = w
			if c.RMA {
				if i > 0 && int64(w)*c.Size > int64(rmaInFlight) {
					continue
				}
				c.Iters = max(c.Iters, 4*w) // the window's start-up amortized
			}
			res, err := cci.Stream(ctx, c, opts)
			if res != nil && res.Report != nil {
				out.reports = append(out.reports, res.Report)
			}
			if err != nil {
				return out, fmt.Errorf("%s %s %dB window %d: %w", run.op, c.Attr, c.Size, w, err)
			}
			if best == nil || res.MsgRate > best.MsgRate {
				best, iters = res, c.Iters
			}
		}
		r.Set("window", best.Window)
		r.Set("latency_us", 1e6/best.MsgRate)
		r.Set("bandwidth_MBps", best.Bandwidth/1e6)
		r.Set("msg_per_s", best.MsgRate)
		r.Set("iters", iters)
		if run.op == "rma" && cfg.Host.PinFailRate != (actors.Prob{}) {
			r.Set("pin_failures", best.Client.PinFailures+best.Server.PinFailures)
		}
		out.rows = append(out.rows, r)
	}
	return out, nil
}
