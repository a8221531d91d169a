package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/internal/results"
	"github.com/seastar-sim/seastar/params"
	"github.com/seastar-sim/seastar/protocols/rawdma"
	"github.com/spf13/pflag"
)

func init() {
	registerBenchmark(&benchmark{
		name:  "rawdma",
		short: "Raw DMA between nodes, no protocol: latency vs hops, bandwidth, fan-in and CAM exhaustion",
		long: `rawdma measures the hardware path with the smallest firmware that can drive it: host
processes write TX DMA commands straight into the engine's FIFO over HyperTransport, and
the receiving PPC programs the CAM for each message and posts completion records to host
memory, which the processes poll.

  pingpong  one-way latency (round trip / 2) between node 0 and the node --hops away
  stream    bandwidth from node 0 to the node --hops away (--iters messages, --window in flight)
  fanin     --senders nodes send --iters messages each to node 0 at once: aggregate
            bandwidth, fairness (Jain's index of the senders' shares), CAM statistics

With more senders than CAM entries (256) the CAM fills and the RX pipeline stalls; the
raw firmware has no overflow protocol and panics the node, as the C firmware does
(exit status 1, with the statistics up to the panic).

Machine parameters come from --set KEY=VALUE and --config (see run params); the
benchmark picks the topology: a line of --hops+1 nodes, or the smallest cubic torus
that holds the fan-in.`,
		example: `  run bench rawdma --mode pingpong --hops 1,2,4,8 --sizes 0
  run bench rawdma --mode stream --sizes 1K:1M:x4 --iters 20
  run bench rawdma --mode stream --sizes 1M --set machine=xt5
  run bench rawdma --mode fanin --senders 8 --sizes 64K --iters 16
  run bench rawdma --mode fanin --senders 300 --sizes 16K --iters 4
  run sweep --bench rawdma --vary ppc.clock=250MHz,500MHz -- --mode pingpong --sizes 0:64K:x4`,
		ids:   []string{"mode", "hops", "senders", "size_bytes"},
		flags: rawdmaFlags,
		check: func(cfg *Config, state any) error {
			_, err := state.(*rawdmaState).plan(cfg)
			return err
		},
		run: runRawDMA,
	})
}

// rawdmaState is what the flags of `run bench rawdma` set.
type rawdmaState struct {
	mode, sizes, hops string
	bc                rawdma.Config
}

func rawdmaFlags(f *pflag.FlagSet) any {
	s := &rawdmaState{mode: "pingpong", sizes: "0", hops: "1", bc: rawdma.DefaultConfig()}
	f.StringVar(&s.mode, "mode", s.mode, "pingpong, stream or fanin")
	f.StringVar(&s.sizes, "sizes", s.sizes, "message sizes: list 0,8,1K or ranges 0:1M:x2, 0:4K:+512")
	f.StringVar(&s.hops, "hops", s.hops, "distances in router hops (pingpong, stream): a list such as 1,2,4,8")
	f.IntVar(&s.bc.Iters, "iters", s.bc.Iters, "timed round trips (pingpong) or messages per sender (stream, fanin)")
	f.IntVar(&s.bc.Warmup, "warmup", s.bc.Warmup, "untimed round trips before the timed ones (pingpong)")
	f.IntVar(&s.bc.Window, "window", s.bc.Window, "messages in flight per sender")
	f.IntVar(&s.bc.Senders, "senders", s.bc.Senders, "fanin: number of sending nodes")
	return s
}

// rawdmaPlan is a checked `run bench rawdma`: one simulation per hop count and size.
type rawdmaPlan struct {
	mode  string
	hops  []int
	sizes []actors.Bytes
	bc    rawdma.Config
}

// plan checks the flags against cfg; its errors are usage errors.
func (s *rawdmaState) plan(cfg *Config) (*rawdmaPlan, error) {
	p := &rawdmaPlan{mode: s.mode, bc: s.bc}
	p.bc.Machine, p.bc.Costs = cfg.Params, cfg.RawDMA
	var err error
	if p.sizes, err = params.ParseSizes(s.sizes); err != nil {
		return nil, usage(fmt.Errorf("--sizes: %w", err))
	}
	if p.hops, err = parseInts(s.hops); err != nil {
		return nil, usage(fmt.Errorf("--hops: %w", err))
	}
	if !slices.Contains([]string{"pingpong", "stream", "fanin"}, s.mode) {
		return nil, usage(fmt.Errorf("--mode: unknown mode %q (want pingpong, stream or fanin)", s.mode))
	}
	if s.mode == "fanin" {
		p.hops = p.hops[:1] // fan-in chooses its own topology
	}
	for _, h := range p.hops {
		for _, size := range p.sizes {
			bc := p.bc
			bc.Hops, bc.Size = h, int64(size)
			if err := bc.Validate(); err != nil {
				return nil, usage(err)
			}
		}
	}
	return p, nil
}

// runRawDMA runs one simulation per hop count and size, one row each. The printed
// summary is the last simulation's report.
func runRawDMA(ctx context.Context, cfg *Config, opts actors.Options, state any) (*benchOutput, error) {
	p, err := state.(*rawdmaState).plan(cfg)
	if err != nil {
		return nil, err
	}
	out := &benchOutput{params: map[string]string{"mode": p.mode}}
	next := stages(opts.Work, len(p.hops)*len(p.sizes))
	for _, h := range p.hops {
		for _, s := range p.sizes {
			next()
			bc := p.bc
			bc.Hops, bc.Size = h, int64(s)
			r, res, err := runRaw(ctx, p.mode, bc, opts)
			out.rows = append(out.rows, r)
			if res != nil && res.Report != nil {
				out.reports = append(out.reports, res.Report)
				out.summary = res.Report
			}
			if err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

// parseInts parses a comma-separated list of positive integers.
func parseInts(s string) ([]int, error) {
	var out []int
	for item := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(item))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive integer", item)
		}
		out = append(out, n)
	}
	return slices.Compact(out), nil
}

// runRaw runs one raw DMA benchmark point and renders its row; after a simulation
// error the row still carries the receiver's statistics.
func runRaw(ctx context.Context, mode string, bc rawdma.Config, opts actors.Options) (results.Row, *rawdma.Result, error) {
	run := map[string]func(context.Context, rawdma.Config, actors.Options) (*rawdma.Result, error){
		"pingpong": rawdma.PingPong, "stream": rawdma.Stream, "fanin": rawdma.FanIn}[mode]
	res, err := run(ctx, bc, opts)
	var r results.Row
	r.Set("mode", mode)
	if mode == "fanin" {
		r.Set("senders", bc.Senders)
	} else {
		r.Set("hops", bc.Hops)
	}
	r.Set("size_bytes", bc.Size)
	if res == nil {
		return r, nil, err
	}
	switch mode {
	case "pingpong":
		r.Set("latency_us", res.Latency.Microseconds())
	case "stream":
		r.Set("bandwidth_MBps", res.Bandwidth/1e6)
	case "fanin":
		if err == nil {
			r.Set("bandwidth_MBps", res.Bandwidth/1e6)
			r.Set("fairness", res.Fairness)
		}
		s := res.Receiver
		r.Set("cam_peak", s.CAMPeak)
		r.Set("cam_stalls", s.CAMStalls)
		r.Set("cam_stall_us", s.CAMStallTime.Microseconds())
		r.Set("waiting_peak", s.WaitingPeak)
		r.Set("messages", s.Messages)
	}
	return r, res, err
}
