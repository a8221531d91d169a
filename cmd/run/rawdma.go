package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/params"
	"github.com/seastar-sim/seastar/protocols/rawdma"
	"github.com/spf13/cobra"
)

func init() { benchCommands = append(benchCommands, newRawDMACmd) }

func newRawDMACmd(c *common) *cobra.Command {
	var (
		mode, sizes, hops string
		bc                = rawdma.DefaultConfig()
	)
	mode, sizes, hops = "pingpong", "0", "1"
	cmd := &cobra.Command{
		Use:   "rawdma",
		Short: "Raw DMA between nodes, no protocol: latency vs hops, bandwidth, fan-in and CAM exhaustion",
		Long: `rawdma measures the hardware path with the smallest firmware that can drive it: host
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
		Example: `  run bench rawdma --mode pingpong --hops 1,2,4,8 --sizes 0
  run bench rawdma --mode stream --sizes 1K:1M:x4 --iters 20
  run bench rawdma --mode stream --sizes 1M --set machine=xt5
  run bench rawdma --mode fanin --senders 8 --sizes 64K --iters 16
  run bench rawdma --mode fanin --senders 300 --sizes 16K --iters 4`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts, err := c.options()
			if err != nil {
				return err
			}
			cfg, _, err := c.load(cmd)
			if err != nil {
				return err
			}
			bc.Machine, bc.Costs = cfg.Params, cfg.RawDMA
			szs, err := params.ParseSizes(sizes)
			if err != nil {
				return usage(fmt.Errorf("--sizes: %w", err))
			}
			hs, err := parseInts(hops)
			if err != nil {
				return usage(fmt.Errorf("--hops: %w", err))
			}
			if !slices.Contains([]string{"pingpong", "stream", "fanin"}, mode) {
				return usage(fmt.Errorf("--mode: unknown mode %q (want pingpong, stream or fanin)", mode))
			}
			if mode == "fanin" {
				hs = hs[:1] // fan-in chooses its own topology
			}
			var rows []row
			var rep *actors.Report
			for _, h := range hs {
				for _, s := range szs {
					bc.Hops, bc.Size = h, int64(s)
					if err := bc.Validate(); err != nil {
						return usage(err)
					}
					r, res, err := runRaw(cmd.Context(), mode, bc, opts)
					rows = append(rows, r)
					if err != nil {
						fmt.Fprintln(cmd.ErrOrStderr(), "statistics up to the failure:")
						_ = writeRows(cmd.ErrOrStderr(), rows)
						return failed(err)
					}
					rep = res.Report
				}
			}
			out := newResult("bench rawdma", c, rep)
			out.Params["mode"] = mode
			out.Rows = rows
			return failed(writeResult(cmd.OutOrStdout(), c.format, out))
		},
	}
	f := cmd.Flags()
	f.StringVar(&mode, "mode", mode, "pingpong, stream or fanin")
	f.StringVar(&sizes, "sizes", sizes, "message sizes: list 0,8,1K or ranges 0:1M:x2, 0:4K:+512")
	f.StringVar(&hops, "hops", hops, "distances in router hops (pingpong, stream): a list such as 1,2,4,8")
	f.IntVar(&bc.Iters, "iters", bc.Iters, "timed round trips (pingpong) or messages per sender (stream, fanin)")
	f.IntVar(&bc.Warmup, "warmup", bc.Warmup, "untimed round trips before the timed ones (pingpong)")
	f.IntVar(&bc.Window, "window", bc.Window, "messages in flight per sender")
	f.IntVar(&bc.Senders, "senders", bc.Senders, "fanin: number of sending nodes")
	return cmd
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
func runRaw(ctx context.Context, mode string, bc rawdma.Config, opts actors.Options) (row, *rawdma.Result, error) {
	run := map[string]func(context.Context, rawdma.Config, actors.Options) (*rawdma.Result, error){
		"pingpong": rawdma.PingPong, "stream": rawdma.Stream, "fanin": rawdma.FanIn}[mode]
	res, err := run(ctx, bc, opts)
	var r row
	r.set("mode", mode)
	if mode == "fanin" {
		r.set("senders", bc.Senders)
	} else {
		r.set("hops", bc.Hops)
	}
	r.set("size_bytes", bc.Size)
	if res == nil {
		return r, nil, err
	}
	switch mode {
	case "pingpong":
		r.set("latency_us", res.Latency.Microseconds())
	case "stream":
		r.set("bandwidth_MBps", res.Bandwidth/1e6)
	case "fanin":
		if err == nil {
			r.set("bandwidth_MBps", res.Bandwidth/1e6)
			r.set("fairness", res.Fairness)
		}
		s := res.Receiver
		r.set("cam_peak", s.CAMPeak)
		r.set("cam_stalls", s.CAMStalls)
		r.set("cam_stall_us", s.CAMStallTime.Microseconds())
		r.set("waiting_peak", s.WaitingPeak)
		r.set("messages", s.Messages)
	}
	return r, res, err
}
