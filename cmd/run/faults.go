package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/internal/results"
	"github.com/seastar-sim/seastar/motifs"
	"github.com/seastar-sim/seastar/params"
)

// run faults: a campaign of injected faults over an MPI motif. Each point runs the
// workload to completion with one fault setting and checks end to end that every
// message was delivered exactly once (receives completed = messages sent, bytes
// received = bytes sent, every rank finished); it reports the recovery's work (router
// link-level retries) and the time lost against the fault-free run.

// lostBound is how many times the fault-free iteration time a faulty point may run
// per iteration before it is taken for stuck (a lost message leaves ranks waiting with
// events still pending, such as retransmission timers).
const lostBound = 1000

// errDataLost is the error of a campaign in which a point lost or duplicated data.
var errDataLost = errors.New("faults: data was lost or duplicated (see the rows marked LOST)")

func newFaultsCmd(c *common) *cobra.Command {
	var crc, drop string
	var fl faultFlags
	var state *motifState
	cmd := &cobra.Command{
		Use:   "faults",
		Short: "A fault campaign: a motif run under injected faults, checked end to end for exactly-once delivery",
		Long: `faults runs an MPI motif (--motif, default hotspot, and the motif's flags) once per
fault setting: every value of --crc (router.crc_error_rate: link transmissions that fail
their 16-bit CRC; the SeaStar's link-level retry repeats them, Dillow & Atchley 2011
s.II) combined with every value of --drop (rxdma.drop_rate: messages lost at the
receiving NIC; with the C firmware's behaviour, portals.recovery=panic, such a loss shows
as LOST; --set portals.recovery=gbn recovers it), every value of --stall (ppc.stall_for:
the PPC of --fault-node runs no handler for that long from --fault-at) and every value of
--down (router.down_for: the outgoing link of --fault-node on --fault-dir sends nothing
for that long from --fault-at). CRC errors and losses hit every link and NIC unless
confined with --set: router.crc_node and router.crc_dir (one link), rxdma.drop_node (one
NIC). Resource exhaustion is a --set away (portals.sources, portals.pendings,
cam.entries, portals.accel_pendings, rxdma.fifo_packets, portals.eq_slots). Each point is checked end to end: every rank finished,
the receives completed equal the messages sent and the bytes received equal the bytes
sent, and (messages of at least 8 bytes, which then carry real payloads) every payload
arrived intact and once, checked against its sender's pattern (alltoall: every block;
allreduce: every rank's result against the exact sum). Rows: the fault setting, delivered (ok or
LOST), messages and bytes sent and received, the payloads intact, corrupt or twice, the router retries, go-back-n's retransmits, refusals and timeouts (with
recovery=gbn), the iteration time and the time lost against the fault-free point.
A campaign with a LOST point says so on stderr and exits 1. The results directory
holds the rows in the common schema (docs/results.md); plot them with run plot, e.g.
--x crc_error_rate --y iter_time_us.`,
		Example: `  run faults
  run faults --crc 0,1e-4,1e-3,1e-2 --motif halo3d --torus 4x4x4 --iters 3
  run faults --crc 0 --drop 0,0.001 --motif pingpong --torus 2x1x1
  run faults --crc 0,1e-3 --drop 0,0.01,0.05 --set portals.recovery=gbn
  run faults --crc 0 --stall 0,100us,1ms --down 0,1ms --set portals.recovery=gbn`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return c.runFaults(cmd, state, crc, drop, fl) },
	}
	f := cmd.Flags()
	state = motifFlags(f, true)
	state.motif = string(motifs.Hotspot)
	state.cfg = motifs.DefaultConfig(motifs.Hotspot)
	f.Lookup("motif").DefValue = string(motifs.Hotspot)
	if err := f.Set("torus", "4x4x4"); err != nil {
		panic(err)
	}
	f.Lookup("torus").DefValue = "4x4x4"
	f.StringVar(&crc, "crc", "0,1e-5,1e-4,1e-3,1e-2", "values of router.crc_error_rate: a list or range, as --vary takes them")
	f.StringVar(&drop, "drop", "0", "values of rxdma.drop_rate: a list or range, as --vary takes them")
	f.StringVar(&fl.stall, "stall", "0", "values of ppc.stall_for: how long the PPC of --fault-node stalls")
	f.StringVar(&fl.down, "down", "0", "values of router.down_for: how long the link of --fault-node on --fault-dir is down")
	f.IntVar(&fl.node, "fault-node", 0, "the node whose PPC stalls or whose link goes down")
	f.StringVar(&fl.dir, "fault-dir", "xp", "the port whose outgoing link goes down: xp, xm, yp, ym, zp, zm")
	f.StringVar(&fl.at, "fault-at", "100us", "when the stall or the link failure starts (simulated time)")
	f.StringVar(&fl.maxTime, "max-time", "1s", "simulated time a point may run before it counts as LOST (the first point; the others get 1000 x the fault-free run)")
	return cmd
}

