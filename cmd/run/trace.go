package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/traces"
	"github.com/spf13/pflag"
)

// traceFlags are the tracing flags of every simulation command (docs/design.md sections 7, 8).
type traceFlags struct {
	otlp     string
	file     string
	sample   actors.Prob
	epoch    string
	ring     string
	scale    int64
	timeline string
}

func (t *traceFlags) register(f *pflag.FlagSet) {
	t.sample = actors.MustParseProb("1")
	f.StringVar(&t.otlp, "trace-otlp", "", "export one trace per message over OTLP: host:port or grpc://host:port (gRPC), http://host:port[/v1/traces] (HTTP)")
	f.StringVar(&t.file, "trace-file", "", "write every span to this file, one JSON object per line, times in simulated picoseconds")
	f.Var(newTextValue(&t.sample, "ratio"), "trace-sample", "fraction of messages traced, chosen by message id (0.01 or 1%)")
	f.StringVar(&t.epoch, "trace-epoch", "now", "wall-clock time of simulated time 0 in exported spans: now (the run's start, whole seconds) or RFC 3339")
	f.Int64Var(&t.scale, "trace-time-scale", 1000, "exported OTLP span times stretch simulated time by this factor (1000: 1 ns shows as 1 us), so that stages of tens of nanoseconds are visible in Jaeger, which keeps microseconds; spans keep the exact picoseconds in sim.start_ps and sim.end_ps, and the trace file is not scaled")
	f.StringVar(&t.timeline, "trace-timeline", "", "write a timeline of the run in the Chrome trace-event format (open it in the Perfetto UI or chrome://tracing): a process per node, a track per block, the sampled messages' stages with flows between them, and queue depths as counters")
	f.StringVar(&t.ring, "trace-ring", "", "write the firmware trace rings of the PPCs to this file (with --set ppc.trace_enabled=true); read it with run tracedump")
}

// tracing is the tracing of one command: nil when no tracing flag is set.
type tracing struct {
	flags *traceFlags
	col   *traces.Collector
	epoch time.Time
}

// startTracing checks the tracing flags against the configuration and starts a
// collector if any is set. Its errors are usage errors.
func (c *common) startTracing(cfg *Config, command string) (*tracing, error) {
	t := &c.trace
	if t.given(true) == "" {
		return nil, nil
	}
	epoch := time.Now().UTC().Truncate(time.Second) // Jaeger's default search window finds it
	if t.epoch != "now" {
		e, err := time.Parse(time.RFC3339Nano, t.epoch)
		if err != nil {
			return nil, usage(fmt.Errorf("--trace-epoch: %q is neither now nor an RFC 3339 time", t.epoch))
		}
		epoch = e
	}
	if t.scale < 1 {
		return nil, usage(fmt.Errorf("--trace-time-scale must be >= 1 (got %d)", t.scale))
	}
	if t.ring != "" && cfg != nil && !cfg.Params.PPC.TraceEnabled {
		return nil, usage(fmt.Errorf("--trace-ring: the firmware trace points are compiled out: add --set ppc.trace_enabled=true"))
	}
	sample := t.sample
	if t.given(false) == "" {
		sample = actors.Prob{} // rings only
	}
	col, err := traces.New(traces.Config{Sample: sample, File: t.file, OTLP: t.otlp, Epoch: epoch, TimeScale: t.scale, Timeline: t.timeline, Seed: c.seed,
		Attrs: map[string]string{"seastar.command": command, "seastar.args": strings.Join(c.args, " ")}})
	if err != nil {
		return nil, usage(fmt.Errorf("%s: %w", t.given(false), err))
	}
	return &tracing{flags: t, col: col, epoch: epoch}, nil
}

// given names the tracing flags set that write or export spans, and --trace-ring too if
// ring; "" if none is set.
func (t *traceFlags) given(ring bool) string {
	var names []string
	for _, f := range []struct{ name, v string }{{"--trace-file", t.file}, {"--trace-otlp", t.otlp}, {"--trace-timeline", t.timeline}} {
		if f.v != "" {
			names = append(names, f.name)
		}
	}
	if ring && t.ring != "" {
		names = append(names, "--trace-ring")
	}
	return strings.Join(names, ", ")
}

// hook is the engine's tracing hook (nil when tracing is off).
func (t *tracing) hook() func(int) actors.Tracer {
	if t == nil {
		return nil
	}
	return t.col.Tracer
}

// traceReport is the tracing part of the run report.
type traceReport struct {
	Sample   string `json:"sample"`
	File     string `json:"file,omitempty"`
	OTLP     string `json:"otlp,omitempty"`
	Timeline string `json:"timeline,omitempty"`
	Epoch    string `json:"epoch,omitempty"`
	Traces   int64  `json:"traces"`
	Spans    int64  `json:"spans"`
	Written  int64  `json:"written"`
	Exported int64  `json:"exported"`
	Dropped  int64  `json:"dropped"`
	Error    string `json:"error,omitempty"`
	// Timeline counts: stages and counter values written, and those beyond the bounds
	// with the simulated time from which they were left out.
	TimelineStages          int64  `json:"timeline_stages,omitempty"`
	TimelineCounters        int64  `json:"timeline_counters,omitempty"`
	TimelineStagesDropped   int64  `json:"timeline_stages_dropped,omitempty"`
	TimelineCountersDropped int64  `json:"timeline_counters_dropped,omitempty"`
	TimelineCut             string `json:"timeline_cut,omitempty"`
	RingFile                string `json:"ring_file,omitempty"`
	Rings                   int    `json:"rings,omitempty"`
}

