package actors

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
)

// Report describes a finished run: what was simulated, how fast, and how the parallel
// engine spent its time. Everything except the wall-clock figures is deterministic.
type Report struct {
	Engine       EngineKind
	Workers      int    // dispatcher goroutines (1 for the serial engine)
	Partitioning string // partitioner name
	Partitions   int
	Sync         SyncMode // synchronization mode of the parallel engine
	Processes    int      // OS processes that shared the run (0 or 1: one)

	Events  uint64 // events delivered
	SimTime Time   // simulated time covered: End if events remained, else the last event time
	End     Time   // the run's end bound (MaxTime if none)
	Digest  string // hex digest of the delivered-event stream, equal across engines

	Wall         time.Duration // wall time of the event loop (excludes model build)
	EventsPerSec float64       // Events / Wall
	SimPerWall   float64       // simulated seconds per wall second

	Windows uint64 // synchronization barriers: windows, and in horizon mode epochs (Epochs of them)
	// Epochs is how many of the barriers were horizon epochs: in horizon mode the
	// coordinator runs windows for a while after epochs spent mostly polling.
	Epochs     uint64
	Lookahead  Duration // static lookahead: min latency of links crossing partitions
	MeanWindow Duration // mean width of the windows or epochs executed (after skip-ahead; a solo window counts as far as its last event, at least a lookahead)
	CutLinks   int      // links crossing partitions
	// AheadRuns counts, in a run across processes, the windows partitions ran ahead
	// while the window's reports travelled (summed over processes; see
	// exchange.runAhead); 0 in one process.
	AheadRuns uint64
	// ProcessBusy is, in a run across processes, each process's partitions' busy time
	// summed (PartitionStats.Busy), by process index; nil in one process. Against
	// Workers times Wall it is how much of the run a process spent running windows
	// rather than waiting for the others' reports or for work. Wall-clock, like Busy.
	ProcessBusy []time.Duration

	PeakRSS int64 // peak resident memory of the process in bytes (Linux; 0 elsewhere); the largest over processes
	// Allocs is the number of heap allocations made during the run (Go's runtime
	// counter, whole process: tracing's exporter included; summed over the processes of
	// a run across processes). Allocs/Events is the allocation rate per event.
	Allocs uint64
	// StartAllocs is the part of Allocs made before the first event: the engine's
	// setup and the actors' Start (the processes, programs and buffers a model makes
	// once). Allocs-StartAllocs is what running the events allocated.
	StartAllocs uint64
	// startMallocs is the runtime's allocation count when the actors' Start finished
	// (0: it did not), this process's; Run turns it into StartAllocs.
	startMallocs uint64
	// Packets is the number of network packets the model's NICs injected (actors that
	// are PacketCounters; summed over the processes of a run across processes): with
	// Events and Allocs, the engine events and heap allocations per packet.
	Packets uint64
	// Blocks is the run's events by kind of actor (every process's in a run across
	// processes), the most events first: where a model's events go, a hardware block's
	// model against another's (with Packets, events a packet by block).
	Blocks []BlockEvents

	Parts []PartitionStats

	// Model holds the facts the model's builders recorded with Graph.Describe (the
	// topology built, the node count), nil if none.
	Model map[string]string
}

// PacketCounter is an actor that injects network packets (a NIC's transmit engine):
// the report sums what they injected.
type PacketCounter interface {
	PacketsInjected() uint64
}

// BlockEvents is the share of one kind of actor in a run's events: the actors of one
// Go type, a hardware block's model (router.Port, txdma.Engine) or a protocol's.
type BlockEvents struct {
	Block  string // the actors' type, package-qualified, without a pointer's star
	Actors int    // actors of that type in the model
	Events uint64 // events delivered to them
}

// blockEvents sums the events of st's actors by their type, most events first (then
// by name), the types with no event included.
func blockEvents(st []actorState) []BlockEvents {
	var t blockTally
	for i := range st {
		b := t.at(strings.TrimPrefix(reflect.TypeOf(st[i].actor).String(), "*"))
		b.Actors++
		b.Events += st[i].events
	}
	return t.sorted()
}