// faultFlags are run faults' NIC-stall and link-down settings.
type faultFlags struct {
	stall, down, dir, at, maxTime string
	node                          int
}

func (c *common) runFaults(cmd *cobra.Command, state *motifState, crcList, dropList string, fl faultFlags) error {
	opts, err := c.options()
	if err != nil {
		return err
	}
	if err := c.refuseTracing("trace one point with run motif and its --set values"); err != nil {
		return err
	}
	if len(c.cluster.peers) > 0 {
		return usage(errors.New("--peers: run faults runs in one process"))
	}
	cfg, tree, err := c.load(cmd)
	if err != nil {
		return err
	}
	crcs, err := faultValues(tree, "crc", "router.crc_error_rate", crcList, actors.ParseProb)
	if err != nil {
		return err
	}
	drops, err := faultValues(tree, "drop", "rxdma.drop_rate", dropList, actors.ParseProb)
	if err != nil {
		return err
	}
	stalls, err := faultValues(tree, "stall", "ppc.stall_for", fl.stall, actors.ParseDuration)
	if err != nil {
		return err
	}
	downs, err := faultValues(tree, "down", "router.down_for", fl.down, actors.ParseDuration)
	if err != nil {
		return err
	}
	maxTime, err := actors.ParseDuration(fl.maxTime)
	if err != nil || maxTime <= 0 {
		return usage(fmt.Errorf("--max-time: want a simulated time > 0 such as 1s (got %q)", fl.maxTime))
	}
	at, err := actors.ParseDuration(fl.at)
	if err != nil || at < 0 {
		return usage(fmt.Errorf("--fault-at: want a simulated time such as 100us (got %q)", fl.at))
	}
	type point struct {
		crc, drop   actors.Prob
		stall, down actors.Duration
	}
	var points []point
	for _, crc := range crcs {
		for _, drop := range drops {
			for _, stall := range stalls {
				for _, down := range downs {
					points = append(points, point{crc, drop, stall, down})
				}
			}
		}
	}
	out, err := c.newOutput("faults", false)
	if err != nil {
		return err
	}
	start := time.Now()
	res := &benchOutput{}
	var base actors.Duration
	lost := 0
	for _, pt := range points {
		crc, drop := pt.crc, pt.drop
		pc := *cfg
		pc.Router.CRCErrorRate, pc.RXDMA.DropRate = crc, drop
		if pt.stall > 0 {
			pc.PPC.StallNode, pc.PPC.StallAt, pc.PPC.StallFor = fl.node, at, pt.stall
		}
		if pt.down > 0 {
			pc.Router.DownNode, pc.Router.DownDir, pc.Router.DownAt, pc.Router.DownFor = fl.node, fl.dir, at, pt.down
		}
		if err := pc.Params.Validate(); err != nil {
			return usage(fmt.Errorf("--fault-node, --fault-dir: %w", err))
		}
		mc, err := state.plan(&pc, opts.Seed)
		if err != nil {
			return err
		}
		// The motifs carry real payloads, each checked at its receiver (motifs.Config.Verify).
		mc.Verify = mc.Size >= motifs.VerifyMinSize
		if !c.quiet {
			fmt.Fprintf(cmd.ErrOrStderr(), "faults: crc_error_rate %s, drop_rate %s, nic stall %s, link down %s\n", crc, drop, pt.stall, pt.down)
		}
		o := opts
		// A loss leaves ranks waiting forever, and recovery can livelock: bound the run
		// far beyond the fault-free one, and the first point by --max-time.
		o.End = actors.Time(0).Add(maxTime)
		if base > 0 {
			o.End = actors.Time(0).Add(lostBound * base * actors.Duration(mc.Iters+mc.Warmup))
		}
		r, runErr := motifs.Run(cmd.Context(), mc, o)
		if errors.Is(runErr, actors.ErrInterrupted) {
			return runErr
		}
		var row results.Row
		row.Set("motif", string(mc.Motif))
		row.Set("crc_error_rate", crc.Float64())
		row.Set("drop_rate", drop.Float64())
		row.Set("nic_stall_us", pt.stall.Microseconds())
		row.Set("link_down_us", pt.down.Microseconds())
		ok := runErr == nil && r != nil && r.MPI.Received == r.MPI.Sends && r.MPI.BytesReceived == r.MPI.BytesSent
		if ok && mc.Verify {
			ok = r.Corrupt == 0 && r.Duplicates == 0 && r.Verified == r.Sent
		}
		if ok {
			row.Set("delivered", "ok")
		} else {
			row.Set("delivered", "LOST")
			lost++
		}
		if r != nil {
			if r.Report != nil {
				res.reports = append(res.reports, r.Report)
			}
			row.Set("messages_sent", r.MPI.Sends)
			row.Set("messages_received", r.MPI.Received)
			row.Set("bytes_sent", r.MPI.BytesSent)
			row.Set("bytes_received", r.MPI.BytesReceived)
			row.Set("retries", r.Retries)
			if mc.Verify {
				row.Set("payloads_intact", r.Verified)
				row.Set("payloads_corrupt", r.Corrupt)
				row.Set("payloads_twice", r.Duplicates)
			}
			if pc.Portals.Recovery == "gbn" {
				row.Set("retransmits", r.GBN.Retransmits)
				row.Set("refusals", r.GBN.Refusals)
				row.Set("refused_resources", r.GBN.Refused)
				row.Set("cam_swaps", r.GBN.Swaps)
				row.Set("timeouts", r.GBN.Timeouts)
			}
		}
		if ok {
			row.Set("iter_time_us", r.IterTime.Microseconds())
			if pt == (point{}) {
				base = r.IterTime
			}
			if base > 0 {
				row.Set("time_lost_pct", 100*(r.IterTime.Seconds()/base.Seconds()-1))
			}
		}
		if runErr != nil {
			row.Set("error", firstLine(runErr.Error()))
		}
		res.rows = append(res.rows, row)
	}
	lostMsg := fmt.Sprintf("%d of %d points LOST data: the workload did not deliver every message exactly once", lost, len(res.rows))
	if lost > 0 {
		res.notes = append(res.notes, lostMsg+" (the rows with delivered LOST; the simulations completed, the command exited 1)")
	}
	if err := c.finishSingle(cmd, out, "faults", []string{"motif", "crc_error_rate", "drop_rate", "nic_stall_us", "link_down_us"}, tree, localFlags(cmd), res, start); err != nil {
		return failed(err)
	}
	if out.dir != "" {
		varied := map[string]bool{"crc_error_rate": len(crcs) > 1, "drop_rate": len(drops) > 1, "nic_stall_us": len(stalls) > 1, "link_down_us": len(downs) > 1}
		if err := faultPlots(out.dir, varied); err != nil {
			return failed(err)
		}
	}
	if lost > 0 {
		fmt.Fprintln(cmd.ErrOrStderr(), "run: faults: "+lostMsg)
		return failed(errDataLost)
	}
	return nil
}