// finish flushes and exports the spans, writes the trace rings and returns the report.
// An export that failed is reported (the error and the dropped spans, and a warning on
// stderr), not fatal: the simulation's results stand.
func (t *tracing) finish(stderr io.Writer) (*traceReport, error) {
	if t == nil {
		return nil, nil
	}
	st := t.col.Close()
	r := &traceReport{Sample: t.flags.sample.String(), File: t.flags.file, OTLP: t.flags.otlp, Timeline: t.flags.timeline, Traces: st.Traces,
		Spans: st.Spans, Written: st.Written, Exported: st.Exported, Dropped: st.Dropped}
	if t.flags.otlp != "" {
		r.Epoch = t.epoch.Format(time.RFC3339Nano)
	}
	if t.flags.timeline != "" {
		tl := st.Timeline
		r.TimelineStages, r.TimelineCounters = tl.Stages, tl.Counters
		r.TimelineStagesDropped, r.TimelineCountersDropped = tl.StagesDropped, tl.CountersDropped
		var cuts []string
		if tl.StagesDropped > 0 {
			cuts = append(cuts, fmt.Sprintf("%d stages from %s", tl.StagesDropped, tl.StagesCut))
		}
		if tl.CountersDropped > 0 {
			cuts = append(cuts, fmt.Sprintf("%d counter values from %s", tl.CountersDropped, tl.CountersCut))
		}
		if len(cuts) > 0 {
			r.TimelineCut = strings.Join(cuts, ", ")
			fmt.Fprintf(stderr, "run: warning: the timeline %s is bounded: it leaves out %s (simulated time) on; counters are not sampled: fewer iterations or sizes (or a lower --trace-sample for stages) cover the run\n",
				t.flags.timeline, r.TimelineCut)
		}
	}
	if t.flags.given(false) != "" && st.Traces == 0 {
		// An empty trace is not an error, but it must not pass for a trace: the traffic
		// generator's packets carry no trace id (docs/design.md s.7 names the traced
		// messages).
		fmt.Fprintf(stderr, "run: warning: tracing: no message was traced (sample %s): this benchmark's messages carry no trace id "+
			"(Portals, CCI, Portals 4, StarT-JR and raw DMA messages do; the traffic generator's packets do not), or --trace-sample picked none of them\n", r.Sample)
	}
	if st.Err != nil {
		r.Error = st.Err.Error()
		fmt.Fprintf(stderr, "run: warning: tracing: %v (%d spans dropped)\n", st.Err, st.Dropped)
	}
	if t.flags.ring != "" {
		rings := t.col.Rings()
		f, err := os.Create(t.flags.ring)
		if err != nil {
			return r, fmt.Errorf("--trace-ring: %w", err)
		}
		if err := traces.WriteRings(f, rings); err != nil {
			f.Close()
			return r, fmt.Errorf("--trace-ring: %w", err)
		}
		if err := f.Close(); err != nil {
			return r, fmt.Errorf("--trace-ring: %w", err)
		}
		r.RingFile, r.Rings = t.flags.ring, len(rings)
	}
	return r, nil
}

// String is the report's line in the table output.
func (r *traceReport) String() string {
	var parts []string
	if r.File != "" || r.OTLP != "" {
		s := fmt.Sprintf("%d traces (sample %s), %d spans", r.Traces, r.Sample, r.Spans)
		if r.File != "" {
			s += fmt.Sprintf(", %d written to %s", r.Written, r.File)
		}
		if r.OTLP != "" {
			s += fmt.Sprintf(", %d exported to %s (epoch %s)", r.Exported, r.OTLP, r.Epoch)
		}
		if r.Dropped > 0 {
			s += fmt.Sprintf(", %d dropped", r.Dropped)
		}
		parts = append(parts, s)
	}
	if r.Timeline != "" {
		s := fmt.Sprintf("timeline %s: %d stages, %d counter values", r.Timeline, r.TimelineStages, r.TimelineCounters)
		if r.TimelineCut != "" {
			s += " (bounded: left out " + r.TimelineCut + " on)"
		}
		parts = append(parts, s)
	}
	if r.RingFile != "" {
		parts = append(parts, fmt.Sprintf("%d firmware trace rings in %s", r.Rings, r.RingFile))
	}
	if r.Error != "" {
		parts = append(parts, "error: "+r.Error)
	}
	return strings.Join(parts, "; ")
}

// refuseTracing is the error of commands that have no messages to trace, naming the
// tracing flags given.
func (c *common) refuseTracing(what string) error {
	if flags := c.trace.given(true); flags != "" {
		return usage(fmt.Errorf("%s: %s", flags, what))
	}
	return nil
}
