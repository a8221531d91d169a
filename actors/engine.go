package actors

import (
	"context"
	"fmt"
	"maps"
	"runtime"
	"time"
)

// EngineKind selects an engine.
type EngineKind string

// Engines.
const (
	// Serial is the reference engine: one event queue, strictly in key order.
	Serial EngineKind = "serial"
	// Parallel is the conservative window-synchronized engine on protoactor-go.
	Parallel EngineKind = "parallel"
)

// ParseEngine parses "serial" or "parallel".
func ParseEngine(s string) (EngineKind, error) {
	switch EngineKind(s) {
	case Serial, Parallel:
		return EngineKind(s), nil
	}
	return "", configErrorf("unknown engine %q (want serial or parallel)", s)
}

// Options configures a run. The zero value runs the parallel engine with automatic
// partitioning over GOMAXPROCS workers, seed 0, until no events remain.
type Options struct {
	// Seed is the root of every actor's random stream.
	Seed uint64
	// End bounds the run: events at or after End are not delivered. 0 means no bound.
	End Time
	// Engine is Serial or Parallel (default).
	Engine EngineKind
	// Workers is the number of goroutines executing partitions (parallel engine);
	// default runtime.GOMAXPROCS(0). Results do not depend on it.
	Workers int
	// Partitioner groups actors into partitions (parallel engine); default Auto.
	// Results do not depend on it.
	Partitioner Partitioner
	// Sync is the synchronization mode of the parallel engine; default SyncAuto.
	// Results do not depend on it.
	Sync SyncMode
	// Tracer, if set, returns the tracing hook of each partition (0-based index).
	Tracer func(partition int) Tracer
	// Progress, if set, is called about every ProgressEvery (default 1 s) of wall time
	// with a snapshot of the run, from one goroutine at a time.
	Progress      func(Progress)
	ProgressEvery time.Duration
	// Work, if set, is where the model's drivers count their progress in their own
	// units (see Work); Progress reports its Fraction. Results do not depend on it.
	Work *Work
	// OnLayout, if set, is called once the parallel engine has partitioned the model,
	// before it runs, with the partition sizes, cut links and lookahead.
	OnLayout func(Layout)
	// Cluster, if set, splits the run across the processes of a multi-process session
	// (see Connect and Listen); every process of the session runs the same sequence of
	// runs with its end of the session. Results do not depend on it.
	Cluster *Cluster
	// LowPriority runs the parallel engine's worker threads at the lowest CPU priority
	// the system has (Linux: SCHED_IDLE), where it allows it (ProbeLowPriority), so that
	// any other thread takes a CPU from them as soon as it wakes: in a run across
	// processes, those that carry the window reports, which otherwise wait for a
	// worker's time slice when the workers fill the CPUs. For a machine given to the
	// run: other load comes first. Its workers do not steal partitions from each other
	// (each worker's thread is its own). Results do not depend on it.
	LowPriority bool
}

// ProbeLowPriority reports whether this process's threads may take the lowest CPU
// priority (Options.LowPriority), by moving a thread of its own there.
func ProbeLowPriority() error {
	errc := make(chan error)
	go func() {
		runtime.LockOSThread() // never unlocked: the runtime ends the thread with the goroutine
		errc <- lowerPriority()
	}()
	return <-errc
}

// finish calls a's Finish method if it has one.
func finish(a Actor) {
	if f, ok := a.(Finisher); ok {
		f.Finish()
	}
}

func (o *Options) setDefaults() error {
	if o.End == 0 {
		o.End = MaxTime
	}
	if o.End < 0 {
		return configErrorf("end time %s is negative", o.End)
	}
	if o.Engine == "" {
		o.Engine = Parallel
	}
	if _, err := ParseEngine(string(o.Engine)); err != nil {
		return err
	}
	if o.Workers == 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Workers < 0 {
		return configErrorf("workers must be >= 1 (got %d)", o.Workers)
	}
	if _, err := ParseSyncMode(string(o.Sync)); err != nil {
		return err
	}
	if o.Partitioner == nil {
		o.Partitioner = Auto{}
	}
	if o.ProgressEvery <= 0 {
		o.ProgressEvery = time.Second
	}
	if a, ok := o.Partitioner.(Auto); ok && o.Cluster != nil {
		a.MinActors = 0 // every process needs partitions
		o.Partitioner = a
	}
	if o.Cluster != nil && o.Engine == Serial {
		return configErrorf("the serial engine runs in one process; a multi-process run needs the parallel engine")
	}
	return nil
}

// Run executes the model until no event remains before opts.End, then returns the run
// report. A failure inside the simulation is returned as a *SimError; a model or option
// problem matches ErrConfig; cancelling ctx stops the run with ErrInterrupted, and the
// report then covers what ran before it (the simulated time reached, the events).
func Run(ctx context.Context, m *Model, opts Options) (*Report, error) {
	if err := opts.setDefaults(); err != nil {
		return nil, err
	}
	if m.used {
		return nil, configErrorf("model already ran: build a new graph for every run")
	}
	m.used = true
	if m.NumActors() == 0 {
		return nil, configErrorf("model has no actors")
	}
	run := runParallel
	if opts.Engine == Serial {
		run = runSerial
	}
	if opts.Engine != Serial && opts.Cluster == nil {
		actorSystem() // the process's, built once (a run across processes uses its session's): not this run's allocations
	}
	allocs0 := mallocs()
	rep, err := run(ctx, m, &opts)
	if rep != nil {
		rep.Model = maps.Clone(m.describe)
		rep.Allocs += mallocs() - allocs0 // (a run across processes has the others' already)
		if rep.startMallocs != 0 {
			rep.StartAllocs += rep.startMallocs - allocs0
		}
		for _, a := range m.actors {
			if c, ok := a.(PacketCounter); ok {
				rep.Packets += c.PacketsInjected()
			}
		}
	}
	for _, a := range m.actors { // again after a pool's finish: Finish may be called twice
		finish(a)
	}
	return rep, err
}

// String renders a one-line summary of the report.
func (r *Report) String() string {
	how := fmt.Sprintf("%s engine, %d partitions on %d workers", r.Engine, r.Partitions, r.Workers)
	if r.Sync != "" {
		how += " (" + string(r.Sync) + ")"
	}
	if r.Processes > 1 {
		how += fmt.Sprintf(" in %d processes", r.Processes)
	}
	return fmt.Sprintf("%s: %d events, sim %s in %s wall (%.3g events/s), digest %s",
		how, r.Events, r.SimTime, r.Wall.Round(time.Millisecond), r.EventsPerSec, r.Digest)
}

// mallocs is the process's count of heap allocations so far.
func mallocs() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.Mallocs
}