// MergeBlocks combines the events by block of several runs (Report.Blocks): the events
// of a kind summed, its actors those of the run that had the most of them.
func MergeBlocks(runs ...[]BlockEvents) []BlockEvents {
	var t blockTally
	for _, r := range runs {
		for _, x := range r {
			b := t.at(x.Block)
			b.Actors = max(b.Actors, x.Actors)
			b.Events += x.Events
		}
	}
	return t.sorted()
}

// blockTally gathers BlockEvents by kind, in the order the kinds first come.
type blockTally struct {
	idx map[string]int
	out []BlockEvents
}

// at returns the entry of block, added empty if it is new.
func (t *blockTally) at(block string) *BlockEvents {
	k, ok := t.idx[block]
	if !ok {
		if t.idx == nil {
			t.idx = map[string]int{}
		}
		k = len(t.out)
		t.idx[block] = k
		t.out = append(t.out, BlockEvents{Block: block})
	}
	return &t.out[k]
}

// sorted returns the entries, the most events first, then by name.
func (t *blockTally) sorted() []BlockEvents {
	slices.SortFunc(t.out, func(x, y BlockEvents) int {
		return cmp.Or(cmp.Compare(y.Events, x.Events), strings.Compare(x.Block, y.Block), cmp.Compare(x.Actors, y.Actors))
	})
	return t.out
}

// PartitionStats is the share of one partition in a run.
type PartitionStats struct {
	Name        string // first actor of the partition, for orientation
	Actors      int
	Events      uint64
	Activations uint64        // windows or epochs the partition ran
	Busy        time.Duration // wall time spent executing windows (estimated from a sample above 64 partitions)
	Wait        time.Duration // wall time not executing: blocked on the barrier or idle
}

// finish computes the digest and the derived rates.
func (r *Report) finish(st []actorState) {
	h := mix64(uint64(len(st)))
	for i := range st {
		h = mix64(h ^ st[i].digest)
		h = mix64(h ^ st[i].events)
	}
	r.Digest = fmt.Sprintf("%016x", h)
	r.Blocks = blockEvents(st)
	r.PeakRSS = peakRSS()
	if s := r.Wall.Seconds(); s > 0 {
		r.EventsPerSec = float64(r.Events) / s
		r.SimPerWall = r.SimTime.Seconds() / s
	}
	for i := range r.Parts {
		r.Parts[i].Wait = max(0, r.Wall-r.Parts[i].Busy)
	}
}

// simTimeCovered is how far the run got: to End when events remained, otherwise to the
// last delivery.
func simTimeCovered(st []actorState, pending bool, end Time) Time {
	if pending && end != MaxTime {
		return end
	}
	var last Time
	for i := range st {
		last = max(last, st[i].clock)
	}
	return last
}

// Progress is a snapshot of a running simulation, for progress lines and bars.
type Progress struct {
	Now    Time          // simulated time reached
	End    Time          // end bound, MaxTime if none
	Events uint64        // events delivered so far
	Wall   time.Duration // wall time since the event loop started
	// Fraction is the share of Options.Work done, in [0, 1], or -1 without one.
	Fraction float64
}

// progressTicker calls Options.Progress at most once per Options.ProgressEvery.
type progressTicker struct {
	fn    func(Progress)
	every time.Duration
	start time.Time
	last  time.Time
	end   Time
	work  *Work
}

func newProgressTicker(opts *Options, start time.Time) *progressTicker {
	return &progressTicker{fn: opts.Progress, every: opts.ProgressEvery, start: start, last: start, end: opts.End, work: opts.Work}
}

func (p *progressTicker) tick(now Time, events uint64) {
	if p.fn == nil {
		return
	}
	t := time.Now()
	if t.Sub(p.last) < p.every {
		return
	}
	p.last = t
	p.fn(Progress{Now: now, End: p.end, Events: events, Wall: t.Sub(p.start), Fraction: p.work.Fraction()})
}
