package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/internal/results"
	"github.com/seastar-sim/seastar/motifs"
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
	var state *motifState
	cmd := &cobra.Command{
		Use:   "faults",
		Short: "A fault campaign: a motif run under injected faults, checked end to end for exactly-once delivery",
		Long: `faults runs an MPI motif (--motif, default hotspot, and the motif's flags) once per
fault setting: every value of --crc (router.crc_error_rate: link transmissions that fail
their 16-bit CRC; the SeaStar's link-level retry repeats them, Dillow & Atchley 2011
s.II) combined with every value of --drop (rxdma.drop_rate: messages lost at the
receiving NIC; Portals 3.3 has no end-to-end recovery, so such a loss is expected to
show as LOST). Each point is checked end to end: every rank finished, the receives
completed equal the messages sent and the bytes received equal the bytes sent. Rows:
the fault setting, delivered (ok or LOST), messages and bytes sent and received, the
router retries, the iteration time and the time lost against the fault-free point.
A campaign with a LOST point says so on stderr and exits 1. The results directory
holds the rows in the common schema (docs/results.md); plot them with run plot, e.g.
--x crc_error_rate --y iter_time_us.`,
		Example: `  run faults
  run faults --crc 0,1e-4,1e-3,1e-2 --motif halo3d --torus 4x4x4 --iters 3
  run faults --crc 0 --drop 0,0.001 --motif pingpong --torus 2x1x1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return c.runFaults(cmd, state, crc, drop) },
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
	return cmd
}

func (c *common) runFaults(cmd *cobra.Command, state *motifState, crcList, dropList string) error {
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
	// The lists of the parameters' own values (ranges too), as --vary takes them.
	parse := func(flag, key, list string) ([]actors.Prob, error) {
		vals, err := tree.ParseList(key, list)
		if err != nil {
			return nil, usage(fmt.Errorf("--%s: %w", flag, err))
		}
		out := make([]actors.Prob, len(vals))
		for i, v := range vals {
			out[i] = actors.MustParseProb(v) // canonical text of a valid probability
		}
		return out, nil
	}
	crcs, err := parse("crc", "router.crc_error_rate", crcList)
	if err != nil {
		return err
	}
	drops, err := parse("drop", "rxdma.drop_rate", dropList)
	if err != nil {
		return err
	}
	out, err := c.newOutput("faults", false)
	if err != nil {
		return err
	}
	start := time.Now()
	res := &benchOutput{}
	var base actors.Duration
	lost := 0
	for _, crc := range crcs {
		for _, drop := range drops {
			pc := *cfg
			pc.Router.CRCErrorRate, pc.RXDMA.DropRate = crc, drop
			mc, err := state.plan(&pc, opts.Seed)
			if err != nil {
				return err
			}
			if !c.quiet {
				fmt.Fprintf(cmd.ErrOrStderr(), "faults: crc_error_rate %s, drop_rate %s\n", crc, drop)
			}
			o := opts
			// A loss leaves ranks waiting forever: bound the run far beyond the fault-free one.
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
			ok := runErr == nil && r != nil && r.MPI.Received == r.MPI.Sends && r.MPI.BytesReceived == r.MPI.BytesSent
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
				if pc.Portals.Recovery == "gbn" {
					row.Set("retransmits", r.GBN.Retransmits)
					row.Set("refusals", r.GBN.Refusals)
					row.Set("refused_resources", r.GBN.Refused+r.GBN.RefusedCAM)
					row.Set("timeouts", r.GBN.Timeouts)
				}
			}
			if ok {
				row.Set("iter_time_us", r.IterTime.Microseconds())
				if crc == (actors.Prob{}) && drop == (actors.Prob{}) {
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
	}
	if err := c.finishSingle(cmd, out, "faults", []string{"motif", "crc_error_rate", "drop_rate"}, tree, localFlags(cmd), res, start); err != nil {
		return failed(err)
	}
	if lost > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "run: faults: %d of %d points LOST data: the workload did not deliver every message exactly once\n",
			lost, len(res.rows))
		return failed(errDataLost)
	}
	return nil
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