// faultValues parses flag's list as values of the parameter key (its own syntax,
// ranges too, as --vary takes them) and converts each value's canonical text.
func faultValues[T any](tree *params.Tree, flag, key, list string, conv func(string) (T, error)) ([]T, error) {
	vals, err := tree.ParseList(key, list)
	if err != nil {
		return nil, usage(fmt.Errorf("--%s: %w", flag, err))
	}
	out := make([]T, len(vals))
	for i, v := range vals {
		if out[i], err = conv(v); err != nil {
			return nil, usage(fmt.Errorf("--%s: %w", flag, err))
		}
	}
	return out, nil
}

// faultPlots draws, into DIR/plots, the time lost and the iteration time against each
// fault setting the campaign varied, one curve per combination of the others.
func faultPlots(dir string, varied map[string]bool) error {
	t, err := results.ReadTable(dir)
	if err != nil {
		return err
	}
	for _, x := range []string{"crc_error_rate", "drop_rate", "nic_stall_us", "link_down_us"} {
		if !varied[x] {
			continue
		}
		for _, metric := range []string{"time_lost_pct", "iter_time_us"} {
			pl := &results.XYPlot{Title: "run faults", X: x, Metric: metric}
			cs, err := t.Curves(pl)
			if err != nil {
				continue // no point delivered: nothing to draw
			}
			p, _, err := results.DrawXY(pl, cs)
			if err != nil {
				continue
			}
			if err := os.MkdirAll(filepath.Join(dir, "plots"), 0o755); err != nil {
				return err
			}
			if _, err := results.WriteFigure(p, filepath.Join(dir, "plots"), results.PlotFileName(metric, x)); err != nil {
				return err
			}
		}
	}
	return nil
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
